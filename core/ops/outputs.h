#pragma once
// Output names, dtypes, shapes and definedness exactly as TensorFlow allocates them. Every
// backend calls this first and then fills the data, so the conventions live in one place.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/prepared.h"
#include "ops/result.h"

namespace bnscope {

// Reuses the allocations already in result when shapes and dtypes match.
void allocate_outputs(const Prepared& p, Result& result);

// The outputs TensorFlow writes for p: defined and holding at least one element. What a set of
// saved outputs must hold to stand in for a reference.
std::vector<std::string> written_outputs(const Prepared& p);

// The shape TensorFlow allocates for output `name` of p; empty optional when the op has none.
std::optional<Shape> output_shape(const Prepared& p, std::string_view name);

// TensorFlow's result for an input with zero elements (spec 3.2 step 8, 2.1 "Empty x").
void fill_empty_result(const Prepared& p, Result& result);

}  // namespace bnscope
