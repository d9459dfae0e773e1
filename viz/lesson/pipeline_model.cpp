#include "viz/lesson/pipeline_model.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace ts::viz {

namespace {

// Sorted intervals merged where they touch or overlap.
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (!out.empty() && i.start <= out.back().end) out.back().end = std::max(out.back().end, i.end);
    else out.push_back(i);
  }
  return out;
}

// The gaps between busy intervals inside [first, last].
std::vector<Interval> gaps(const std::vector<Interval>& busy, double first, double last) {
  std::vector<Interval> idle;
  double at = first;
  for (const Interval& b : busy) {
    if (b.start > at) idle.push_back({at, b.start});
    at = std::max(at, b.end);
  }
  if (last > at) idle.push_back({at, last});
  return idle;
}

double total(const std::vector<Interval>& v) {
  double t = 0;
  for (const Interval& i : v) t += i.length();
  return t;
}

// Cycles of `iv` covered by the sorted, disjoint intervals `v`.
double overlap(Interval iv, const std::vector<Interval>& v) {
  auto it = std::lower_bound(v.begin(), v.end(), iv.start, [](const Interval& a, double t) { return a.end < t; });
  double c = 0;
  for (; it != v.end() && it->start < iv.end; ++it) c += std::max(0.0, std::min(it->end, iv.end) - std::max(it->start, iv.start));
  return c;
}

void add_wait(WaitSummary& w, const GanttBar& b, bool producer) {
  const double d = b.end - b.start;
  switch (b.kind) {
    case sim::OpKind::wait: (producer ? w.free_stage : w.data) += d; break;
    case sim::OpKind::mma_wait: w.own_mma += d; break;
    case sim::OpKind::tma_store_wait: w.store += d; break;
    case sim::OpKind::warpgroup_sync:
    case sim::OpKind::block_sync: w.sync += d; break;
    default: break;
  }
}

using Kind = sim::BarrierEvent::Kind;

// Each stage's loading and held spans on one SM, from its barrier events. The full barriers are
// the ones the producer announces bytes on, the empty ones those the consumers arrive on; sorted
// by shared-memory offset, the i-th of each belongs to stage i (pipeline.hpp declares them as
// arrays).
void stage_spans(const GemmSim& sim, uint32_t sm, PipelineModel& m) {
  std::vector<const sim::BarrierEvent*> ev;
  for (const auto& e : sim.report.barrier_events)
    if (e.sm == sm) ev.push_back(&e);
  if (ev.empty()) return;
  std::set<uint32_t> full_ids, empty_ids;
  uint32_t producer_warp = ~0u;
  for (const auto* e : ev)
    if (e->kind == Kind::expect_bytes) full_ids.insert(e->barrier), producer_warp = e->warp;
  for (const auto* e : ev)
    if (e->kind == Kind::arrive && e->warp != producer_warp) empty_ids.insert(e->barrier);
  std::map<uint32_t, uint32_t> full_slot, empty_slot;
  for (uint32_t id : full_ids) full_slot.emplace(id, static_cast<uint32_t>(full_slot.size()));
  for (uint32_t id : empty_ids) empty_slot.emplace(id, static_cast<uint32_t>(empty_slot.size()));
  const size_t slots = full_slot.size();
  m.stages.assign(slots, {});
  std::stable_sort(ev.begin(), ev.end(), [](const auto* a, const auto* b) { return a->time < b->time; });

  std::vector<double> load_start(slots, -1), held_start(slots, -1);
  // Steady state: +1 at a load's start, -1 at its end, leaving out each block's first load into
  // each stage (the first pass around the ring finds every stage free).
  std::vector<std::pair<double, int>> steps;
  std::set<std::pair<uint32_t, uint32_t>> first_pass_done;  // (block, stage)
  for (const auto* e : ev) {
    if (e->kind == Kind::expect_bytes && full_slot.count(e->barrier)) {
      load_start[full_slot[e->barrier]] = e->time;
    } else if (e->kind == Kind::phase_complete && full_slot.count(e->barrier)) {
      const uint32_t s = full_slot[e->barrier];
      if (load_start[s] >= 0) {
        m.stages[s].push_back({load_start[s], e->time, true});
        if (!first_pass_done.insert({e->block, s}).second) steps.push_back({load_start[s], +1}), steps.push_back({e->time, -1});
      }
      load_start[s] = -1;
      held_start[s] = e->time;
    } else if (e->kind == Kind::phase_complete && empty_slot.count(e->barrier)) {
      const uint32_t s = empty_slot[e->barrier];
      if (s < slots && held_start[s] >= 0) m.stages[s].push_back({held_start[s], e->time, false});
      if (s < slots) held_start[s] = -1;
    }
  }
  std::sort(steps.begin(), steps.end());  // at one time, ends (-1) before starts (+1)
  int now = 0;
  for (const auto& [t, d] : steps) m.most_loading = std::max<uint32_t>(m.most_loading, static_cast<uint32_t>(now += d));
}

}  // namespace

