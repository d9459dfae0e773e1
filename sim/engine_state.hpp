#pragma once
// The engine's state (sim/engine.cpp only): the mbarriers, warps, blocks, sub-partitions and SMs
// it keeps, and its one kind of event. Plain structs; the rules that change them are the engine's.
#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/engine.hpp"
#include "sim/tensor_core.hpp"
#include "sim/trace.hpp"

namespace ts::sim::engine_state {

// Transaction bytes are credited when a TMA op is issued, together with the time they land
// (`landed`): a phase completes when its arrivals are in and its bytes credited, at the time the
// last of them lands (`completed_at`). This spares the queue one event per box.
struct Barrier {
  uint32_t count = 0, arrivals = 0, phase = 0;
  int64_t tx = 0;
  double arrived = 0, landed = 0, completed_at = 0;  // latest arrival and landing of this phase
  std::vector<uint32_t> waiters;
  uint32_t id = 0;  // for the barrier event log only
};

// Laid out for the core's cache: a simulation cycles through all of its warps (1,600 on a full
// H100) between two events of one, so each event finds its warp out of the cache. What every op
// reads is in the first line, the MMA state in the next (its oldest groups with it).
struct alignas(64) Warp {
  uint32_t block = 0, index = 0;  // resident block slot, warp within the block
  uint32_t sm = 0;
  bool done = false, has_op = false, blocked = false;
  double time = 0;
  const TraceOp* op = nullptr;           // the op in hand, inside the current batch
  std::span<const TraceOp> batch;        // ops pulled from the source, not yet run
  OpSource* source = nullptr;
  uint32_t mma_keep = 0;    // blocked in mma_wait: until at most this many groups are pending
  uint32_t mma_issued = 0;  // of the mma op in hand, the wgmma already issued (the rest wait for room)
  WarpMma mma;              // its MMAs on its sub-partition's tensor core
  double blocked_since = 0;
  // A math op whose SFU work waits on its sub-partition's shared SFU (sfu_share_age_weight): held
  // until the SFU is through with it; its other pipes and its chain are done at math_rest.
  bool math_held = false;
  Pipe math_bound = Pipe::fma;  // the slowest of those other pipes
  double math_start = 0, math_rest = 0;
  double open_store = 0;
  struct StoreGroup {
    double read_done, write_done;  // shared memory read; global memory written
  };
  double open_write = 0;
  GroupFifo<StoreGroup> store_groups;
  // Groups whose reads were waited for, folded into the latest write among them: a later wait for
  // writes waits for all of them (they are older than every group still listed).
  double read_groups_write_done = 0;
  bool has_read_groups = false;
};

struct Block {
  uint32_t index = 0, sm = 0, live = 0, threads = 0, shared = 0, registers = 0;
  uint32_t rank = 0;  // in its thread-block cluster; the cluster's blocks sit in consecutive slots
  BlockTrace trace;
  std::vector<uint32_t> warps;  // global warp ids
  // A pipeline has a handful of barriers, usually in one array: a slot per 8-byte offset (mod 64)
  // remembers where each was found, and the list is searched only on a miss.
  std::vector<std::pair<uint32_t, Barrier>> barriers;
  std::array<int16_t, 64> barrier_slot = filled_slots();
  Barrier* find_barrier(uint32_t id) {
    int16_t& hint = barrier_slot[(id >> 3) & 63];
    if (hint >= 0 && size_t(hint) < barriers.size() && barriers[hint].first == id) return &barriers[hint].second;
    for (size_t i = 0; i < barriers.size(); ++i)
      if (barriers[i].first == id) {
        hint = static_cast<int16_t>(i);
        return &barriers[i].second;
      }
    return nullptr;
  }
  static std::array<int16_t, 64> filled_slots() {
    std::array<int16_t, 64> a;
    a.fill(-1);
    return a;
  }
  std::unordered_map<uint32_t, std::vector<uint32_t>> named;  // warpgroup sync arrivals
  std::vector<uint32_t> block_sync;
  std::vector<uint32_t> cluster_sync;  // arrivals of the whole cluster, kept by its rank-0 block
};

// One of the SM's four processing blocks: a scheduler, the math pipes and a tensor core. Each is a
// server that takes requests in time order and is busy until `*_free`.
struct SubPartition {
  double issue_free = 0;
  std::array<double, kPipes> pipe_free{};
  double issue_busy = 0;
  std::array<double, kPipes> pipe_busy{};
  TensorCore tensor;                  // shared in turns (older warps a little more), not in order of arrival
  std::vector<uint32_t> mma_waiters;  // warps blocked in mma_wait on this core
  std::vector<uint32_t> issue_waiters;  // warps held at a wgmma's issue while the core's queue is full
  double wake_at = -1;                // when the pending tensor event fires (-1: none)
  double tma_stall = 0;               // tensor cycles TMA writes cost it since its last MMA issue
  TensorCore sfu;                     // with sfu_share_age_weight: the SFU, shared in turns like the tensor core
  std::vector<uint32_t> sfu_waiters;  // warps held in a math op until the SFU is through with its part
  double sfu_wake_at = -1;            // when the pending SFU event fires (-1: none)
};

struct Sm {
  std::array<SubPartition, kMaxSubPartitions> sub{};
  double tma_free = 0, lsu_free = 0, tma_data_free = 0;
  double tma_busy = 0;
  uint32_t blocks = 0, threads = 0, shared = 0, registers = 0;
  GlobalBox last_read{};  // the box this SM read last (Engine::read_global: does the next continue its rows?)
};

// A warp may run again at `time`; or a wake group (several warps) may; or a tensor core reaches a
// group an mma_wait is blocked on. Ties go in order of scheduling (seq).
struct Event {
  static constexpr uint32_t kGroup = 1u << 23;   // the id names a wake group, not a warp
  static constexpr uint32_t kTensor = 1u << 22;  // the id names a sub-partition (SM x 4 + index)
  static constexpr uint32_t kSfu = 1u << 21;     // with kTensor: that sub-partition's SFU, not its tensor core
  double time;
  uint64_t order;  // seq << 24 | id: 16 bytes an event, compared in one go
  bool is_group() const { return (order & kGroup) != 0; }
  bool is_tensor() const { return (order & (kGroup | kTensor)) == kTensor; }
  uint32_t warp() const { return static_cast<uint32_t>(order & (kTensor - 1)); }
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : order > o.order; }
};

}  // namespace ts::sim::engine_state
