#include "sim/engine.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <deque>
#include <limits>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "sim/banks.hpp"
#include "sim/l2.hpp"
#include "sim/smem_walk.hpp"
#include "sim/engine_state.hpp"
#include "sim/tensor_core.hpp"

namespace ts::sim {

namespace {

using namespace engine_state;

bool uses_shared_unit(OpKind k) {
  return k == OpKind::mma || k == OpKind::math || k == OpKind::tma_load ||
         k == OpKind::tma_store || k == OpKind::smem_store || k == OpKind::smem_load;
}

class Engine {
 public:
  Engine(GridTrace& grid, const EngineParams& p, const SimOptions& opt)
      : grid_(grid), p_(p), opt_(opt), sms_(p.sms) {
    if (p.sub_partitions < 1 || p.sub_partitions > kMaxSubPartitions)
      throw std::invalid_argument("sub_partitions must be 1 to " + std::to_string(kMaxSubPartitions));
    const uint32_t parts = std::max(p.l2_partitions, 1u);
    for (uint32_t i = 0; i < parts; ++i) l2_.emplace_back(p.l2_bytes / parts);
  }

  SimReport run() {
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
    if (blocks_.empty() && grid_.blocks() > 0) throw std::runtime_error("a block does not fit on one SM");
    report_.blocks_per_sm = sms_[0].blocks;
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      now_ = e.time;
      if (e.is_tensor()) {
        tensor_event(e.warp());
        continue;
      }
      if (!e.is_group()) {
        run_warp(e.warp());
        continue;
      }
      // The warps a barrier woke together run in the order they were woken, as their own events
      // would have (they came next in the queue); group_ holds those not yet run.
      group_.swap(groups_[e.warp()]);
      free_groups_.push_back(e.warp());
      group_time_ = e.time;
      for (group_next_ = 0; group_next_ < group_.size();) run_warp(group_[group_next_++]);
      group_.clear();
    }
    for (const Warp& w : warps_)
      if (!w.done) throw std::runtime_error(deadlock_message());
    finish_report();
    return std::move(report_);
  }

 private:
  void push(double time, uint32_t warp) {
    if (warp >= Event::kTensor) throw std::runtime_error("more than 4M warps in one simulation");
    events_.push({time, (seq_++ << 24) | warp});
  }
  // One event for several warps that wake at the same time (a barrier's waiters).
  // `warps` comes back empty.
  void push_group(double time, std::vector<uint32_t>& warps) {
    if (warps.size() == 1) {
      push(time, warps[0]);
      warps.clear();
      return;
    }
    uint32_t id;
    if (!free_groups_.empty()) id = free_groups_.back(), free_groups_.pop_back();
    else id = static_cast<uint32_t>(groups_.size()), groups_.emplace_back();
    groups_[id].swap(warps);  // hands the list over; `warps` gets an emptied one back
    warps.clear();
    events_.push({time, (seq_++ << 24) | Event::kGroup | id});
  }

  // MMA waits. A warp whose group is not through blocks; its sub-partition's core schedules one
  // event, for when the earliest group any waiter needs would be through as things stand. New
  // work moves that time, so an event that is no longer the pending one is ignored.
  void schedule_tensor_event(uint32_t sm_id, uint32_t sub) {
    SubPartition& sp = sms_[sm_id].sub[sub];
    double target = std::numeric_limits<double>::infinity();
    for (uint32_t x : sp.mma_waiters) {
      const WarpMma& m = warps_[x].mma;
      target = std::min(target, m.groups[m.groups.size() - warps_[x].mma_keep - 1].threshold);
    }
    const double at = sp.mma_waiters.empty() ? -1 : std::max(sp.tensor.predict(target), now_);
    if (at == sp.wake_at || !(at < std::numeric_limits<double>::infinity())) return;
    sp.wake_at = at;
    if (at >= 0) events_.push({at, (seq_++ << 24) | Event::kTensor | (sm_id * kMaxSubPartitions + sub)});
  }
  void tensor_event(uint32_t id) {
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
    schedule_tensor_event(sm_id, sub);
  }
  // When the next event happens: the queue's first, or the rest of the wake group being run.
  double next_event_time() const {
    const double queued = events_.empty() ? std::numeric_limits<double>::infinity() : events_.top().time;
    return group_next_ < group_.size() ? std::min(queued, group_time_) : queued;
  }

