#pragma once
// Element-wise ops on register tiles (rt) and register vectors (rv), in the form op(dst, src...).
// Sources are tiles (vectors) of dst's shape and layout, of any element type, or scalars: add(d, a, b),
// add(d, a, 2.f), sub(d, 1.f, a). Every element is computed in fp32 (tiles/ops/math.hpp) and rounded
// once to dst's type. dst may be one of the sources. Registers only: nothing is traced.
#include "tiles/ops/checks.hpp"
#include "tiles/ops/math.hpp"

#if defined(__CUDACC__)
#include "tiles/backend/device/tile_math.cuh"
#else
#include "tiles/backend/host/tile_math.hpp"
#endif

namespace ts {

template <RegisterData D> TS_OP void fill(D& dst, float value) {
  detail::check_elementwise<D>();
  detail::map(dst, math::constant{value});
}
// zero(rt) lives with the older register ops (tiles/backend/*/register_ops); this is the vector one.
template <RegisterVector D> TS_OP void zero(D& dst) { fill(dst, 0.f); }

// Copy and convert (fp32 <-> bf16 <-> fp16, round to nearest even), same shape and layout.
template <RegisterData D, class S> TS_OP void copy(D& dst, const S& src) {
  static_assert(!std::is_arithmetic_v<S>, "copy: the source is a scalar; fill(dst, value) sets every element");
  detail::check_elementwise<D, S>();
  detail::map(dst, math::identity{}, src);
}

template <RegisterData D, class A, class B> TS_OP void add(D& dst, const A& a, const B& b) {
  detail::check_elementwise<D, A, B>();
  detail::map(dst, math::add{}, a, b);
}
template <RegisterData D, class A, class B> TS_OP void sub(D& dst, const A& a, const B& b) {
  detail::check_elementwise<D, A, B>();
  detail::map(dst, math::sub{}, a, b);
}
template <RegisterData D, class A, class B> TS_OP void mul(D& dst, const A& a, const B& b) {
  detail::check_elementwise<D, A, B>();
  detail::map(dst, math::mul{}, a, b);
}
template <RegisterData D, class A, class B> TS_OP void div(D& dst, const A& a, const B& b) {
  detail::check_elementwise<D, A, B>();
  detail::map(dst, math::div{}, a, b);
}
template <RegisterData D, class A, class B> TS_OP void max(D& dst, const A& a, const B& b) {
  detail::check_elementwise<D, A, B>();
  detail::map(dst, math::max{}, a, b);
}
template <RegisterData D, class A, class B> TS_OP void min(D& dst, const A& a, const B& b) {
  detail::check_elementwise<D, A, B>();
  detail::map(dst, math::min{}, a, b);
}
template <RegisterData D, class S> TS_OP void exp(D& dst, const S& src) {
  detail::check_elementwise<D, S>();
  detail::map(dst, math::exp{}, src);
}
template <RegisterData D, class S> TS_OP void exp2(D& dst, const S& src) {
  detail::check_elementwise<D, S>();
  detail::map(dst, math::exp2{}, src);
}
template <RegisterData D, class S> TS_OP void log(D& dst, const S& src) {
  detail::check_elementwise<D, S>();
  detail::map(dst, math::log{}, src);
}

// dst[r][c] = value where pred(r, c) holds, else src[r][c]; (r, c) count from the tile's corner, so
// a kernel passes its tile's offsets in the predicate: mask(s, s, -INFINITY, math::above_diagonal{q0 - k0}).
template <RegisterTile D, RegisterTile S, class P> TS_OP void mask(D& dst, const S& src, float value, P pred) {
  detail::check_elementwise<D, S>();
  detail::map_indexed(dst, src, value, pred);
}

// The same R x C tile in the other register layout (row_l <-> col_l), e.g. to use a tile loaded as
// an A operand as a B operand. Device: movmatrix.trans (16-bit) or shuffles (fp32).
template <RegisterTile D, RegisterTile S> TS_OP void swap_layout(D& dst, const S& src) {
  detail::check_swap_layout<D, S>();
  detail::swap_layout(dst, src);
}

}  // namespace ts
