#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/engine_core.hpp"

namespace ts::sim {

namespace engine_state {

namespace {
bool uses_shared_unit(OpKind k) {
  return k == OpKind::mma || k == OpKind::math || k == OpKind::tma_load || k == OpKind::tma_store ||
         k == OpKind::smem_store || k == OpKind::smem_load || k == OpKind::gmem_load || k == OpKind::gmem_store;
}
}  // namespace

SimReport Engine::run() {
  report_.blocks = grid_.blocks();
  if (cluster_ < 1 || grid_.blocks() % cluster_ != 0 || p_.sms < cluster_)
    throw std::runtime_error("a grid of " + std::to_string(grid_.blocks()) + " blocks is not whole clusters of " + std::to_string(cluster_) +
                             " on " + std::to_string(p_.sms) + " SMs");
  double t = p_.kernel_launch_cycles;
  // Fill the SMs in launch order, one block (or cluster) per SM (or SM group) per round, as far
  // as resources allow.
  for (uint32_t round = 0; next_block_ < grid_.blocks(); ++round) {
    bool placed = false;
    for (uint32_t sm = 0; sm + cluster_ <= p_.sms && next_block_ < grid_.blocks(); sm += cluster_)
      if (try_place_group(sm, t)) placed = true;
    if (!placed) break;
  }
  launching_ = false;
  if (blocks_.empty() && grid_.blocks() > 0) throw std::runtime_error("a block does not fit on one SM");
  report_.blocks_per_sm = sms_[0].blocks;
  // run_events stops at a warp whose ops ran out: its next batch is pulled here, the one place the
  // event loop switches to a warp's fiber (web/asyncify-remove.txt), and it goes on first.
  for (uint32_t wid = run_events(kNoWarp); wid != kNoWarp;) {
    Warp& w = warps_[wid];
    w.batch = w.source->next_batch();
    hints_[wid].refill_lines = w.source->refill_hints();
    if (opt_.ops_drawn) [[unlikely]] ops_drawn(w.batch.size());
    if (!w.batch.empty()) {
      wid = run_events(wid);
      continue;
    }
    w.done = true;
    if (--blocks_[w.block].live == 0) retire(w.block, w.time);
    wid = run_events(kNoWarp);
  }
  for (const Warp& w : warps_)
    if (!w.done) throw std::runtime_error(deadlock_message());
  if (drawn_ > 0 && opt_.ops_drawn) opt_.ops_drawn(drawn_);  // the rest (the run is over: no stopping it)
  finish_report();
  return std::move(report_);
}

// The event loop, up to a warp that has run out of ops (returned; kNoWarp once the queue is empty).
// `resume`: such a warp, which has its next batch now and goes on first, before the rest of its wake
// group and the queue.
uint32_t Engine::run_events(uint32_t resume) {
  if (resume != kNoWarp && !run_ops(resume)) return resume;
  while (group_next_ < group_.size()) {
    const uint32_t x = group_[group_next_++];
    if (!run_warp(x)) return x;
  }
  group_.clear();
  while (!events_.empty()) {
    const Event e = events_.top();
    events_.pop();
    now_ = e.time;
    if (!events_.empty()) prefetch(events_.top());
    if (e.is_tensor()) {
      if ((e.warp() & Event::kSfu) != 0) sfu_event(e.warp() & ~Event::kSfu);
      else tensor_event(e.warp());
      continue;
    }
    if (!e.is_group()) {
      if (!run_warp(e.warp())) return e.warp();
      continue;
    }
    // The warps a barrier woke together run in the order they were woken, as their own events
    // would have (they came next in the queue); group_ holds those not yet run.
    group_.swap(groups_[e.warp()]);
    free_groups_.push_back(e.warp());
    group_time_ = e.time;
    for (group_next_ = 0; group_next_ < group_.size();) {
      const uint32_t x = group_[group_next_++];
      if (!run_warp(x)) return x;
    }
    group_.clear();
  }
  return kNoWarp;
}

bool Engine::fits(const Sm& sm) {
  if (!pending_.has_value()) pending_.emplace(grid_.block(next_block_));
  const BlockTrace& bt = *pending_;
  const uint32_t threads = grid_.threads_per_block();
  const uint32_t regs = threads * std::max(bt.registers_per_thread, 1u);
  return sm.blocks + 1 <= p_.max_blocks_per_sm && sm.threads + threads <= p_.max_threads_per_sm &&
         sm.shared + bt.shared_bytes <= p_.smem_per_sm && sm.registers + regs <= p_.registers_per_sm;
}

// The next cluster onto SMs first_sm .. first_sm + cluster_ - 1 (a GPU places a cluster's blocks
// at once, on SMs of one GPC: here, neighbouring SMs), or the next block when there are no clusters.
// Every block of a grid asks the same of an SM, so the first one's needs stand for all.
bool Engine::try_place_group(uint32_t first_sm, double t) {
  if (next_block_ >= grid_.blocks()) return false;
  for (uint32_t i = 0; i < cluster_; ++i)
    if (!fits(sms_[first_sm + i])) return false;
  for (uint32_t i = 0; i < cluster_; ++i) try_place(first_sm + i, t);
  return true;
}

// The GPU starts a launch's CTAs within a few tens of nanoseconds, but their first loads come up to
// block_start_spread later (the SMs of a TPC together: data/measured/h100/launch-spread.txt). The
// offsets are spread evenly over the TPCs in a fixed, scattered order (multiples of the golden
// ratio), so that a run is repeatable and neighbouring TPCs do not start in step.
double Engine::block_start_offset(uint32_t sm_id) const {
  const double turns = (sm_id / 2) * 0.6180339887498949;  // the SM's TPC, times the golden ratio
  return p_.block_start_spread_cycles * (turns - std::floor(turns));
}

bool Engine::try_place(uint32_t sm_id, double t) {
  if (next_block_ >= grid_.blocks()) return false;
  Sm& sm = sms_[sm_id];
  if (!fits(sm)) return false;
  const BlockTrace& bt = *pending_;
  const uint32_t threads = grid_.threads_per_block();
  const uint32_t regs = threads * std::max(bt.registers_per_thread, 1u);
  const uint32_t slot = static_cast<uint32_t>(blocks_.size());
  blocks_.push_back(Block{next_block_, sm_id, 0, threads, bt.shared_bytes, regs, next_block_ % cluster_, std::move(*pending_), {}, {}, {}, {}});
  pending_.reset();
  ++next_block_;
  sm.blocks++, sm.threads += threads, sm.shared += blocks_[slot].shared, sm.registers += regs;
  Block& b = blocks_[slot];
  const double start = t + p_.block_launch_cycles + (launching_ ? block_start_offset(sm_id) : 0);
  for (uint32_t i = 0; i < b.trace.warps.size(); ++i) {
    const uint32_t id = static_cast<uint32_t>(warps_.size());
    warps_.push_back(Warp{.block = slot, .index = i, .sm = sm_id, .time = start, .source = b.trace.warps[i].get()});
    hints_.push_back({});
    if (p_.sfu_share_age_weight > 0) sfu_work_.emplace_back();
    b.warps.push_back(id);
    push(start, id);
  }
  b.live = static_cast<uint32_t>(b.warps.size());
  return true;
}

// Warps may run ahead of the event clock through ops that touch no shared unit, so an arrival
// carries its own time; the phase completes at the latest arrival (or landing), not at now_.
void Engine::arrive(uint32_t block, Barrier& b, double time, uint32_t by_warp) {
  ++b.arrivals;
  b.arrived = std::max(b.arrived, time);
  maybe_complete(block, b, by_warp);
}

void Engine::maybe_complete(uint32_t block, Barrier& b, uint32_t by_warp) {
  if (b.arrivals < b.count || b.tx > 0) return;
  b.arrivals = 0;
  b.tx = 0;
  ++b.phase;
  b.completed_at = std::max({now_, b.arrived, b.landed});
  b.arrived = b.landed = 0;
  log_barrier(BarrierEvent::Kind::phase_complete, block, by_warp, b, b.completed_at);
  for (uint32_t w : b.waiters)
    log_barrier(BarrierEvent::Kind::wake, block, warps_[w].index, b, b.completed_at + p_.barrier_latency);
  if (!b.waiters.empty()) push_group(b.completed_at + p_.barrier_latency, b.waiters);
}

void Engine::sync_arrive(uint32_t wid, std::vector<uint32_t>& arrived, uint32_t expected, double latency) {
  arrived.push_back(wid);
  if (arrived.size() < expected) return;
  double t = now_;
  for (uint32_t x : arrived) t = std::max(t, warps_[x].time);
  t += latency;
  for (uint32_t x : arrived) {
    warps_[x].has_op = false;  // the sync is done for everyone
    push(t, x);
  }
  arrived.clear();
}

bool Engine::run_warp(uint32_t wid) {
  Warp& w = warps_[wid];
  if (w.done) return true;
  w.time = std::max(w.time, now_);
  if (w.blocked) {
    span(w, w.op->kind, w.blocked_since, w.time);
    w.blocked = false;
  }
  return run_ops(wid);
}

bool Engine::run_ops(uint32_t wid) {
  Warp& w = warps_[wid];
  Block& blk = blocks_[w.block];
  Sm& sm = sms_[w.sm];  // the warp's copy of blk.sm: the block is not read on the way to a math op
  while (true) {
    if (!w.has_op) {
      if (w.batch.empty()) return false;
      w.op = &w.batch.front();
      w.batch = w.batch.subspan(1);
      hints_[wid].op = w.op, hints_[wid].refill = w.batch.empty() ? w.source : nullptr;
      w.has_op = true;
      ++report_.ops;
    }
    const TraceOp& op = *w.op;
    // Shared units (tensor pipe, TMA, LSU, L2, HBM) must see requests in time order; every other
    // op carries its own time, so a warp runs ahead through those and yields only here.
    if (uses_shared_unit(op.kind) && !catch_up(w, wid)) return true;
    switch (op.kind) {
      case OpKind::barrier_init: {
        Barrier* found = blk.find_barrier(op.barrier);
        Barrier& b = found ? *found : blk.barriers.emplace_back(op.barrier, Barrier{}).second;
        b = Barrier{op.count, 0, 0, 0, {}};
        b.id = op.barrier;
        break;
      }
      case OpKind::arrive: {
        const uint32_t at = op.count == 0 ? w.block : peer(w.block, op.count - 1);  // count c: cluster rank c - 1
        Barrier& b = barrier(blocks_[at], op.barrier);
        log_barrier(BarrierEvent::Kind::arrive, at, w.index, b, w.time);
        arrive(at, b, w.time, w.index);
        break;
      }
      case OpKind::expect_bytes: {
        Barrier& b = barrier(blk, op.barrier);
        b.tx += static_cast<int64_t>(op.bytes);
        log_barrier(BarrierEvent::Kind::expect_bytes, w.block, w.index, b, w.time, op.bytes);
        arrive(w.block, b, w.time, w.index);
        break;
      }
      case OpKind::wait: {
        Barrier& b = barrier(blk, op.barrier);
        if ((b.phase & 1u) == (op.count & 1u)) {  // the phase of that parity has not completed
          if (!w.blocked) log_barrier(BarrierEvent::Kind::wait_begin, w.block, w.index, b, w.time);
          b.waiters.push_back(wid);
          block_warp(w);
          return true;
        }
        if (w.time < b.completed_at + p_.barrier_latency) {  // completed, but its bytes land later
          if (!w.blocked) log_barrier(BarrierEvent::Kind::wait_begin, w.block, w.index, b, w.time);
          log_barrier(BarrierEvent::Kind::wake, w.block, w.index, b, b.completed_at + p_.barrier_latency);
          span(w, op.kind, w.time, b.completed_at + p_.barrier_latency);
          w.time = b.completed_at + p_.barrier_latency;
        }
        break;
      }
      case OpKind::tma_load:
        load_box(w, blk, sm, op);
        break;
      case OpKind::tma_store:
        store_box(w, blk, sm, op);
        break;
      case OpKind::tma_store_commit:
        w.store_groups.push_back({w.open_store, w.open_write});
        w.open_store = w.open_write = 0;
        break;
      case OpKind::tma_store_wait:
        wait_stores(w, op.barrier == 1, op.count);
        break;
      case OpKind::mma:
        if (!issue_mma(w, wid, sm, op)) return true;  // held at issue, or behind an earlier event
        break;
      case OpKind::mma_commit:
        if (w.mma.open.threshold < 0) w.mma.open = {0, w.time, w.time};  // an empty group is through at once
        w.mma.groups.push_back(w.mma.open);
        w.mma.open = MmaGroup{-1};
        break;
      case OpKind::mma_wait:
        if (!wait_mma(w, wid, sm, op.count)) return true;
        break;
      case OpKind::smem_store:
      case OpKind::smem_load:
        shared_access(w, sm, op);
        break;
      case OpKind::math:
        if (!run_math(sub_partition(sm, w), w, wid, op.pipes)) return true;  // held on a shared SFU
        break;
      case OpKind::warpgroup_sync:
        block_warp(w);
        sync_arrive(wid, blk.named[op.barrier], 4, p_.named_barrier_cycles);
        return true;
      case OpKind::block_sync:
        block_warp(w);
        if (op.barrier == 1) {  // every warp of the cluster
          uint32_t live = 0;
          for (uint32_t r = 0; r < cluster_; ++r) live += blocks_[peer(w.block, r)].live;
          sync_arrive(wid, blocks_[peer(w.block, 0)].cluster_sync, live);
        } else {
          sync_arrive(wid, blk.block_sync, blk.live);
        }
        return true;
      case OpKind::set_registers: break;
      case OpKind::gmem_load:
      case OpKind::gmem_store:
        global_access(w, blk, op);
        break;
    }
    w.has_op = false;
  }
}

// A register op's instructions: the scheduler issues them one per issue_interval, each pipe
// takes its own at its rate, all from when the warp gets its first issue slot; the warp goes on
// when the last result is back (the next op usually needs it), and not before its chain of
// dependent instructions (a reduction's fold) has run, each at its pipe's latency. Other warps of
// the sub-partition queue behind what this one holds on the FMA, ALU, convert and shuffle pipes.
// The SFU is either booked the same way (sfu_share_age_weight 0) or shared in turns like the
// tensor core: kernels/probes/pipe_share_probe.cu measured two warps' exponentials, started
// together, finishing together, and a first warp slowed by a second that came after it. Then the
// op's SFU work queues on the sub-partition's SFU and the warp is held until the SFU is through
// with it (in time order, like an MMA issue), since later work slows it.
bool Engine::run_math(SubPartition& sp, Warp& w, uint32_t wid, const PipeCounts& pipes) {
  constexpr int sfu = static_cast<int>(Pipe::sfu);
  if (w.math_held) {  // woken: the SFU is through with this op's part
    WarpMma& m = sfu_work_[wid];
    const double through = m.groups.front().done + p_.pipe_latency[sfu];
    m.groups.pop_front();
    w.math_held = false;
    const double done = std::max(w.math_rest, through);
    span(w, OpKind::math, w.math_start, done, through >= w.math_rest ? Pipe::sfu : w.math_bound);
    w.time = done;
    return true;
  }
  const bool shared_sfu = p_.sfu_share_age_weight > 0 && pipes.n[sfu] > 0;
  if (shared_sfu && !catch_up(w, wid)) return false;  // the SFU sees its requests in time order
  const double issue = static_cast<double>(pipes.total()) * p_.issue_interval;
  const double start = std::max(w.time, sp.issue_free);
  sp.issue_free = start + issue;
  sp.issue_busy += issue;
  double done = start + issue;
  double chain = 0;
  for (int i = 0; i < kPipes; ++i) chain += pipes.chain[i] * p_.pipe_latency[i];
  done = std::max(done, start + chain);
  Pipe bound = Pipe::fma;
  double bound_time = -1;
  for (int i = 0; i < kPipes; ++i) {
    if (pipes.n[i] == 0) continue;
    const double busy = pipes.n[i] * p_.pipe_interval[i];
    sp.pipe_busy[i] += busy;
    report_.pipe_instructions[i] += pipes.n[i];
    if (i == sfu && shared_sfu) {
      WarpMma& m = sfu_work_[wid];
      sp.sfu.issue(m, start, busy);
      m.groups.push_back(m.open);
      m.open = MmaGroup{-1};
      continue;
    }
    const double begin = std::max(start, sp.pipe_free[i]);
    sp.pipe_free[i] = begin + busy;
    done = std::max(done, begin + busy + p_.pipe_latency[i]);
    if (begin + busy > bound_time) bound_time = begin + busy, bound = static_cast<Pipe>(i);
  }
  if (shared_sfu) {
    w.math_held = true;
    w.math_bound = bound;
    w.math_start = start;
    w.math_rest = done;
    sp.sfu_waiters.push_back(wid);
    schedule_sfu_event(w.sm, w.index % p_.sub_partitions);
    return false;
  }
  span(w, OpKind::math, start, done, bound);
  w.time = done;
  return true;
}

void Engine::schedule_sfu_event(uint32_t sm_id, uint32_t sub) {
  SubPartition& sp = sms_[sm_id].sub[sub];
  double at = std::numeric_limits<double>::infinity();
  for (uint32_t x : sp.sfu_waiters) at = std::min(at, sp.sfu.predict(sfu_work_[x], sfu_work_[x].groups.front().threshold));
  pend_unit_event(sp.sfu_wake_at, sp.sfu_waiters.empty() ? -1 : at, Event::kSfu | (sm_id * kMaxSubPartitions + sub));
}

void Engine::sfu_event(uint32_t id) {
  const uint32_t sm_id = id / kMaxSubPartitions, sub = id % kMaxSubPartitions;
  SubPartition& sp = sms_[sm_id].sub[sub];
  if (sp.sfu_wake_at != now_) return;  // superseded by a later schedule
  sp.sfu_wake_at = -1;
  sp.sfu.advance(now_);
  std::erase_if(sp.sfu_waiters, [&](uint32_t x) {
    if (sfu_work_[x].groups.front().done < 0) return false;
    push(now_, x);  // re-runs its math op, which finds its SFU part through
    return true;
  });
  schedule_sfu_event(sm_id, sub);
}

// Ops drawn from the warps' sources, passed on every kOpsDrawnStep.
void Engine::ops_drawn(size_t ops) {
  drawn_ += ops;
  if (drawn_ < kOpsDrawnStep) return;
  const uint64_t n = drawn_;
  drawn_ = 0;
  if (!opt_.ops_drawn(n)) throw SimCancelled("simulation stopped after " + std::to_string(retired_) + " of " + std::to_string(grid_.blocks()) + " blocks");
}

void Engine::retire(uint32_t slot, double t) {
  Block& b = blocks_[slot];
  Sm& sm = sms_[b.sm];
  sm.blocks--, sm.threads -= b.threads, sm.shared -= b.shared, sm.registers -= b.registers;
  b.trace.warps.clear();  // drop the block's op sources
  end_ = std::max(end_, t);
  ++retired_;
  if (opt_.progress) [[unlikely]] {
    const uint32_t total = grid_.blocks(), step = std::max(1u, total / 256);
    if ((retired_ % step == 0 || retired_ == total) && !opt_.progress(retired_, total))
      throw SimCancelled("simulation stopped after " + std::to_string(retired_) + " of " + std::to_string(total) + " blocks");
  }
  const uint32_t group = b.sm / cluster_ * cluster_;  // a cluster waits for all of its SMs
  while (try_place_group(group, t)) {
  }
}

}  // namespace engine_state

SimReport simulate(GridTrace& grid, const EngineParams& p, const SimOptions& opt) {
  return engine_state::Engine(grid, p, opt).run();
}

}  // namespace ts::sim
