#pragma once
// Warp-scope ops between registers and shared memory, and the warp's tensor-core MMA:
//
//   warp::load(rt, st, row0 = 0, col0 = 0)   rt <- rows [row0, row0 + R), columns [col0, col0 + C) of st
//   warp::store(st, rt, row0 = 0, col0 = 0)  the same rectangle of st <- rt
//   warp::load(rv, sv), warp::store(sv, rv)  a register vector from / to a shared vector
//   warp::mma_AB(d, a, b, c)                 d = a b + c      a: M x K row_l, b: K x N col_l
//   warp::mma_ABt(d, a, b, c)                d = a b^T + c    a: M x K row_l, b: N x K row_l
//   warp::mma_AtB(d, a, b, c)                d = a^T b + c    a: K x M col_l, b: K x N col_l
//   warp::mma_AtBt(d, a, b, c)               d = a^T b^T + c  a: K x M col_l, b: N x K row_l
//
// On the GPU, 16-bit tiles move with ldmatrix/stmatrix .x4 (.trans for col_l) and fp32 tiles with
// plain 8- or 4-byte accesses; MMAs are mma.sync m16n8k16 (bf16/fp16 in, fp32 accumulate; d may be
// c). Every lane of the warp must call these (they are .sync.aligned). row0 and col0 are multiples
// of 16 (the host backend checks; the device trusts them). Shared memory written by other warps
// must be synchronised first (block_sync, warpgroup::sync), as for any shared access.
// Which operand layouts an MMA takes follows from the fragment maps: an A operand in col_l is A^T
// given as K x M; a B operand in row_l is B^T given as N x K. A wrong layout fails to compile.
#include "tiles/ops/checks.hpp"

#if defined(__CUDACC__)
#include "tiles/backend/device/warp_ops.cuh"
#else
#include "tiles/backend/host/warp_ops.hpp"
#endif

namespace ts::warp {

template <RegisterTile RT, SharedTile ST> TS_OP void load(RT& dst, const ST& src, int row0 = 0, int col0 = 0) {
  ts::detail::check_tile_smem<RT, ST>();
  ts::detail::load_smem(dst, src, row0, col0);
}
template <SharedTile ST, RegisterTile RT> TS_OP void store(ST& dst, const RT& src, int row0 = 0, int col0 = 0) {
  ts::detail::check_tile_smem<RT, ST>();
  ts::detail::store_smem(dst, src, row0, col0);
}
template <RegisterVector RV, SharedVector SV> TS_OP void load(RV& dst, const SV& src) {
  ts::detail::check_vec_smem<RV, SV>();
  ts::detail::load_vec(dst, src);
}
template <SharedVector SV, RegisterVector RV> TS_OP void store(SV& dst, const RV& src) {
  ts::detail::check_vec_smem<RV, SV>();
  ts::detail::store_vec(dst, src);
}

template <RegisterTile D, RegisterTile A, RegisterTile B, RegisterTile C>
TS_OP void mma_AB(D& d, const A& a, const B& b, const C& c) {
  ts::detail::check_warp_mma<false, false, D, A, B, C>();
  ts::detail::warp_mma<false, false>(d, a, b, c);
}
template <RegisterTile D, RegisterTile A, RegisterTile B, RegisterTile C>
TS_OP void mma_ABt(D& d, const A& a, const B& b, const C& c) {
  ts::detail::check_warp_mma<false, true, D, A, B, C>();
  ts::detail::warp_mma<false, true>(d, a, b, c);
}
template <RegisterTile D, RegisterTile A, RegisterTile B, RegisterTile C>
TS_OP void mma_AtB(D& d, const A& a, const B& b, const C& c) {
  ts::detail::check_warp_mma<true, false, D, A, B, C>();
  ts::detail::warp_mma<true, false>(d, a, b, c);
}
template <RegisterTile D, RegisterTile A, RegisterTile B, RegisterTile C>
TS_OP void mma_AtBt(D& d, const A& a, const B& b, const C& c) {
  ts::detail::check_warp_mma<true, true, D, A, B, C>();
  ts::detail::warp_mma<true, true>(d, a, b, c);
}

}  // namespace ts::warp
