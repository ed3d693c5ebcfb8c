#pragma once
// Flags reserve spaces that do not fit x: in training mode reserve_space_1/2 should be the batch
// mean and (per the declared convention) the batch variance or inverse std of x itself.

#include <vector>

#include "ops/prepared.h"

namespace bnscope {

// Notes (kind Warning, code "reserve-mismatch" or "reserve-convention") for grad ops in
// training mode; empty otherwise. Two passes over x in float64 (ops/moments.h). prepare() attaches
// them (ops/input_health.h).
std::vector<Note> check_reserve_spaces(const Prepared& p);

}  // namespace bnscope
