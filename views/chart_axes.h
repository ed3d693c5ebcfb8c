#pragma once
// The axes of the per-channel charts: whole channel numbers, each once (one tick per channel
// while they fit, round steps beyond), also for one or two channels; and the value axis beside
// them, on round steps with labels that tell neighbouring ticks apart. Both may be set again and
// again on an axis that is shown: no step of the way asks the chart for more than a few hundred
// ticks (an interval left from a narrower range once did, and froze the window).

class QValueAxis;

namespace bnscope {

// Half a channel of margin either side, so that the first and last points are drawn whole.
void set_channel_axis(QValueAxis* axis, int channels);

// Ticks every 1, 2 or 5 times a power of ten, about five to ten of them, the ends on ticks
// around [lo, hi] and, where the range holds zero, a tick that reads exactly 0; as many
// significant digits as neighbouring ticks need to read differently (1.0000001 and 1.0000002
// included). lo > hi, non-finite ends and spans past the largest double fall back to a plain
// range.
void set_value_axis(QValueAxis* axis, double lo, double hi);

}  // namespace bnscope
