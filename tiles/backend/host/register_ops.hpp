#pragma once
// Host backend of the register-tile ops (tiles/backend/device/register_ops.cuh). A host rt holds
// the whole warp's R x C tile row-major in `v`, so these are plain loops.
#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "tiles/backend/host/core.hpp"
#include "tiles/backend/host/trace.hpp"
#include "tiles/ops/pipe_cost.hpp"
#include "tiles/types/register.hpp"
#include "tiles/types/shared.hpp"

namespace ts {

template <class T, int R, int C, class L> inline void zero(rt<T, R, C, L>& d) {
  if (host::tracing()) return host::emit_math(pipe_cost::elementwise<math::constant, rt<T, R, C, L>>());
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) d.v[r][c] = from_float<T>(0.f);
}

namespace warpgroup {
// This warp's 16 rows (16w..16w+15) of columns [col0, col0 + ST::cols) of `src` into the 64-row
// shared tile `dst`, converted to dst's type (bf16: round to nearest even), in dst's swizzled layout.
template <SharedTile ST, int N>
inline void store(ST& dst, const rt_fl<16, N>& src, int col0 = 0) {
  using T = typename ST::dtype;
  static_assert(ST::rows == 64, "warpgroup::store: the shared tile must have the warpgroup's 64 rows");
  // The device op moves whole 16-column blocks; any other offset would write outside dst there.
  if (col0 % 16 != 0) throw std::invalid_argument("warpgroup::store: col0 must be a multiple of 16");
  // An fp32 tile as wide as the accumulator takes it whole: the device op then swaps partner blocks
  // (layout::accumulator_swaps_blocks), which a window starting elsewhere would split.
  if (layout::accumulator_swaps_blocks<T, ST::cols, N>() && col0 != 0)
    throw std::invalid_argument("warpgroup::store: an fp32 tile as wide as the accumulator takes it from column 0");
  host::warp_wide_op();
  const int row0 = 16 * warpgroup::warpid();
  if (host::tracing()) {
    if constexpr (layout::accumulator_swaps_blocks<T, ST::cols, N>()) host::emit_math(pipe_cost::partner_selects<16 * N / 32>());
    const int cols = std::min(ST::cols, N - col0);
    sim::TraceOp& op = host::record(sim::OpKind::smem_store, host::smem_offset(dst.data), 0,
                                    static_cast<uint32_t>(16 * cols * sizeof(T)));
    // A swapping fp32 store walks the shared tile as warp::store's row pairs do.
    const sim::SmemWalk walk = sizeof(T) == 2 ? sim::SmemWalk::matrix_x4
                               : layout::accumulator_swaps_blocks<T, ST::cols, N>() ? sim::SmemWalk::row_pairs
                                                                                   : sim::SmemWalk::accumulator_pairs;
    op.smem = {ST::smem_layout(), static_cast<uint16_t>(row0), 0, 16, static_cast<uint16_t>(cols), walk};
    return;
  }
  for (int c = col0; c < col0 + ST::cols && c < N; ++c)
    for (int r = 0; r < 16; ++r) {
      if constexpr (std::is_same_v<T, float>) *dst.at(row0 + r, c - col0) = src.v[r][c];
      else *dst.at(row0 + r, c - col0) = from_float<T>(src.v[r][c]);
    }
}
}  // namespace warpgroup

}  // namespace ts
