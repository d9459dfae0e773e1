#include "viz/lesson/barriers_model.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace ts::viz {

using Kind = sim::BarrierEvent::Kind;

BarriersModel barriers_model(const GemmSim& sim, const BarriersState& s) {
  BarriersModel m;
  m.stages = s.gemm.stages;
  m.slot = s.slot;
  // SM 0's first block: block 0 (blocks are placed on SMs in launch order).
  std::vector<const sim::BarrierEvent*> ev;
  for (const auto& e : sim.report.barrier_events)
    if (e.sm == 0 && e.block == 0) ev.push_back(&e);
  if (ev.empty()) {
    m.error = "the simulation kept no barrier events (only runs quick enough to re-simulate keep them)";
    return m;
  }
  // The pipeline's barriers are two arrays in shared memory, full[] then empty[]: the producer's
  // expect_bytes names the full ones, the consumers' arrivals the empty ones; offsets sort them.
  std::set<uint32_t> full_ids, empty_ids;
  for (const auto* e : ev) {
    if (e->kind == Kind::expect_bytes) full_ids.insert(e->barrier), m.producer_warp = e->warp;
    if (e->kind == Kind::arrive) empty_ids.insert(e->barrier);
  }
  std::map<uint32_t, uint32_t> slot_of;
  uint32_t i = 0;
  for (uint32_t id : full_ids) slot_of[id] = i++;
  i = 0;
  for (uint32_t id : empty_ids) slot_of[id] = i++;
  const auto slot = [&](const sim::BarrierEvent* e) { return slot_of.count(e->barrier) ? slot_of[e->barrier] : 0u; };

  // The window: from the expect_bytes of k-iteration `first` to that of `first + iters` (or the end).
  std::vector<double> expect_times;
  for (const auto* e : ev)
    if (e->kind == Kind::expect_bytes) expect_times.push_back(e->time), m.stage_bytes = e->bytes;
  const uint32_t k_iters = s.gemm.k / 64;
  if (s.first >= expect_times.size()) {
    m.error = "k-iteration " + std::to_string(s.first) + " is past the block's last";
    return m;
  }
  const uint32_t last = std::min<uint32_t>(s.first + s.iters, std::min<uint32_t>(k_iters, expect_times.size()));
  double end_time = 0;
  for (const auto* e : ev) end_time = std::max({end_time, e->time, e->landed});
  m.t0 = expect_times[s.first];
  m.t1 = last < expect_times.size() ? expect_times[last] : end_time;
  // Give the first expect a little room on the left.
  m.t0 -= (m.t1 - m.t0) * 0.03;

  std::map<uint32_t, ConsumerRow> consumers;
  std::map<uint32_t, double> wait_began;  // warp -> time, for pairing wait_begin with wake
  uint32_t expect_count = 0;
  for (const auto* e : ev) {
    const BarrierMark mark{e->time, e->landed, e->bytes, slot(e), e->phase, expect_count};
    const bool full = full_ids.count(e->barrier) > 0;
    switch (e->kind) {
      case Kind::expect_bytes:
        m.expects.push_back(mark);
        ++expect_count;
        break;
      case Kind::tma_issue: {
        BarrierMark load = mark;
        load.iteration = expect_count ? expect_count - 1 : 0;
        m.loads.push_back(load);
        break;
      }
      case Kind::phase_complete: (full ? m.full_completes : m.empty_completes).push_back(mark); break;
      case Kind::wait_begin: wait_began[e->warp] = e->time; break;
      case Kind::wake: {
        const double began = wait_began.count(e->warp) ? wait_began[e->warp] : e->time;
        wait_began.erase(e->warp);
        BarrierMark w{began, e->time, 0, slot(e), e->phase, 0};
        if (e->warp == m.producer_warp) m.producer_waits.push_back(w);
        else if (full) consumers[e->warp].warp = e->warp, consumers[e->warp].waits.push_back(w);
        break;
      }
      case Kind::arrive:
        if (e->warp != m.producer_warp) consumers[e->warp].warp = e->warp, consumers[e->warp].arrives.push_back(mark);
        break;
    }
  }
  for (auto& [warp, row] : consumers) m.consumers.push_back(std::move(row));
  return m;
}

}  // namespace ts::viz
