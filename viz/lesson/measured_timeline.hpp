#pragma once
// The measured per-warp timelines committed under data/measured/h100/timelines/ (recorded on the
// H100 by the instrumented build: kernels/stamps/), found by the configuration they ran, so that
// the pipeline scene (the GEMM) and the overlap scene (the attention forward) can draw what the GPU
// did above what the simulator predicts.
#include <memory>
#include <optional>
#include <string>

#include "sim/timeline.hpp"
#include "viz/lesson/attention_models.hpp"
#include "viz/lesson/attention_sim.hpp"
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

// The measured timeline of this attention forward, or nullptr: same N, D, mask, consumers and
// overlap (defaults resolved as the kernel resolves them), which fix what each block does; the batch
// and heads only change how many blocks run, so they may differ (the file's title names them).
std::shared_ptr<const MeasuredTimeline> find_measured_timeline(const AttentionRun& run);
// The overlap scene's measured track for `run`: the first recorded block's warpgroups, as the
// simulated rows are made (overlap_model), or nullopt when nothing was recorded for it.
std::optional<MeasuredTrack> measured_overlap_track(const AttentionRun& run);

// The spans of the first recorded block of `t`, shifted to start at cycle 0, with the block's SM
// renumbered `as_sm` (the GPU's SM ids mean nothing to the scene).
std::vector<sim::Span> first_block_spans(const sim::Timeline& t, uint32_t as_sm);

}  // namespace ts::viz
