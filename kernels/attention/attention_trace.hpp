#pragma once
// The attention kernels' own sources in the host backend's trace mode: per-warp op streams of each
// grid a pass launches, in launch order, for the simulator (the forward: one kernel; the backward:
// the pre-pass, the main kernel and the dQ conversion, as attention_backward launches them).
#include <memory>
#include <stdexcept>
#include <vector>

#include "kernels/attention/attention_api.hpp"
#include "kernels/traced_launch.hpp"

namespace ts::kernels {

#if TILESCOPE_HAVE_HOST_BACKEND
// Throws std::invalid_argument for a shape or config that cannot run (validate(), resolve()).
std::vector<TracedLaunch> attention_grid_traces(const AttentionShape& shape, bool backward, const AttentionConfig& cfg, int sms);
#else
inline std::vector<TracedLaunch> attention_grid_traces(const AttentionShape&, bool, const AttentionConfig&, int) {
  throw std::invalid_argument("this build has no host backend (Boost.Context was not found), so no trace mode to simulate");
}
#endif

}  // namespace ts::kernels
