#pragma once
// The op record of the host backend's trace mode: what one warp did, op by op, with no data.
// It lives in tiles/ because the backend that emits it depends on nothing; the simulator (sim/)
// replays streams of these.
#include <cstdint>
#include <type_traits>

#include "tiles/layout/swizzle.hpp"

namespace ts::sim {

enum class OpKind : uint8_t {
  barrier_init,    // mbarrier `barrier` expects `count` arrivals per phase
  expect_bytes,    // arrive once on `barrier` and announce `bytes` of transactions
  arrive,          // arrive once on `barrier`; `count` c > 0: on that barrier of cluster rank c - 1
  wait,            // block until `barrier` completes the phase of parity `count`
  tma_load,        // copy a box from global to shared; its bytes complete on `barrier`; `count`, when
                   // not 0, a multicast's CTA mask: one L2 read lands in every CTA of the cluster it names
  tma_store,       // copy a box from shared to global, in the current bulk group; `count` 1: add it
                   // into global memory (a reducing store, a read-modify-write in L2)
  tma_store_commit,  // close the current bulk group of stores
  tma_store_wait,  // block until at most `count` bulk store groups still read shared memory
                   // (`barrier` 0) or are still being written to global memory (`barrier` 1)
  mma,             // one wgmma slice of this warp: `flops`, `count` = N of m64nNk, `bytes` = the
                   // inputs' element size (1: fp8, which the tensor core runs at twice the FLOPs),
                   // `barrier` 1 when A comes from registers (only B is read from shared memory)
  mma_commit,      // close the current group of MMAs
  mma_wait,        // block until at most `count` MMA groups of this warp are pending
  smem_store,      // registers -> shared: `bytes`, `smem` says where and how
  smem_load,       // shared -> registers: `bytes`, `smem` says where and how; the warp waits for the data
  warpgroup_sync,  // named barrier of the 4 warps of warpgroup `barrier`
  block_sync,      // all warps of the block (`barrier` 1: of every block of the cluster)
  set_registers,   // setmaxnreg: `count` registers per thread from here on
  math,            // register-tile math of this warp: `pipes` says how many warp instructions go to each pipe
  gmem_load,       // plain loads from global memory by the warp's lanes (ld.global into a shared vector):
                   // `box` says which bytes; the warp waits for them (the L2's latency, or HBM's on a miss)
  gmem_store,      // plain stores to global memory by the warp's lanes: `box`; the warp does not wait
};
inline constexpr int kOpKinds = static_cast<int>(OpKind::gmem_store) + 1;

// The math pipes of an SM sub-partition that register-tile ops issue to. Which instruction goes
// where (tiles/ops/pipe_cost.hpp): fma: FFMA, FADD, FMUL, moves; alu: FMNMX, compares, selects,
// 16-bit widening; sfu: MUFU (ex2, lg2, rcp); convert: the fp32 -> bf16/fp16 pair pack (F2FP);
// shuffle: SHFL. Each pipe's rate and latency are machine-file figures (sim/machine.hpp).
enum class Pipe : uint8_t { fma, alu, sfu, convert, shuffle };
inline constexpr int kPipes = 5;

// Warp instructions per pipe: what one register op costs one warp.
struct PipeCounts {
  uint16_t n[kPipes] = {};
  // The op's longest chain of dependent instructions, by pipe, where it is longer than one of each:
  // a reduction's fold runs one value through every element a lane holds, then through the
  // shuffle rounds. Each of them waits for the one before (its pipe's latency); 0 everywhere: the
  // instructions are independent, and only the last result's latency counts.
  uint16_t chain[kPipes] = {};
  constexpr uint16_t& operator[](Pipe p) { return n[static_cast<int>(p)]; }
  constexpr uint16_t operator[](Pipe p) const { return n[static_cast<int>(p)]; }
  constexpr uint32_t total() const {
    uint32_t t = 0;
    for (uint16_t x : n) t += x;
    return t;
  }
  friend constexpr bool operator==(const PipeCounts&, const PipeCounts&) = default;
};


// A TMA box in global memory: `rows` rows of `row_bytes` contiguous bytes, from `offset` on.
struct GlobalBox {
  uint32_t tensor = 0;     // which tensor (distinct tensors never share cache lines)
  uint32_t rows = 0;
  uint32_t row_bytes = 0;  // in-range bytes of each row (out-of-range parts move no memory)
  uint32_t row_pitch = 0;  // bytes from a row's start to the next's (the tensor's row): HBM's rate depends on it
  uint64_t offset = 0;     // byte offset of the box's first byte in the tensor
};
static_assert(sizeof(GlobalBox) == 24, "GlobalBox grew");

// How a warp's lanes address shared memory in one tile op, instruction by instruction (the device
// backend's walks, tiles/backend/device/warp_ops.cuh and register_ops.cuh):
enum class SmemWalk : uint8_t {
  accumulator_pairs,  // warpgroup::store of an fp32 accumulator into an fp32 tile: two adjacent elements
                      // per lane per register pair, 4 st.shared.b64 per 16 columns (16-bit tiles: matrix_x4;
                      // the whole accumulator, blocks swapped: row_pairs, layout::accumulator_swaps_blocks)
  matrix_x4,          // 16-bit tiles: one ldmatrix/stmatrix .x4 (.trans for col_l) per 16x16 subtile
  row_pairs,          // fp32 row_l tiles: one 64-bit access per pair, 4 per subtile
  column_pairs,       // fp32 col_l tiles: two 32-bit accesses per pair (the pair is one above the other)
  vector_by_group,    // register vector <-> shared vector: one access per slot; by_group_l (2 slots)
  vector_by_thread,   // ... by_thread_l (4 slots); a store writes from one replica of each element
};

// A warp's register <-> shared access (smem_load, smem_store): `rows` x `cols` elements of the shared
// tile at (row0, col0), walked as `walk` says. A shared vector is a 1 x N tile. The simulator counts
// its wavefronts with the bank model on the tile's own layout.
struct SmemAccess {
  layout::SmemLayout tile{};
  uint16_t row0 = 0, col0 = 0, rows = 0, cols = 0;
  SmemWalk walk = SmemWalk::accumulator_pairs;
};

// 56 bytes: a 16384^3 grid streams hundreds of millions of these through the simulator, so the
// per-op sizes are 32-bit (one warp's op moves at most a shared-memory's worth of bytes) and the
// two payloads share their room.
struct TraceOp {
  TraceOp() : box{} {}
  OpKind kind{};
  uint32_t barrier = 0;  // mbarrier id (its shared-memory offset) or warpgroup id
  uint32_t count = 0;    // meaning depends on kind (see OpKind)
  uint32_t bytes = 0;
  uint32_t flops = 0;
  union {
    GlobalBox box;            // tma_load / tma_store / gmem_load / gmem_store
    SmemAccess smem;          // smem_load / smem_store
    PipeCounts pipes;         // math
  };
};
static_assert(sizeof(TraceOp) <= 56, "TraceOp grew: the simulator's op streams are sized for 56 bytes");
static_assert(std::is_trivially_copyable_v<TraceOp>);

// An op with its scalar fields set (box and store left empty): how the emitter and tests build them.
inline TraceOp make_op(OpKind kind, uint32_t barrier = 0, uint32_t count = 0, uint32_t bytes = 0, uint32_t flops = 0) {
  TraceOp op;
  op.kind = kind;
  op.barrier = barrier;
  op.count = count;
  op.bytes = bytes;
  op.flops = flops;
  return op;
}

}  // namespace ts::sim
