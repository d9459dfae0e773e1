#pragma once
// Register tiles rt<T, R, C, L>: an R x C tile held by one warp, 16x16 subtiles in the register
// layout of the tensor-core fragments (tiles/layout/fragments.hpp). The layout tag L says which
// operand shape the tile is in: row_l (A operands, accumulators) or col_l (B operands of mma.sync).
#include <type_traits>

#include "tiles/types/dtypes.hpp"

namespace ts {

struct row_l {};
struct col_l {};

template <class L> concept TileLayout = std::is_same_v<L, row_l> || std::is_same_v<L, col_l>;

}  // namespace ts

#if defined(__CUDACC__)
namespace ts {
template <class T> struct pair_of;
template <> struct pair_of<float> { using type = float2; };
template <> struct pair_of<bf16> { using type = __nv_bfloat162; };
template <> struct pair_of<fp16> { using type = __half2; };

// Per lane: 4 element pairs per 16x16 subtile; pair k holds the elements at
// (groupID + 8 (k % 2), 2 threadID_in_group + 8 (k / 2) + {0, 1}) of the subtile, which is both the
// mma A fragment and the fp32 accumulator fragment, and (pair order included) the wgmma D order.
template <class T, int R, int C, TileLayout L = row_l>
struct rt {
  static_assert(R % 16 == 0 && C % 16 == 0, "rt<T, R, C>: R and C must be multiples of 16");
  using dtype = T;
  using layout = L;
  static constexpr int rows = R, cols = C, height = R / 16, width = C / 16;
  typename pair_of<T>::type tiles[height][width][4];
};
}  // namespace ts
#else
namespace ts {
// On the host a warp is one fiber, so the tile holds all R x C elements of the warp, row-major.
template <class T, int R, int C, TileLayout L = row_l>
struct rt {
  static_assert(R % 16 == 0 && C % 16 == 0, "rt<T, R, C>: R and C must be multiples of 16");
  using dtype = T;
  using layout = L;
  static constexpr int rows = R, cols = C, height = R / 16, width = C / 16;
  T v[R][C];
};
}  // namespace ts
#endif

namespace ts {
template <int R, int C, TileLayout L = row_l> using rt_fl = rt<float, R, C, L>;
template <int R, int C, TileLayout L = row_l> using rt_bf = rt<bf16, R, C, L>;
}  // namespace ts
