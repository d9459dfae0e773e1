#pragma once
// The measured per-warp timelines committed under data/measured/h100/timelines/ (recorded on the
// H100 by the instrumented build: kernels/stamps/), found by the GEMM configuration they ran, so
// that the pipeline scene can draw what the GPU did above what the simulator predicts.
#include <memory>
#include <string>

#include "sim/timeline.hpp"
#include "viz/lesson/gemm_sim.hpp"

namespace ts::viz {

struct MeasuredTimeline {
  std::string file;      // where it came from (data/measured/h100/timelines/...)
  sim::Timeline timeline;
};

// The measured timeline of this configuration (same shape, stages, tile, consumers, order,
// persistence, layout), or nullptr. The folder is read once; a file that does not parse is left
// out, and its reason is what `timeline_problems()` lists.
std::shared_ptr<const MeasuredTimeline> find_measured_timeline(const GemmRun& run);
std::vector<std::string> timeline_problems();

// The spans of the first recorded block of `t`, shifted to start at cycle 0, with the block's SM
// renumbered `as_sm` (the GPU's SM ids mean nothing to the scene).
std::vector<sim::Span> first_block_spans(const sim::Timeline& t, uint32_t as_sm);

}  // namespace ts::viz
