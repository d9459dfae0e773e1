#pragma once
// What a per-warp timeline view needs besides drawing: the blocks a recorded timeline holds (the
// SM picker), one block's spans, one steady-state iteration of a warp (the "one iteration" zoom),
// and the window of cycles shown under zoom and pan. Used by the pipeline scene's measured mode and
// by the view of a user's own timeline file (`tilescope --timeline F.json`).
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/engine.hpp"
#include "viz/lesson/pipeline_model.hpp"

namespace ts::viz {

// A block a timeline recorded, and the SM it ran on (the GPU's own SM id when measured).
struct RecordedBlock {
  uint32_t block = 0, sm = 0;
  size_t spans = 0;
};
// Every block of `spans`, by block index.
std::vector<RecordedBlock> recorded_blocks(const std::vector<sim::Span>& spans);

// Block `block`'s spans, shifted to start at cycle 0, its SM renumbered `as_sm` (empty when the
// timeline has no such block).
std::vector<sim::Span> block_spans(const std::vector<sim::Span>& spans, uint32_t block, uint32_t as_sm);

// One steady-state iteration of a warp (a k-iteration of the GEMM, a key block of attention), from
// one of its anchor ops (its wgmma group commits, or for a warp without wgmma its mbarrier waits) to
// the `per_iteration`-th next one; of those in the middle half of its run (no prologue, no
// drain), the one of median length, so a typical iteration rather than one stretched by an
// epilogue. nullopt when the warp has no anchor op or fewer than four iterations.
std::optional<Interval> steady_iteration(const std::vector<GanttBar>& bars, uint32_t per_iteration = 1);
// How many of a row's anchor ops make one iteration: the producer fills one stage of the ring per
// iteration and waits for it to be free once per fill, so the row's anchors over the producer's
// waits, rounded (the GEMM's consumers commit one wgmma group per k-iteration: 1; attention's
// two per key block, S = Q K^T and O += P V: 2). Where `m` recorded no producer (a recording of
// chosen warps), the same warp of `same_kernel` (the other timeline of the configuration) says;
// else 1.
uint32_t anchors_per_iteration(const PipelineModel& m, const GanttRow& row, const PipelineModel* same_kernel = nullptr);

// A window of cycles, and what the mouse does to it; each result lies inside [lo, hi] and is at
// least kMinWindow cycles wide (or all of [lo, hi] when that is narrower).
struct TimeWindow {
  double t0 = 0, t1 = 0;
  double width() const { return t1 - t0; }
};
inline constexpr double kMinWindow = 16;
// `factor` < 1 zooms in, > 1 out, keeping cycle `at` where it is on the screen.
TimeWindow zoom_window(TimeWindow w, double at, double factor, double lo, double hi);
// Moves the window by `by` cycles, stopping at the ends.
TimeWindow pan_window(TimeWindow w, double by, double lo, double hi);
// [t0, t1] with t1 - t0 widened to kMinWindow and both moved inside [lo, hi].
TimeWindow clamp_window(TimeWindow w, double lo, double hi);

}  // namespace ts::viz
