#pragma once
// Shared <-> global copies without TMA: plain 16-byte vector loads and stores by the threads of a
// warp or of a warpgroup (the 4 warps split the tile; all of them must call, then synchronise with
// warpgroup::sync before anyone reads the result). Global tensors are row-major gl's.
//
//   warp::load(st, gl, {b, h, r, c})        st <- tile (r, c) of batch b, head h, in units of st's rows and cols
//   warp::store(gl, st, {b, h, r, c})       tile (r, c) <- st
//   warp::load(sv, gl, {b, h, r, c})        sv <- row r, elements [c N, (c + 1) N) (a vector is a 1 x N tile)
//   warp::store(gl, sv, {b, h, r, c})
//   warpgroup::load / warpgroup::store      the same, 128 threads
//
// Tails are bounds-checked: elements outside the tensor load as zero and are not stored, as with
// TMA; chunks that straddle the edge or are not 16-byte aligned in global memory (a row pitch that
// is not a multiple of 16 bytes) go element by element.
#include "tiles/ops/checks.hpp"

#if defined(__CUDACC__)
#include "tiles/backend/device/copy.cuh"
#else
#include "tiles/backend/host/copy.hpp"
#endif

namespace ts::detail {
// Element origin of tile `idx` of S in a global tensor.
template <class S> TS_HD constexpr int64_t origin_row(coord idx) { return int64_t{idx.r} * shared_rows<S>(); }
template <class S> TS_HD constexpr int64_t origin_col(coord idx) { return int64_t{idx.c} * shared_cols<S>(); }

template <int Threads, class S, class G> TS_OP void load_global(S& dst, const G& src, coord idx) {
  check_smem_global<S, G>();
  copy_from_global<Threads>(dst, src, idx.b, idx.h, origin_row<S>(idx), origin_col<S>(idx), copy_thread<Threads>());
}
template <int Threads, class G, class S> TS_OP void store_global(const G& dst, const S& src, coord idx) {
  check_smem_global<S, G>();
  copy_to_global<Threads>(dst, src, idx.b, idx.h, origin_row<S>(idx), origin_col<S>(idx), copy_thread<Threads>());
}
}  // namespace ts::detail

namespace ts::warp {
template <class S, GlobalTensor G> requires SharedTile<S> || SharedVector<S>
TS_OP void load(S& dst, const G& src, coord idx) { ts::detail::load_global<32>(dst, src, idx); }
template <GlobalTensor G, class S> requires SharedTile<S> || SharedVector<S>
TS_OP void store(const G& dst, const S& src, coord idx) { ts::detail::store_global<32>(dst, src, idx); }
}  // namespace ts::warp

namespace ts::warpgroup {
template <class S, GlobalTensor G> requires SharedTile<S> || SharedVector<S>
TS_OP void load(S& dst, const G& src, coord idx) { ts::detail::load_global<128>(dst, src, idx); }
template <GlobalTensor G, class S> requires SharedTile<S> || SharedVector<S>
TS_OP void store(const G& dst, const S& src, coord idx) { ts::detail::store_global<128>(dst, src, idx); }
}  // namespace ts::warpgroup
