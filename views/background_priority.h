#pragma once
// Background work yields to the UI thread. The app's jobs (runs, comparisons, profiles, loads,
// layout changes) keep every core busy for tenths of a second on a real layer; at the same
// priority the UI thread gets only its fair share of a core meanwhile, and its updates stretch
// into visible stalls on a 2-core machine. A job's thread lowers its own scheduling priority
// (Linux: its nice value) before it starts; the threads it starts (the backends' workers, the
// passes' parts) inherit it. Idle cores still go to the job: only the UI thread comes first.

namespace bnscope {

// Lowers the calling thread's priority once (later calls on that thread do nothing).
void yield_to_ui_thread();

}  // namespace bnscope
