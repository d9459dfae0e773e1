#pragma once
// The instrumented device build: each op that trace mode knows also stamps its start and end on
// the SM's clock into a per-warp slot in global memory (tiles/backend/stamps.hpp), so the GPU's
// own per-warp timeline can be laid over the simulated one, op for op.
//
// A translation unit turns it on by defining TILESCOPE_STAMPS to 1 before including tiles/ (see
// kernels/stamps/recorded_launch.cu). Off, a Scope is an empty object and mark() an empty inline
// function: the ops compile to exactly what they were. The state is per translation unit
// (internal linkage): the plan is set by arm() in the unit that launches.
#include <cstdint>

#include "tiles/backend/stamps.hpp"

#ifndef TILESCOPE_STAMPS
#define TILESCOPE_STAMPS 0
#endif
// The op kinds the build stamps (a mask of kind_bit's; CMake's TILESCOPE_STAMP_KINDS sets it for
// kernels/stamps/recorded_launch.cu): the others compile to nothing, as in the plain build.
#ifndef TILESCOPE_STAMP_KINDS
#define TILESCOPE_STAMP_KINDS ts::stamp::kAllKinds
#endif

#if TILESCOPE_STAMPS
#include <cuda_runtime.h>
#endif

namespace ts::stamp {

// What a record names an mbarrier by: the low bits of its generic address, the same for every warp
// of the block (no conversion to a shared-memory address, which made the compiler recompute the
// shared window's base in the consumers' loop).
__device__ inline uint32_t id_of(const void* p) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p)); }

#if TILESCOPE_STAMPS
inline constexpr int kMaxWarps = 32;  // the plan's warp mask has a bit per warp
static __constant__ Plan g_plan;

// A warp's recording state lives in four PTX registers that begin_block declares at the kernel's
// own scope (every stamp is inlined into the kernel, so every stamp's asm names the same ones):
//   ts_rec   where its next record goes          ts_cur   records it has tried to write
//   ts_cap   its room: 0 where it does not write  ts_math  1 when its last record was register math
// Only lane 0 writes (the others have no room), with a predicated store and no branch: an op that
// lane 0 does not run is not recorded (the elected thread of a TMA issue or a store is lane 0).
// Measured on the H200 (2026-11-28, data/measured/h200/stamp-variants.txt), the default GEMM at
// 8192^3, recording every warp: +67-72 % with the state in shared memory (a load and a store of it
// per record, the writing lane picked by a branch), +12-17 % with it in registers, and +0.4-3.5 %
// once the producer's block-order math left its loop over stages (pipeline.hpp's locate): the
// producer issues every TMA load, and each record's store in its loop delayed them.
// A run of register math becomes one span from its first op to the next op of another kind
// (sim/stamps.cpp), so only a run's first math op writes a record: the forward's loop has a dozen
// math ops per key block between its waits.

__device__ inline uint64_t now() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}
__device__ inline uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ inline uint32_t sm_id() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

inline constexpr uint32_t kKinds = TILESCOPE_STAMP_KINDS;
// Whether this build stamps ops of kind k: k is a constant at every call, so the test folds away.
__device__ constexpr bool stamps(sim::OpKind k) { return (kKinds & kind_bit(k)) != 0; }

// The warp's slot, or -1 when it does not record.
__device__ inline int64_t warp_slot() {
  const uint32_t b = blockIdx.x;
  if (b < g_plan.first || (b - g_plan.first) % g_plan.stride != 0 || (b - g_plan.first) / g_plan.stride >= g_plan.blocks) return -1;
  return slot_of(g_plan, b, threadIdx.x / 32);
}