  bool fits(const Sm& sm) {
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
  bool try_place_group(uint32_t first_sm, double t) {
    if (next_block_ >= grid_.blocks()) return false;
    for (uint32_t i = 0; i < cluster_; ++i)
      if (!fits(sms_[first_sm + i])) return false;
    for (uint32_t i = 0; i < cluster_; ++i) try_place(first_sm + i, t);
    return true;
  }

  bool try_place(uint32_t sm_id, double t) {
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
    for (uint32_t i = 0; i < b.trace.warps.size(); ++i) {
      const uint32_t id = static_cast<uint32_t>(warps_.size());
      warps_.push_back(Warp{slot, i, sm_id, b.trace.warps[i].get(), t + p_.block_launch_cycles});
      b.warps.push_back(id);
      push(t + p_.block_launch_cycles, id);
    }
    b.live = static_cast<uint32_t>(b.warps.size());
    return true;
  }

  static Barrier& barrier(Block& blk, uint32_t id) {
    Barrier* b = blk.find_barrier(id);
    if (b == nullptr) [[unlikely]]
      throw std::runtime_error("block " + std::to_string(blk.index) + " uses mbarrier " + std::to_string(id) +
                               " before initialising it");
    return *b;
  }

  // Warps may run ahead of the event clock through ops that touch no shared unit, so an arrival
  // carries its own time; the phase completes at the latest arrival (or landing), not at now_.
  void arrive(uint32_t block, Barrier& b, double time, uint32_t by_warp = 0) {
    ++b.arrivals;
    b.arrived = std::max(b.arrived, time);
    maybe_complete(block, b, by_warp);
  }

  void maybe_complete(uint32_t block, Barrier& b, uint32_t by_warp = 0) {
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

  // The optional barrier event log (SimOptions::barrier_log_sms); one test and out when it is off.
  void log_barrier(BarrierEvent::Kind kind, uint32_t block, uint32_t warp, const Barrier& b, double time,
                   uint64_t bytes = 0, double landed = 0, bool hit = false) {
    if ((opt_.barrier_log_sms | opt_.load_log_sms) != 0) [[unlikely]]
      record_barrier_event(kind, block, warp, b, time, bytes, landed, hit);
  }
  [[gnu::noinline]] void record_barrier_event(BarrierEvent::Kind kind, uint32_t block, uint32_t warp, const Barrier& b,
                                              double time, uint64_t bytes, double landed, bool hit) {
    const Block& blk = blocks_[block];
    const bool load = kind == BarrierEvent::Kind::tma_issue;
    if (blk.sm >= (load ? std::max(opt_.barrier_log_sms, opt_.load_log_sms) : opt_.barrier_log_sms)) return;
    report_.barrier_events.push_back({kind, blk.sm, blk.index, warp, b.id, b.phase, time, landed, bytes, hit});
  }

  void span(const Warp& w, OpKind kind, double start, double end, Pipe pipe = Pipe::fma) {
    if (w.sm < opt_.timeline_sms) [[unlikely]]
      report_.spans.push_back({w.sm, blocks_[w.block].index, w.index, kind, start, end, pipe});
  }

  // Blocks the warp on a barrier-like condition; it re-runs its op when woken.
  void block_warp(Warp& w) {
    if (!w.blocked) w.blocked_since = w.time;
    w.blocked = true;
  }

  void sync_arrive(uint32_t wid, std::vector<uint32_t>& arrived, uint32_t expected, double latency = 0) {
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

  void run_warp(uint32_t wid) {
    Warp& w = warps_[wid];
    if (w.done) return;
    w.time = std::max(w.time, now_);
    if (w.blocked) {
      span(w, w.op->kind, w.blocked_since, w.time);
      w.blocked = false;
    }
    Block& blk = blocks_[w.block];
    Sm& sm = sms_[blk.sm];
    while (true) {
      if (!w.has_op) {
        if (w.batch.empty()) w.batch = w.source->next_batch();
        if (w.batch.empty()) {
          w.done = true;
          if (--blk.live == 0) retire(w.block, w.time);
          return;
        }
        w.op = &w.batch.front();
        w.batch = w.batch.subspan(1);
        w.has_op = true;
        ++report_.ops;
      }
      const TraceOp& op = *w.op;
      // Shared units (tensor pipe, TMA, LSU, L2, HBM) must see requests in time order; every other
      // op carries its own time, so a warp runs ahead through those and yields only here.
      if (uses_shared_unit(op.kind) && w.time > now_) {
        if (next_event_time() < w.time) {
          push(w.time, wid);
          return;
        }
        now_ = w.time;
      }
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
            return;
          }
          if (w.time < b.completed_at + p_.barrier_latency) {  // completed, but its bytes land later
            if (!w.blocked) log_barrier(BarrierEvent::Kind::wait_begin, w.block, w.index, b, w.time);
            log_barrier(BarrierEvent::Kind::wake, w.block, w.index, b, b.completed_at + p_.barrier_latency);
            span(w, op.kind, w.time, b.completed_at + p_.barrier_latency);
            w.time = b.completed_at + p_.barrier_latency;
          }
          break;
        }
        case OpKind::tma_load: {
          const double start = issue_tma(sm, w.time);
          const uint64_t bytes = uint64_t{op.box.rows} * op.box.row_bytes;
          // SMs are wired to partitions in contiguous halves (which SM sits where is not published).
          const bool hit = l2_[size_t{blk.sm} * l2_.size() / p_.sms].access(op.box);
          l2_free_ = std::max(l2_free_, start) + bytes / p_.l2_bytes_per_cycle;
          l2_busy_ += bytes / p_.l2_bytes_per_cycle;
          double from_memory = l2_free_ + p_.tma_latency_l2;
          if (hit) {
            ++report_.l2_hits;
            report_.l2_hit_bytes += bytes;
          } else {
            ++report_.l2_misses;
            report_.hbm_read_bytes += bytes;
            hbm_free_ = std::max(hbm_free_, start) + bytes / p_.hbm_bytes_per_cycle;
            hbm_busy_ += bytes / p_.hbm_bytes_per_cycle;
            from_memory = std::max(from_memory, hbm_free_ + p_.tma_latency_hbm);
          }
          // Each receiving SM's own port takes in at most tma_bytes_per_cycle_per_sm: one SM, or
          // with a multicast (count: the CTA mask) every SM of the cluster it names, from one read.
          const uint32_t mask = op.count == 0 ? 1u << blk.rank : op.count;
          for (uint32_t r = 0; r < cluster_; ++r) {
            if ((mask >> r & 1u) == 0) continue;
            const uint32_t to = peer(w.block, r);
            Sm& dest = sms_[blocks_[to].sm];
            dest.tma_data_free = std::max(dest.tma_data_free, start) + bytes / p_.tma_bytes_per_cycle_per_sm;
            const double done = std::max(from_memory, dest.tma_data_free + p_.tma_latency_l2);
            if (to == w.block) span(w, op.kind, start, done);
            Barrier& b = barrier(blocks_[to], op.barrier);
            b.landed = std::max(b.landed, done);
            b.tx -= static_cast<int64_t>(op.bytes ? op.bytes : bytes);
            log_barrier(BarrierEvent::Kind::tma_issue, to, w.index, b, start, bytes, done, hit);
            maybe_complete(to, b, w.index);
          }
          break;
        }
        case OpKind::tma_store: {
          const double start = issue_tma(sm, w.time);
          const uint64_t bytes = uint64_t{op.box.rows} * op.box.row_bytes;
          // A store alone reads its staging tile within tma_store_latency; while every SM stores,
          // each takes tma_store_latency_under_load (measured: the store stream moves a fixed
          // number of bytes per latency, whatever the bytes in flight). In between, the latency
          // grows with the stores in flight across the chip, saturating at one per SM.
          while (!stores_in_flight_.empty() && stores_in_flight_.top() <= start) stores_in_flight_.pop();
          const double load = std::min(1.0, double(stores_in_flight_.size()) / p_.sms);
          const double latency = p_.tma_store_latency + load * (p_.tma_store_latency_under_load - p_.tma_store_latency);
          sm.tma_data_free = std::max(sm.tma_data_free, start) + bytes / p_.tma_bytes_per_cycle_per_sm;
          store_free_ = std::max(store_free_, start) + bytes / p_.store_bytes_per_cycle;
          store_busy_ += bytes / p_.store_bytes_per_cycle;
          const double read_done = std::max({start + latency, sm.tma_data_free, store_free_});
          stores_in_flight_.push(read_done);
          // The L2 allocates the stored lines (written back later): they take room from inputs. A
          // box stored again while still there (a reducing store into an accumulator: attention's
          // dQ) merges into the dirty lines and is written back once, counted at its first store.
          const bool resident = l2_[size_t{blk.sm} * l2_.size() / p_.sms].access(op.box);
          if (!resident) {  // written back later; back to back, that traffic competes with reads
            hbm_free_ = std::max(hbm_free_, start) + bytes / p_.hbm_bytes_per_cycle;
            hbm_busy_ += bytes / p_.hbm_bytes_per_cycle;
            report_.hbm_write_bytes += bytes;
          }
          w.open_store = std::max(w.open_store, read_done);
          w.open_write = std::max(w.open_write, read_done);  // complete once in L2
          span(w, op.kind, start, read_done);
          break;
        }
        case OpKind::tma_store_commit:
          w.store_groups.push_back({w.open_store, w.open_write});
          w.open_store = w.open_write = 0;
          break;
        case OpKind::tma_store_wait: {
          // Groups finish in order; a wait for reads folds the groups it waited for into one write
          // completion, for a later wait on writes.
          const size_t keep = op.count;
          if (op.barrier == 1) {
            if (w.has_read_groups && w.store_groups.size() + 1 > keep) {
              w.time = std::max(w.time, w.read_groups_write_done);
              w.has_read_groups = false;
            }
            while (w.store_groups.size() > keep) {
              w.time = std::max(w.time, w.store_groups.front().write_done);
              w.store_groups.pop_front();
            }
          } else {
            while (w.store_groups.size() > keep) {
              const auto& g = w.store_groups.front();
              w.time = std::max(w.time, g.read_done);
              w.read_groups_write_done = std::max(w.read_groups_write_done, g.write_done);
              w.has_read_groups = true;
              w.store_groups.pop_front();
            }
          }
          break;
        }
        case OpKind::mma: {
          // A warpgroup's four warps each issue their quarter of a wgmma, onto their own
          // sub-partition's tensor core, which runs a quarter of the SM's rate when one warp has
          // it to itself and shares it in turns when several do.
          SubPartition& sp = sub_partition(sm, w);
          sp.tensor.issue(w.mma, w.time, double(op.flops) * p_.sub_partitions / p_.mma_flops_per_cycle);
          report_.flops += double(op.flops);
          if (!sp.mma_waiters.empty()) schedule_tensor_event(blk.sm, w.index % p_.sub_partitions);
          break;
        }
        case OpKind::mma_commit:
          if (w.mma.open.threshold < 0) w.mma.open = {0, w.time, w.time};  // an empty group is through at once
          w.mma.groups.push_back(w.mma.open);
          w.mma.open = MmaGroup{-1};
          break;
        case OpKind::mma_wait: {
          // Groups already known to be through need nothing else; otherwise the core must be moved
          // to this warp's time, which needs every earlier MMA issue handled first (time order).
          if (run_mma_wait(w, op.count)) break;
          if (w.time > now_) {
            if (next_event_time() < w.time) {
              push(w.time, wid);
              return;
            }
            now_ = w.time;
          }
          SubPartition& sp = sub_partition(sm, w);
          sp.tensor.advance(w.time);
          if (!run_mma_wait(w, op.count)) {
            block_warp(w);
            w.mma_keep = op.count;
            sp.mma_waiters.push_back(wid);
            schedule_tensor_event(blk.sm, w.index % p_.sub_partitions);
            return;
          }
          break;
        }
        case OpKind::smem_store:
        case OpKind::smem_load: {
          // The SM's shared-memory pipe serves one wavefront per cycle; a load's data comes back
          // smem_latency later, and the warp needs it.
          const bool store = op.kind == OpKind::smem_store;
          const SmemCost& cost = smem_cost(op.smem, store);
          const double start = std::max(w.time, sm.lsu_free);
          sm.lsu_free = start + double(cost.wavefronts);
          report_.smem_wavefronts += cost.wavefronts;
          report_.bank_conflicts += cost.conflicts;
          SmemStats& st = report_.smem[store][static_cast<int>(op.smem.walk)];
          st.instructions += cost.instructions, st.wavefronts += cost.wavefronts, st.conflicts += cost.conflicts;
          w.time = sm.lsu_free + (store ? 0.0 : p_.smem_latency);
          span(w, op.kind, start, w.time);
          break;
        }
        case OpKind::math:
          run_math(sub_partition(sm, w), w, op.pipes);
          break;
        case OpKind::warpgroup_sync:
          block_warp(w);
          sync_arrive(wid, blk.named[op.barrier], 4, p_.named_barrier_cycles);
          return;
        case OpKind::block_sync:
          block_warp(w);
          if (op.barrier == 1) {  // every warp of the cluster
            uint32_t live = 0;
            for (uint32_t r = 0; r < cluster_; ++r) live += blocks_[peer(w.block, r)].live;
            sync_arrive(wid, blocks_[peer(w.block, 0)].cluster_sync, live);
          } else {
            sync_arrive(wid, blk.block_sync, blk.live);
          }
          return;
        case OpKind::set_registers: break;
      }
      w.has_op = false;
    }
  }

