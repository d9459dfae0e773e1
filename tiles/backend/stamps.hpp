#pragma once
// The record format of the instrumented device build (tiles/backend/device/stamp.cuh): what each
// warp writes about the ops it ran, and the plan that says where. Plain C++ shared by the device
// code that writes the records and the host code that reads them (sim/stamps.*), so the two can
// never disagree on a field.
//
// Each recorded warp owns a slot: a header and `capacity` records in global memory. A warp that
// fills its slot keeps running and counts what it could not write (`dropped`), so a short buffer
// costs detail, never correctness.
#include <cstdint>
#include <vector>

#include "tiles/backend/host/trace_op.hpp"  // ts::sim::OpKind: the same op kinds as trace mode

namespace ts::stamp {

// One op of one warp: its start on the SM's clock (clock64) and how long it took, in cycles.
// Ops that do not block (an arrive, a TMA issue, a register-math op) take 0 cycles here: their
// span in the timeline runs to the warp's next record.
struct Record {
  uint64_t start = 0;
  uint32_t cycles = 0;
  uint8_t kind = 0;    // a sim::OpKind
  uint8_t repeat = 0;  // the record stands for 1 + repeat ops of its kind (the boxes of one TMA load)
  uint16_t arg = 0;  // wait, arrive, expect_bytes, tma_load: the mbarrier's shared-memory address (low 16 bits)
};
static_assert(sizeof(Record) == 16, "one 16-byte store per record");

// Written by lane 0 of each recorded warp when its block starts and when the warp leaves the kernel.
struct WarpHeader {
  uint64_t clock_start = 0, clock_end = 0;  // clock64 of the SM
  uint64_t ns_start = 0, ns_end = 0;        // %globaltimer: one clock for every SM, to line them up
  uint32_t block = 0, sm = 0, warp = 0;
  uint32_t count = 0;    // records written
  uint32_t dropped = 0;  // records that did not fit
  uint32_t valid = 0;    // 1 once written: a slot of a block that never ran stays 0
  uint32_t kinds = 0;    // the op kinds the build stamps (a bit per sim::OpKind): kAllKinds or fewer
  uint32_t unused = 0;
};
static_assert(sizeof(WarpHeader) == 64);

constexpr uint32_t kind_bit(sim::OpKind k) { return 1u << static_cast<int>(k); }
inline constexpr uint32_t kAllKinds = (1u << sim::kOpKinds) - 1;
// A lighter build's set (cmake -DTILESCOPE_STAMP_KINDS=waits): what the steady-state pace of the
// wgmma groups and TMA loads and each role's waiting share need, and nothing inside the consumers'
// register work (no register math, no register <-> shared moves). Every stamp is a clock read the
// compiler may not schedule across; in the attention forward's loop the math and move stamps are
// most of them (kernels/stamps/README.md says what each set costs).
inline constexpr uint32_t kWaitKinds =
    kind_bit(sim::OpKind::wait) | kind_bit(sim::OpKind::tma_load) | kind_bit(sim::OpKind::tma_store) |
    kind_bit(sim::OpKind::tma_store_commit) | kind_bit(sim::OpKind::tma_store_wait) | kind_bit(sim::OpKind::mma_commit) |
    kind_bit(sim::OpKind::mma_wait) | kind_bit(sim::OpKind::warpgroup_sync) | kind_bit(sim::OpKind::block_sync) |
    kind_bit(sim::OpKind::set_registers);

// Which blocks record, and where. Blocks first, first + stride, ... (`blocks` of them) record
// the warps of `warp_mask`; the others record nothing (their stamps' stores are predicated off).
struct Plan {
  Record* records = nullptr;      // [blocks * recorded_warps(plan)][capacity]
  WarpHeader* headers = nullptr;  // [blocks * recorded_warps(plan)]
  uint32_t capacity = 0;          // records per warp
  uint32_t warps_per_block = 0;
  uint32_t first = 0, stride = 1, blocks = 0;
  uint32_t warp_mask = ~0u;  // bit w: warp w of a recorded block records
};

// The warps of the mask below `warp` (all of them for warp = warps_per_block): a loop, not a
// library popcount, so that the device code can call it too.
constexpr uint32_t recorded_warps_below(const Plan& p, uint32_t warp) {
  uint32_t n = 0;
  for (uint32_t w = 0; w < warp && w < p.warps_per_block && w < 32; ++w) n += (p.warp_mask >> w) & 1u;
  return n;
}
constexpr uint32_t recorded_warps(const Plan& p) { return recorded_warps_below(p, p.warps_per_block); }

// The slot of (block, warp), or -1 when that warp does not record.
constexpr int64_t slot_of(const Plan& p, uint32_t block, uint32_t warp) {
  if (block < p.first || (block - p.first) % p.stride != 0) return -1;
  const uint32_t i = (block - p.first) / p.stride;
  if (i >= p.blocks || warp >= p.warps_per_block || warp >= 32 || !((p.warp_mask >> warp) & 1u)) return -1;
  return int64_t{i} * recorded_warps(p) + recorded_warps_below(p, warp);
}

// A finished recording, copied back to the host: one header per slot, `capacity` records per slot.
struct Recording {
  Plan plan;  // its pointers are the device's, for reference only
  std::vector<WarpHeader> headers;
  std::vector<Record> records;
  const Record* slot_records(std::size_t slot) const { return records.data() + slot * plan.capacity; }
};

}  // namespace ts::stamp
