#include "viz/lesson/pipeline_model.hpp"

#include <algorithm>
#include <map>

namespace ts::viz {

PipelineModel pipeline_model(const GemmSim& sim, uint32_t sm) {
  PipelineModel m;
  std::map<uint32_t, GanttRow> by_warp;
  std::vector<Interval> mma;
  bool any = false;
  for (const sim::Span& s : sim.report.spans) {
    if (s.sm != sm) continue;
    GanttRow& row = by_warp[s.warp];
    row.warp = s.warp;
    row.bars.push_back({s.start, s.end, s.kind, s.block});
    if (s.kind == sim::OpKind::tma_load) row.producer = true;
    if (s.kind == sim::OpKind::mma) mma.push_back({s.start, s.end});
    m.first = any ? std::min(m.first, s.start) : s.start;
    m.last = any ? std::max(m.last, s.end) : s.end;
    any = true;
  }
  for (auto& [warp, row] : by_warp) {
    row.label = row.producer ? "producer, warp " + std::to_string(warp)
                             : "consumer " + std::to_string(warp / 4) + ", warp " + std::to_string(warp);
    std::sort(row.bars.begin(), row.bars.end(), [](const GanttBar& a, const GanttBar& b) { return a.start < b.start; });
  }
  for (auto& [warp, row] : by_warp)
    if (row.producer) m.rows.push_back(std::move(row));
  // Warps that only pass the block's start-up sync (the producer warpgroup's other three) do no
  // work worth a row.
  const auto works = [](const GanttRow& row) {
    return std::any_of(row.bars.begin(), row.bars.end(), [](const GanttBar& b) { return b.kind != sim::OpKind::block_sync; });
  };
  for (auto& [warp, row] : by_warp)
    if (!row.producer && works(row)) m.rows.push_back(std::move(row));

  // The tensor pipe is one unit per SM: merge every warp's MMA slices into busy intervals.
  std::sort(mma.begin(), mma.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  for (const Interval& i : mma) {
    if (!m.tensor_busy.empty() && i.start <= m.tensor_busy.back().end)
      m.tensor_busy.back().end = std::max(m.tensor_busy.back().end, i.end);
    else
      m.tensor_busy.push_back(i);
  }
  double at = m.first;
  for (const Interval& b : m.tensor_busy) {
    if (b.start > at) m.tensor_idle.push_back({at, b.start});
    at = std::max(at, b.end);
  }
  if (m.last > at) m.tensor_idle.push_back({at, m.last});
  for (const Interval& i : m.tensor_idle) m.idle_cycles += i.length();
  return m;
}

std::vector<StageRow> stage_table(const GemmKnobs& knobs, SimCache& sims, const MeasuredData& measured) {
  std::vector<StageRow> rows;
  for (uint32_t stages = 1; stages <= 4; ++stages) {
    GemmKnobs g = knobs;
    g.stages = stages;
    const GemmRun run = gemm_run(g);
    rows.push_back({stages, sims.get(run), find_measured(measured, run.shape, run.cfg)});
  }
  return rows;
}

}  // namespace ts::viz
