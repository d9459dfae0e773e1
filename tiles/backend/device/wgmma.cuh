#pragma once
// Device backend of the warpgroup MMA ops: shared-memory matrix descriptors and wgmma.mma_async.
#include <cstdint>

#include "tiles/backend/device/core.cuh"
#include "tiles/backend/device/wgmma_insts.cuh"
#include "tiles/types/register.hpp"
#include "tiles/types/shared.hpp"

namespace ts::device {

constexpr uint64_t descriptor_swizzle_code(layout::Swizzle s) {
  switch (s) {
    case layout::Swizzle::b128: return 1;
    case layout::Swizzle::b64: return 2;
    case layout::Swizzle::b32: return 3;
    default: return 0;
  }
}

// The descriptors of a shared tile's k-slices, as one wgmma consumes them (32 bytes of K: 16 bf16 or
// 32 fp8 elements; PTX ISA, "Matrix Descriptor Format" and "Major-ness supported by strides").
// K-major: K runs along the tile's columns; MN-major: K runs along its rows. Offsets come from the
// tile's own SmemLayout, so they match TMA's bytes. The tile's address, strides and swizzle are
// encoded once and each slice adds its offset to the 14-bit address field: an address within the
// CTA's shared memory is below 256 KiB, so the field never carries into the next. (The bits above
// are the CTA's rank in a cluster, which a descriptor leaves out.) (Encoding every slice's descriptor
// whole cost about 10 instructions a wgmma, masks, shifts and moves to uniform registers: a
// quarter of the attention loops' instructions, H100 SASS of 2026-11-26.)
template <SharedTile ST, bool MNMajor>
struct descriptors {
  static constexpr uint32_t span = ST::smem_layout().block_row_bytes();
  // From one column block (swizzle span of M/N) to the next; unused by swizzled K-major layouts.
  static constexpr uint32_t leading = MNMajor ? ST::rows * span : 16;
  static constexpr uint32_t stride = 8 * span;  // from 8 rows (of K, or of M/N) to the next 8
  static constexpr uint32_t start(int kstep) {
    return MNMajor ? ST::smem_layout().linear_byte(kstep * mma_k<typename ST::dtype>, 0) : ST::smem_layout().linear_byte(0, kstep * 32);
  }
  uint32_t lo, hi;  // bits 0-31: address >> 4 and leading >> 4; bits 32-63: stride >> 4 and the swizzle
  __device__ explicit descriptors(const ST& tile)
      : lo(((smem_addr(tile.data) & 0x3FFFF) >> 4) | ((leading >> 4) << 16)),
        hi((stride >> 4) | static_cast<uint32_t>(descriptor_swizzle_code(ST::swizzle) << 30)) {}
  __device__ uint64_t operator[](int kstep) const {
    return (static_cast<uint64_t>(hi) << 32) | (lo + (start(kstep) >> 4));
  }
};
template <SharedTile ST, bool MNMajor> __device__ inline uint64_t descriptor(const ST& tile, int kstep) {
  return descriptors<ST, MNMajor>(tile)[kstep];
}

template <class T, int N, int TransA, int TransB>
__device__ inline void wgmma_ss(float (&d)[N / 2], uint64_t a, uint64_t b, uint32_t scale_d) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16> || std::is_same_v<T, fp8e4m3>, "wgmma: bf16, fp16 or fp8 e4m3 inputs");
  static_assert(!std::is_same_v<T, fp8e4m3> || (!TransA && !TransB), "wgmma: fp8 reads A and B K-major only (mma_ABt)");
#define TS_WGMMA_SS(n)                                                                       \
  if constexpr (N == n) {                                                                    \
    if constexpr (std::is_same_v<T, bf16>) wgmma_ss_m64n##n##k16_bf16<TransA, TransB>(d, a, b, scale_d); \
    else if constexpr (std::is_same_v<T, fp16>) wgmma_ss_m64n##n##k16_fp16<TransA, TransB>(d, a, b, scale_d); \
    else wgmma_ss_m64n##n##k32_e4m3(d, a, b, scale_d);                                    \
  }
  TS_WGMMA_SS(16) TS_WGMMA_SS(32) TS_WGMMA_SS(64) TS_WGMMA_SS(128) TS_WGMMA_SS(192) TS_WGMMA_SS(256)
#undef TS_WGMMA_SS
  static_assert(N == 16 || N == 32 || N == 64 || N == 128 || N == 192 || N == 256, "wgmma: N must be 16..256 (supported set)");
}

template <class T, int N, int TransB>
__device__ inline void wgmma_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t b, uint32_t scale_d) {
#define TS_WGMMA_RS(n)                                                                       \
  if constexpr (N == n) {                                                                    \
    if constexpr (std::is_same_v<T, bf16>) wgmma_rs_m64n##n##k16_bf16<TransB>(d, a, b, scale_d); \
    else wgmma_rs_m64n##n##k16_fp16<TransB>(d, a, b, scale_d);                             \
  }
  TS_WGMMA_RS(16) TS_WGMMA_RS(32) TS_WGMMA_RS(64) TS_WGMMA_RS(128) TS_WGMMA_RS(192) TS_WGMMA_RS(256)
#undef TS_WGMMA_RS
}

