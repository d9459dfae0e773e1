#pragma once
// Device backend of register-tile ops used by kernels' epilogues and element-wise math.
#include "tiles/backend/device/core.cuh"
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
// the 64-row shared tile `dst`, converting to dst's element type. The 128B swizzle of dst keeps
// these 4- or 8-byte stores free of bank conflicts.
template <SharedTile ST, int N>
__device__ inline void store(ST& dst, const rt_fl<16, N>& src, int col0 = 0) {
  using T = typename ST::dtype;
  static_assert(ST::rows == 64, "warpgroup::store: the shared tile must have the warpgroup's 64 rows");
  [[maybe_unused]] stamp::Scope stamp(sim::OpKind::smem_store);
  const int lane = laneid(), g = lane / 4, t = lane % 4, row0 = 16 * warpgroup::warpid();
#pragma unroll
  for (int j = 0; j < N / 16; ++j) {
    if (16 * j < col0 || 16 * j >= col0 + ST::cols) continue;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int r = row0 + g + 8 * (k % 2), c = 16 * j + 2 * t + 8 * (k / 2) - col0;
      const float2 v = src.tiles[0][j][k];
      if constexpr (std::is_same_v<T, float>) {
        *reinterpret_cast<float2*>(dst.at(r, c)) = v;
      } else {
        T pair[2] = {from_float<T>(v.x), from_float<T>(v.y)};
        *reinterpret_cast<uint32_t*>(dst.at(r, c)) = *reinterpret_cast<uint32_t*>(pair);
      }
    }
  }
}
}  // namespace warpgroup

}  // namespace ts
