#pragma once
// Whether this machine can run our kernels, asked before any GPU verb starts, so that a machine
// without a GPU hears so in one line instead of a CUDA runtime error that blames the driver.
#include <string>

namespace ts::kernels {

// Empty when device 0 is a Hopper GPU (compute capability 9.0) with a working driver; otherwise one
// line saying what `verb` (e.g. "bench gemm") lacks.
std::string hopper_unavailable(const std::string& verb);

}  // namespace ts::kernels
