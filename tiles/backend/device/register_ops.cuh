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
//  - fp32 dst: one 8-byte store per pair. When dst takes the whole accumulator, 32 columns or a
//    multiple wide, the lanes of odd rows take the partner 16-column block at each step
//    (layout::accumulator_swaps_blocks): conflict-free.
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
    // The lanes of odd rows move the partner block (layout::fp32_pair_block), as warp::store does.
    static_assert(std::is_same_v<T, float>, "warpgroup::store: a bf16, fp16 or fp32 shared tile");
    constexpr bool swap_blocks = layout::accumulator_swaps_blocks<T, ST::cols, N>();
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int j = 0; j < N / 16; ++j) {
      if (16 * j < col0 || 16 * j >= col0 + ST::cols) continue;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int r = row0 + g + 8 * (k % 2);
        if constexpr (swap_blocks) {  // (j ^ 1 is unrolled too: two selects, no register indexing)
          const bool partner = (g & 1) != 0;  // layout::fp32_pair_block(lane, j) == j ^ 1
          const int c = 16 * (partner ? j ^ 1 : j) + 2 * t + 8 * (k / 2) - col0;
          *reinterpret_cast<float2*>(dst.at(r, c)) = partner ? src.tiles[0][j ^ 1][k] : src.tiles[0][j][k];
        } else {
          *reinterpret_cast<float2*>(dst.at(r, 16 * j + 2 * t + 8 * (k / 2) - col0)) = src.tiles[0][j][k];
        }
      }
    }
  }
}
}  // namespace warpgroup

}  // namespace ts
