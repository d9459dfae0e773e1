// Device launcher of kernels/gemm/gemm.cuh: picks the template instance, builds tensor maps,
// sizes the grid (one block per SM when persistent) and checks every CUDA call.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm.cuh"
#include "kernels/gemm/gemm_api.hpp"

namespace ts::kernels {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class K>
__global__ void __launch_bounds__(sched::pipeline_threads<K>(), 1) pipeline_kernel(const __grid_constant__ typename K::globals g) {
  extern __shared__ __align__(1024) char smem[];
  sched::run_pipeline<K>(g, smem);
}

template <class K>
void launch(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg, cudaStream_t stream) {
  using TC = std::remove_cvref_t<decltype(K::c_tile::data[0])>;
  const auto ga = gl<bf16>::make(const_cast<bf16*>(static_cast<const bf16*>(a)), 1, 1, s.m, s.k);
  const auto gb = cfg.b_row_major ? gl<bf16>::make(const_cast<bf16*>(static_cast<const bf16*>(b)), 1, 1, s.k, s.n)
                                  : gl<bf16>::make(const_cast<bf16*>(static_cast<const bf16*>(b)), 1, 1, s.n, s.k);
  const auto gc = gl<TC>::make(static_cast<TC*>(c), 1, 1, s.m, s.n);
  typename K::globals g{tma::make_map<typename K::a_tile>(ga), tma::make_map<typename K::b_tile>(gb),
                        tma::make_map<typename K::c_tile>(gc),
                        static_cast<int>((s.m + K::block_m - 1) / K::block_m),
                        static_cast<int>((s.n + K::block_n - 1) / K::block_n),
                        static_cast<int>((s.k + K::block_k - 1) / K::block_k), cfg.order};
  constexpr size_t smem = sched::pipeline_smem_bytes<K>();
  check(cudaFuncSetAttribute(pipeline_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
        "cudaFuncSetAttribute(max dynamic shared memory)");
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute(SM count)");
  const int tiles = g.tiles_m * g.tiles_n;
  const int grid = cfg.persistent ? std::min(tiles, sms) : tiles;
  const std::string range = "gemm " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " " + describe(cfg);
  nvtxRangePushA(range.c_str());
  pipeline_kernel<K><<<grid, sched::pipeline_threads<K>(), smem, stream>>>(g);
  const cudaError_t e = cudaGetLastError();
  nvtxRangePop();
  check(e, ("launch of " + range).c_str());
}

template <int BN, bool BRow, class TC>
void dispatch_stages(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg, cudaStream_t st) {
  switch (cfg.stages) {
    case 1: return launch<gemm<BN, 1, BRow, TC>>(a, b, c, s, cfg, st);
    case 2: return launch<gemm<BN, 2, BRow, TC>>(a, b, c, s, cfg, st);
    case 3: return launch<gemm<BN, 3, BRow, TC>>(a, b, c, s, cfg, st);
    default: return launch<gemm<BN, 4, BRow, TC>>(a, b, c, s, cfg, st);
  }
}

template <bool BRow, class TC>
void dispatch_block(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg, cudaStream_t st) {
  if (cfg.block_n == 128) dispatch_stages<128, BRow, TC>(a, b, c, s, cfg, st);
  else dispatch_stages<256, BRow, TC>(a, b, c, s, cfg, st);
}

}  // namespace

std::string validate(const GemmShape& s, const GemmConfig& cfg) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0) return "M, N and K must be positive";
  if (s.m > (1ll << 31) || s.n > (1ll << 31) || s.k > (1ll << 31)) return "M, N and K must be below 2^31";
  if (cfg.stages < 1 || cfg.stages > 4) return "stages must be 1..4, got " + std::to_string(cfg.stages);
  if (cfg.block_n != 128 && cfg.block_n != 256) return "block_n must be 128 or 256, got " + std::to_string(cfg.block_n);
  if (s.k % 8 != 0) return "K must be a multiple of 8 (TMA rows are 16-byte multiples), got " + std::to_string(s.k);
  if (s.n % 8 != 0) return "N must be a multiple of 8 (TMA rows are 16-byte multiples), got " + std::to_string(s.n);
  if (cfg.order.order == sched::Order::grouped && cfg.order.group <= 0) return "group size must be positive";
  return {};
}

std::string describe(const GemmConfig& cfg) {
  std::string order = sched::order_name(cfg.order.order);
  if (cfg.order.order == sched::Order::grouped) order += ":" + std::to_string(cfg.order.group);
  return "tile 128x" + std::to_string(cfg.block_n) + "x64 stages " + std::to_string(cfg.stages) + " order " + order +
         (cfg.persistent ? " persistent" : " non-persistent") + (cfg.b_row_major ? " B row-major" : " B col-major") +
         (cfg.out == OutType::bf16 ? " C bf16" : " C fp32");
}

void launch_gemm(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg, void* stream) {
  if (const std::string why = validate(s, cfg); !why.empty()) throw std::invalid_argument(why);
  auto st = static_cast<cudaStream_t>(stream);
  if (cfg.b_row_major) {
    if (cfg.out == OutType::bf16) dispatch_block<true, bf16>(a, b, c, s, cfg, st);
    else dispatch_block<true, float>(a, b, c, s, cfg, st);
  } else {
    if (cfg.out == OutType::bf16) dispatch_block<false, bf16>(a, b, c, s, cfg, st);
    else dispatch_block<false, float>(a, b, c, s, cfg, st);
  }
}

}  // namespace ts::kernels
