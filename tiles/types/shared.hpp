#pragma once
// Shared tiles st<T, R, C>: R x C elements in shared memory, laid out by tiles/layout with the
// largest swizzle the row allows, so TMA, wgmma descriptors and ldmatrix all agree on the bytes.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tiles/layout/swizzle.hpp"
#include "tiles/types/dtypes.hpp"

namespace ts {

template <class T, int R, int C>
struct alignas(1024) st {
  static_assert(R % 16 == 0 && C % 16 == 0, "st<T, R, C>: R and C must be multiples of 16");
  using dtype = T;
  static constexpr int rows = R, cols = C;
  // A function, not a static member object, so device code may call it without an ODR-use.
  TS_HD static constexpr layout::SmemLayout smem_layout() { return layout::auto_layout<T>(R, C); }
  static constexpr layout::Swizzle swizzle = smem_layout().swizzle;
  static_assert(swizzle != layout::Swizzle::none, "st<T, R, C>: a row must be at least 32 bytes");
  // Column block: the widest slab of columns one TMA box / one swizzle span covers.
  static constexpr int block_cols = static_cast<int>(smem_layout().block_row_bytes() / sizeof(T));
  static constexpr std::size_t bytes = static_cast<std::size_t>(R) * C * sizeof(T);

  T data[R * C];

  TS_HD T* at(int r, int c) {
    return reinterpret_cast<T*>(reinterpret_cast<char*>(data) + smem_layout().element_offset(r, c));
  }
  TS_HD const T* at(int r, int c) const {
    return reinterpret_cast<const T*>(reinterpret_cast<const char*>(data) + smem_layout().element_offset(r, c));
  }
};

// Column block j of a swizzled tile, as a tile of its own (R x block_cols): a swizzled tile stores
// each column block whole, laid out exactly as that narrower tile, so wgmma and TMA can address one
// block alone (e.g. half the columns of a 64 x 128 bf16 tile as an st<bf16, 64, 64>).
template <class T, int R, int C>
TS_HD auto& column_block(st<T, R, C>& t, int j) {
  using B = st<T, R, st<T, R, C>::block_cols>;
  static_assert(B::swizzle == st<T, R, C>::swizzle, "column_block: the block must keep the tile's swizzle");
  return *reinterpret_cast<B*>(reinterpret_cast<char*>(t.data) + j * B::bytes);
}
template <class T, int R, int C>
TS_HD const auto& column_block(const st<T, R, C>& t, int j) {
  using B = st<T, R, st<T, R, C>::block_cols>;
  static_assert(B::swizzle == st<T, R, C>::swizzle, "column_block: the block must keep the tile's swizzle");
  return *reinterpret_cast<const B*>(reinterpret_cast<const char*>(t.data) + j * B::bytes);
}

// Part i of a tile cut into Parts runs of consecutive bytes, each a tile of its own: whole column
// blocks when the tile has at least Parts of them, else runs of rows of its one column block (a
// 128B swizzle repeats every 8 rows, so a run of whole 8-row groups keeps the pattern). What
// several CTAs of a cluster load a share each of (kernels/gemm: B, by TMA multicast).
template <class T, int R, int C, int Parts>
using part_tile = std::conditional_t<(C / st<T, R, C>::block_cols >= Parts), st<T, R, C / Parts>, st<T, R / Parts, C>>;

template <int Parts, class T, int R, int C>
TS_HD auto& contiguous_part(st<T, R, C>& t, int i) {
  using P = part_tile<T, R, C, Parts>;
  static_assert(P::bytes * Parts == st<T, R, C>::bytes, "contiguous_part: the parts must cover the tile");
  static_assert(P::swizzle == st<T, R, C>::swizzle, "contiguous_part: a part must keep the tile's swizzle");
  static_assert(C / st<T, R, C>::block_cols >= Parts ? (C / Parts) % st<T, R, C>::block_cols == 0 : (C == st<T, R, C>::block_cols && (R / Parts) % 8 == 0),
                "contiguous_part: a part must be whole column blocks, or whole 8-row groups of one column block");
  return *reinterpret_cast<P*>(reinterpret_cast<char*>(t.data) + i * P::bytes);
}

// A shared vector: one row of N elements (row/column reductions, bias vectors).
template <class T, int N>
struct alignas(16) sv {
  static_assert(N % 16 == 0, "sv<T, N>: N must be a multiple of 16");
  using dtype = T;
  static constexpr int length = N;
  T data[N];
};

template <class S> concept SharedTile = requires { typename S::dtype; S::rows; S::cols; S::smem_layout(); };

}  // namespace ts
