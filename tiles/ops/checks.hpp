#pragma once
// Compile-time checks of the tile ops, shared by both backends so that a kernel that is wrong for
// one is wrong for the other with the same message. Each check is a constexpr function whose
// static_asserts fire when an op instantiates it; the messages say what the op needs and how to
// get it (swap_layout, copy).
#include <type_traits>

#include "tiles/layout/hd.hpp"
#include "tiles/types/dtypes.hpp"
#include "tiles/types/global.hpp"
#include "tiles/types/register.hpp"
#include "tiles/types/shared.hpp"
#include "tiles/types/vector.hpp"

// An op of the tile DSL: device code under nvcc, host code under a host compiler.
#if defined(__CUDACC__)
#define TS_OP __device__ inline
#else
#define TS_OP inline
#endif

namespace ts {

template <class X> struct is_rt : std::false_type {};
template <class T, int R, int C, class L> struct is_rt<rt<T, R, C, L>> : std::true_type {};
template <class X> struct is_rv : std::false_type {};
template <class T, int N, class L> struct is_rv<rv<T, N, L>> : std::true_type {};
template <class X> struct is_gl : std::false_type {};
template <class T, int B, int H, int R, int C> struct is_gl<gl<T, B, H, R, C>> : std::true_type {};
template <class X> struct is_sv : std::false_type {};
template <class T, int N> struct is_sv<sv<T, N>> : std::true_type {};

template <class X> concept RegisterTile = is_rt<std::remove_cvref_t<X>>::value;
template <class X> concept RegisterVector = is_rv<std::remove_cvref_t<X>>::value;
template <class X> concept RegisterData = RegisterTile<X> || RegisterVector<X>;
template <class X> concept GlobalTensor = is_gl<std::remove_cvref_t<X>>::value;
template <class X> concept SharedVector = is_sv<std::remove_cvref_t<X>>::value;

template <class T> inline constexpr bool is_16bit_float = std::is_same_v<T, bf16> || std::is_same_v<T, fp16>;
template <class T> inline constexpr bool is_element_type = is_16bit_float<T> || std::is_same_v<T, float>;

namespace detail {

// S may stand where a D goes in an element-wise op: a tile or vector of D's kind, or a scalar.
template <class D, class S> TS_HD constexpr bool same_kind() {
  if constexpr (std::is_arithmetic_v<S>) return true;
  else return (is_rt<D>::value && is_rt<S>::value) || (is_rv<D>::value && is_rv<S>::value);
}
template <class D, class S> TS_HD constexpr bool same_shape() {
  if constexpr (std::is_arithmetic_v<S>) return true;
  else if constexpr (is_rt<D>::value && is_rt<S>::value) return D::rows == S::rows && D::cols == S::cols;
  else if constexpr (is_rv<D>::value && is_rv<S>::value) return D::length == S::length;
  else return false;
}
template <class D, class S> TS_HD constexpr bool same_layout() {
  if constexpr (std::is_arithmetic_v<S>) return true;
  else return std::is_same_v<typename D::layout, typename S::layout>;
}

template <class D, class... S> TS_HD constexpr void check_elementwise() {
  static_assert(is_element_type<typename D::dtype>, "element-wise op: dst must hold fp32, bf16 or fp16");
  static_assert((same_kind<D, S>() && ...),
                "element-wise op: each source must be a register tile (for a tile dst), a register vector (for a vector dst) or a scalar");
  static_assert((same_shape<D, S>() && ...), "element-wise op: each source must have dst's shape (R x C tile, N-long vector)");
  static_assert((same_layout<D, S>() && ...),
                "element-wise op: each source must have dst's layout (swap_layout converts a tile between row_l and col_l)");
}

// V holds one value per row (Rows = true) or per column of tile T, in T's lanes.
template <bool Rows, class V, class T> TS_HD constexpr void check_vector_of() {
  static_assert(is_rt<T>::value, "row/column op: the tile operand must be a register tile rt<T, R, C, L>");
  static_assert(is_rv<V>::value, "row/column op: the vector operand must be a register vector rv<T, N, L>");
  if constexpr (Rows) {
    static_assert(V::length == T::rows, "row op: the vector must have one value per row of the tile (rv of length R)");
    static_assert(std::is_same_v<typename V::layout, row_vec_layout<typename T::layout>>,
                  "row op: the vector must be laid out like the tile's rows: use row_vec<tile type> (by_group_l for row_l, by_thread_l for col_l)");
  } else {
    static_assert(V::length == T::cols, "column op: the vector must have one value per column of the tile (rv of length C)");
    static_assert(std::is_same_v<typename V::layout, col_vec_layout<typename T::layout>>,
                  "column op: the vector must be laid out like the tile's columns: use col_vec<tile type> (by_thread_l for row_l, by_group_l for col_l)");
  }
}

template <class D, class S> TS_HD constexpr void check_swap_layout() {
  static_assert(is_rt<D>::value && is_rt<S>::value, "swap_layout: dst and src must be register tiles");
  static_assert(std::is_same_v<typename D::dtype, typename S::dtype>, "swap_layout: dst and src must hold the same type (copy converts)");
  static_assert(D::rows == S::rows && D::cols == S::cols, "swap_layout: dst and src must have the same shape (the matrix stays, its lane map changes)");
  static_assert(!std::is_same_v<typename D::layout, typename S::layout>,
                "swap_layout: dst must be in the other layout than src (row_l <-> col_l); copy() copies within a layout");
}

// Register tile <-> shared tile (warp::load / warp::store).
template <class RT, class ST> TS_HD constexpr void check_tile_smem() {
  static_assert(is_rt<RT>::value, "warp::load/store: the register operand must be a register tile rt<T, R, C, L>");
  static_assert(SharedTile<ST>, "warp::load/store: the shared operand must be a shared tile st<T, R, C>");
  static_assert(std::is_same_v<typename RT::dtype, typename ST::dtype>,
                "warp::load/store: register and shared tiles must hold the same type (convert in registers with copy())");
  static_assert(RT::rows <= ST::rows && RT::cols <= ST::cols, "warp::load/store: the register tile must fit in the shared tile");
}

template <class RV, class SV> TS_HD constexpr void check_vec_smem() {
  static_assert(is_rv<RV>::value && is_sv<SV>::value, "warp::load/store: a register vector moves to or from a shared vector sv<T, N>");
  static_assert(std::is_same_v<typename RV::dtype, typename SV::dtype>, "warp::load/store: register and shared vectors must hold the same type");
  static_assert(RV::length == SV::length, "warp::load/store: register and shared vectors must have the same length");
}

// Shared tile or vector <-> global tensor.
template <class S, class G> TS_HD constexpr void check_smem_global() {
  static_assert(is_gl<G>::value, "shared <-> global copy: the global operand must be a gl<T, ...>");
  static_assert(SharedTile<S> || is_sv<S>::value, "shared <-> global copy: the shared operand must be an st or an sv");
  static_assert(std::is_same_v<typename S::dtype, typename G::dtype>, "shared <-> global copy: shared and global element types differ");
}

// The 16-byte chunks of a shared tile (rows x cols) or vector (1 x N) that plain copies move:
// chunk e starts at row e / per_row, column (e % per_row) * per. Both backends split a tile among
// threads by this numbering.
template <class S> TS_HD constexpr int shared_rows() {
  if constexpr (SharedTile<S>) return S::rows;
  else return 1;
}
template <class S> TS_HD constexpr int shared_cols() {
  if constexpr (SharedTile<S>) return S::cols;
  else return S::length;
}
// Element (r, c) of a shared tile (in its swizzled layout), or element c of a shared vector.
template <class S> TS_HD auto* shared_at(S& s, int r, int c) {
  if constexpr (SharedTile<S>) return s.at(r, c);
  else return (void)r, &s.data[c];
}
template <class S> struct chunks {
  static constexpr int per = 16 / sizeof(typename S::dtype);  // elements per chunk
  static constexpr int per_row = shared_cols<S>() / per, count = shared_rows<S>() * per_row;
};

// warp::mma_*: D = A B + C in fp32 on m16n8k16 tensor-core instructions. ATrans: a is given as
// K x M (col_l); BTrans: b is given as N x K (row_l).
template <bool ATrans, bool BTrans, class D, class A, class B, class C> TS_HD constexpr void check_warp_mma() {
  static_assert(is_rt<D>::value && is_rt<A>::value && is_rt<B>::value && is_rt<C>::value, "warp::mma: every operand must be a register tile");
  static_assert(std::is_same_v<typename D::dtype, float> && std::is_same_v<typename C::dtype, float>,
                "warp::mma: d and c are fp32 accumulators (rt_fl<M, N>)");
  static_assert(std::is_same_v<typename D::layout, row_l> && std::is_same_v<typename C::layout, row_l>,
                "warp::mma: d and c are accumulators in row_l (rt_fl<M, N, row_l>)");
  static_assert(is_16bit_float<typename A::dtype> && std::is_same_v<typename A::dtype, typename B::dtype>,
                "warp::mma: a and b must both be bf16 or both fp16 (copy() converts)");
  if constexpr (ATrans)
    static_assert(std::is_same_v<typename A::layout, col_l>,
                  "warp::mma_AtB/mma_AtBt: a is A transposed, a K x M tile in col_l (swap_layout converts a row_l one)");
  else
    static_assert(std::is_same_v<typename A::layout, row_l>,
                  "warp::mma_AB/mma_ABt: a must be an M x K tile in row_l (swap_layout converts a col_l one)");
  if constexpr (BTrans)
    static_assert(std::is_same_v<typename B::layout, row_l>,
                  "warp::mma_ABt/mma_AtBt: b is B transposed, an N x K tile in row_l (swap_layout converts a col_l one)");
  else
    static_assert(std::is_same_v<typename B::layout, col_l>,
                  "warp::mma_AB/mma_AtB: b must be a K x N tile in col_l (load it with warp::load into an rt<T, K, N, col_l>, "
                  "swap_layout a row_l one, or use mma_ABt with b as N x K in row_l)");
  constexpr int m = ATrans ? A::cols : A::rows, ka = ATrans ? A::rows : A::cols;
  constexpr int kb = BTrans ? B::cols : B::rows, n = BTrans ? B::rows : B::cols;
  static_assert(ka == kb, "warp::mma: a and b disagree on K");
  static_assert(D::rows == m && D::cols == n && C::rows == m && C::cols == n, "warp::mma: d and c must be M x N, with M from a and N from b");
}

}  // namespace detail
}  // namespace ts