template <int N>
__device__ inline float (&accumulator_regs(rt_fl<16, N>& d))[N / 2] {
  return *reinterpret_cast<float(*)[N / 2]>(&d.tiles[0][0][0]);
}

}  // namespace ts::device

namespace ts::warpgroup {

// wgmma reads its accumulators asynchronously: fence register writes before the first MMA.
template <int N> __device__ inline void mma_fence(rt_fl<16, N>& d) {
  auto& regs = device::accumulator_regs(d);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) asm volatile("" : "+f"(regs[i])::"memory");
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ inline void mma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  // After the commit: ptxas folds the commit into the group's last wgmma, and anything between the
  // two makes it close the group with an empty wgmma of its own, which a wait<1> then waits behind.
  stamp::mark(sim::OpKind::mma_commit);
}
template <int Pending = 0, int N> __device__ inline void mma_async_wait(rt_fl<16, N>& d) {
  [[maybe_unused]] stamp::Scope s(sim::OpKind::mma_wait, Pending);
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
  auto& regs = device::accumulator_regs(d);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) asm volatile("" : "+f"(regs[i])::"memory");
}

namespace detail {
template <bool MNMajorA, bool MNMajorB, int N, int K, SharedTile SA, SharedTile SB>
__device__ inline void mma_smem(rt_fl<16, N>& d, const SA& a, const SB& b, bool accumulate) {
  using T = typename SA::dtype;
  static_assert(std::is_same_v<T, typename SB::dtype>, "warpgroup::mma: A and B element types differ");
  static_assert(K % mma_k<T> == 0, "warpgroup::mma: K must be a multiple of one wgmma's depth (mma_k)");
  auto& regs = device::accumulator_regs(d);
  const device::descriptors<SA, MNMajorA> da(a);
  const device::descriptors<SB, MNMajorB> db(b);
#pragma unroll
  for (int k = 0; k < K / mma_k<T>; ++k) device::wgmma_ss<T, N, MNMajorA, MNMajorB>(regs, da[k], db[k], (accumulate || k > 0) ? 1u : 0u);
}
}  // namespace detail

// Each warp of the calling warpgroup holds 16 rows of the 64 x N result: warp w rows 16w..16w+15.
// AB:  a is 64 x K (K-major), b is K x N (row-major, N-major for wgmma).
// ABt: a is 64 x K, b is N x K (both K-major): C = A B^T.
// AtB: a is K x 64 (M-major), b is K x N.
// mma_* accumulates into d; mm_* overwrites it. Issue, then commit_group and mma_async_wait.
template <int N, int K, class T>
__device__ inline void mma_AB(rt_fl<16, N>& d, const st<T, 64, K>& a, const st<T, K, N>& b, bool accumulate = true) {
  detail::mma_smem<false, true, N, K>(d, a, b, accumulate);
}
template <int N, int K, class T>
__device__ inline void mma_ABt(rt_fl<16, N>& d, const st<T, 64, K>& a, const st<T, N, K>& b, bool accumulate = true) {
  detail::mma_smem<false, false, N, K>(d, a, b, accumulate);
}
template <int N, int K, class T>
__device__ inline void mma_AtB(rt_fl<16, N>& d, const st<T, K, 64>& a, const st<T, K, N>& b, bool accumulate = true) {
  detail::mma_smem<true, true, N, K>(d, a, b, accumulate);
}
template <int N, int K, class T>
__device__ inline void mm_AB(rt_fl<16, N>& d, const st<T, 64, K>& a, const st<T, K, N>& b) { mma_AB(d, a, b, false); }
template <int N, int K, class T>
__device__ inline void mm_ABt(rt_fl<16, N>& d, const st<T, 64, K>& a, const st<T, N, K>& b) { mma_ABt(d, a, b, false); }

// A from registers: this warp's 16 x K slice of A (row layout), b K x N.
template <int N, int K, class T, TileLayout L>
__device__ inline void mma_AB(rt_fl<16, N>& d, const rt<T, 16, K, L>& a, const st<T, K, N>& b, bool accumulate = true) {
  static_assert(std::is_same_v<L, row_l>, "warpgroup::mma_AB: a register A operand must be in row layout (rt<T, 16, K, row_l>)");
  auto& regs = device::accumulator_regs(d);
  const device::descriptors<st<T, K, N>, true> db(b);
#pragma unroll
  for (int k = 0; k < K / 16; ++k) {
    const uint32_t(&frag)[4] = *reinterpret_cast<const uint32_t(*)[4]>(&a.tiles[0][k][0]);
    device::wgmma_rs<T, N, 1>(regs, frag, db[k], (accumulate || k > 0) ? 1u : 0u);
  }
}

}  // namespace ts::warpgroup
