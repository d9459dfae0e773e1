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
  arrive,          // arrive once on `barrier`
  wait,            // block until `barrier` completes the phase of parity `count`
  tma_load,        // copy a box from global to shared; its bytes complete on `barrier`
  tma_store,       // copy a box from shared to global, in the current bulk group
  tma_store_commit,  // close the current bulk group of stores
  tma_store_wait,  // block until at most `count` bulk store groups still read shared memory
                   // (`barrier` 0) or are still being written to global memory (`barrier` 1)
  mma,             // one wgmma slice of this warp: `flops`, `count` = N of m64nNk16
  mma_commit,      // close the current group of MMAs
  mma_wait,        // block until at most `count` MMA groups of this warp are pending
  smem_store,      // registers -> shared (epilogue): `bytes`, `store` says where
  warpgroup_sync,  // named barrier of the 4 warps of warpgroup `barrier`
  block_sync,      // all warps of the block
  set_registers,   // setmaxnreg: `count` registers per thread from here on
  math,            // register-tile math of this warp: `pipes` says how many warp instructions go to each pipe
};

// The math pipes of an SM sub-partition that register-tile ops issue to. Which instruction goes
// where (tiles/ops/pipe_cost.hpp): fma: FFMA, FADD, FMUL, moves; alu: FMNMX, compares, selects,
// 16-bit widening; sfu: MUFU (ex2, lg2, rcp); convert: the fp32 -> bf16/fp16 pair pack (F2FP);
// shuffle: SHFL. Each pipe's rate and latency are machine-file figures (sim/machine.hpp).
enum class Pipe : uint8_t { fma, alu, sfu, convert, shuffle };
inline constexpr int kPipes = 5;

// Warp instructions per pipe: what one register op costs one warp.
struct PipeCounts {
  uint16_t n[kPipes] = {};
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
  uint64_t offset = 0;     // byte offset of the box's first byte in the tensor
};

// A warp's register-fragment store into a shared tile (warpgroup::store): `rows` x `cols` elements
// from (row0, col0), in the accumulator fragment layout (tiles/layout/fragments.hpp), each lane
// writing two adjacent elements per instruction. The simulator counts its wavefronts with the
// bank model on the tile's own layout.
struct SmemFragmentStore {
  layout::SmemLayout tile{};
  uint16_t row0 = 0, col0 = 0, rows = 0, cols = 0;
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
    GlobalBox box;            // tma_load / tma_store
    SmemFragmentStore store;  // smem_store
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
