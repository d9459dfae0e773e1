#pragma once
// Host backend of the plain shared <-> global copies (tiles/ops/copy.hpp): element copies with the
// device's bounds (zeros loaded for, nothing stored to, elements outside the tensor). A warpgroup
// copy splits the 16-byte chunks among its warps exactly as the GPU's threads do (chunk e goes to
// thread e % 128, so to warp (e % 128) / 32): a kernel in which one warp of four forgets to copy
// gets holes here too. Trace mode records a shared vector's copy (a row of at most a few hundred
// bytes, such as attention's log-sum-exp) as gmem_load / gmem_store of the calling warp's chunks, for
// the simulator's L2 and HBM; a tile's plain copy is refused there (no kernel uses one yet).
#include <algorithm>
#include <cstdint>

#include "tiles/backend/host/core.hpp"
#include "tiles/backend/host/warp_ops.hpp"
#include "tiles/ops/checks.hpp"

namespace ts::detail {

// The first of the 32 threads the calling warp stands for.
template <int Threads> inline int copy_thread() { return Threads == 32 ? 0 : 32 * warpgroup::warpid(); }

template <class G> inline bool in_tensor(const G& g, int64_t b, int64_t h, int64_t r, int64_t c) {
  return b >= 0 && b < g.batch() && h >= 0 && h < g.heads() && r >= 0 && r < g.rows() && c >= 0 && c < g.cols();
}

// Trace mode: the calling warp's chunks of a shared vector's copy (kind gmem_load or gmem_store): the
// in-range bytes of each run of 32 consecutive chunks it moves (chunk e goes to thread e % Threads), one
// op per run; nothing for a warp with no chunk (a warpgroup copy of a short vector) or none inside the tensor.
template <int Threads, class S, class G>
inline void trace_vector_copy(sim::OpKind kind, const G& g, int64_t b, int64_t h, int64_t r0, int64_t c0, int first_thread) {
  using K = chunks<S>;
  using T = typename G::dtype;
  for (int first = first_thread; first < K::count; first += Threads) {
    const int64_t c_first = c0 + int64_t{first} * K::per;
    if (!in_tensor(g, b, h, r0, c_first)) continue;  // the run starts outside the tensor: the device moves nothing
    const int64_t c_end = std::min<int64_t>(c0 + int64_t{std::min(K::count, first + 32)} * K::per, g.cols());
    const auto bytes = static_cast<uint32_t>((c_end - c_first) * int64_t{sizeof(T)});
    sim::TraceOp& op = host::record(kind, 0, 0, bytes);
    op.box.tensor = host::tensor_id(g.ptr);
    op.box.offset = static_cast<uint64_t>(g.offset(b, h, r0, c_first)) * sizeof(T);
    op.box.rows = 1;
    op.box.row_bytes = bytes;
    op.box.row_pitch = bytes;
  }
}

template <int Threads, class S, class G>
inline void copy_from_global(S& dst, const G& src, int64_t b, int64_t h, int64_t r0, int64_t c0, int first_thread) {
  using T = typename S::dtype;
  using K = chunks<S>;
  if constexpr (SharedVector<S>) {
    if (host::tracing()) return trace_vector_copy<Threads, S>(sim::OpKind::gmem_load, src, b, h, r0, c0, first_thread);
  }
  not_traced("load from global (plain copy)");
  for (int e = 0; e < K::count; ++e) {
    if (e % Threads < first_thread || e % Threads >= first_thread + 32) continue;  // another warp's chunk
    const int r = e / K::per_row, c = (e % K::per_row) * K::per;
    for (int x = 0; x < K::per; ++x)
      shared_at(dst, r, c)[x] = in_tensor(src, b, h, r0 + r, c0 + c + x) ? src(b, h, r0 + r, c0 + c + x) : from_float<T>(0.f);
  }
}

template <int Threads, class G, class S>
inline void copy_to_global(const G& dst, const S& src, int64_t b, int64_t h, int64_t r0, int64_t c0, int first_thread) {
  using K = chunks<S>;
  if constexpr (SharedVector<S>) {
    if (host::tracing()) return trace_vector_copy<Threads, S>(sim::OpKind::gmem_store, dst, b, h, r0, c0, first_thread);
  }
  not_traced("store to global (plain copy)");
  for (int e = 0; e < K::count; ++e) {
    if (e % Threads < first_thread || e % Threads >= first_thread + 32) continue;
    const int r = e / K::per_row, c = (e % K::per_row) * K::per;
    for (int x = 0; x < K::per; ++x)
      if (in_tensor(dst, b, h, r0 + r, c0 + c + x)) dst(b, h, r0 + r, c0 + c + x) = shared_at(src, r, c)[x];
  }
}

}  // namespace ts::detail
