#pragma once
// Device backend of register-tile ops used by kernels' epilogues and element-wise math.
#include "tiles/backend/device/core.cuh"
#include "tiles/backend/device/warp_ops.cuh"
#include "tiles/layout/fragments.hpp"
#include "tiles/types/register.hpp"
#include "tiles/types/shared.hpp"

namespace ts {

template <class T, int R, int C, class L> __device__ inline void zero(rt<T, R, C, L>& d) {
#pragma unroll
  for (int i = 0; i < rt<T, R, C, L>::height; ++i)
#pragma unroll
    for (int j = 0; j < rt<T, R, C, L>::width; ++j)
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        d.tiles[i][j][k].x = from_float<T>(0.f);
        d.tiles[i][j][k].y = from_float<T>(0.f);
      }
}

namespace warpgroup {
// Each warp writes its 16 rows (16w..16w+15) of columns [col0, col0 + ST::cols) of `src` into
// the 64-row shared tile `dst`, converting to dst's element type.
//  - 16-bit dst: one stmatrix.x4 per 16 columns. The accumulator's four pairs of a 16x16 block,
//    rounded, are the four 8x8 matrices in the order stmatrix takes them (pair k: rows 8 (k % 2),
//    columns 8 (k / 2)), and each lane names one 16-byte row of the block, which the swizzle moves
//    whole: no bank conflicts, a quarter of the instructions of 4-byte stores.
//  - fp32 dst: one 8-byte store per pair. In a 128B-swizzled tile a half-warp's rows g and g ^ 1
//    share chunk positions: 2 wavefronts where 1 would do (see below).
template <SharedTile ST, int N>
__device__ inline void store(ST& dst, const rt_fl<16, N>& src, int col0 = 0) {
  using T = typename ST::dtype;
  static_assert(ST::rows == 64, "warpgroup::store: the shared tile must have the warpgroup's 64 rows");
  [[maybe_unused]] stamp::Scope stamp(sim::OpKind::smem_store);
  const int lane = laneid(), row0 = 16 * warpgroup::warpid();
  if constexpr (sizeof(T) == 2) {
    const layout::RowCol at = layout::ldmatrix_x4_row_start(lane);
#pragma unroll
    for (int j = 0; j < N / 16; ++j) {
      if (16 * j < col0 || 16 * j >= col0 + ST::cols) continue;
      uint32_t m[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        T pair[2] = {from_float<T>(src.tiles[0][j][k].x), from_float<T>(src.tiles[0][j][k].y)};
        m[k] = *reinterpret_cast<uint32_t*>(pair);
      }
      detail::stmatrix_x4<false>(smem_addr(dst.at(row0 + at.row, 16 * j + at.col - col0)), m[0], m[1], m[2], m[3]);
    }
  } else {
    // No lane swap here (layout::fp32_pair_block): its selects cost the attention backward's dQ
    // loop more issue slots than its 2-way conflicts cost (D64 causal 3.4 % slower on the H100).
    static_assert(std::is_same_v<T, float>, "warpgroup::store: a bf16, fp16 or fp32 shared tile");
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int j = 0; j < N / 16; ++j) {
      if (16 * j < col0 || 16 * j >= col0 + ST::cols) continue;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int r = row0 + g + 8 * (k % 2), c = 16 * j + 2 * t + 8 * (k / 2) - col0;
        *reinterpret_cast<float2*>(dst.at(r, c)) = src.tiles[0][j][k];
      }
    }
  }
}
}  // namespace warpgroup

}  // namespace ts
