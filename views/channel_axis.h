#pragma once
// The channel axis of the per-channel charts: whole channel numbers, each once (one tick per
// channel while they fit, round steps beyond), also for one or two channels.

class QValueAxis;

namespace bnscope {

void set_channel_axis(QValueAxis* axis, int channels);

}  // namespace bnscope
