#pragma once
// TMA (cp.async.bulk.tensor): whole shared tiles moved between global memory and shared memory
// by the copy engine. A tma::map<ST> is built on the host from a gl and describes boxes of one
// column block of ST (tiles/types/shared.hpp); loads complete on an mbarrier, stores in bulk groups.
// Out-of-range parts of a box read as zeros and are not written: tails of a matrix need no masks.
// A shared vector sv<T, N> moves the same way, as a 1 x N tile without swizzle (a row of per-row
// statistics such as attention's log-sum-exp).
#include "tiles/sync/mbarrier.hpp"
#include "tiles/types/global.hpp"
#include "tiles/types/shared.hpp"
#include "tiles/ops/checks.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ts::tma {
// What both backends' make_map refuse first: TMA strides rows in whole 16-byte units.
inline void check_row_bytes(int64_t cols, std::size_t elem_bytes) {
  if ((cols * static_cast<int64_t>(elem_bytes)) % 16 != 0)
    throw std::invalid_argument("TMA needs rows of a multiple of 16 bytes; got " + std::to_string(cols) + " columns");
}

template <class S> concept Shared = SharedTile<S> || SharedVector<S>;

// The boxes TMA moves for a shared tile (one per column block, swizzled as the tile) or vector (one
// row of N elements, no swizzle); tile coordinates count in units of rows x cols.
template <Shared S> struct box_of {
  using T = typename S::dtype;
  static constexpr int rows = S::rows, cols = S::cols, block_cols = S::block_cols, blocks = cols / block_cols;
  static constexpr layout::Swizzle swizzle = S::swizzle;
  static constexpr uint32_t block_bytes = rows * block_cols * sizeof(T);
};
template <Shared S> requires(!SharedTile<S>) struct box_of<S> {
  using T = typename S::dtype;
  static constexpr int rows = 1, cols = S::length, block_cols = S::length, blocks = 1;
  static constexpr layout::Swizzle swizzle = layout::Swizzle::none;
  static constexpr uint32_t block_bytes = S::length * sizeof(T);
};
}  // namespace ts::tma

#if defined(__CUDACC__)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <stdexcept>
#include <string>

#include "tiles/backend/device/core.cuh"

namespace ts::tma {

template <Shared ST>
struct map {
  CUtensorMap tensor_map;  // CUtensorMap is itself 64-byte aligned
};

template <class T> constexpr CUtensorMapDataType data_type();
template <> constexpr CUtensorMapDataType data_type<bf16>() { return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; }
template <> constexpr CUtensorMapDataType data_type<fp16>() { return CU_TENSOR_MAP_DATA_TYPE_FLOAT16; }
template <> constexpr CUtensorMapDataType data_type<float>() { return CU_TENSOR_MAP_DATA_TYPE_FLOAT32; }
// TMA moves bytes: an fp8 tensor is one of 8-bit elements (the tensor core reads them as e4m3).
template <> constexpr CUtensorMapDataType data_type<fp8e4m3>() { return CU_TENSOR_MAP_DATA_TYPE_UINT8; }

constexpr CUtensorMapSwizzle swizzle_mode(layout::Swizzle s) {
  switch (s) {
    case layout::Swizzle::b32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case layout::Swizzle::b64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case layout::Swizzle::b128: return CU_TENSOR_MAP_SWIZZLE_128B;
    default: return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

// The driver's tensor-map encoder, fetched through the runtime so that programs do not link
// libcuda.so directly (they still start, and report "no GPU", on machines without a driver).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || p == nullptr)
      throw std::runtime_error("cuTensorMapEncodeTiled is not available from the CUDA driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// The driver encodes a map in the calling thread's current context, and a thread has none until a
// CUDA runtime call binds the device's primary context to it. PyTorch runs a backward on a thread of
// its own, whose first CUDA call the attention backward's maps were (CUDA_ERROR_INVALID_CONTEXT);
// cudaSetDevice binds the context (CUDA 12 and later), and costs little when it is bound already.
inline void bind_device_context() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaSetDevice(device) != cudaSuccess)
    throw std::runtime_error("tma::make_map: no CUDA device whose context could encode a tensor map");
}

// Host: describe `g` as boxes of (block_cols x rows) elements, swizzled as ST is.
template <Shared ST, class GL>
map<ST> make_map(const GL& g) {
  using box = box_of<ST>;
  using T = typename ST::dtype;
  static_assert(std::is_same_v<T, typename GL::dtype>, "tma::make_map: tile and global element types differ");
  check_row_bytes(g.cols(), sizeof(T));
  map<ST> m{};
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(g.cols()), static_cast<cuuint64_t>(g.rows()),
                              static_cast<cuuint64_t>(g.heads()), static_cast<cuuint64_t>(g.batch())};
  const cuuint64_t strides[3] = {g.cols() * sizeof(T), g.cols() * g.rows() * sizeof(T),
                                 g.cols() * g.rows() * g.heads() * sizeof(T)};
  const cuuint32_t box_dims[4] = {box::block_cols, box::rows, 1, 1};
  const cuuint32_t elem_strides[4] = {1, 1, 1, 1};
  bind_device_context();
  const CUresult r = tensor_map_encoder()(&m.tensor_map, data_type<T>(), 4, g.ptr, dims, strides, box_dims, elem_strides,
                                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_mode(box::swizzle),
                                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r)));
  return m;
}

