#pragma once
// One launch of a kernel's pass in trace mode: its name (what `tilescope sim --launch` takes) and
// its grid's op streams. A pass of several launches (the attention backward, a split GEMM) is a
// vector of these, in launch order.
#include <memory>
#include <string>

#include "sim/trace.hpp"

namespace ts::kernels {

struct TracedLaunch {
  std::string name;  // "forward"; "backward prep", "backward", "backward dq"; "gemm", "gemm tail", "split-K sum"
  std::unique_ptr<sim::GridTrace> grid;
};

}  // namespace ts::kernels
