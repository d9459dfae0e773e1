#pragma once
// The engine's class (sim/engine.hpp's simulate() runs one): its event loop, block placement and
// per-op rules in engine.cpp, the tensor cores' (wgmma issue, MMA waits, the cores' events) in
// engine_tensor.cpp, the memory system's (TMA loads and stores, L2, HBM, the shared-memory pipe) in
// engine_memory.cpp, the report and deadlock message in engine_report.cpp. Included by those four
// files only.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/banks.hpp"
#include "sim/engine.hpp"
#include "sim/engine_state.hpp"
#include "sim/event_queue.hpp"
#include "sim/l2.hpp"
#include "sim/smem_walk.hpp"
#include "sim/tensor_core.hpp"

namespace ts::sim::engine_state {

class Engine {
 public:
  Engine(GridTrace& grid, const EngineParams& p, const SimOptions& opt)
      : grid_(grid), p_(p), opt_(opt), sms_(p.sms) {
    if (p.sub_partitions < 1 || p.sub_partitions > kMaxSubPartitions)
      throw std::invalid_argument("sub_partitions must be 1 to " + std::to_string(kMaxSubPartitions));
    if (p.mma_queue_depth > GroupFifo<double>::kCapacity)  // a warp's own in flight are listed in place
      throw std::invalid_argument("wgmma_queue_depth must be 0 (no limit) to " + std::to_string(GroupFifo<double>::kCapacity));
    const uint32_t parts = std::max(p.l2_partitions, 1u);
    for (uint32_t i = 0; i < parts; ++i) l2_.emplace_back(p.l2_bytes / parts);
    for (const uint32_t port : p.hbm_port_of_sm)
      if (port >= p.sms)
        throw std::invalid_argument("hbm_port_of_sm: port " + std::to_string(port) + " with " + std::to_string(p.sms) + " SMs");
    if (!p.hbm_port_of_sm.empty() && p.hbm_port_of_sm.size() != p.sms)
      throw std::invalid_argument("hbm_port_of_sm: one port per SM");
    const auto& ports = p.hbm_port_of_sm;
    hbm_port_free_.assign(ports.empty() ? 1 : *std::max_element(ports.begin(), ports.end()) + 1, 0.0);
    hbm_port_done_.assign(hbm_port_free_.size(), 0.0);
    for (Sm& sm : sms_)
      for (SubPartition& sp : sm.sub) {
        sp.tensor = TensorCore(p.mma_share_age_weight);
        if (p.sfu_share_age_weight > 0) sp.sfu = TensorCore(p.sfu_share_age_weight);
      }
  }

  SimReport run();

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

  // MMA waits and held issues. A warp whose group is not through blocks, one whose wgmma finds its
  // core's queue full is held; the sub-partition's core schedules one event, for when the earliest
  // group a waiter needs, or the first instruction in its queue, would be through as things stand.
  // New work moves that time, so an event that is no longer the pending one is ignored.
  void schedule_tensor_event(uint32_t sm_id, uint32_t sub);
  void tensor_event(uint32_t id);
  // The same for a shared SFU (sfu_share_age_weight > 0): warps held in a math op until its SFU
  // work is through, one event per sub-partition for the earliest of them.
  void schedule_sfu_event(uint32_t sm_id, uint32_t sub);
  void sfu_event(uint32_t id);
  // Both: the unit's one pending event (`wake_at`, -1: none) moved to `at` (-1: no one waits;
  // never before now), unless it is there already; `id` names the unit in the event.
  void pend_unit_event(double& wake_at, double at, uint32_t id);
  // The next event's warp and op are out of the core's cache by the time it comes round (a full
  // GPU's warps and op batches are several MB): fetch them while this event runs, and the warp's
  // op source when its batch has run out (the first of the objects on the way to its fiber).
  void prefetch(const Event& e) const {
    if ((e.order & (Event::kGroup | Event::kTensor)) != 0) return;
    const char* w = reinterpret_cast<const char*>(&warps_[e.warp()]);
    prefetch_line(w);
    prefetch_line(w + 64);
    const Hint& h = hints_[e.warp()];
    if (h.op == nullptr) return;
    const char* op = reinterpret_cast<const char*>(h.op);
    prefetch_line(op);
    prefetch_line(op + 64);
    prefetch_line(op + 2 * sizeof(TraceOp) - 1);
    if (h.refill == nullptr) return;
    prefetch_line(reinterpret_cast<const char*>(h.refill));
    for (const void* p : h.refill_lines)
      if (p != nullptr) {
        prefetch_line(static_cast<const char*>(p));
        prefetch_line(static_cast<const char*>(p) + 64);
      }
  }
  // GCC 12 drops some __builtin_prefetch calls at -O2 and -O3 (those of a deque element, here).
  static void prefetch_line(const char* p) {
#if defined(__x86_64__) && defined(__GNUC__)
    asm volatile("prefetcht0 %0" : : "m"(*p));
#else
    __builtin_prefetch(p);
#endif
  }
  // Moves the event clock to the warp's time so that a shared unit sees its request in time order;
  // false (and the warp queued for then) while an earlier event is still to run.
  bool catch_up(const Warp& w, uint32_t wid) {
    if (w.time <= now_) return true;
    if (next_event_time() < w.time) {
      push(w.time, wid);
      return false;
    }
    now_ = w.time;
    return true;
  }
  // When the next event happens: the queue's first, or the rest of the wake group being run.
  double next_event_time() const {
    const double queued = events_.empty() ? std::numeric_limits<double>::infinity() : events_.top().time;
    return group_next_ < group_.size() ? std::min(queued, group_time_) : queued;
  }

