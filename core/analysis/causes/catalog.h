#pragma once
// The cause catalog: one row per cause with what it means, how it is detected, how far the
// detection can be trusted and the change that fixes it. The search runs the rows' detectors;
// Apply fix, the CLI's suggestion line and the reports read the rows; nothing else lists causes.

#include <span>
#include <string_view>
#include <vector>

#include "analysis/causes/search.h"

namespace bnscope::causes {

// Makes the fix on the problem (on `channels` of it when not empty: the subsample the search
// runs); throws Error naming what does not apply.
using ApplyFix = void (*)(Problem&, const OpSpec&, const FixStep&,
                          const std::vector<std::int64_t>& channels);

struct CauseSpec {
  std::string_view code;
  std::string_view name;        // "epsilon mismatch"
  std::string_view meaning;     // what the reference did differently
  std::string_view detection;   // how the search finds it
  std::string_view confidence;  // how far a finding can be trusted
  std::string_view fix;         // the change, in words; empty: no change fixes it
  Detector detect = nullptr;    // nullptr: read from the comparison (or said, never fitted)
  ApplyFix apply = nullptr;     // nullptr: no change to the problem fixes it
};

std::span<const CauseSpec> cause_catalog();
const CauseSpec* find_cause_spec(std::string_view code);  // nullptr when unknown

// Each step's row applies its change, in order.
void apply_steps(Problem& p, const OpSpec& op, const std::vector<FixStep>& steps,
                 const std::vector<std::int64_t>& channels);

}  // namespace bnscope::causes
