#pragma once
// Device backend of the warp-scope ops (tiles/ops/warp.hpp): register tiles to and from shared
// tiles with ldmatrix/stmatrix, register vectors to and from shared vectors, and mma.sync
// m16n8k16. Lane addresses and register orders come from tiles/layout/fragments.hpp; shared
// addresses from the tile's own swizzled layout (st::at), so these agree with TMA and wgmma.
#include <cstdint>
#include <type_traits>

#include "tiles/backend/device/core.cuh"
#include "tiles/layout/fragments.hpp"
#include "tiles/ops/checks.hpp"

namespace ts::detail {

// A pair of 16-bit elements as the 32-bit register the instructions name.
template <class P> __device__ inline uint32_t& bits_ref(P& pair) { return *reinterpret_cast<uint32_t*>(&pair); }
template <class P> __device__ inline uint32_t bits(const P& pair) { return *reinterpret_cast<const uint32_t*>(&pair); }

// One stmatrix.x4: four 8x8 matrices of 16-bit pairs, lanes 8m..8m+7 naming matrix m's rows.
template <bool Trans> __device__ inline void stmatrix_x4(uint32_t addr, uint32_t m0, uint32_t m1, uint32_t m2, uint32_t m3) {
  if constexpr (Trans)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
                 ::"r"(addr), "r"(m0), "r"(m1), "r"(m2), "r"(m3) : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 ::"r"(addr), "r"(m0), "r"(m1), "r"(m2), "r"(m3) : "memory");
}

// Subtile (r, c) of a tile, or (c, r) when the tile holds the operand transposed.
template <bool Trans, class X> __device__ inline const auto& subtile(const X& x, int r, int c) {
  if constexpr (Trans) return x.tiles[c][r];
  else return x.tiles[r][c];
}

// ---- register tile <-> shared tile ---------------------------------------------------------------
// Rows [row0, row0 + R), columns [col0, col0 + C) of the shared tile. 16-bit tiles: one ldmatrix.x4
// per 16x16 subtile, lane l addressing row l % 16 at column (l / 16) * 8 (8 contiguous elements:
// one 16-byte chunk, which the swizzle moves whole); .trans gives the col_l (mma B) map. fp32 tiles
// (no 32-bit ldmatrix): each lane reads its own pairs, 8 bytes at a time in row_l, the lanes of odd
// rows the partner 16-column block's at each step (layout::fp32_pair_block: no bank conflicts).
template <class T, int R, int C, class L, class ST>
__device__ inline void load_smem(rt<T, R, C, L>& dst, const ST& src, int row0, int col0) {
  [[maybe_unused]] stamp::Scope stamp(sim::OpKind::smem_load);
  const int lane = laneid();
  [[maybe_unused]] const bool swap = layout::fp32_pair_block(lane, 0) == 1;  // fp32 row_l only
#pragma unroll
  for (int i = 0; i < R / 16; ++i)
#pragma unroll
    for (int j = 0; j < C / 16; ++j) {
      if constexpr (sizeof(T) == 2) {
        const layout::RowCol at = layout::ldmatrix_x4_row_start(lane);
        const uint32_t addr = smem_addr(src.at(row0 + 16 * i + at.row, col0 + 16 * j + at.col));
        auto& p = dst.tiles[i][j];
        if constexpr (std::is_same_v<L, row_l>)
          asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                       : "=r"(bits_ref(p[0])), "=r"(bits_ref(p[1])), "=r"(bits_ref(p[2])), "=r"(bits_ref(p[3]))
                       : "r"(addr)
                       : "memory");
        else
          asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                       : "=r"(bits_ref(p[0])), "=r"(bits_ref(p[1])), "=r"(bits_ref(p[2])), "=r"(bits_ref(p[3]))
                       : "r"(addr)
                       : "memory");
      } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if constexpr (std::is_same_v<L, row_l>) {
            const layout::RowCol e = layout::rt_row_l_element(lane, k, 0);
            if constexpr (layout::fp32_pairs_swap_blocks(sizeof(T), C)) {  // odd rows move the partner block
              const int partner = j ^ 1;
              const float2 v = *reinterpret_cast<const float2*>(
                  src.at(row0 + 16 * i + e.row, col0 + 16 * (swap ? partner : j) + e.col));
              if (swap) dst.tiles[i][partner][k] = v;
              else dst.tiles[i][j][k] = v;
            } else {
              dst.tiles[i][j][k] = *reinterpret_cast<const float2*>(src.at(row0 + 16 * i + e.row, col0 + 16 * j + e.col));
            }
          } else {  // col_l: the two elements of a pair are one above the other
            const layout::RowCol e = layout::rt_col_l_element(lane, k, 0);
            dst.tiles[i][j][k] = make_float2(*src.at(row0 + 16 * i + e.row, col0 + 16 * j + e.col),
                                             *src.at(row0 + 16 * i + e.row + 1, col0 + 16 * j + e.col));
          }
        }
      }
    }
}

