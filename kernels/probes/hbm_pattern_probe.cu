// What HBM gives the GEMM's two operand streams when they miss the L2. The simulator charges every
// byte from HBM at one rate (hbm_bandwidth_measured: a device-to-device copy, 2.99 TB/s), but the
// H100 moved 2.88-3.01 TB/s under the row-major block order, whose misses are mostly B, and
// 2.22-2.69 TB/s under col-major, whose misses are mostly A (Nsight Compute, gemm-dram-orders/);
// the simulated col-major rows of the sweep are 16-17 % fast with the right bytes. The two differ in
// what one k-step asks of a DRAM row: A's boxes are 128 rows of 128 bytes (the next 128 bytes of
// the same rows one k-step later), B's are 64 rows of 512 bytes (four 128-byte boxes side by side).
//
// 128 blocks, one per SM, each streams 512 MB / 128 = 4 MB of a 16384 x 16384 bf16 matrix (row
// stride 32 KB, as A and B of the 16384^3 GEMM) that it alone reads, once, through TMA boxes of
// 64 x 64 bf16 (8 KB, 128-byte swizzle: the boxes the GEMM's trace records), `depth` boxes in flight:
//   A: block s walks rows 128 s .. 128 s + 127 along the columns, two boxes per k-step;
//   B: block s walks columns 256 (s mod 64) .. + 255 down half of the rows, four boxes per k-step;
//   linear: block s reads its own 4 MB with consecutive boxes of consecutive addresses (the matrix
//           seen 64 columns wide), the copy-like control.
// The L2 is flushed before each run (a 2 GB fill). Prints each pattern's TB/s (bytes / the median
// blocks' global-timer span, first start to last end, and / the launch's CUDA-event time), the
// median of three runs (`--quick`: one run at depth 6, for compute-sanitizer).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tiles/tiles.hpp"

using namespace ts;

#include "kernels/device_clock.cuh"
#include "kernels/probes/check_cuda.cuh"

using Box = st<bf16, 64, 64>;
static_assert(Box::bytes == 8192, "8 KB boxes");
constexpr int kBlocks = 128, kDim = 16384, kMaxDepth = 24;
constexpr int kBoxesPerBlock = kDim / kBlocks * kDim / (64 * 64);  // 4 MB of 8 KB boxes: 512

struct Smem {
  Box box[kMaxDepth];
  barrier full[kMaxDepth];
};

enum Pattern { a_rows, b_cols, linear };

// Box i of block s in the pattern, as tile coordinates {row tile, column tile} of its map.
__device__ inline void box_of(Pattern p, int s, int i, int& row, int& col) {
  if (p == a_rows) {  // k-step i / 2, rows 128 s + 64 (i % 2)
    row = 2 * s + i % 2, col = i / 2;
  } else if (p == b_cols) {  // k-step i / 4 of this block's half, columns 256 (s % 64) + 64 (i % 4)
    row = (s / 64) * (kDim / 64 / 2) + i / 4, col = 4 * (s % 64) + i % 4;
  } else {  // the matrix seen 64 columns wide: block s's boxes one after the other
    row = s * kBoxesPerBlock + i, col = 0;
  }
}

__global__ void stream_kernel(const __grid_constant__ tma::map<Box> square, const __grid_constant__ tma::map<Box> narrow,
                              Pattern pattern, int depth, unsigned long long* span) {
  extern __shared__ __align__(1024) unsigned char raw[];
  auto& s = *reinterpret_cast<Smem*>(raw);
  if (threadIdx.x != 0) return;
  for (int i = 0; i < depth; ++i) ts::init(s.full[i], 1);
  fence_barrier_init();
  const tma::map<Box>& map = pattern == linear ? narrow : square;
  const uint64_t t0 = global_ns();
  for (int i = 0; i < kBoxesPerBlock + depth; ++i) {
    const int slot = i % depth, use = i / depth;
    if (use > 0) ts::wait(s.full[slot], (use - 1) & 1);
    if (i >= kBoxesPerBlock) continue;
    int row = 0, col = 0;
    box_of(pattern, blockIdx.x, i, row, col);
    ts::expect_bytes(s.full[slot], Box::bytes);
    tma::load_async(s.box[slot], map, {0, 0, row, col}, s.full[slot]);
  }
  span[2 * blockIdx.x] = t0;
  span[2 * blockIdx.x + 1] = global_ns();
}

