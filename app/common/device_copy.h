#pragma once
// The device copy probe (gpu/copy_probe.h) of a GPU backend by name, for ProfileOptions:
// "cuda" and "cudnn" copy on the CUDA device when one is usable, "cuda-emu" on the emulator's
// host runtime (labelled emulated); empty for every other backend or where none is built.

#include <functional>
#include <string_view>

#include "profile/profiler.h"

namespace bnscope::app {
std::function<DeviceCopy(std::size_t)> device_copy_probe_for(std::string_view backend);
}