PipelineModel pipeline_model(const GemmSim& sim, uint32_t sm) {
  PipelineModel m = pipeline_model(sim.report.spans, sm);
  stage_spans(sim, sm, m);
  return m;
}

PipelineModel pipeline_model(const std::vector<sim::Span>& spans, uint32_t sm) {
  PipelineModel m;
  std::map<uint32_t, GanttRow> by_warp;
  std::vector<Interval> mma, mma_sub[kSubPartitions];
  bool any = false;
  for (const sim::Span& s : spans) {
    if (s.sm != sm) continue;
    GanttRow& row = by_warp[s.warp];
    row.warp = s.warp;
    row.sub_partition = s.warp % kSubPartitions;
    row.bars.push_back({s.start, s.end, s.kind, s.block});
    if (s.kind == sim::OpKind::tma_load) row.producer = true;
    if (s.kind == sim::OpKind::mma) mma.push_back({s.start, s.end}), mma_sub[s.warp % kSubPartitions].push_back({s.start, s.end});
    m.first = any ? std::min(m.first, s.start) : s.start;
    m.last = any ? std::max(m.last, s.end) : s.end;
    any = true;
  }
  for (auto& [warp, row] : by_warp) {
    row.label = row.producer ? "producer, warp " + std::to_string(warp)
                             : "consumer " + std::to_string(warp / 4) + ", warp " + std::to_string(warp);
    std::sort(row.bars.begin(), row.bars.end(), [](const GanttBar& a, const GanttBar& b) { return a.start < b.start; });
    for (const GanttBar& b : row.bars) add_wait(row.waits, b, row.producer);
    row.waits.run = m.last - m.first;
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

  // Each warp's quarter of a wgmma runs on its own sub-partition's tensor core.
  for (uint32_t p = 0; p < kSubPartitions; ++p) {
    m.tensor[p].busy = merged(std::move(mma_sub[p]));
    m.tensor[p].idle = gaps(m.tensor[p].busy, m.first, m.last);
    m.tensor[p].idle_cycles = total(m.tensor[p].idle);
  }
  for (GanttRow& row : m.rows)
    if (!row.producer)
      for (const GanttBar& b : row.bars)
        if (b.kind == sim::OpKind::wait) row.waits.starved += overlap({b.start, b.end}, m.tensor[row.sub_partition].idle);
  m.tensor_busy = merged(std::move(mma));
  m.tensor_idle = gaps(m.tensor_busy, m.first, m.last);
  m.idle_cycles = total(m.tensor_idle);
  return m;
}

std::vector<StageRow> stage_table(const GemmKnobs& knobs, SimCache& sims, const MeasuredData& measured) {
  std::vector<StageRow> rows;
  // Clusters of 2 and fp8 inputs run 2 to 4 stages (kernels::validate): the kernel has no
  // one-stage cluster and no one-stage fp8 instance.
  for (uint32_t stages = knobs.cluster > 1 || knobs.in == InKnob::fp8 ? 2 : 1; stages <= 4; ++stages) {
    GemmKnobs g = knobs;
    g.stages = stages;
    const GemmRun run = gemm_run(g);
    rows.push_back({stages, sims.get(run), find_measured(measured, run.shape, run.cfg)});
  }
  return rows;
}

}  // namespace ts::viz