  SubPartition& sub_partition(Sm& sm, const Warp& w) const { return sm.sub[w.index % p_.sub_partitions]; }

  // The slot of cluster rank `rank` beside the block in `slot` (a cluster's blocks are placed together).
  uint32_t peer(uint32_t slot, uint32_t rank) const {
    if (rank >= cluster_) [[unlikely]]
      throw std::runtime_error("block " + std::to_string(blocks_[slot].index) + " names CTA " + std::to_string(rank) +
                               " of a cluster of " + std::to_string(cluster_));
    return slot - blocks_[slot].rank + rank;
  }

  // Retires the warp's MMA groups until at most `keep` are pending; false if one is not through yet.
  // Results reach the registers mma_latency after the core is through with a group.
  bool run_mma_wait(Warp& w, uint32_t keep) {
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

  // A register op's instructions: the scheduler issues them one per issue_interval, each pipe
  // takes its own at its rate, all from when the warp gets its first issue slot; the warp goes on
  // when the last result is back (the next op usually needs it). Other warps of the sub-partition
  // queue behind what this one holds: their instructions interleave on the real pipes, which
  // changes who waits, not how much the pipes can do.
  void run_math(SubPartition& sp, Warp& w, const PipeCounts& pipes) {
    const double issue = static_cast<double>(pipes.total()) * p_.issue_interval;
    const double start = std::max(w.time, sp.issue_free);
    sp.issue_free = start + issue;
    sp.issue_busy += issue;
    double done = start + issue;
    Pipe bound = Pipe::fma;
    double bound_time = -1;
    for (int i = 0; i < kPipes; ++i) {
      if (pipes.n[i] == 0) continue;
      const double busy = pipes.n[i] * p_.pipe_interval[i];
      const double begin = std::max(start, sp.pipe_free[i]);
      sp.pipe_free[i] = begin + busy;
      sp.pipe_busy[i] += busy;
      report_.pipe_instructions[i] += pipes.n[i];
      done = std::max(done, begin + busy + p_.pipe_latency[i]);
      if (begin + busy > bound_time) bound_time = begin + busy, bound = static_cast<Pipe>(i);
    }
    span(w, OpKind::math, start, done, bound);
    w.time = done;
  }

  // Costs by access, computed once: a kernel repeats the same few.
  const SmemCost& smem_cost(const SmemAccess& a, bool store) {
    const auto& t = a.tile;
    const uint64_t key = (uint64_t{t.elem_bytes} << 60) ^ (uint64_t{t.rows} << 48) ^ (uint64_t{t.cols} << 36) ^
                         (uint64_t(t.swizzle) << 33) ^ (uint64_t{store} << 32) ^ (uint64_t(a.walk) << 28) ^
                         (uint64_t{t.pad_bytes} << 20) ^ (uint64_t{a.row0} << 14) ^ (uint64_t{a.col0} << 8) ^
                         (uint64_t{a.rows} << 4) ^ a.cols;
    auto it = smem_costs_.find(key);
    if (it == smem_costs_.end()) it = smem_costs_.emplace(key, smem_access_cost(a, store)).first;
    return it->second;
  }

  // A box goes through the SM's TMA unit one at a time: returns when this one issues.
  double issue_tma(Sm& sm, double ready) {
    const double start = std::max(ready, sm.tma_free);
    sm.tma_free = start + p_.tma_issue_cycles;
    sm.tma_busy += p_.tma_issue_cycles;
    return start;
  }

  void retire(uint32_t slot, double t) {
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

  std::string deadlock_message() const {
    std::ostringstream os;
    os << "deadlock: no warp can run;";
    int shown = 0;
    for (const Warp& w : warps_) {
      if (w.done || w.op == nullptr) continue;
      if (shown++ == 8) {
        os << " ...";
        break;
      }
      os << " block " << blocks_[w.block].index << " warp " << w.index << " waits in " << op_name(w.op->kind)
         << " (barrier " << w.op->barrier << ", parity/count " << w.op->count;
      if (w.op->kind == OpKind::wait)
        if (const Barrier* b = const_cast<Block&>(blocks_[w.block]).find_barrier(w.op->barrier))
          os << "; phase " << b->phase << ", " << b->arrivals << " of " << b->count << " arrivals, " << b->tx << " bytes to land";
      os << ");";
    }
    return os.str();
  }

  void finish_report() {
    end_ = std::max({end_, hbm_free_, l2_free_});  // the kernel ends when its writes have drained
    report_.cycles = end_;
    report_.seconds = end_ / (p_.clock_mhz * 1e6);
    report_.tflops = report_.seconds > 0 ? report_.flops / report_.seconds / 1e12 : 0;
    double tensor = 0, tma = 0;
    for (const Sm& s : sms_) {
      tma += s.tma_busy;
      for (uint32_t i = 0; i < p_.sub_partitions; ++i) {
        const SubPartition& sp = s.sub[i];
        tensor += sp.tensor.busy_cycles();
        report_.issue_busy[i] += sp.issue_busy;
        for (int k = 0; k < kPipes; ++k) report_.pipe_busy[k] += sp.pipe_busy[k];
      }
    }
    const double sm_cycles = std::max(end_, 1.0) * p_.sms;
    report_.tensor_busy = tensor / (sm_cycles * p_.sub_partitions);
    for (double& b : report_.issue_busy) b /= sm_cycles;
    for (double& b : report_.pipe_busy) b /= sm_cycles * p_.sub_partitions;
    report_.tma_busy = tma / sm_cycles;
    report_.l2_busy = l2_busy_ / std::max(end_, 1.0);
    report_.l2_store_busy = store_busy_ / std::max(end_, 1.0);
    report_.hbm_busy = hbm_busy_ / std::max(end_, 1.0);
  }

  GridTrace& grid_;
  EngineParams p_;
  SimOptions opt_;
  std::vector<BoxCache> l2_;  // one per partition
  std::vector<Sm> sms_;
  std::deque<Block> blocks_;
  std::deque<Warp> warps_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<std::vector<uint32_t>> groups_;  // wake groups by id; free ids in free_groups_
  std::vector<uint32_t> free_groups_, group_;  // group_: the one being run, from group_next_ on
  size_t group_next_ = 0;
  double group_time_ = 0;
  std::priority_queue<double, std::vector<double>, std::greater<>> stores_in_flight_;  // read_done of each
  std::optional<BlockTrace> pending_;
  std::unordered_map<uint64_t, SmemCost> smem_costs_;
  uint32_t next_block_ = 0, retired_ = 0;
  uint32_t cluster_ = grid_.cluster_size();
  uint64_t seq_ = 0;
  double now_ = 0, end_ = 0, l2_free_ = 0, hbm_free_ = 0, store_free_ = 0, l2_busy_ = 0, hbm_busy_ = 0, store_busy_ = 0;
  SimReport report_;
};

}  // namespace

SimReport simulate(GridTrace& grid, const EngineParams& p, const SimOptions& opt) {
  return Engine(grid, p, opt).run();
}

}  // namespace ts::sim
