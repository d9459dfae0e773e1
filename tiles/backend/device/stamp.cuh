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

#if TILESCOPE_STAMPS
#include <cuda_runtime.h>
#endif

namespace ts::stamp {

// What a record names an mbarrier by: the low bits of its generic address, the same for every warp
// of the block (no conversion to a shared-memory address, which made the compiler recompute the
// shared window's base in the consumers' loop).
__device__ inline uint32_t id_of(const void* p) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p)); }

#if TILESCOPE_STAMPS
inline constexpr int kMaxWarps = 32;
static __constant__ Plan g_plan;
// Per block, per warp: its slot (-1: this block does not record) and the records it has tried to
// write, side by side so that one 8-byte shared load fetches both. Only lane 0 of a warp (or the
// one thread running an elected branch) touches its entry.
struct WarpState {
  int32_t slot;
  uint32_t cursor;  // records tried, and kInMathRun when the last of them was register math
};
// A run of register math becomes one span from its first op to the next op of another kind
// (sim/stamps.cpp), so only a run's first math op writes a record: the forward's loop has a dozen
// math ops per key block between its waits (kernels/stamps/README.md has what that saved).
inline constexpr uint32_t kInMathRun = 1u << 31;
static __shared__ __align__(8) WarpState g_warp[kMaxWarps];

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

// Whether this block records: arithmetic on the plan and the block index only, which the compiler
// can hoist out of the kernel's loops, so a block that does not record skips the shared-memory load.
__device__ inline bool block_records() {
  const uint32_t b = blockIdx.x;
  return b >= g_plan.first && (b - g_plan.first) % g_plan.stride == 0 && (b - g_plan.first) / g_plan.stride < g_plan.blocks;
}

// The warp's entry, read when an op starts, so that for a wait the shared-memory load overlaps
// the wait instead of following it. Only the lane that will write the record reads it (the lowest
// active lane: lane 0 in warp-wide code, the elected thread in a branch that one thread runs, such
// as a TMA issue); the others get no slot. When every lane read it, racecheck reported each read as
// racing with that lane's cursor update (harmless, the values went unused, but not clean).
__device__ inline WarpState load_state() {
  if (!block_records()) return {-1, 0};
  if (threadIdx.x % 32 != static_cast<uint32_t>(__ffs(__activemask()) - 1)) return {-1, 0};
  return g_warp[threadIdx.x / 32];
}

// With branches, not predicated stores: predicated stores made ptxas serialize the GEMM's wgmma
// (C7520).
//
// What recording costs is the recording warps' memory writes, this store most (kernels/stamps/
// README.md has the figures, taken apart on the H100): with the store removed the GEMM at 8192^3
// cost 14 % more than the plain build, with it about 50 %; reading the clock cost nothing.
__device__ inline void write(WarpState w, uint8_t kind, uint32_t arg, uint64_t start, uint64_t end, uint8_t repeat = 0) {
  if (w.slot < 0) return;  // not recording, or not the lane that writes
  const uint32_t tried = w.cursor & ~kInMathRun;
  g_warp[threadIdx.x / 32].cursor = (tried + 1) | (kind == static_cast<uint8_t>(sim::OpKind::math) ? kInMathRun : 0u);
  if (tried >= g_plan.capacity) return;
  const uint4 r{static_cast<uint32_t>(start), static_cast<uint32_t>(start >> 32), static_cast<uint32_t>(end - start),
                kind | (uint32_t{repeat} << 8) | ((arg & 0xffffu) << 16)};
  __stcs(reinterpret_cast<uint4*>(g_plan.records + static_cast<uint64_t>(w.slot) * g_plan.capacity + tried), r);
}

// Times an op from construction to destruction (ops of one warp never nest, so the entry read at
// construction is still the warp's at destruction).
class Scope {
 public:
  __device__ explicit Scope(sim::OpKind kind, uint32_t arg = 0)
      : state_(load_state()), kind_(static_cast<uint8_t>(kind)), arg_(arg), start_(now()) {}
  __device__ ~Scope() { write(state_, kind_, arg_, start_, now()); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  WarpState state_;
  uint8_t kind_;
  uint32_t arg_;
  uint64_t start_;
};

// An op that does not block (a TMA issue, a wgmma commit, register math): its start only.
// `repeat`: the op stands for that many more of its kind (a TMA load of several boxes).
__device__ inline void mark(sim::OpKind kind, uint32_t arg = 0, uint8_t repeat = 0) {
  const WarpState w = load_state();
  if (kind == sim::OpKind::math && (w.cursor & kInMathRun)) return;  // the run's first op has its record
  const uint64_t t = now();
  write(w, static_cast<uint8_t>(kind), arg, t, t, repeat);
}

// Every thread of the block, before its first op: each warp's lane 0 claims the warp's slot.
__device__ inline void begin_block() {
  if (threadIdx.x % 32 != 0) return;
  const uint32_t w = threadIdx.x / 32;
  const int64_t slot = slot_of(g_plan, blockIdx.x, w);
  g_warp[w] = {static_cast<int32_t>(slot), 0};
  if (slot < 0) return;
  WarpHeader& h = g_plan.headers[slot];
  h.block = blockIdx.x, h.sm = sm_id(), h.warp = w;
  h.ns_start = global_ns();
  h.clock_start = now();
}

// Every thread of the block, after its last op.
__device__ inline void end_block() {
  if (threadIdx.x % 32 != 0) return;
  const uint32_t w = threadIdx.x / 32;
  if (g_warp[w].slot < 0) return;
  WarpHeader& h = g_plan.headers[g_warp[w].slot];
  h.clock_end = now();
  h.ns_end = global_ns();
  const uint32_t tried = g_warp[w].cursor & ~kInMathRun;
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