template <class ST, class T, int R, int C, class L>
__device__ inline void store_smem(ST& dst, const rt<T, R, C, L>& src, int row0, int col0) {
  [[maybe_unused]] stamp::Scope stamp(sim::OpKind::smem_store);
  const int lane = laneid();
  [[maybe_unused]] const bool swap = layout::fp32_pair_block(lane, 0) == 1;  // fp32 row_l only
#pragma unroll
  for (int i = 0; i < R / 16; ++i)
#pragma unroll
    for (int j = 0; j < C / 16; ++j) {
      if constexpr (sizeof(T) == 2) {
        const layout::RowCol at = layout::ldmatrix_x4_row_start(lane);
        const uint32_t addr = smem_addr(dst.at(row0 + 16 * i + at.row, col0 + 16 * j + at.col));
        const auto& p = src.tiles[i][j];
        stmatrix_x4<!std::is_same_v<L, row_l>>(addr, bits(p[0]), bits(p[1]), bits(p[2]), bits(p[3]));
      } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if constexpr (std::is_same_v<L, row_l>) {
            const layout::RowCol e = layout::rt_row_l_element(lane, k, 0);
            if constexpr (layout::fp32_pairs_swap_blocks(sizeof(T), C)) {  // odd rows move the partner block
              const int partner = j ^ 1;
              *reinterpret_cast<float2*>(dst.at(row0 + 16 * i + e.row, col0 + 16 * (swap ? partner : j) + e.col)) =
                  swap ? src.tiles[i][partner][k] : src.tiles[i][j][k];
            } else {
              *reinterpret_cast<float2*>(dst.at(row0 + 16 * i + e.row, col0 + 16 * j + e.col)) = src.tiles[i][j][k];
            }
          } else {
            const float2 v = src.tiles[i][j][k];
            const layout::RowCol e = layout::rt_col_l_element(lane, k, 0);
            *dst.at(row0 + 16 * i + e.row, col0 + 16 * j + e.col) = v.x;
            *dst.at(row0 + 16 * i + e.row + 1, col0 + 16 * j + e.col) = v.y;
          }
        }
      }
    }
}

