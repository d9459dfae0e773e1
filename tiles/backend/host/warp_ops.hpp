#pragma once
// Host backend of the warp-scope ops (tiles/ops/warp.hpp): plain element copies between the warp's
// whole tile (`v`) and the shared tile's swizzled layout (st::at), and the MMA as fp32 loops,
// k ascending. In trace mode the register <-> shared moves record smem_load / smem_store ops with
// the walk the device backend takes (sim::SmemWalk), which the simulator costs with the bank model;
// mma.sync has no op kind yet, so it refuses to run rather than leave a silent hole in the stream.
#include <stdexcept>
#include <string>
#include <type_traits>

#include "tiles/backend/host/trace.hpp"
#include "tiles/ops/checks.hpp"
#include "tiles/ops/pipe_cost.hpp"

namespace ts::detail {

inline void not_traced(const char* op) {
  if (host::tracing())
    throw std::logic_error(std::string(op) + ": trace mode has no op kind for it yet (the simulator does not model it)");
}

// The rectangle at (row0, col0) must be whole 16x16 subtiles inside the shared tile, as the
// device op assumes.
template <class RT, class ST> inline void check_offsets(const char* op, int row0, int col0) {
  if (row0 % 16 != 0 || col0 % 16 != 0 || row0 < 0 || col0 < 0 || row0 + RT::rows > ST::rows || col0 + RT::cols > ST::cols)
    throw std::invalid_argument(std::string(op) + ": the " + std::to_string(RT::rows) + " x " + std::to_string(RT::cols) +
                                " register tile at (" + std::to_string(row0) + ", " + std::to_string(col0) +
                                ") must start at multiples of 16 and lie inside the " + std::to_string(ST::rows) + " x " +
                                std::to_string(ST::cols) + " shared tile");
}

// Whether the device backend's fp32 row_l walk swaps partner blocks (and selects per value) for a
// register tile C columns wide.
template <class T, int C, class L> constexpr bool swaps_partner_blocks() {
  return std::is_same_v<L, row_l> && layout::fp32_pairs_swap_blocks(sizeof(T), C);
}

// How the device backend walks a register tile of type T, layout L through shared memory.
template <class T, class L> constexpr sim::SmemWalk tile_walk() {
  if constexpr (sizeof(T) == 2) return sim::SmemWalk::matrix_x4;
  else if constexpr (std::is_same_v<L, row_l>) return sim::SmemWalk::row_pairs;
  else return sim::SmemWalk::column_pairs;
}

inline void emit_smem(sim::OpKind kind, const void* base, const layout::SmemLayout& tile, int row0, int col0, int rows,
                      int cols, sim::SmemWalk walk) {
  sim::TraceOp& op = host::record(kind, host::smem_offset(base), 0, static_cast<uint32_t>(rows * cols) * tile.elem_bytes);
  op.smem = {tile, static_cast<uint16_t>(row0), static_cast<uint16_t>(col0), static_cast<uint16_t>(rows),
             static_cast<uint16_t>(cols), walk};
}

// A shared vector as the 1 x N tile the bank model sees.
template <class SV> constexpr layout::SmemLayout vector_layout() {
  return {static_cast<uint32_t>(sizeof(typename SV::dtype)), 1, static_cast<uint32_t>(SV::length), layout::Swizzle::none, 0};
}
template <class L> constexpr sim::SmemWalk vector_walk() {
  return std::is_same_v<L, by_group_l> ? sim::SmemWalk::vector_by_group : sim::SmemWalk::vector_by_thread;
}

template <class T, int R, int C, class L, class ST>
inline void load_smem(rt<T, R, C, L>& dst, const ST& src, int row0, int col0) {
  check_offsets<rt<T, R, C, L>, ST>("warp::load", row0, col0);
  host::warp_wide_op();
  if (host::tracing()) {
    emit_smem(sim::OpKind::smem_load, src.data, ST::smem_layout(), row0, col0, R, C, tile_walk<T, L>());
    if constexpr (swaps_partner_blocks<T, C, L>()) host::emit_math(pipe_cost::partner_selects<R * C / 32>());
    return;
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) dst.v[r][c] = *src.at(row0 + r, col0 + c);
}
template <class ST, class T, int R, int C, class L>
inline void store_smem(ST& dst, const rt<T, R, C, L>& src, int row0, int col0) {
  check_offsets<rt<T, R, C, L>, ST>("warp::store", row0, col0);
  host::warp_wide_op();
  if (host::tracing()) {
    if constexpr (swaps_partner_blocks<T, C, L>()) host::emit_math(pipe_cost::partner_selects<R * C / 32>());
    emit_smem(sim::OpKind::smem_store, dst.data, ST::smem_layout(), row0, col0, R, C, tile_walk<T, L>());
    return;
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) *dst.at(row0 + r, col0 + c) = src.v[r][c];
}

template <class T, int N, class L, class SV> inline void load_vec(rv<T, N, L>& dst, const SV& src) {
  if (host::tracing()) return emit_smem(sim::OpKind::smem_load, src.data, vector_layout<SV>(), 0, 0, 1, N, vector_walk<L>());
  for (int n = 0; n < N; ++n) dst.v[n] = src.data[n];
}
template <class SV, class T, int N, class L> inline void store_vec(SV& dst, const rv<T, N, L>& src) {
  if (host::tracing()) return emit_smem(sim::OpKind::smem_store, dst.data, vector_layout<SV>(), 0, 0, 1, N, vector_walk<L>());
  for (int n = 0; n < N; ++n) dst.data[n] = src.v[n];
}

// Element (r, c) of the M x K (or K x N) operand that a tile holds as given or transposed.
template <bool Trans, class X> inline float operand(const X& x, int r, int c) { return to_float(Trans ? x.v[c][r] : x.v[r][c]); }

// d = a b + c: each element starts from c and adds the products k = 0, 1, ... in fp32. The
// tensor cores add in another order (and round their internal sums differently), so the two
// backends agree to fp32 rounding, not bit for bit. d may be c.
template <bool ATrans, bool BTrans, class D, class A, class B, class C>
inline void warp_mma(D& d, const A& a, const B& b, const C& c) {
  not_traced("warp::mma");
  host::warp_wide_op();
  constexpr int M = D::rows, N = D::cols, K = ATrans ? A::rows : A::cols;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float acc = c.v[m][n];
      for (int k = 0; k < K; ++k) acc += operand<ATrans>(a, m, k) * operand<BTrans>(b, k, n);
      d.v[m][n] = acc;
    }
}

}  // namespace ts::detail
