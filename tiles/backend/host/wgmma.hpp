#pragma once
// Host backend of the warpgroup MMA ops (tiles/backend/device/wgmma.cuh). The calling warp computes
// its 16 rows (16w..16w+15, w = warpgroup::warpid()) of the 64 x N product: operands are read from
// the shared tiles through their swizzled layout (st::at), converted to fp32 and accumulated in
// fp32, k ascending. MMAs complete when issued, so fence, commit and wait have nothing to do.
#include <type_traits>
#include <vector>

#include "tiles/backend/host/core.hpp"
#include "tiles/backend/host/trace.hpp"
#include "tiles/types/register.hpp"
#include "tiles/types/shared.hpp"

namespace ts::warpgroup {

namespace detail {
template <class T, int N>
constexpr void check_mma_types() {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, fp16> || std::is_same_v<T, fp8e4m3>, "wgmma: bf16, fp16 or fp8 e4m3 inputs");
  static_assert(N == 16 || N == 32 || N == 64 || N == 128 || N == 192 || N == 256, "wgmma: N must be 16..256 (supported set)");
}

// Operands unpacked to fp32 once per op: a as 16 x K, b as K x N. Scratch is per OS thread and an op
// never yields, so the warps (fibers) of a block can share it.
inline float* scratch(std::size_t floats) {
  thread_local std::vector<float> buf;
  if (buf.size() < floats) buf.resize(floats);
  return buf.data();
}

// d (16 x N) = (accumulate ? d : 0) + a (16 x K) b (K x N).
template <int N, int K>
inline void mma_rows(rt_fl<16, N>& d, const float* a, const float* b, bool accumulate) {
  if (!accumulate)
    for (int i = 0; i < 16; ++i)
      for (int n = 0; n < N; ++n) d.v[i][n] = 0.f;
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < K; ++k) {
      const float aik = a[i * K + k];
      const float* bk = b + k * N;
      float* di = d.v[i];
      for (int n = 0; n < N; ++n) di[n] += aik * bk[n];
    }
}

// MNMajorA: a is K x 64 (read transposed); MNMajorB: b is K x N, else N x K (read transposed).
template <bool MNMajorA, bool MNMajorB, int N, int K, SharedTile SA, SharedTile SB>
inline void mma_smem(rt_fl<16, N>& d, const SA& a, const SB& b, bool accumulate) {
  using T = typename SA::dtype;
  static_assert(std::is_same_v<T, typename SB::dtype>, "warpgroup::mma: A and B element types differ");
  check_mma_types<T, N>();
  static_assert(!std::is_same_v<T, fp8e4m3> || (!MNMajorA && !MNMajorB), "wgmma: fp8 reads A and B K-major only (mma_ABt)");
  static_assert(K % mma_k<T> == 0, "warpgroup::mma: K must be a multiple of one wgmma's depth (mma_k)");
  if (host::tracing()) return host::emit(sim::OpKind::mma, 0, N, sizeof(T), uint32_t{2} * 16 * N * K);
  float* fa = scratch(16 * K + K * N);
  float* fb = fa + 16 * K;
  const int row0 = 16 * warpgroup::warpid();
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < K; ++k) fa[i * K + k] = to_float(MNMajorA ? *a.at(k, row0 + i) : *a.at(row0 + i, k));
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) fb[k * N + n] = to_float(MNMajorB ? *b.at(k, n) : *b.at(n, k));
  mma_rows<N, K>(d, fa, fb, accumulate);
}
}  // namespace detail

// The warpgroup's MMA ops are warp-wide: an election made before them is over (host::require_elected).
template <int N> inline void mma_fence(rt_fl<16, N>&) { host::warp_wide_op(); }
inline void mma_commit_group() {
  host::warp_wide_op();
  if (host::tracing()) host::emit(sim::OpKind::mma_commit);
}
template <int Pending = 0, int N> inline void mma_async_wait(rt_fl<16, N>&) {
  host::warp_wide_op();
  if (host::tracing()) host::emit(sim::OpKind::mma_wait, 0, Pending);
}

// AB:  a is 64 x K, b is K x N.   ABt: a is 64 x K, b is N x K (C = A B^T).   AtB: a is K x 64.
// mma_* accumulates into d; mm_* overwrites it.
template <int N, int K, class T>
inline void mma_AB(rt_fl<16, N>& d, const st<T, 64, K>& a, const st<T, K, N>& b, bool accumulate = true) {
  detail::mma_smem<false, true, N, K>(d, a, b, accumulate);
}
template <int N, int K, class T>
inline void mma_ABt(rt_fl<16, N>& d, const st<T, 64, K>& a, const st<T, N, K>& b, bool accumulate = true) {
  detail::mma_smem<false, false, N, K>(d, a, b, accumulate);
}
template <int N, int K, class T>
inline void mma_AtB(rt_fl<16, N>& d, const st<T, K, 64>& a, const st<T, K, N>& b, bool accumulate = true) {
  detail::mma_smem<true, true, N, K>(d, a, b, accumulate);
}
template <int N, int K, class T>
inline void mm_AB(rt_fl<16, N>& d, const st<T, 64, K>& a, const st<T, K, N>& b) { mma_AB(d, a, b, false); }
template <int N, int K, class T>
inline void mm_ABt(rt_fl<16, N>& d, const st<T, 64, K>& a, const st<T, N, K>& b) { mma_ABt(d, a, b, false); }

// A from registers: this warp's 16 x K slice of A (row layout), b K x N.
template <int N, int K, class T, TileLayout L>
inline void mma_AB(rt_fl<16, N>& d, const rt<T, 16, K, L>& a, const st<T, K, N>& b, bool accumulate = true) {
  static_assert(std::is_same_v<L, row_l>, "warpgroup::mma_AB: a register A operand must be in row layout (rt<T, 16, K, row_l>)");
  detail::check_mma_types<T, N>();
  static_assert(sizeof(T) == 2, "warpgroup::mma_AB: A from registers is bf16 or fp16");
  if (host::tracing()) return host::emit(sim::OpKind::mma, 1, N, sizeof(T), uint32_t{2} * 16 * N * K);
  float* fa = detail::scratch(16 * K + K * N);
  float* fb = fa + 16 * K;
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < K; ++k) fa[i * K + k] = to_float(a.v[i][k]);
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) fb[k * N + n] = to_float(*b.at(k, n));
  detail::mma_rows<N, K>(d, fa, fb, accumulate);
}

}  // namespace ts::warpgroup