__global__ void fill_kernel(bf16* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = __float2bfloat16_rn(static_cast<float>(i % 97) * 0.01f);
}

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";  // one run of each pattern: for compute-sanitizer
  const int smem = sizeof(Smem) + 1024;
  CHECK_CUDA(cudaFuncSetAttribute(stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const size_t elems = size_t(kDim) * kDim;
  bf16 *data = nullptr, *flush = nullptr;
  const size_t flush_n = (size_t(2) << 30) / sizeof(bf16);
  CHECK_CUDA(cudaMalloc(&data, elems * sizeof(bf16)));
  CHECK_CUDA(cudaMalloc(&flush, flush_n * sizeof(bf16)));
  fill_kernel<<<4096, 256>>>(data, elems);
  CHECK_CUDA(cudaGetLastError());
  unsigned long long* span = nullptr;
  CHECK_CUDA(cudaMalloc(&span, sizeof(unsigned long long) * 2 * kBlocks));
  const tma::map<Box> square = tma::make_map<Box>(gl<bf16>::make(data, 1, 1, kDim, kDim));
  const tma::map<Box> narrow = tma::make_map<Box>(gl<bf16>::make(data, 1, 1, int64_t(elems / 64), 64));
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  std::printf("TMA loads of 8 KB boxes (64 x 64 bf16) from HBM (L2 flushed before each run), %d blocks of one thread,\n"
              "each reading its own 4 MB of a 16384 x 16384 bf16 matrix once; 512 MB a run\n", kBlocks);
  std::printf("%-8s %6s %14s %14s    %s\n", "pattern", "depth", "TB/s (spans)", "TB/s (events)", "runs (spans)");
  const char* names[] = {"A rows", "B cols", "linear"};
  const double bytes = double(kBlocks) * kBoxesPerBlock * Box::bytes;
  for (const int depth : {6, 12, 24}) {
    if (quick && depth != 6) continue;
    for (const Pattern p : {a_rows, b_cols, linear}) {
      std::vector<double> by_span, by_event;
      const int reps = quick ? 1 : 3;
      for (int rep = 0; rep < reps; ++rep) {
        fill_kernel<<<4096, 256>>>(flush, flush_n);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaEventRecord(e0));
        stream_kernel<<<kBlocks, 32, smem>>>(square, narrow, p, depth, span);
        CHECK_CUDA(cudaEventRecord(e1));
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaEventSynchronize(e1));
        std::vector<unsigned long long> t(2 * kBlocks);
        CHECK_CUDA(cudaMemcpy(t.data(), span, t.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        unsigned long long first = ~0ull, last = 0;
        for (int b = 0; b < kBlocks; ++b) first = std::min(first, t[2 * b]), last = std::max(last, t[2 * b + 1]);
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        by_span.push_back(bytes / double(last - first) / 1e3);
        by_event.push_back(bytes / (ms * 1e-3) / 1e12);
      }
      std::sort(by_span.begin(), by_span.end());
      std::sort(by_event.begin(), by_event.end());
      const size_t mid = by_span.size() / 2;
      std::printf("%-8s %6d %14.3f %14.3f    %.3f .. %.3f\n", names[p], depth, by_span[mid], by_event[mid], by_span.front(), by_span.back());
    }
  }
  CHECK_CUDA(cudaFree(span));
  CHECK_CUDA(cudaFree(flush));
  CHECK_CUDA(cudaFree(data));
  return 0;
}
