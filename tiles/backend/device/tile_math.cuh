#pragma once
// Device backend of the register-only ops (tiles/ops/elementwise.hpp, tiles/ops/rowcol.hpp): how
// a lane walks its own elements, and the shuffles that combine a row or column across lanes. Which
// lane holds what comes from tiles/layout/fragments.hpp. No shared or global memory is touched.
#include <cstdint>
#include <type_traits>

#include "tiles/backend/device/core.cuh"
#include "tiles/layout/fragments.hpp"
#include "tiles/ops/checks.hpp"

namespace ts::detail {

__device__ inline float2 to_float2(float2 p) { return p; }
__device__ inline float2 to_float2(__nv_bfloat162 p) { return __bfloat1622float2(p); }
__device__ inline float2 to_float2(__half2 p) { return __half22float2(p); }

template <class T> __device__ inline typename pair_of<T>::type from_float2(float2 f) {
  if constexpr (std::is_same_v<T, float>) return f;
  else if constexpr (std::is_same_v<T, bf16>) return __floats2bfloat162_rn(f.x, f.y);
  else return __floats2half2_rn(f.x, f.y);
}

// Element `half` of pair k of subtile (i, j) of a tile operand, as fp32; a scalar is the same everywhere.
template <class X> __device__ inline float elem(const X& x, int i, int j, int k, int half) {
  if constexpr (std::is_arithmetic_v<X>) {
    return static_cast<float>(x);
  } else {
    const float2 p = to_float2(x.tiles[i][j][k]);
    return half ? p.y : p.x;
  }
}
// Slot s of block b of a vector operand, as fp32; a scalar is the same everywhere.
template <class X> __device__ inline float slot(const X& x, int b, int s) {
  if constexpr (std::is_arithmetic_v<X>) return static_cast<float>(x);
  else return to_float(x.data[b][s]);
}

// Which vector slot holds the row (column) of element `half` of pair k, for a tile of layout L.
template <class L> __device__ constexpr int row_slot(int k, int half) {
  return std::is_same_v<L, row_l> ? layout::row_l_row_slot(k, half) : layout::col_l_row_slot(k, half);
}
template <class L> __device__ constexpr int col_slot(int k, int half) {
  return std::is_same_v<L, row_l> ? layout::row_l_col_slot(k, half) : layout::col_l_col_slot(k, half);
}

// ---- element-wise ------------------------------------------------------------------------------
// dst = f(src...) element by element; each lane handles only its own elements.
template <class F, class T, int R, int C, class L, class... S>
__device__ inline void map(rt<T, R, C, L>& dst, F f, const S&... src) {
  stamp::mark(sim::OpKind::math);
#pragma unroll
  for (int i = 0; i < R / 16; ++i)
#pragma unroll
    for (int j = 0; j < C / 16; ++j)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        dst.tiles[i][j][k] = from_float2<T>(make_float2(f(elem(src, i, j, k, 0)...), f(elem(src, i, j, k, 1)...)));
}
template <class F, class T, int N, class L, class... S>
__device__ inline void map(rv<T, N, L>& dst, F f, const S&... src) {
  stamp::mark(sim::OpKind::math);
#pragma unroll
  for (int b = 0; b < N / 16; ++b)
#pragma unroll
    for (int s = 0; s < rv<T, N, L>::slots; ++s) dst.data[b][s] = from_float<T>(f(slot(src, b, s)...));
}

// dst = value where pred(row, col), else src: each lane knows the tile coordinates of its elements.
template <class P, class T, int R, int C, class L, class S>
__device__ inline void map_indexed(rt<T, R, C, L>& dst, const S& src, float value, P pred) {
  stamp::mark(sim::OpKind::math);
  const int lane = laneid();
#pragma unroll
  for (int i = 0; i < R / 16; ++i)
#pragma unroll
    for (int j = 0; j < C / 16; ++j)
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        float out[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const layout::RowCol e = std::is_same_v<L, row_l> ? layout::rt_row_l_element(lane, k, h) : layout::rt_col_l_element(lane, k, h);
          out[h] = pred(16 * i + static_cast<int>(e.row), 16 * j + static_cast<int>(e.col)) ? value : elem(src, i, j, k, h);
        }
        dst.tiles[i][j][k] = from_float2<T>(make_float2(out[0], out[1]));
      }
}

