#pragma once
// Thread-block clusters: the CTAs of a cluster run at once on neighbouring SMs and may reach into
// each other's shared memory. Three things cross a CTA's edge here: a cluster-wide barrier, an
// arrival on a peer CTA's mbarrier (at the same offset as one of ours), and TMA multicast
// (tma::load_async_multicast): one L2 read written into the same offset of several CTAs.
// A kernel whose CTAs touch each other must keep every CTA alive until its peers are done with it:
// cluster::sync() before exit.
#include <cstdint>

#include "tiles/sync/barrier.hpp"

#if defined(__CUDACC__)
#include "tiles/backend/device/core.cuh"
namespace ts::cluster {
__device__ inline int rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return static_cast<int>(r);
}
__device__ inline int size() {
  uint32_t n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return static_cast<int>(n);
}
// Every thread of every CTA of the cluster meets here; writes before it (shared memory, barrier
// inits) are visible to the whole cluster after it. Not .aligned: threads may arrive from
// diverged paths (the producer's elected lane).
__device__ inline void sync() {
  [[maybe_unused]] stamp::Scope s(sim::OpKind::block_sync);
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}
// One arrival on the barrier at `b`'s offset in CTA `cta` of the cluster (our own rank included).
// The default .release.cta, not .release.cluster: the cluster scope puts a memory barrier before
// every arrival that waits for all of the warp's outstanding memory operations (Nsight Compute on
// the GEMM: 44 % of its stalls, 2.4x slower). What the arrival hands back is a stage that the
// warp's MMAs read, and those have completed (wgmma wait) before it arrives.
__device__ inline void arrive(barrier& b, int cta) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(&b)), "r"(cta));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}
}  // namespace ts::cluster
#else
#include "tiles/backend/host/cluster.hpp"
#endif
