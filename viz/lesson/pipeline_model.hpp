#pragma once
// What the pipeline scene shows, from the simulator's spans of one SM: a Gantt row per warp, the
// tensor pipe's busy and idle intervals, and simulated beside measured TFLOPS per stage count.
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

struct GanttRow {
  uint32_t warp = 0;
  bool producer = false;
  std::string label;  // "producer (warp 8)", "consumer 0, warp 1"
  std::vector<GanttBar> bars;
};

struct PipelineModel {
  std::vector<GanttRow> rows;          // the producer's warp first, then the consumers' warps
  std::vector<Interval> tensor_busy;   // the SM's tensor pipe, merged over its warps
  std::vector<Interval> tensor_idle;   // gaps inside [first, last]
  double first = 0, last = 0;          // the SM's first and last span
  double idle_cycles = 0;              // inside [first, last]
  double idle_fraction() const { return last > first ? idle_cycles / (last - first) : 0; }
};

PipelineModel pipeline_model(const GemmSim& sim, uint32_t sm);

// One stage count of the stage table: the simulation at the scene's shape and what the H100
// measured for the same shape and configuration (nullptr: not measured).
struct StageRow {
  uint32_t stages = 0;
  std::shared_ptr<const GemmSim> sim;  // nullptr while it runs
  const MeasuredGemm* measured = nullptr;
};
std::vector<StageRow> stage_table(const GemmKnobs& knobs, SimCache& sims, const MeasuredData& measured);

}  // namespace ts::viz
