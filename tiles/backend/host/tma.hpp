#pragma once
// Host backend of TMA (tiles/tma/tma.hpp): a tma::map<ST> is the gl's pointer and dims; a load
// copies the box into the shared tile in its swizzled layout (st::at), zero-filling what lies out
// of range, and credits the whole box's bytes to the barrier at once (as the GPU does, zeros
// count). Completing at issue is one legal order of the asynchronous copy: the barrier protocol
// of a correct kernel cannot tell the difference. A store writes the in-range elements at issue,
// so the bulk-group waits have nothing to wait for.
//
// These live in the inline namespace cpu_backend: the device backend has host-side functions of
// the same names (make_map for a float tile) with other bodies, and a program that links both
// (the app, the simulator) must not get one in place of the other.
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "tiles/backend/host/cluster.hpp"
#include "tiles/backend/host/mbarrier.hpp"
#include "tiles/backend/host/trace.hpp"
#include "tiles/types/global.hpp"
#include "tiles/types/shared.hpp"

namespace ts::tma {
inline namespace cpu_backend {

template <Shared ST>
struct map {
  using T = typename ST::dtype;
  T* ptr = nullptr;
  std::array<int64_t, 4> dims{};  // batch, head, rows, cols (as gl)

  bool in_range(int64_t b, int64_t h, int64_t r, int64_t c) const {
    return b >= 0 && b < dims[0] && h >= 0 && h < dims[1] && r >= 0 && r < dims[2] && c >= 0 && c < dims[3];
  }
  T& at(int64_t b, int64_t h, int64_t r, int64_t c) const { return ptr[((b * dims[1] + h) * dims[2] + r) * dims[3] + c]; }
};

// Checks what cuTensorMapEncodeTiled checks for this use, so a map the GPU would refuse is refused
// here too (the device's messages for the same cases: invalid_argument for the row, runtime_error
// from the encoder for the rest).
template <Shared ST, class GL>
map<ST> make_map(const GL& g) {
  using T = typename ST::dtype;
  static_assert(std::is_same_v<T, typename GL::dtype>, "tma::make_map: tile and global element types differ");
  check_row_bytes(g.cols(), sizeof(T));
  if (g.ptr == nullptr) throw std::runtime_error("tma::make_map: the global address is null");
  if (reinterpret_cast<std::uintptr_t>(g.ptr) % 16 != 0)
    throw std::runtime_error("tma::make_map: the global address must be 16-byte aligned (cuTensorMapEncodeTiled refuses it)");
  const std::array<int64_t, 4> dims{g.batch(), g.heads(), g.rows(), g.cols()};
  for (int64_t d : dims)
    if (d <= 0 || d > (int64_t{1} << 32))
      throw std::runtime_error("tma::make_map: every dimension must be in 1..2^32 (cuTensorMapEncodeTiled refuses it)");
  if (box_of<ST>::rows > 256 || box_of<ST>::block_cols > 256)
    throw std::runtime_error("tma::make_map: a TMA box is at most 256 x 256 elements (cuTensorMapEncodeTiled refuses it)");
  map<ST> m;
  m.ptr = g.ptr;
  m.dims = dims;
  return m;
}

// One warp (elected thread on the GPU): load tile `idx` (in units of ST's rows and cols) into `dst`
// and complete ST::bytes on `bar`, which the caller armed with expect_bytes(bar, ST::bytes).
// Trace mode: the boxes (one per column block of ST) as the copy engine moves them; only the
// in-range part of a box touches memory, but the whole box's bytes count on the barrier.
template <Shared ST>
inline void trace_boxes(sim::OpKind kind, const map<ST>& m, coord idx, uint32_t barrier_id, uint32_t count = 0) {  // count: as sim::OpKind says
  using T = typename ST::dtype;
  using box = box_of<ST>;
  const int64_t r0 = int64_t{idx.r} * box::rows;
  const int64_t rows = std::max<int64_t>(0, std::min<int64_t>(box::rows, m.dims[2] - r0));
  for (int j = 0; j < box::blocks; ++j) {
    const int64_t c0 = int64_t{idx.c} * box::cols + int64_t{j} * box::block_cols;
    const int64_t cols = std::max<int64_t>(0, std::min<int64_t>(box::block_cols, m.dims[3] - c0));
    sim::TraceOp& op = host::record(kind, barrier_id, count, box::block_bytes);
    op.box.tensor = host::tensor_id(m.ptr);
    op.box.offset = static_cast<uint64_t>((((idx.b * m.dims[1] + idx.h) * m.dims[2] + r0) * m.dims[3] + c0) * int64_t{sizeof(T)});
    op.box.rows = static_cast<uint32_t>(rows);
    op.box.row_bytes = static_cast<uint32_t>(cols * int64_t{sizeof(T)});
    op.box.row_pitch = static_cast<uint32_t>(m.dims[3] * int64_t{sizeof(T)});
  }
}

// The box copy of a load: the in-range elements of tile `idx`, zeros elsewhere, then the bytes.
template <Shared ST>
inline void land_boxes(ST& dst, const map<ST>& m, coord idx, barrier& bar) {
  using T = typename ST::dtype;
  using box = box_of<ST>;
  const int64_t r0 = int64_t{idx.r} * box::rows, c0 = int64_t{idx.c} * box::cols;
  for (int r = 0; r < box::rows; ++r)
    for (int c = 0; c < box::cols; ++c)
      *ts::detail::shared_at(dst, r, c) = m.in_range(idx.b, idx.h, r0 + r, c0 + c) ? m.at(idx.b, idx.h, r0 + r, c0 + c) : from_float<T>(0.f);
  host::complete_tx(bar, box::blocks * box::block_bytes);
}

template <Shared ST>
inline void load_async(ST& dst, const map<ST>& m, coord idx, barrier& bar) {
  host::require_elected("tma::load_async");
  if (host::tracing()) return trace_boxes(sim::OpKind::tma_load, m, idx, host::smem_offset(&bar));
  land_boxes(dst, m, idx, bar);
}

// The same box into `dst` and onto `bar` at their offsets in every CTA of the cluster in `cta_mask`.
template <Shared ST>
inline void load_async_multicast(ST& dst, const map<ST>& m, coord idx, barrier& bar, uint16_t cta_mask) {
  host::require_elected("tma::load_async_multicast");
  const int ctas = cluster::size();
  if (cta_mask == 0 || cta_mask >> ctas != 0)
    throw std::invalid_argument("tma::load_async_multicast: the CTA mask " + std::to_string(cta_mask) + " names CTAs outside a cluster of " +
                                std::to_string(ctas));
  if (host::tracing()) return trace_boxes(sim::OpKind::tma_load, m, idx, host::smem_offset(&bar), cta_mask);
  for (int cta = 0; cta < ctas; ++cta)
    if (cta_mask >> cta & 1u) land_boxes(host::in_peer(dst, cta, "tma::load_async_multicast"), m, idx, host::in_peer(bar, cta, "tma::load_async_multicast"));
}

// Writes (or adds) the in-range elements of `src` into tile `idx` at issue.
template <bool Add, Shared ST>
inline void store_elements(const map<ST>& m, const ST& src, coord idx) {
  using box = box_of<ST>;
  if (host::tracing()) {
    trace_boxes(sim::OpKind::tma_store, m, idx, host::smem_offset(src.data), Add ? 1u : 0u);
    return host::emit(sim::OpKind::tma_store_commit);
  }
  const int64_t r0 = int64_t{idx.r} * box::rows, c0 = int64_t{idx.c} * box::cols;
  for (int r = 0; r < box::rows; ++r)
    for (int c = 0; c < box::cols; ++c)
      if (m.in_range(idx.b, idx.h, r0 + r, c0 + c)) {
        auto& out = m.at(idx.b, idx.h, r0 + r, c0 + c);
        if constexpr (Add) out = from_float<typename ST::dtype>(to_float(out) + to_float(*ts::detail::shared_at(src, r, c)));
        else out = *ts::detail::shared_at(src, r, c);
      }
}

// One warp: store `src` to tile `idx`; elements outside the global tensor are not written.
template <Shared ST> inline void store_async(const map<ST>& m, const ST& src, coord idx) { store_elements<false>(m, src, idx); }
// One warp: add `src` into tile `idx` (the GPU's adds are atomic; here blocks run one at a time).
// Traced as a store: the simulator has no reduction op yet.
template <Shared ST> inline void store_add_async(const map<ST>& m, const ST& src, coord idx) { store_elements<true>(m, src, idx); }

// Stores are done when issued.
template <int N = 0> inline void store_async_read_wait() {
  if (host::tracing()) host::emit(sim::OpKind::tma_store_wait, 0, N);
}
template <int N = 0> inline void store_async_wait() {
  if (host::tracing()) host::emit(sim::OpKind::tma_store_wait, 1, N);
}

}  // namespace cpu_backend
}  // namespace ts::tma
