#pragma once
// What the pipeline scene shows, from the simulator's spans and barrier events of one SM: a Gantt
// row per warp with what its waiting went to, each sub-partition's tensor core busy and idle, each
// stage of the input ring loading or held, and simulated beside measured TFLOPS per stage count.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/measured.hpp"

namespace ts::viz {

struct Interval {
  double start = 0, end = 0;  // cycles
  double length() const { return end - start; }
};

struct GanttBar {
  double start = 0, end = 0;
  sim::OpKind kind{};
  uint32_t block = 0;
};

// Where a warp's waiting went, in cycles. A consumer's mbarrier wait is for data (its full
// barrier); the producer's is for a free stage (an empty barrier); an mma_wait is the warp waiting
// for its own wgmma, whose tensor core is busy meanwhile: not starved.
// A consumer waiting for data while its own previous wgmma still runs on its tensor core loses
// nothing; `starved` is the part of its data waits during which that core is idle.
struct WaitSummary {
  double data = 0, starved = 0, free_stage = 0, own_mma = 0, store = 0, sync = 0;
  double run = 0;  // the SM's run, first span to last: what the shares are of
};

struct GanttRow {
  uint32_t warp = 0;
  uint32_t sub_partition = 0;  // warp mod 4: the scheduler and tensor core it issues to
  bool producer = false;
  std::string label;  // "producer, warp 8", "consumer 0, warp 1"
  std::vector<GanttBar> bars;
  WaitSummary waits;
};

// One tensor core: the busy intervals of the wgmma quarters issued to it, and the gaps.
struct TensorCore {
  std::vector<Interval> busy, idle;  // idle: gaps inside [first, last]
  double idle_cycles = 0;
};

// One stage of the input ring: loading (expect_bytes until the full barrier's phase completes,
// the TMA copies in flight) or held by the consumers (from then until the empty barrier's phase
// completes: read by a wgmma, or kept because that wgmma may still be reading).
struct StageSpan {
  double start = 0, end = 0;
  bool loading = false;
};

inline constexpr uint32_t kSubPartitions = 4;

struct PipelineModel {
  std::vector<GanttRow> rows;          // the producer's warp first, then the consumers' warps
  std::array<TensorCore, kSubPartitions> tensor;  // per sub-partition
  std::vector<Interval> tensor_busy;   // the SM: any of its tensor cores busy
  std::vector<Interval> tensor_idle;   // the SM: all four idle, gaps inside [first, last]
  double first = 0, last = 0;          // the SM's first and last span
  double idle_cycles = 0;              // all four idle, inside [first, last]
  double idle_fraction() const { return last > first ? idle_cycles / (last - first) : 0; }
  // Stage rows, from the barrier events (empty when the run kept none).
  std::vector<std::vector<StageSpan>> stages;  // [slot]
  // The most stages loading at once, leaving out each block's first pass around the ring (which
  // finds every stage free): how far ahead the producer can run in steady state.
  uint32_t most_loading = 0;
};

PipelineModel pipeline_model(const GemmSim& sim, uint32_t sm);
// The same from any spans (a measured timeline's: no barrier events, so no stage rows).
PipelineModel pipeline_model(const std::vector<sim::Span>& spans, uint32_t sm);

// One stage count of the stage table: the simulation at the scene's shape and what the H100
// measured for the same shape and configuration (nullptr: not measured).
struct StageRow {
  uint32_t stages = 0;
  std::shared_ptr<const GemmSim> sim;  // nullptr while it runs
  const MeasuredGemm* measured = nullptr;
};
std::vector<StageRow> stage_table(const GemmKnobs& knobs, SimCache& sims, const MeasuredData& measured);

}  // namespace ts::viz
