#pragma once
// What a register-tile op costs one warp on the SM's math pipes, in warp instructions, from the
// operands' shapes and types and the per-element cost of its math (tiles/ops/math.hpp). The host
// backend's trace mode records it (OpKind::math) and the simulator turns it into pipe time; the
// device backend's walk (tiles/backend/device/tile_math.cuh) is what these counts describe:
//   - a lane holds R C / 32 elements of an R x C tile, and `slots` values per 16 of a vector;
//   - a 16-bit source is widened to fp32 (one ALU instruction per element), a 16-bit destination
//     packed from fp32 two elements at a time (one convert instruction per pair);
//   - a reduction folds a lane's own elements, then exchanges across the lanes that share the row
//     or column with a butterfly: 2 shuffles among the 4 lanes of a group, 3 among the 8 groups,
//     each followed by one more fold.
// Host-only (the device never needs its own cost).
#include <type_traits>

#include "tiles/backend/host/trace_op.hpp"
#include "tiles/ops/math.hpp"
#include "tiles/types/register.hpp"
#include "tiles/types/vector.hpp"

namespace ts::pipe_cost {

using sim::Pipe;
using sim::PipeCounts;

template <class X> struct operand {  // a scalar: no elements, nothing to widen
  static constexpr int elems = 0;
  static constexpr bool narrow = false;
};
template <class T, int R, int C, class L> struct operand<rt<T, R, C, L>> {
  static constexpr int elems = R * C / 32;
  static constexpr bool narrow = sizeof(T) == 2;
};
template <class T, int N, class L> struct operand<rv<T, N, L>> {
  static constexpr int slots = std::is_same_v<L, by_group_l> ? 2 : 4;  // values per lane per 16
  static constexpr int elems = N / 16 * slots;
  static constexpr bool narrow = sizeof(T) == 2;
};

constexpr void add(PipeCounts& c, Pipe p, int n) { c[p] = static_cast<uint16_t>(c[p] + n); }
constexpr void add(PipeCounts& c, math::Cost per_element, int n) {
  add(c, Pipe::fma, per_element.fma * n);
  add(c, Pipe::alu, per_element.alu * n);
  add(c, Pipe::sfu, per_element.sfu * n);
}

// Widening 16-bit sources and packing a 16-bit destination, for ops over `elems` lane elements.
template <class D, class... S> constexpr void conversions(PipeCounts& c, int elems) {
  ((operand<std::remove_cvref_t<S>>::narrow ? add(c, Pipe::alu, elems) : void()), ...);
  if (operand<D>::narrow) add(c, Pipe::convert, elems / 2);
}

// dst = f(src...) element by element (map, map_rows, map_cols, mask with F the predicate plus a select).
template <class F, class D, class... S> constexpr PipeCounts elementwise() {
  PipeCounts c;
  const int n = operand<D>::elems;
  add(c, F::cost, n);
  conversions<D, S...>(c, n);
  return c;
}
template <class P, class D, class S> constexpr PipeCounts masked() {
  PipeCounts c = elementwise<P, D, S>();
  add(c, Pipe::alu, operand<D>::elems);  // the select
  return c;
}

// dst[r] = f over row r (Rows) or column r of tile T, optionally folded into an accumulator.
template <bool Rows, class F, class V, class T, bool Acc> constexpr PipeCounts reduction() {
  PipeCounts c;
  const int lanes_fold = operand<T>::elems;  // every element of the lane, into its slots
  add(c, F::cost, lanes_fold);
  conversions<V, T>(c, lanes_fold);
  const bool within_group = Rows == std::is_same_v<typename T::layout, row_l>;  // row_l rows: 4 lanes of a group
  const int rounds = within_group ? 2 : 3;
  const int values = operand<V>::elems;  // one exchange chain per vector value the lane holds
  add(c, Pipe::shuffle, values * rounds);
  add(c, F::cost, values * rounds + (Acc ? values : 0));
  // Each value's fold is a chain (tiles/backend/device/tile_math.cuh: part = f(part, x), element by
  // element; floating-point sums are not reassociated): every element of the value, then per round
  // a shuffle and a step, then the accumulator's step. The values' chains run side by side.
  const int steps = lanes_fold / values + rounds + (Acc ? 1 : 0);
  c.chain[static_cast<int>(Pipe::fma)] = static_cast<uint16_t>(F::cost.fma * steps);
  c.chain[static_cast<int>(Pipe::alu)] = static_cast<uint16_t>(F::cost.alu * steps);
  c.chain[static_cast<int>(Pipe::sfu)] = static_cast<uint16_t>(F::cost.sfu * steps);
  c.chain[static_cast<int>(Pipe::shuffle)] = static_cast<uint16_t>(rounds);
  return c;
}

// An fp32 tile moved between registers and shared memory with partner blocks swapped (the lanes of
// odd rows take the neighbouring 16-column block: layout::fp32_pair_block): each lane picks which
// block's value it moves, one select per value it holds. The backward's dQ staging store shows them in
// its SASS: 32 FSEL per warp for a 16 x 64 accumulator (data/measured/h100/sim-attention/
// bwd-source-lines.txt). The address arithmetic around the moves is the compiler's and not counted.
template <int Elems> constexpr PipeCounts partner_selects() {
  PipeCounts c;
  add(c, Pipe::alu, Elems);
  return c;
}

// swap_layout: movmatrix per 16-bit pair (on the shuffle path), or two fp32 shuffles per element.
template <class D> constexpr PipeCounts layout_swap() {
  PipeCounts c;
  const int n = operand<D>::elems;
  add(c, Pipe::shuffle, operand<D>::narrow ? n / 2 : 2 * n);
  add(c, Pipe::alu, operand<D>::narrow ? 0 : n);  // keep the half it needs
  return c;
}

}  // namespace ts::pipe_cost