// ---- register vector <-> shared vector -----------------------------------------------------------
template <class L> __device__ inline int vector_element(int lane, int s) {
  return std::is_same_v<L, by_group_l> ? layout::rv_group_element(lane, s) : layout::rv_thread_element(lane, s);
}
template <class T, int N, class L, class SV> __device__ inline void load_vec(rv<T, N, L>& dst, const SV& src) {
  [[maybe_unused]] stamp::Scope stamp(sim::OpKind::smem_load);
  const int lane = laneid();
#pragma unroll
  for (int b = 0; b < N / 16; ++b) {
    if constexpr (std::is_same_v<L, by_thread_l> && std::is_same_v<T, float> && std::is_same_v<typename SV::dtype, float>) {
      // Slots 2m and 2m + 1 are neighbours (8-byte aligned): one 8-byte load, which the compiler
      // does not form by itself once the addresses are known to be shared ones.
#pragma unroll
      for (int m = 0; m < rv<T, N, L>::slots / 2; ++m) {
        const float2 v = *reinterpret_cast<const float2*>(&src.data[16 * b + vector_element<L>(lane, 2 * m)]);
        dst.data[b][2 * m] = v.x;
        dst.data[b][2 * m + 1] = v.y;
      }
    } else {
#pragma unroll
      for (int s = 0; s < rv<T, N, L>::slots; ++s) dst.data[b][s] = src.data[16 * b + vector_element<L>(lane, s)];
    }
  }
}
// Only one replica of each element writes (the first lane of a group, or group 0), so no two
// lanes store to one address.
template <class SV, class T, int N, class L> __device__ inline void store_vec(SV& dst, const rv<T, N, L>& src) {
  stamp::mark(sim::OpKind::smem_store);  // before the writers split off, so the warp records once
  const int lane = laneid();
  const bool writer = std::is_same_v<L, by_group_l> ? lane % 4 == 0 : lane / 4 == 0;
  if (!writer) return;
#pragma unroll
  for (int b = 0; b < N / 16; ++b)
#pragma unroll
    for (int s = 0; s < rv<T, N, L>::slots; ++s) dst.data[16 * b + vector_element<L>(lane, s)] = src.data[b][s];
}

// ---- mma.sync m16n8k16 ---------------------------------------------------------------------------
template <class T>
__device__ inline void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same_v<T, bf16>)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// d = a b + c over 16x16x16 blocks, each two m16n8k16 (n halves). Register choice per operand:
//  - a row_l (M x K): pairs 0..3 are a0..a3. a col_l (K x M, ATrans): pair p covers rows (K) block
//    p % 2 and columns (M) block p / 2, so a0..a3 = pairs 0, 2, 1, 3.
//  - b col_l (K x N): n half q is b0, b1 = pairs 2q, 2q + 1. b row_l (N x K, BTrans): pairs q, q + 2.
//  - c and d (row_l fp32): n half q is c0..c3 = pairs 2q, 2q + 1.
// c is read into registers before d of the same block is written, so d may be c.
template <bool ATrans, bool BTrans, class D, class A, class B, class C>
__device__ inline void warp_mma(D& d, const A& a, const B& b, const C& c) {
  using T = typename A::dtype;
  constexpr int m16 = D::rows / 16, n16 = D::cols / 16, k16 = (ATrans ? A::rows : A::cols) / 16;
#pragma unroll
  for (int i = 0; i < m16; ++i)
#pragma unroll
    for (int j = 0; j < n16; ++j) {
      float acc[2][4];
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const float2 lo = c.tiles[i][j][2 * q], hi = c.tiles[i][j][2 * q + 1];
        acc[q][0] = lo.x, acc[q][1] = lo.y, acc[q][2] = hi.x, acc[q][3] = hi.y;
      }
#pragma unroll
      for (int kk = 0; kk < k16; ++kk) {
        const auto& as = subtile<ATrans>(a, i, kk);
        const uint32_t ar[4] = {bits(as[0]), bits(as[ATrans ? 2 : 1]), bits(as[ATrans ? 1 : 2]), bits(as[3])};
        const auto& bs = subtile<!BTrans>(b, j, kk);  // b is K x N unless BTrans
#pragma unroll
        for (int q = 0; q < 2; ++q)
          mma_m16n8k16<T>(acc[q], ar, bits(bs[BTrans ? q : 2 * q]), bits(bs[BTrans ? q + 2 : 2 * q + 1]));
      }
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        d.tiles[i][j][2 * q] = make_float2(acc[q][0], acc[q][1]);
        d.tiles[i][j][2 * q + 1] = make_float2(acc[q][2], acc[q][3]);
      }
    }
}

}  // namespace ts::detail