// ---- reductions --------------------------------------------------------------------------------
// Combine `x` with the copies in the lanes that hold the other columns (rows) of the same row
// (column): a butterfly, so every one of those lanes ends with the same bits (f is commutative).
// The 4 lanes of a group differ in bits 0-1 of the lane id, the 8 groups in bits 2-4.
template <class F> __device__ inline float across_threads(F f, float x) {
  x = f(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return f(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
template <class F> __device__ inline float across_groups(F f, float x) {
  x = f(x, __shfl_xor_sync(0xffffffffu, x, 4));
  x = f(x, __shfl_xor_sync(0xffffffffu, x, 8));
  return f(x, __shfl_xor_sync(0xffffffffu, x, 16));
}

// With an accumulator vector: f(acc, x), so row_max(m, s, m) keeps a running maximum.
template <class F, class... Acc> __device__ inline float fold_acc(F f, float x, int b, int s, const Acc&... acc) {
  if constexpr (sizeof...(Acc) == 0) return x;
  else return f(slot(acc, b, s)..., x);
}

// dst[r] = f over the columns of row r. A lane first folds the elements it holds, then the lanes of
// the row exchange: in row_l a row lives in the 4 lanes of a group, in col_l in one lane per group.
template <class F, class V, class T, int R, int C, class L, class... Acc>
__device__ inline void reduce_rows(V& dst, const rt<T, R, C, L>& src, F f, const Acc&... acc) {
  stamp::mark(sim::OpKind::math);
#pragma unroll
  for (int i = 0; i < R / 16; ++i) {
    float part[V::slots];
#pragma unroll
    for (int s = 0; s < V::slots; ++s) part[s] = F::neutral;
#pragma unroll
    for (int j = 0; j < C / 16; ++j)
#pragma unroll
      for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int h = 0; h < 2; ++h) part[row_slot<L>(k, h)] = f(part[row_slot<L>(k, h)], elem(src, i, j, k, h));
#pragma unroll
    for (int s = 0; s < V::slots; ++s) {
      const float all = std::is_same_v<L, row_l> ? across_threads(f, part[s]) : across_groups(f, part[s]);
      dst.data[i][s] = from_float<typename V::dtype>(fold_acc(f, all, i, s, acc...));
    }
  }
}

// dst[c] = f over the rows of column c: in row_l a column lives in one lane per group, in col_l in
// the 4 lanes of a group.
template <class F, class V, class T, int R, int C, class L, class... Acc>
__device__ inline void reduce_cols(V& dst, const rt<T, R, C, L>& src, F f, const Acc&... acc) {
  stamp::mark(sim::OpKind::math);
#pragma unroll
  for (int j = 0; j < C / 16; ++j) {
    float part[V::slots];
#pragma unroll
    for (int s = 0; s < V::slots; ++s) part[s] = F::neutral;
#pragma unroll
    for (int i = 0; i < R / 16; ++i)
#pragma unroll
      for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int h = 0; h < 2; ++h) part[col_slot<L>(k, h)] = f(part[col_slot<L>(k, h)], elem(src, i, j, k, h));
#pragma unroll
    for (int s = 0; s < V::slots; ++s) {
      const float all = std::is_same_v<L, row_l> ? across_groups(f, part[s]) : across_threads(f, part[s]);
      dst.data[j][s] = from_float<typename V::dtype>(fold_acc(f, all, j, s, acc...));
    }
  }
}

// ---- broadcasts --------------------------------------------------------------------------------
// dst = f(src, vec[row]) (map_rows) or f(src, vec[col]) (map_cols): each lane already holds the
// vector values of its own rows and columns, so no data moves between lanes.
template <class F, class T, int R, int C, class L, class S, class V>
__device__ inline void map_rows(rt<T, R, C, L>& dst, F f, const S& src, const V& vec) {
  stamp::mark(sim::OpKind::math);
#pragma unroll
  for (int i = 0; i < R / 16; ++i)
#pragma unroll
    for (int j = 0; j < C / 16; ++j)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        dst.tiles[i][j][k] = from_float2<T>(make_float2(f(elem(src, i, j, k, 0), slot(vec, i, row_slot<L>(k, 0))),
                                                        f(elem(src, i, j, k, 1), slot(vec, i, row_slot<L>(k, 1)))));
}
template <class F, class T, int R, int C, class L, class S, class V>
__device__ inline void map_cols(rt<T, R, C, L>& dst, F f, const S& src, const V& vec) {
  stamp::mark(sim::OpKind::math);
#pragma unroll
  for (int i = 0; i < R / 16; ++i)
#pragma unroll
    for (int j = 0; j < C / 16; ++j)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        dst.tiles[i][j][k] = from_float2<T>(make_float2(f(elem(src, i, j, k, 0), slot(vec, j, col_slot<L>(k, 0))),
                                                        f(elem(src, i, j, k, 1), slot(vec, j, col_slot<L>(k, 1)))));
}

// ---- layout swap -------------------------------------------------------------------------------
// Pair k covers the same 8x8 block (rows 8 (k % 2), columns 8 (k / 2)) in both layouts; inside it
// row_l lane (g, t) holds (g, 2t + h) and col_l lane (g, t) holds (2t + h, g): an 8x8 transpose of
// the block's lane map, either way round.
template <class T, int R, int C, class LD, class LS>
__device__ inline void swap_layout(rt<T, R, C, LD>& dst, const rt<T, R, C, LS>& src) {
  stamp::mark(sim::OpKind::math);
  const int lane = laneid(), g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < R / 16; ++i)
#pragma unroll
    for (int j = 0; j < C / 16; ++j)
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if constexpr (sizeof(T) == 2) {
          // movmatrix.trans moves a row-major 8x8 b16 matrix (lane l: row l / 4, columns 2 (l % 4)
          // + {0, 1}) into the same map of its transpose: exactly the change of lane map.
          const uint32_t in = *reinterpret_cast<const uint32_t*>(&src.tiles[i][j][k]);
          uint32_t out;
          asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(out) : "r"(in));
          *reinterpret_cast<uint32_t*>(&dst.tiles[i][j][k]) = out;
        } else {
          // fp32 has no movmatrix: element (2t + h, g) of the block (col_l order; (g, 2t + h) the
          // other way) sits in lane 4 (2t + h) + g / 2 of src, in its half g % 2. A shuffle sends
          // what the source lane names, so every lane sends both halves and keeps the one it needs.
          const float2 p = src.tiles[i][j][k];
          float out[2];
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int from = 4 * (2 * t + h) + g / 2;
            const float x = __shfl_sync(0xffffffffu, p.x, from), y = __shfl_sync(0xffffffffu, p.y, from);
            out[h] = g % 2 ? y : x;
          }
          dst.tiles[i][j][k] = make_float2(out[0], out[1]);
        }
      }
}

}  // namespace ts::detail
