#pragma once
// mbarriers: a 64-bit word in shared memory counting arrivals and transaction bytes. A phase
// completes when every expected thread has arrived and every expected byte has landed; waiters
// name the phase by its parity (0, 1, 0, ...).
#include <cstdint>

#include "tiles/sync/barrier.hpp"

#if defined(__CUDACC__)
#include "tiles/backend/device/core.cuh"
namespace ts {
__device__ inline void init(barrier& b, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(&b)), "r"(arrivals) : "memory");
}
// Make initialised barriers visible to the TMA unit before anyone uses them.
__device__ inline void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// Arrive once and announce `bytes` of transactions (TMA) that must land before the phase completes.
__device__ inline void expect_bytes(barrier& b, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&b)), "r"(bytes) : "memory");
}
__device__ inline void arrive(barrier& b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(&b)) : "memory");
}
__device__ inline void wait(barrier& b, uint32_t parity) {
  [[maybe_unused]] stamp::Scope s(sim::OpKind::wait, stamp::id_of(&b));
  asm volatile(
      "{\n.reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(smem_addr(&b)),
      "r"(parity)
      : "memory");
}
}  // namespace ts
#else
#include "tiles/backend/host/mbarrier.hpp"
#endif
