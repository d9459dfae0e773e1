#pragma once
// The attention kernels' own sources in the host backend's trace mode: per-warp op streams of a
// whole grid, for the simulator (the forward, or the backward's main kernel).
#include <memory>
#include <stdexcept>

#include "kernels/attention/attention_api.hpp"
#include "sim/trace.hpp"

namespace ts::kernels {

#if TILESCOPE_HAVE_HOST_BACKEND
std::unique_ptr<sim::GridTrace> attention_grid_trace(const AttentionShape& shape, bool backward);
#else
inline std::unique_ptr<sim::GridTrace> attention_grid_trace(const AttentionShape&, bool) {
  throw std::invalid_argument("this build has no host backend (Boost.Context was not found), so no trace mode to simulate");
}
#endif

}  // namespace ts::kernels
