#pragma once
// How the app's process takes memory from the system, set once at start before any thread.

namespace bnscope {

// glibc's allocator gives every thread that ever allocated an arena of its own and keeps what is
// freed there for reuse; the runs', scans' and transpositions' threads come and go, so each step
// left a few hundred KB to a MB held in arenas nobody used any more. The app's threads allocate
// little and seldom (results, per-part figures; the tensors are mapped on their own): one arena
// for all of them. No effect with other C libraries.
void apply_memory_policy();

}  // namespace bnscope
