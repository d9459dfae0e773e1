#pragma once
// Register vectors rv<T, N, L>: N values held by one warp, one per row or per column of a register
// tile, in the lanes that own those rows or columns (tiles/layout/fragments.hpp, "register tiles
// and vectors"). They are what row_max/col_sum produce and what sub_row/mul_col broadcast.
#include <type_traits>

#include "tiles/types/register.hpp"

namespace ts {

// Vector layouts: which lanes hold element i (of each 16).
struct by_group_l {};   // the 4 lanes of group i % 8: the rows of a row_l tile, the columns of a col_l one
struct by_thread_l {};  // the 8 lanes with threadID_in_group (i % 8) / 2: the other dimension

template <class L> concept VectorLayout = std::is_same_v<L, by_group_l> || std::is_same_v<L, by_thread_l>;

// How a tile of layout L spreads its rows and its columns.
template <TileLayout L> using row_vec_layout = std::conditional_t<std::is_same_v<L, row_l>, by_group_l, by_thread_l>;
template <TileLayout L> using col_vec_layout = std::conditional_t<std::is_same_v<L, row_l>, by_thread_l, by_group_l>;

}  // namespace ts

#if defined(__CUDACC__)
namespace ts {
// Per lane: `slots` values of each 16-element block: slot s of block b is element 16 b + e, where
// e = layout::rv_group_element(lane, s) or layout::rv_thread_element(lane, s).
template <class T, int N, VectorLayout L = by_group_l>
struct rv {
  static_assert(N % 16 == 0, "rv<T, N>: N must be a multiple of 16");
  using dtype = T;
  using layout = L;
  static constexpr int length = N, blocks = N / 16, slots = std::is_same_v<L, by_group_l> ? 2 : 4;
  T data[blocks][slots];
};
}  // namespace ts
#else
namespace ts {
// On the host a warp is one fiber, so the vector holds all N values.
template <class T, int N, VectorLayout L = by_group_l>
struct rv {
  static_assert(N % 16 == 0, "rv<T, N>: N must be a multiple of 16");
  using dtype = T;
  using layout = L;
  static constexpr int length = N, blocks = N / 16;
  T v[N];
};
}  // namespace ts
#endif

namespace ts {
// One value per row / per column of tile type RT (of element type T, RT's by default), laid out
// to match it: row_vec<rt_fl<16, 64>> is what row_max of such a tile writes.
template <class RT, class T = typename RT::dtype> using row_vec = rv<T, RT::rows, row_vec_layout<typename RT::layout>>;
template <class RT, class T = typename RT::dtype> using col_vec = rv<T, RT::cols, col_vec_layout<typename RT::layout>>;
}  // namespace ts
