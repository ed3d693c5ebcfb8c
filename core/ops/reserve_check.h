#pragma once
// Flags reserve spaces that do not fit x: in training mode reserve_space_1/2 should be the batch
// mean and (per the declared convention) the batch variance or inverse std of x itself.

#include <vector>

#include "ops/prepared.h"

namespace bnscope {

// Notes (kind Warning, code "reserve-mismatch" or "reserve-convention") for grad ops in
// training mode; empty otherwise. One pass over x in float64 (ops/moments.h), kept in
// p.x_moments, or none when earlier holds x's moments of the same buffer, shape and view.
// prepare() attaches them (ops/input_health.h).
std::vector<Note> check_reserve_spaces(Prepared& p, const Prepared* earlier = nullptr);

}  // namespace bnscope
