#pragma once
// The SM's cycle counter and the GPU's nanosecond timer, as the microbenchmarks (kernels/calibrate)
// and the probes (kernels/probes) read them, and the id of the SM a thread runs on: with a memory clobber, so that a read stays where the
// source puts it relative to the loads and stores it times. (The instrumented build's stamps,
// tiles/backend/device/stamp.cuh, read them without one, to leave the kernel's code as it was.)
#include <cstdint>

__device__ __forceinline__ uint64_t clock_cycles() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ uint32_t sm_id() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