  bool fits(const Sm& sm);

  // The next cluster onto SMs first_sm .. first_sm + cluster_ - 1 (a GPU places a cluster's blocks
  // at once, on SMs of one GPC: here, neighbouring SMs), or the next block when there are no clusters.
  // Every block of a grid asks the same of an SM, so the first one's needs stand for all.
  bool try_place_group(uint32_t first_sm, double t);

  bool try_place(uint32_t sm_id, double t);
  double block_start_offset(uint32_t sm_id) const;

  static Barrier& barrier(Block& blk, uint32_t id) {
    Barrier* b = blk.find_barrier(id);
    if (b == nullptr) [[unlikely]]
      throw std::runtime_error("block " + std::to_string(blk.index) + " uses mbarrier " + std::to_string(id) +
                               " before initialising it");
    return *b;
  }

  // Warps may run ahead of the event clock through ops that touch no shared unit, so an arrival
  // carries its own time; the phase completes at the latest arrival (or landing), not at now_.
  void arrive(uint32_t block, Barrier& b, double time, uint32_t by_warp = 0);

  void maybe_complete(uint32_t block, Barrier& b, uint32_t by_warp = 0);

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

  void sync_arrive(uint32_t wid, std::vector<uint32_t>& arrived, uint32_t expected, double latency = 0);

  // The event loop (engine.cpp): run() pulls the warps' ops, run_events does all the rest and
  // never switches to a warp's fiber, which in the browser build keeps Asyncify's instrumentation
  // out of the per-op work (web/asyncify-remove.txt). It returns the warp whose pulled ops ran out
  // (kNoWarp once nothing is left to run); `resume` is that warp again, with its next batch.
  static constexpr uint32_t kNoWarp = ~0u;
  uint32_t run_events(uint32_t resume);
  // Runs a warp from where it stands (run_ops: from its op in hand, without run_warp's bookkeeping
  // of a wake-up) until it blocks or must wait for an earlier event (true), or its ops run out (false).
  bool run_warp(uint32_t wid);
  bool run_ops(uint32_t wid);

  // A TMA box from global memory into shared memory: through this SM's TMA unit, the L2's read
  // bandwidth (and HBM's on a miss), and each receiving SM's port; its bytes complete on the barrier.
  void load_box(Warp& w, Block& blk, Sm& sm, const TraceOp& op);

  // A TMA box from shared memory to global memory, in the warp's open bulk group.
  void store_box(Warp& w, Block& blk, Sm& sm, const TraceOp& op);

  // Wait until at most `keep` bulk store groups are still reading shared memory (or, `writes`,
  // still writing global memory).
  void wait_stores(Warp& w, bool writes, size_t keep);

  // A warp's register <-> shared-memory op, on the SM's shared-memory pipe.
  void shared_access(Warp& w, Sm& sm, const TraceOp& op);
  void global_access(Warp& w, Block& blk, const TraceOp& op);
  // A read of global memory: an L2 hit, or a miss and when HBM has delivered it.
  struct GlobalRead {
    bool hit;
    double hbm_done;
  };
  GlobalRead read_global(uint32_t sm, const GlobalBox& box, double start);
  double hbm_queue(uint32_t sm, double start, double cycles);
  void write_global(uint32_t sm, const GlobalBox& box, double start, double l2_cycles);
  void write_back(uint32_t sm, BoxCache& l2, double start);

