#pragma once
// Row and column reductions and broadcasts between a register tile and a register vector
// (tiles/types/vector.hpp): row ops take a row_vec<tile> (one value per row), column ops a
// col_vec<tile>. Math in fp32 (tiles/ops/math.hpp), rounded once to dst's type. On the GPU a
// reduction folds a lane's own elements, then shuffles among the lanes that share the row or
// column: the 4 lanes of a group or the 8 groups (tiles/layout/fragments.hpp).
//
//   row_max(v, t)      v[r] = max_c t[r][c]        row_max(v, t, acc)  v[r] = max(acc[r], max_c t[r][c])
//   row_sum(v, t)      v[r] = sum_c t[r][c]        row_sum(v, t, acc)  v[r] = acc[r] + sum_c t[r][c]
//   sub_row(d, t, v)   d[r][c] = t[r][c] - v[r]    mul_row, div_row likewise
//   col_max, col_sum, sub_col, mul_col, div_col: the same along columns (v[c]).
//   exp2_row(d, t, scale, v)   d[r][c] = 2^(t[r][c] scale - v[r])    exp2_col likewise with v[c]
#include "tiles/ops/checks.hpp"
#include "tiles/ops/math.hpp"

#if defined(__CUDACC__)
#include "tiles/backend/device/tile_math.cuh"
#else
#include "tiles/backend/host/tile_math.hpp"
#endif

namespace ts {

template <RegisterVector V, RegisterTile T> TS_OP void row_max(V& dst, const T& src) {
  detail::check_vector_of<true, V, T>();
  detail::reduce_rows(dst, src, math::max{});
}
template <RegisterVector V, RegisterTile T, RegisterVector A> TS_OP void row_max(V& dst, const T& src, const A& acc) {
  detail::check_vector_of<true, V, T>();
  detail::check_vector_of<true, A, T>();
  detail::reduce_rows(dst, src, math::max{}, acc);
}
template <RegisterVector V, RegisterTile T> TS_OP void row_sum(V& dst, const T& src) {
  detail::check_vector_of<true, V, T>();
  detail::reduce_rows(dst, src, math::add{});
}
template <RegisterVector V, RegisterTile T, RegisterVector A> TS_OP void row_sum(V& dst, const T& src, const A& acc) {
  detail::check_vector_of<true, V, T>();
  detail::check_vector_of<true, A, T>();
  detail::reduce_rows(dst, src, math::add{}, acc);
}
template <RegisterVector V, RegisterTile T> TS_OP void col_max(V& dst, const T& src) {
  detail::check_vector_of<false, V, T>();
  detail::reduce_cols(dst, src, math::max{});
}
template <RegisterVector V, RegisterTile T, RegisterVector A> TS_OP void col_max(V& dst, const T& src, const A& acc) {
  detail::check_vector_of<false, V, T>();
  detail::check_vector_of<false, A, T>();
  detail::reduce_cols(dst, src, math::max{}, acc);
}
template <RegisterVector V, RegisterTile T> TS_OP void col_sum(V& dst, const T& src) {
  detail::check_vector_of<false, V, T>();
  detail::reduce_cols(dst, src, math::add{});
}
template <RegisterVector V, RegisterTile T, RegisterVector A> TS_OP void col_sum(V& dst, const T& src, const A& acc) {
  detail::check_vector_of<false, V, T>();
  detail::check_vector_of<false, A, T>();
  detail::reduce_cols(dst, src, math::add{}, acc);
}

template <RegisterTile D, RegisterTile S, RegisterVector V> TS_OP void sub_row(D& dst, const S& src, const V& vec) {
  detail::check_elementwise<D, S>();
  detail::check_vector_of<true, V, D>();
  detail::map_rows(dst, math::sub{}, src, vec);
}
template <RegisterTile D, RegisterTile S, RegisterVector V> TS_OP void mul_row(D& dst, const S& src, const V& vec) {
  detail::check_elementwise<D, S>();
  detail::check_vector_of<true, V, D>();
  detail::map_rows(dst, math::mul{}, src, vec);
}
template <RegisterTile D, RegisterTile S, RegisterVector V> TS_OP void div_row(D& dst, const S& src, const V& vec) {
  detail::check_elementwise<D, S>();
  detail::check_vector_of<true, V, D>();
  detail::map_rows(dst, math::div{}, src, vec);
}
template <RegisterTile D, RegisterTile S, RegisterVector V> TS_OP void sub_col(D& dst, const S& src, const V& vec) {
  detail::check_elementwise<D, S>();
  detail::check_vector_of<false, V, D>();
  detail::map_cols(dst, math::sub{}, src, vec);
}
template <RegisterTile D, RegisterTile S, RegisterVector V> TS_OP void mul_col(D& dst, const S& src, const V& vec) {
  detail::check_elementwise<D, S>();
  detail::check_vector_of<false, V, D>();
  detail::map_cols(dst, math::mul{}, src, vec);
}
template <RegisterTile D, RegisterTile S, RegisterVector V> TS_OP void div_col(D& dst, const S& src, const V& vec) {
  detail::check_elementwise<D, S>();
  detail::check_vector_of<false, V, D>();
  detail::map_cols(dst, math::div{}, src, vec);
}

template <RegisterTile D, RegisterTile S, RegisterVector V> TS_OP void exp2_row(D& dst, const S& src, float scale, const V& vec) {
  detail::check_elementwise<D, S>();
  detail::check_vector_of<true, V, D>();
  detail::map_rows(dst, math::exp2_scaled{scale}, src, vec);
}
template <RegisterTile D, RegisterTile S, RegisterVector V> TS_OP void exp2_col(D& dst, const S& src, float scale, const V& vec) {
  detail::check_elementwise<D, S>();
  detail::check_vector_of<false, V, D>();
  detail::map_cols(dst, math::exp2_scaled{scale}, src, vec);
}

}  // namespace ts
