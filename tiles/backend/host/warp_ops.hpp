#pragma once
// Host backend of the warp-scope ops (tiles/ops/warp.hpp): plain element copies between the warp's
// whole tile (`v`) and the shared tile's swizzled layout (st::at), and the MMA as fp32 loops,
// k ascending. In trace mode: a 16-bit row-layout store (stmatrix) records an smem_store op over the
// same bytes (the simulator costs it with the bank model as a fragment store: the same wavefronts
// where the swizzle keeps both conflict-free); vector moves (at most 64 values, a wavefront or two)
// record nothing yet; the other loads, stores and mma.sync have no op kind, so they refuse to run
// rather than leave a silent hole in the op stream.
#include <stdexcept>
#include <string>
#include <type_traits>

#include "tiles/backend/host/trace.hpp"
#include "tiles/ops/checks.hpp"

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

template <class T, int R, int C, class L, class ST>
inline void load_smem(rt<T, R, C, L>& dst, const ST& src, int row0, int col0) {
  not_traced("warp::load");
  check_offsets<rt<T, R, C, L>, ST>("warp::load", row0, col0);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) dst.v[r][c] = *src.at(row0 + r, col0 + c);
}
template <class ST, class T, int R, int C, class L>
inline void store_smem(ST& dst, const rt<T, R, C, L>& src, int row0, int col0) {
  check_offsets<rt<T, R, C, L>, ST>("warp::store", row0, col0);
  if constexpr (sizeof(T) == 2 && std::is_same_v<L, row_l>) {
    if (host::tracing()) {
      sim::TraceOp op = sim::make_op(sim::OpKind::smem_store, host::smem_offset(dst.data), 0, static_cast<uint32_t>(R * C * sizeof(T)));
      op.store = {ST::smem_layout(), static_cast<uint16_t>(row0), static_cast<uint16_t>(col0), R, C};
      return host::emit(op);
    }
  }
  not_traced("warp::store");
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) *dst.at(row0 + r, col0 + c) = src.v[r][c];
}

template <class T, int N, class L, class SV> inline void load_vec(rv<T, N, L>& dst, const SV& src) {
  if (host::tracing()) return;  // not traced yet (see above)
  for (int n = 0; n < N; ++n) dst.v[n] = src.data[n];
}
template <class SV, class T, int N, class L> inline void store_vec(SV& dst, const rv<T, N, L>& src) {
  if (host::tracing()) return;  // not traced yet (see above)
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
  constexpr int M = D::rows, N = D::cols, K = ATrans ? A::rows : A::cols;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float acc = c.v[m][n];
      for (int k = 0; k < K; ++k) acc += operand<ATrans>(a, m, k) * operand<BTrans>(b, k, n);
      d.v[m][n] = acc;
    }
}

}  // namespace ts::detail