  SubPartition& sub_partition(Sm& sm, const Warp& w) const { return sm.sub[w.index % p_.sub_partitions]; }

  // The slot of cluster rank `rank` beside the block in `slot` (a cluster's blocks are placed together).
  uint32_t peer(uint32_t slot, uint32_t rank) const {
    if (rank >= cluster_) [[unlikely]]
      throw std::runtime_error("block " + std::to_string(blocks_[slot].index) + " names CTA " + std::to_string(rank) +
                               " of a cluster of " + std::to_string(cluster_));
    return slot - blocks_[slot].rank + rank;
  }

  // A wgmma op onto the warp's sub-partition's tensor core; false if the warp is held at issue (or
  // must wait for an earlier event first): it runs the op again when woken.
  bool issue_mma(Warp& w, uint32_t wid, Sm& sm, const TraceOp& op);
  // An mma_wait: false if the warp blocks until its group is through.
  bool wait_mma(Warp& w, uint32_t wid, Sm& sm, uint32_t keep);
  // Retires the warp's MMA groups until at most `keep` are pending; false if one is not through yet.
  // Results reach the registers mma_latency after the core is through with a group.
  bool run_mma_wait(Warp& w, uint32_t keep);

  // A register op's instructions: the scheduler issues them one per issue_interval, each pipe
  // takes its own at its rate, all from when the warp gets its first issue slot; the warp goes on
  // when the last result is back (the next op usually needs it). Other warps of the sub-partition
  // queue behind what this one holds on each pipe, but the SFU when it is shared in turns
  // (sfu_share_age_weight > 0): then an op with SFU work holds the warp until the SFU is through
  // with it (false; the op runs again when woken).
  bool run_math(SubPartition& sp, Warp& w, uint32_t wid, const PipeCounts& pipes);

  // Costs by access, computed once: a kernel repeats the same few.
  const SmemCost& smem_cost(const SmemAccess& a, bool store);

  // A box goes through the SM's TMA unit one at a time: returns when this one issues.
  double issue_tma(Sm& sm, double ready);

  void retire(uint32_t slot, double t);
  static constexpr uint64_t kOpsDrawnStep = 4096;
  void ops_drawn(size_t ops);

  std::string deadlock_message() const;

  void finish_report();

  GridTrace& grid_;
  EngineParams p_;
  SimOptions opt_;
  std::vector<BoxCache> l2_;  // one per partition
  std::vector<Sm> sms_;
  std::deque<Block> blocks_;
  std::deque<Warp> warps_;
  struct Hint {
    const TraceOp* op = nullptr;  // the warp's op in hand or last taken
    OpSource* refill = nullptr;   // its source, once that op is the batch's last
    std::array<const void*, 2> refill_lines{};  // then what the source's refill touches first
  };
  std::vector<Hint> hints_;  // by warp, for prefetch()
  std::deque<WarpMma> sfu_work_;  // by warp, its math ops' SFU work on a shared SFU (sfu_share_age_weight > 0)
  mutable EventQueue<Event> events_;  // (finding its first event may move its clock on: not a visible change)
  std::vector<std::vector<uint32_t>> groups_;  // wake groups by id; free ids in free_groups_
  std::vector<uint32_t> free_groups_, group_;  // group_: the one being run, from group_next_ on
  size_t group_next_ = 0;
  double group_time_ = 0;
  std::priority_queue<double, std::vector<double>, std::greater<>> stores_in_flight_;  // read_done of each
  std::optional<BlockTrace> pending_;
  std::unordered_map<uint64_t, SmemCost> smem_costs_;
  uint32_t next_block_ = 0, retired_ = 0;
  bool launching_ = true;  // placing the launch's first blocks (block_start_offset applies)
  uint32_t cluster_ = grid_.cluster_size();
  uint64_t seq_ = 0, drawn_ = 0;  // drawn_: ops drawn since the last SimOptions::ops_drawn
  double now_ = 0, end_ = 0, l2_free_ = 0, hbm_free_ = 0, l2_busy_ = 0, hbm_busy_ = 0, store_busy_ = 0;
  std::vector<double> hbm_port_free_;  // each HBM port's turns (hbm_queue); hbm_free_: the chip's queue
  std::vector<double> hbm_port_done_;  // when each port's last bytes arrive (its turns or the chip's queue)
  SimReport report_;
};

}  // namespace ts::sim::engine_state
