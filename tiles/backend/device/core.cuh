#pragma once
// Device backend: thread identity, elections, barriers, fences and register reallocation.
#include <cstdint>

#include "tiles/backend/device/stamp.cuh"

namespace ts {

__device__ inline int laneid() { return threadIdx.x % 32; }
__device__ inline int warpid() { return threadIdx.x / 32; }
__device__ inline int block_index() { return blockIdx.x; }
__device__ inline int grid_blocks() { return gridDim.x; }

namespace warpgroup {
// Through a shuffle from lane 0, so that ptxas knows the value is the same across the warp: a
// branch on it (causal attention's warpgroups skipping future blocks) is then not divergent, and
// the wgmma behind it is not serialized (C7518, "WG.DP in divergent path"). Against threadIdx.x /
// 128 (H200, 2026-11-26, data/measured/h200/attention-uniform-groupid.txt): the causal forward
// +7-11 %, the backward +1-2 %, the unmasked forward and the GEMM within noise.
__device__ inline int groupid() { return __shfl_sync(0xffffffff, threadIdx.x / 128, 0); }
__device__ inline int warpid() { return (threadIdx.x / 32) % 4; }
// Threads of one warpgroup meet at their own named barrier (0 is __syncthreads).
__device__ inline void sync(int id) {
  [[maybe_unused]] stamp::Scope s(sim::OpKind::warpgroup_sync, id);
  asm volatile("bar.sync %0, 128;" ::"r"(id + 1) : "memory");
}
// setmaxnreg: move registers from the producer warpgroup to the consumers (sm_90a).
template <int N> __device__ inline void increase_registers() {
  stamp::mark(sim::OpKind::set_registers, N);
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N> __device__ inline void decrease_registers() {
  stamp::mark(sim::OpKind::set_registers, N);
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
}  // namespace warpgroup

// True in exactly one lane of the calling warp: where one thread must act for the warp (issuing
// TMA, arriving on a barrier). On the host backend the whole warp is one fiber, so it is true.
__device__ inline bool elect_one() {
  uint32_t pred = 0;
  asm volatile(
      "{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(pred));
  return pred != 0;
}

__device__ inline void block_sync() {
  [[maybe_unused]] stamp::Scope s(sim::OpKind::block_sync);
  __syncthreads();
}

namespace warp {
// The lanes of the calling warp meet: what one lane wrote to shared memory, the others may read.
__device__ inline void sync() { __syncwarp(); }
}  // namespace warp

// Ordinary shared-memory writes become visible to TMA and wgmma (the async proxy) only after this.
__device__ inline void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

__device__ inline uint32_t smem_addr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

}  // namespace ts
