#pragma once
// Device backend of the plain shared <-> global copies (tiles/ops/copy.hpp), the path without TMA:
// the `Threads` threads of a warp or warpgroup split the tile into 16-byte chunks (8 bf16/fp16 or
// 4 fp32 elements of one row), thread `thread` taking chunks thread, thread + Threads, ... in
// row-major order, so consecutive lanes touch consecutive global bytes. A chunk is a single 16-byte
// vector access when it lies wholly inside the tensor and its global address is 16-byte aligned;
// otherwise (tails, rows whose pitch is not a multiple of 16 bytes) it goes element by element,
// with zeros loaded for and nothing stored to elements outside the tensor, as TMA does.
#include <cstdint>

#include "tiles/backend/device/core.cuh"
#include "tiles/ops/checks.hpp"

namespace ts::detail {

template <class G> __device__ inline bool in_tensor(const G& g, int64_t b, int64_t h, int64_t r, int64_t c) {
  return b >= 0 && b < g.batch() && h >= 0 && h < g.heads() && r >= 0 && r < g.rows() && c >= 0 && c < g.cols();
}

// The calling thread's index among the Threads that share a copy (a warp's lane, a warpgroup's thread).
template <int Threads> __device__ inline int copy_thread() { return threadIdx.x % Threads; }

// Shared tile or vector `dst` <- the box at element (r0, c0) of batch b, head h of `src`.
template <int Threads, class S, class G>
__device__ inline void copy_from_global(S& dst, const G& src, int64_t b, int64_t h, int64_t r0, int64_t c0, int thread) {
  using T = typename S::dtype;
  using K = chunks<S>;
#pragma unroll 4
  for (int e = thread; e < K::count; e += Threads) {
    const int r = e / K::per_row, c = (e % K::per_row) * K::per;
    T* s = shared_at(dst, r, c);
    const bool whole = in_tensor(src, b, h, r0 + r, c0 + c) && in_tensor(src, b, h, r0 + r, c0 + c + K::per - 1);
    if (whole && reinterpret_cast<uintptr_t>(&src(b, h, r0 + r, c0 + c)) % 16 == 0) {
      *reinterpret_cast<uint4*>(s) = *reinterpret_cast<const uint4*>(&src(b, h, r0 + r, c0 + c));
    } else {
#pragma unroll
      for (int x = 0; x < K::per; ++x)
        s[x] = in_tensor(src, b, h, r0 + r, c0 + c + x) ? src(b, h, r0 + r, c0 + c + x) : from_float<T>(0.f);
    }
  }
}

// The box at element (r0, c0) of batch b, head h of `dst` <- shared tile or vector `src`.
template <int Threads, class G, class S>
__device__ inline void copy_to_global(const G& dst, const S& src, int64_t b, int64_t h, int64_t r0, int64_t c0, int thread) {
  using T = typename S::dtype;
  using K = chunks<S>;
#pragma unroll 4
  for (int e = thread; e < K::count; e += Threads) {
    const int r = e / K::per_row, c = (e % K::per_row) * K::per;
    const T* s = shared_at(src, r, c);
    const bool whole = in_tensor(dst, b, h, r0 + r, c0 + c) && in_tensor(dst, b, h, r0 + r, c0 + c + K::per - 1);
    if (whole && reinterpret_cast<uintptr_t>(&dst(b, h, r0 + r, c0 + c)) % 16 == 0) {
      *reinterpret_cast<uint4*>(&dst(b, h, r0 + r, c0 + c)) = *reinterpret_cast<const uint4*>(s);
    } else {
#pragma unroll
      for (int x = 0; x < K::per; ++x)
        if (in_tensor(dst, b, h, r0 + r, c0 + c + x)) dst(b, h, r0 + r, c0 + c + x) = s[x];
    }
  }
}

}  // namespace ts::detail