namespace detail {
// The boxes of tile `idx` into `dst`, completing on `bar`: here (cta_mask 0), or by multicast into
// the same offsets of every CTA of the cluster that cta_mask names.
template <Shared ST>
__device__ inline void load_boxes(ST& dst, const map<ST>& m, coord idx, barrier& bar, uint16_t cta_mask) {
  using box = box_of<ST>;
  stamp::mark(sim::OpKind::tma_load, stamp::id_of(&bar), box::blocks - 1);  // trace mode records each box
#pragma unroll
  for (int j = 0; j < box::blocks; ++j) {
    const int c0 = idx.c * box::cols + j * box::block_cols, r0 = idx.r * box::rows;
    const uint32_t to = smem_addr(dst.data) + j * box::block_bytes;
    if (cta_mask == 0)
      asm volatile(
          "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(to),
          "l"(&m.tensor_map), "r"(c0), "r"(r0), "r"(idx.h), "r"(idx.b), "r"(smem_addr(&bar))
          : "memory");
    else
      asm volatile(
          "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
          " [%0], [%1, {%2, %3, %4, %5}], [%6], %7;" ::"r"(to),
          "l"(&m.tensor_map), "r"(c0), "r"(r0), "r"(idx.h), "r"(idx.b), "r"(smem_addr(&bar)), "h"(cta_mask)
          : "memory");
  }
}
}  // namespace detail

// Device, one elected thread: load tile `idx` (in units of ST's rows and cols) into `dst`; the bytes
// complete on `bar`, which the caller armed with expect_bytes(bar, ST::bytes).
template <Shared ST>
__device__ inline void load_async(ST& dst, const map<ST>& m, coord idx, barrier& bar) { detail::load_boxes(dst, m, idx, bar, 0); }

// Device, one elected thread of a cluster's CTA: load tile `idx` once from L2 and write it into
// `dst` and complete its bytes on `bar` in every CTA of `cta_mask` (bit i: cluster rank i), at the
// same shared-memory offsets as `dst` and `bar` have here. Each receiving CTA arms its own barrier.
template <Shared ST>
__device__ inline void load_async_multicast(ST& dst, const map<ST>& m, coord idx, barrier& bar, uint16_t cta_mask) {
  detail::load_boxes(dst, m, idx, bar, cta_mask);
}

namespace detail {
// The boxes of `src` into tile `idx`: written (a store) or added element-wise (a reducing store).
template <bool Add, Shared ST>
__device__ inline void store_boxes(const map<ST>& m, const ST& src, coord idx) {
  using box = box_of<ST>;
  stamp::mark(sim::OpKind::tma_store, 0, box::blocks - 1);  // trace mode records each box
#pragma unroll
  for (int j = 0; j < box::blocks; ++j) {
    const int c0 = idx.c * box::cols + j * box::block_cols, r0 = idx.r * box::rows;
    const uint32_t from = smem_addr(src.data) + j * box::block_bytes;
    if constexpr (Add)
      asm volatile("cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];" ::"l"(
                       &m.tensor_map), "r"(from), "r"(c0), "r"(r0), "r"(idx.h), "r"(idx.b)
                   : "memory");
    else
      asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];" ::"l"(
                       &m.tensor_map), "r"(from), "r"(c0), "r"(r0), "r"(idx.h), "r"(idx.b)
                   : "memory");
  }
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  stamp::mark(sim::OpKind::tma_store_commit);
}
}  // namespace detail

// Device, one elected thread: store `src` to tile `idx`; completes in the current bulk group.
template <Shared ST>
__device__ inline void store_async(const map<ST>& m, const ST& src, coord idx) { detail::store_boxes<false>(m, src, idx); }

// Device, one elected thread: add `src` element-wise into tile `idx` of global memory (each element
// an atomic add in L2, so blocks may add into the same tile); completes in the current bulk group.
template <Shared ST>
__device__ inline void store_add_async(const map<ST>& m, const ST& src, coord idx) { detail::store_boxes<true>(m, src, idx); }

// Wait until at most N bulk store groups still read their shared source (so it may be rewritten).
template <int N = 0> __device__ inline void store_async_read_wait() {
  [[maybe_unused]] stamp::Scope s(sim::OpKind::tma_store_wait, N);
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
// Wait until at most N bulk store groups are incomplete (their writes done).
template <int N = 0> __device__ inline void store_async_wait() {
  [[maybe_unused]] stamp::Scope s(sim::OpKind::tma_store_wait, N);
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

}  // namespace ts::tma
#else
#include "tiles/backend/host/tma.hpp"
#endif
