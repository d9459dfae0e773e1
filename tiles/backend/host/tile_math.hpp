#pragma once
// Host backend of the register-only ops (tiles/ops/elementwise.hpp, tiles/ops/rowcol.hpp): a host
// rt holds the warp's whole R x C tile in `v` (row-major, whatever its layout tag) and an rv its N
// values, so these are plain loops with the same fp32 math (tiles/ops/math.hpp). Reductions run
// in index order, so sums may differ from the GPU's butterfly in the last fp32 bits. In trace mode
// they compute nothing and record what the GPU's walk would cost (tiles/ops/pipe_cost.hpp).
#include <type_traits>

#include "tiles/backend/host/trace.hpp"
#include "tiles/ops/checks.hpp"
#include "tiles/ops/pipe_cost.hpp"

namespace ts::detail {

// Element (r, c) of a tile operand, element n of a vector operand, as fp32; a scalar is the same everywhere.
template <class X> inline float elem(const X& x, int r, int c) {
  if constexpr (std::is_arithmetic_v<X>) return static_cast<float>(x);
  else return to_float(x.v[r][c]);
}
template <class X> inline float elem(const X& x, int n) {
  if constexpr (std::is_arithmetic_v<X>) return static_cast<float>(x);
  else return to_float(x.v[n]);
}

template <class F, class T, int R, int C, class L, class... S>
inline void map(rt<T, R, C, L>& dst, F f, const S&... src) {
  if (host::tracing()) return host::emit_math(pipe_cost::elementwise<F, rt<T, R, C, L>, S...>());
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) dst.v[r][c] = from_float<T>(f(elem(src, r, c)...));
}
template <class F, class T, int N, class L, class... S>
inline void map(rv<T, N, L>& dst, F f, const S&... src) {
  if (host::tracing()) return host::emit_math(pipe_cost::elementwise<F, rv<T, N, L>, S...>());
  for (int n = 0; n < N; ++n) dst.v[n] = from_float<T>(f(elem(src, n)...));
}

template <class P, class T, int R, int C, class L, class S>
inline void map_indexed(rt<T, R, C, L>& dst, const S& src, float value, P pred) {
  if (host::tracing()) return host::emit_math(pipe_cost::masked<P, rt<T, R, C, L>, S>());
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) dst.v[r][c] = from_float<T>(pred(r, c) ? value : elem(src, r, c));
}

template <class F, class... Acc> inline float fold_acc(F f, float x, int n, const Acc&... acc) {
  if constexpr (sizeof...(Acc) == 0) return x;
  else return f(elem(acc, n)..., x);
}

template <class F, class V, class T, int R, int C, class L, class... Acc>
inline void reduce_rows(V& dst, const rt<T, R, C, L>& src, F f, const Acc&... acc) {
  if (host::tracing()) return host::emit_math(pipe_cost::reduction<true, F, V, rt<T, R, C, L>, sizeof...(Acc) != 0>());
  for (int r = 0; r < R; ++r) {
    float x = F::neutral;
    for (int c = 0; c < C; ++c) x = f(x, elem(src, r, c));
    dst.v[r] = from_float<typename V::dtype>(fold_acc(f, x, r, acc...));
  }
}
template <class F, class V, class T, int R, int C, class L, class... Acc>
inline void reduce_cols(V& dst, const rt<T, R, C, L>& src, F f, const Acc&... acc) {
  if (host::tracing()) return host::emit_math(pipe_cost::reduction<false, F, V, rt<T, R, C, L>, sizeof...(Acc) != 0>());
  for (int c = 0; c < C; ++c) {
    float x = F::neutral;
    for (int r = 0; r < R; ++r) x = f(x, elem(src, r, c));
    dst.v[c] = from_float<typename V::dtype>(fold_acc(f, x, c, acc...));
  }
}

template <class F, class T, int R, int C, class L, class S, class V>
inline void map_rows(rt<T, R, C, L>& dst, F f, const S& src, const V& vec) {
  if (host::tracing()) return host::emit_math(pipe_cost::elementwise<F, rt<T, R, C, L>, S, V>());
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) dst.v[r][c] = from_float<T>(f(elem(src, r, c), elem(vec, r)));
}
template <class F, class T, int R, int C, class L, class S, class V>
inline void map_cols(rt<T, R, C, L>& dst, F f, const S& src, const V& vec) {
  if (host::tracing()) return host::emit_math(pipe_cost::elementwise<F, rt<T, R, C, L>, S, V>());
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) dst.v[r][c] = from_float<T>(f(elem(src, r, c), elem(vec, c)));
}

// The matrix is the same in both layouts; only the GPU's lane map differs.
template <class T, int R, int C, class LD, class LS>
inline void swap_layout(rt<T, R, C, LD>& dst, const rt<T, R, C, LS>& src) {
  if (host::tracing()) return host::emit_math(pipe_cost::layout_swap<rt<T, R, C, LD>>());
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) dst.v[r][c] = src.v[r][c];
}

}  // namespace ts::detail