__device__ inline void write(uint8_t kind, uint32_t arg, uint64_t start, uint64_t end, uint8_t repeat = 0) {
  asm volatile(
      "{\n .reg .pred p;\n setp.lt.u32 p, ts_cur, ts_cap;\n @p st.global.cs.v4.u32 [ts_rec], {%0, %1, %2, %3};\n"
      " @p add.u64 ts_rec, ts_rec, 16;\n add.u32 ts_cur, ts_cur, 1;\n mov.u32 ts_math, %4;\n}" ::"r"(static_cast<uint32_t>(start)),
      "r"(static_cast<uint32_t>(start >> 32)), "r"(static_cast<uint32_t>(end - start)),
      "r"(kind | (uint32_t{repeat} << 8) | ((arg & 0xffffu) << 16)), "r"(kind == static_cast<uint8_t>(sim::OpKind::math) ? 1u : 0u));
}

// Times an op from construction to destruction (ops of one warp never nest).
class Scope {
 public:
  __device__ explicit Scope(sim::OpKind kind, uint32_t arg = 0)
      : kind_(static_cast<uint8_t>(kind)), arg_(arg), start_(stamps(kind) ? now() : 0) {}
  __device__ ~Scope() {
    if (stamps(static_cast<sim::OpKind>(kind_))) write(kind_, arg_, start_, now());
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  uint8_t kind_;
  uint32_t arg_;
  uint64_t start_;
};

// An op that does not block (a TMA issue, a wgmma commit, register math): its start only.
// `repeat`: the op stands for that many more of its kind (a TMA load of several boxes).
__device__ inline void mark(sim::OpKind kind, uint32_t arg = 0, uint8_t repeat = 0) {
  if (!stamps(kind)) return;
  if (kind == sim::OpKind::math) {
    uint32_t in_run;
    asm volatile("mov.u32 %0, ts_math;" : "=r"(in_run));
    if (in_run) return;  // the run's first op has its record
  }
  const uint64_t t = now();
  write(static_cast<uint8_t>(kind), arg, t, t, repeat);
}

// Every thread of the block, before its first op: declares the state and points lane 0 of each
// recording warp at its slot.
__device__ inline void begin_block() {
  const int64_t slot = warp_slot();
  const bool writes = slot >= 0 && threadIdx.x % 32 == 0;
  const uint64_t rec = writes ? reinterpret_cast<uint64_t>(g_plan.records + static_cast<uint64_t>(slot) * g_plan.capacity) : 0;
  asm volatile(
      ".reg .u64 ts_rec;\n.reg .u32 ts_cur;\n.reg .u32 ts_cap;\n.reg .u32 ts_math;\n"
      "mov.u64 ts_rec, %0;\nmov.u32 ts_cur, 0;\nmov.u32 ts_cap, %1;\nmov.u32 ts_math, 0;" ::"l"(rec),
      "r"(writes ? g_plan.capacity : 0u));
  if (!writes) return;
  WarpHeader& h = g_plan.headers[slot];
  h.block = blockIdx.x, h.sm = sm_id(), h.warp = threadIdx.x / 32;
  h.kinds = kKinds;
  h.ns_start = global_ns();
  h.clock_start = now();
}

// Every thread of the block, after its last op.
__device__ inline void end_block() {
  const int64_t slot = warp_slot();
  if (slot < 0 || threadIdx.x % 32 != 0) return;
  uint32_t tried;
  asm volatile("mov.u32 %0, ts_cur;" : "=r"(tried));
  WarpHeader& h = g_plan.headers[slot];
  h.clock_end = now();
  h.ns_end = global_ns();
  h.count = tried < g_plan.capacity ? tried : g_plan.capacity;
  h.dropped = tried - h.count;
  h.valid = 1;
}

// Host, in the translation unit that launches: where the next launches record.
static inline cudaError_t arm(const Plan& plan, cudaStream_t stream) {
  return cudaMemcpyToSymbolAsync(g_plan, &plan, sizeof plan, 0, cudaMemcpyHostToDevice, stream);
}
#else
class Scope {
 public:
  __device__ explicit Scope(sim::OpKind, uint32_t = 0) {}
};
__device__ inline void mark(sim::OpKind, uint32_t = 0, uint8_t = 0) {}
__device__ inline void begin_block() {}
__device__ inline void end_block() {}
#endif

}  // namespace ts::stamp
