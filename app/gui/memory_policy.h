#pragma once
// How the app's process takes memory from the system, set once at start before any thread.

namespace bnscope {

// glibc's allocator gives every thread that ever allocated an arena of its own and keeps what is
// freed there for reuse; the runs', scans' and transpositions' threads come and go, so each step
// left a few hundred KB to a MB held in arenas nobody used any more. The app's threads allocate
// little and seldom (results, per-part figures; the tensors are mapped on their own): one arena
// for all of them.
// glibc also raises its threshold for mapping a block on its own to the size of each mapped block
// freed, up to 32 MiB, so after the first few MB-sized blocks (the cause search's channel blocks,
// readers' buffers) later ones came from the heap and stayed held when freed: 5-25 MiB more
// resident from step to step on a real layer. A fixed threshold of 1 MiB maps every such block
// on its own and gives it back when freed. No effect with other C libraries.
inline constexpr int kMapOnItsOwnBytes = 1 << 20;
void apply_memory_policy();

}  // namespace bnscope
