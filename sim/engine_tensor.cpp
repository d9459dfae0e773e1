// The engine's tensor-core side: a warp's wgmma issue onto its sub-partition's core (held while the
// core's queue is full), its waits for MMA groups, and the core's events that wake those warps.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/engine_core.hpp"

namespace ts::sim::engine_state {

// A warpgroup's four warps each issue their quarter of a wgmma, onto their own sub-partition's
// tensor core, which runs a quarter of the SM's rate when one warp has it to itself and shares it
// in turns when several do. A sub-partition takes at most mma_queue_depth instructions that it is
// not through with, from all its warps together; a warp whose next one finds the queue full is
// held at its issue (no span: the GPU's own timeline shows that time as a gap before the commit)
// until the core is through with one. The op then goes on from the instructions not yet issued.
bool Engine::issue_mma(Warp& w, uint32_t wid, Sm& sm, const TraceOp& op) {
  SubPartition& sp = sub_partition(sm, w);
  const uint32_t sub = w.index % p_.sub_partitions;
  // The slice is m16nNkK: K from its flops, N in `count`; one instruction is k16 (k32 for fp8).
  const double k = double(op.flops) / (2.0 * 16 * op.count);
  const uint32_t instructions = std::max(1u, static_cast<uint32_t>(std::lround(k / (op.bytes == 1 ? 32 : 16))));
  const double rate = op.bytes == 1 ? p_.mma_fp8_flops_per_cycle : p_.mma_flops_per_cycle;  // bytes: input element size
  const double op_cycles = double(op.flops) * p_.sub_partitions / rate;
  // The warpgroup's instruction reads B (K x N) from shared memory once for its four warps, and
  // A (64 x K) too unless A is in registers.
  const double operand_bytes = (op.barrier == 1 ? 0.0 : 64 * k * op.bytes) + k * op.count * op.bytes;
  while (w.mma_issued < instructions) {
    uint32_t n = instructions - w.mma_issued;
    if (p_.mma_queue_depth > 0) {
      // Counting what the core is through with needs it moved to this warp's time: every earlier
      // issue handled first (time order).
      if (!catch_up(w, wid)) return false;
      sp.tensor.advance(w.time);
      const size_t queued = sp.tensor.in_flight();
      if (queued >= p_.mma_queue_depth) {
        sp.issue_waiters.push_back(wid);
        schedule_tensor_event(w.sm, sub);
        return false;
      }
      n = std::min(n, static_cast<uint32_t>(p_.mma_queue_depth - queued));
    }
    // Each instruction and the descriptor arithmetic before it take the warp's scheduler for
    // mma_issue_cycles: behind what the sub-partition already issues (another warp's math).
    // The warp itself is held longer, the wider the instruction (mma_issue_cycles_per_column for
    // each of its N columns); the core starts on the first as soon as it is issued.
    double first = w.time;
    if (p_.mma_issue_cycles > 0 || p_.mma_issue_cycles_per_column > 0) {
      const double at = std::max(w.time, sp.issue_free), issue = p_.mma_issue_cycles * n;
      const double per = p_.mma_issue_cycles + p_.mma_issue_cycles_per_column * op.count;
      sp.issue_free = at + issue;
      sp.issue_busy += issue;
      w.time = at + per * n;
      first = at + per;
    }
    const double cycles = op_cycles * n / instructions + sp.tma_stall;  // with what TMA writes cost it
    sp.tma_stall = 0;
    sp.tensor.issue(w.mma, first, cycles, operand_bytes / op_cycles, p_.mma_queue_depth > 0 ? n : 0);
    w.mma_issued += n;
    if (!sp.mma_waiters.empty() || !sp.issue_waiters.empty()) schedule_tensor_event(w.sm, sub);
  }
  w.mma_issued = 0;
  report_.flops += double(op.flops);
  return true;
}

// Groups already known to be through need nothing else; otherwise the core must be moved to this
// warp's time, which needs every earlier MMA issue handled first (time order).
bool Engine::wait_mma(Warp& w, uint32_t wid, Sm& sm, uint32_t keep) {
  if (run_mma_wait(w, keep)) return true;
  if (!catch_up(w, wid)) return false;
  SubPartition& sp = sub_partition(sm, w);
  sp.tensor.advance(w.time);
  if (run_mma_wait(w, keep)) return true;
  block_warp(w);
  w.mma_keep = keep;
  sp.mma_waiters.push_back(wid);
  schedule_tensor_event(w.sm, w.index % p_.sub_partitions);
  return false;
}

bool Engine::run_mma_wait(Warp& w, uint32_t keep) {
  while (w.mma.groups.size() > keep) {
    const MmaGroup& g = w.mma.groups.front();
    if (g.done < 0) return false;
    span(w, OpKind::mma, g.issued, g.done);
    const double ready = g.done + p_.mma_latency;
    if (ready > w.time) {
      if (!w.blocked) span(w, OpKind::mma_wait, w.time, ready);  // waiting for wgmma results
      w.time = ready;
    }
    w.mma.groups.pop_front();
  }
  return true;
}

void Engine::schedule_tensor_event(uint32_t sm_id, uint32_t sub) {
  SubPartition& sp = sms_[sm_id].sub[sub];
  double at = std::numeric_limits<double>::infinity();
  for (uint32_t x : sp.mma_waiters) {
    const WarpMma& m = warps_[x].mma;
    at = std::min(at, sp.tensor.predict(m, m.groups[m.groups.size() - warps_[x].mma_keep - 1].threshold));
  }
  if (!sp.issue_waiters.empty()) at = std::min(at, sp.tensor.next_through());
  const bool waiting = !sp.mma_waiters.empty() || !sp.issue_waiters.empty();
  pend_unit_event(sp.wake_at, waiting ? at : -1, sm_id * kMaxSubPartitions + sub);
}

void Engine::pend_unit_event(double& wake_at, double at, uint32_t id) {
  if (at >= 0) at = std::max(at, now_);
  if (at == wake_at || !(at < std::numeric_limits<double>::infinity())) return;
  wake_at = at;
  if (at >= 0) events_.push({at, (seq_++ << 24) | Event::kTensor | id});
}

void Engine::tensor_event(uint32_t id) {
  const uint32_t sm_id = id / kMaxSubPartitions, sub = id % kMaxSubPartitions;
  SubPartition& sp = sms_[sm_id].sub[sub];
  if (sp.wake_at != now_) return;  // superseded by a later schedule (the time it was pushed for is stored)
  sp.wake_at = -1;
  sp.tensor.advance(now_);
  std::erase_if(sp.mma_waiters, [&](uint32_t x) {
    const WarpMma& m = warps_[x].mma;
    if (m.groups[m.groups.size() - warps_[x].mma_keep - 1].done < 0) return false;
    push(now_, x);  // re-runs its mma_wait, which now finds the group through
    return true;
  });
  // Held issues take the room the core made, in the order they were held.
  if (!sp.issue_waiters.empty()) {
    const size_t queued = sp.tensor.in_flight();
    const size_t room = queued < p_.mma_queue_depth ? p_.mma_queue_depth - queued : 0;
    const size_t woken = std::min(room, sp.issue_waiters.size());
    for (size_t i = 0; i < woken; ++i) push(now_, sp.issue_waiters[i]);  // re-runs its mma op
    sp.issue_waiters.erase(sp.issue_waiters.begin(), sp.issue_waiters.begin() + static_cast<std::ptrdiff_t>(woken));
  }
  schedule_tensor_event(sm_id, sub);
}

}  // namespace ts::sim::engine_state
