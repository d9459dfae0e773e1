// Ours against cuBLAS, same process, same random inputs, median of timed runs with events, input
// sets rotated so that the 50 MB L2 does not flatter either side.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/gemm/gemm_bench.hpp"
#include "kernels/timing.cuh"
#include "tiles/types/dtypes.hpp"

namespace ts::kernels {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}

// Uniform in [-range, range), from a hash of (seed, index), rounded to T: fresh inputs without a
// host round trip.
template <class T>
__global__ void fill_random(T* p, long long n, unsigned seed, float range) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long x = (unsigned long long)i * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull;
    x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29;
    p[i] = T((((x >> 40) * (1.0f / 16777216.0f)) * 2.f - 1.f) * range);
  }
}

// FP8 inputs span [-4, 4): e4m3's 3-bit mantissa gives 8 steps a binade, so values from 2^-9 to 4
// exercise its subnormals and most of its binades (the per-tensor scales bring them back).
constexpr float kFp8Range = 4.f;

size_t input_bytes(const GemmConfig& cfg) { return cfg.in == InType::fp8 ? 1 : 2; }

void random_inputs(void* p, long long n, unsigned seed, InType in) {
  if (in == InType::fp8) fill_random<<<1024, 256>>>(static_cast<fp8e4m3*>(p), n, seed, kFp8Range);
  else fill_random<<<1024, 256>>>(static_cast<bf16*>(p), n, seed, 1.f);
  check(cudaGetLastError(), "fill_random launch");
}

// The fp32 reference of an fp8 GEMM: each thread one C element, products of e4m3 values (exact in
// fp32) summed in fp32, k ascending; C = scale sum. Slow and simple: the check's shapes are small.
// `magnitude` gets scale times the sum of the products' magnitudes (what accumulation errors scale with).
__global__ void reference_fp8_gemm(const fp8e4m3* a, const fp8e4m3* b, float* c, float* magnitude, int m, int n, int k, float scale) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col >= n) return;
  float acc = 0, mag = 0;
  for (int i = 0; i < k; ++i) {
    const float p = float(a[(long long)row * k + i]) * float(b[(long long)col * k + i]);
    acc += p;
    mag += fabsf(p);
  }
  c[(long long)row * n + col] = acc * scale;
  magnitude[(long long)row * n + col] = mag * fabsf(scale);
}
__global__ void fill_value(float* p, long long n, float v) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) p[i] = v;
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { check(cudaMalloc(&p, bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// C (M x N row-major) = A (M x K row-major) B, through cuBLAS's column-major view: C^T = B^T A^T.
void cublas_gemm(cublasHandle_t h, const void* a, const void* b, void* c, const GemmShape& s, bool b_row_major,
                 cudaDataType_t c_type) {
  const float one = 1.f, zero = 0.f;
  check(cublasGemmEx(h, b_row_major ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, (int)s.n, (int)s.m, (int)s.k, &one, b,
                     CUDA_R_16BF, b_row_major ? (int)s.n : (int)s.k, a, CUDA_R_16BF, (int)s.k, &zero, c, c_type,
                     (int)s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

// cuBLASLt's FP8 GEMM on our layout: C (M x N row-major) = scale_a scale_b A (M x K row-major) B^T
// (B N x K row-major). In cuBLAS's column-major view that is C^T = B A^T with B transposed: the
// "TN" form cuBLASLt's FP8 kernels need. Fast accumulation on, as our kernel accumulates: wgmma's
// own fp32 accumulators, no periodic promotion. Descriptors and the algorithm are chosen once per
// shape, outside the timed calls.
class LtFp8Gemm {
 public:
  LtFp8Gemm(const GemmShape& s, float scale_a, float scale_b, cudaDataType_t c_type)
      : workspace_(kWorkspace), scale_lt_a_(sizeof(float)), scale_lt_b_(sizeof(float)) {
    check(cublasLtCreate(&h_), "cublasLtCreate");
    // cuBLASLt's A is our B; each scale in an allocation of its own (aligned as cudaMalloc aligns).
    check(cudaMemcpy(scale_lt_a_.p, &scale_b, sizeof(float), cudaMemcpyHostToDevice), "scale B");
    check(cudaMemcpy(scale_lt_b_.p, &scale_a, sizeof(float), cudaMemcpyHostToDevice), "scale A");
    check(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    const int8_t fast = 1;
    const void* scale_lt_a = scale_lt_a_.p;
    const void* scale_lt_b = scale_lt_b_.p;
    set(CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
    set(CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n);
    set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
    set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_lt_a, sizeof scale_lt_a);
    set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_lt_b, sizeof scale_lt_b);
    check(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8F_E4M3, s.k, s.n, s.k), "layout A");
    check(cublasLtMatrixLayoutCreate(&b_, CUDA_R_8F_E4M3, s.k, s.m, s.k), "layout B");
    check(cublasLtMatrixLayoutCreate(&c_, c_type, s.n, s.m, s.n), "layout C");
    cublasLtMatmulPreference_t pref;
    check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    const size_t ws = kWorkspace;
    check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), "preference");
    check(cublasLtMatmulAlgoGetHeuristic(h_, op_, a_, b_, c_, c_, pref, kAlgos, algos_, &found_), "cublasLtMatmulAlgoGetHeuristic");
    cublasLtMatmulPreferenceDestroy(pref);
    if (found_ == 0) throw std::runtime_error("cuBLASLt has no FP8 algorithm for this shape");
  }
  ~LtFp8Gemm() {
    cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatrixLayoutDestroy(b_);
    cublasLtMatrixLayoutDestroy(c_);
    cublasLtMatmulDescDestroy(op_);
    cublasLtDestroy(h_);
  }
  LtFp8Gemm(const LtFp8Gemm&) = delete;
  LtFp8Gemm& operator=(const LtFp8Gemm&) = delete;
  // The heuristic's first algorithm that runs (the first call tries them in its order, the same
  // order cuBLASLt's own choice follows); later calls use that one.
  void run(const void* a, const void* b, void* c) {
    const float one = 1.f, zero = 0.f;
    cublasStatus_t status = CUBLAS_STATUS_NOT_SUPPORTED;
    for (; chosen_ < found_; ++chosen_) {
      status = cublasLtMatmul(h_, op_, &one, b, a_, a, b_, &zero, c, c_, c, c_, &algos_[chosen_].algo, workspace_.p, kWorkspace, nullptr);
      if (status != CUBLAS_STATUS_NOT_SUPPORTED) break;
      std::fprintf(stderr, "cuBLASLt FP8: heuristic algorithm %d not supported at run time, trying the next\n", chosen_);
    }
    check(status, "cublasLtMatmul (FP8)");
  }

 private:
  static constexpr size_t kWorkspace = 32u << 20;
  void set(cublasLtMatmulDescAttributes_t attr, const void* v, size_t size) {
    check(cublasLtMatmulDescSetAttribute(op_, attr, v, size), "cublasLtMatmulDescSetAttribute");
  }
  cublasLtHandle_t h_{};
  cublasLtMatmulDesc_t op_{};
  cublasLtMatrixLayout_t a_{}, b_{}, c_{};
  static constexpr int kAlgos = 8;
  cublasLtMatmulHeuristicResult_t algos_[kAlgos]{};
  int found_ = 0, chosen_ = 0;
  DeviceBuffer workspace_, scale_lt_a_, scale_lt_b_;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A launch's SM clock from its blocks' own timing (cycles over global-timer nanoseconds): the
// median over blocks.
double launch_clock_mhz(const BlockClock* blocks, int count) {
  std::vector<double> mhz;
  for (int i = 0; i < count; ++i)
    if (blocks[i].ns > 0) mhz.push_back(double(blocks[i].cycles) / double(blocks[i].ns) * 1e3);
  return median(std::move(mhz));
}

// The SM clock of one more launch of ours, in whatever power state the GPU is in.
double clock_during(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& cfg) {
  const int blocks = gemm_launch_blocks(s, cfg);
  DeviceBuffer clocks(blocks * sizeof(BlockClock));
  check(cudaMemset(clocks.p, 0, blocks * sizeof(BlockClock)), "cudaMemset");
  launch_gemm(a, b, c, s, cfg, nullptr, static_cast<BlockClock*>(clocks.p));
  std::vector<BlockClock> host(blocks);
  check(cudaMemcpy(host.data(), clocks.p, host.size() * sizeof(BlockClock), cudaMemcpyDeviceToHost), "block clocks");
  return launch_clock_mhz(host.data(), blocks);
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) o += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return o;
}

// Times each row, ours and cuBLAS alternately; prints a table (last) and writes JSON when asked.
int bench_rows(std::vector<BenchRow>& rows, const std::string& json_path) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int sm_clock_khz = 0, mem_clock_khz = 0;
  cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
  cublasHandle_t h;
  check(cublasCreate(&h), "cublasCreate");
  {
    // A GPU fresh from idle needs a moment of work before its clocks settle: without this the first
    // row ran at half speed on a just-started H100 (both ours and cuBLAS). About 0.3 s of GEMMs.
    const GemmShape w{4096, 4096, 4096};
    DeviceBuffer a(w.m * w.k * 2), b(w.k * w.n * 2), c(w.m * w.n * 2);
    random_bf16(a.p, w.m * w.k, 1);
    random_bf16(b.p, w.k * w.n, 2);
    for (int i = 0; i < 1500; ++i) launch_gemm(a.p, b.p, c.p, w, GemmConfig{}, nullptr);
    check(cudaDeviceSynchronize(), "warm-up");
  }
  for (auto& r : rows) {
    const auto& s = r.shape;
    // The table and the file name the ranges used: of all tiles (split_k) or of the tail's.
    r.cfg = with_plan(r.cfg, gemm_plan(s, r.cfg, prop.multiProcessorCount));
    // Enough input sets that one pass over them is well past the L2.
    const size_t elem = input_bytes(r.cfg);
    const double set_bytes = double(elem) * (s.m * s.k + s.k * s.n);
    const int sets = std::clamp(int(std::ceil(200e6 / set_bytes)), 1, 8);
    std::vector<std::unique_ptr<DeviceBuffer>> as, bs;
    for (int i = 0; i < sets; ++i) {
      as.push_back(std::make_unique<DeviceBuffer>(s.m * s.k * elem));
      bs.push_back(std::make_unique<DeviceBuffer>(s.k * s.n * elem));
      random_inputs(as.back()->p, s.m * s.k, 1000 + 2 * i, r.cfg.in);
      random_inputs(bs.back()->p, s.k * s.n, 1001 + 2 * i, r.cfg.in);
    }
    DeviceBuffer c(s.m * s.n * 4);
    const cudaDataType_t c_type = r.cfg.out == OutType::bf16 ? CUDA_R_16BF : CUDA_R_32F;
    std::unique_ptr<LtFp8Gemm> lt;
    if (r.cfg.in == InType::fp8) lt = std::make_unique<LtFp8Gemm>(s, r.cfg.scale_a, r.cfg.scale_b, c_type);
    check(cudaDeviceSynchronize(), "input fill");
    // Idle a moment first, so that the power state one row leaves (a hot 16384^3 sweep) does not
    // slow down the next (a skinny row of 20 us launches).
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const double flop = 2.0 * s.m * s.n * s.k;
    const int reps = flop > 4e12 ? 20 : 50;
    // Every launch of ours times its blocks, so that the row's clock is the clock its times were
    // taken at: the median over the timed launches (the warm-ups' are left out).
    const int blocks = gemm_launch_blocks(s, r.cfg);
    const size_t clock_count = size_t(timed_warmups + reps) * blocks;
    DeviceBuffer clocks(clock_count * sizeof(BlockClock));
    check(cudaMemset(clocks.p, 0, clock_count * sizeof(BlockClock)), "cudaMemset");
    int launch = 0;
    const Timed t = median_ms_interleaved(
        [&](int i) { launch_gemm(as[i]->p, bs[i]->p, c.p, s, r.cfg, nullptr, static_cast<BlockClock*>(clocks.p) + size_t(launch++) * blocks); },
        [&](int i) {
          if (lt) lt->run(as[i]->p, bs[i]->p, c.p);
          else cublas_gemm(h, as[i]->p, bs[i]->p, c.p, s, r.cfg.b_row_major, c_type);
        },
        sets, reps);
    r.ms = t.ours_ms, r.cublas_ms = t.theirs_ms;
    std::vector<BlockClock> host(clock_count);
    check(cudaMemcpy(host.data(), clocks.p, clock_count * sizeof(BlockClock), cudaMemcpyDeviceToHost), "block clocks");
    std::vector<double> launch_mhz;
    for (int l = timed_warmups; l < timed_warmups + reps; ++l) launch_mhz.push_back(launch_clock_mhz(host.data() + size_t(l) * blocks, blocks));
    r.sm_clock_mhz = median(launch_mhz);
    r.sm_clock_after_mhz = clock_during(as[0]->p, bs[0]->p, c.p, s, r.cfg);
    r.tflops = flop / r.ms / 1e9;
    r.cublas_tflops = flop / r.cublas_ms / 1e9;
    std::fprintf(stderr, "%-7s %6lldx%6lldx%6lld %-70s %8.3f ms %7.1f TFLOPS | cuBLAS %8.3f ms %7.1f\n", r.group.c_str(),
                 (long long)s.m, (long long)s.n, (long long)s.k, describe(r.cfg).c_str(), r.ms, r.tflops, r.cublas_ms,
                 r.cublas_tflops);
  }
  cublasDestroy(h);

  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    if (!out) throw std::runtime_error("cannot write " + json_path);
    out << "{\n  \"kernel\": \"gemm\",\n  \"device\": \"" << json_escape(prop.name) << "\",\n  \"date\": \"" << date
        << "\",\n  \"sm_count\": " << prop.multiProcessorCount << ",\n  \"sm_clock_max_mhz\": " << sm_clock_khz / 1000
        << ",\n  \"mem_clock_max_mhz\": " << mem_clock_khz / 1000
        << ",\n  \"reference\": \"cuBLAS cublasGemmEx bf16 in, fp32 compute, same process, same inputs; fp8 rows (in: fp8): cuBLASLt cublasLtMatmul e4m3 in (TN), fp32 compute, fast accumulation, per-tensor scales by pointer\",\n"
        << "  \"method\": \"median of timed runs (CUDA events) after 3 warm-ups, input sets rotated past the L2, 0.3 s of GEMMs before the first row, 0.5 s idle before each row; sm_clock_mhz: each timed launch of ours times its blocks (clock64 cycles over global-timer ns), the launch's clock the median over blocks, the row's the median over launches (until 2026-12-07: one more launch right after the timed runs, now sm_clock_after_mhz)\",\n"
        << "  \"rows\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      out << "    {\"group\": \"" << r.group << "\", \"m\": " << r.shape.m << ", \"n\": " << r.shape.n << ", \"k\": "
          << r.shape.k << ", \"stages\": " << r.cfg.stages << ", \"block_m\": " << 64 * r.cfg.consumers << ", \"block_n\": " << r.cfg.block_n
          << ", \"block_k\": " << gemm_block_k(r.cfg) << ", \"in\": \"" << (r.cfg.in == InType::fp8 ? "fp8" : "bf16") << "\", \"consumers\": " << r.cfg.consumers << ", \"cluster\": " << r.cfg.cluster << ", \"split_k\": " << r.cfg.split_k << ", \"tail_split\": " << r.cfg.tail_split << ", \"persistent\": " << (r.cfg.persistent ? "true" : "false")
          << ", \"order\": \"" << sched::order_name(r.cfg.order.order) << "\", \"group_size\": " << r.cfg.order.group
          << ", \"b_row_major\": " << (r.cfg.b_row_major ? "true" : "false") << ", \"out\": \""
          << (r.cfg.out == OutType::bf16 ? "bf16" : "fp32") << "\", \"median_ms\": " << r.ms << ", \"tflops\": " << r.tflops
          << ", \"cublas_ms\": " << r.cublas_ms << ", \"cublas_tflops\": " << r.cublas_tflops
          << ", \"sm_clock_mhz\": " << std::lround(r.sm_clock_mhz) << ", \"sm_clock_after_mhz\": " << std::lround(r.sm_clock_after_mhz) << "}"
          << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
  }
  std::printf("\n%s, %s\n%-7s %-17s %-76s %9s %9s %7s %6s %6s\n", prop.name, date, "sweep", "M x N x K", "config", "TFLOPS",
              "cuBLAS", "ratio", "MHz", "after");
  for (const auto& r : rows) {
    char shape[40];
    std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)r.shape.m, (long long)r.shape.n, (long long)r.shape.k);
    std::printf("%-7s %-17s %-76s %9.1f %9.1f %7.3f %6.0f %6.0f\n", r.group.c_str(), shape, describe(r.cfg).substr(0, 76).c_str(),
                r.tflops, r.cublas_tflops, r.tflops / r.cublas_tflops, r.sm_clock_mhz, r.sm_clock_after_mhz);
  }
  return 0;
}

}  // namespace

void random_bf16(void* p, long long n, unsigned seed) { random_inputs(p, n, seed, InType::bf16); }
void random_gemm_input(void* p, long long n, unsigned seed, InType in) { random_inputs(p, n, seed, in); }

double gemm_sm_clock_mhz(const GemmShape& s, const GemmConfig& cfg) {
  const size_t elem = input_bytes(cfg);
  DeviceBuffer a(s.m * s.k * elem), b(s.k * s.n * elem), c(s.m * s.n * 4);
  random_inputs(a.p, s.m * s.k, 3, cfg.in);
  random_inputs(b.p, s.k * s.n, 4, cfg.in);
  return clock_during(a.p, b.p, c.p, s, cfg);
}

namespace {
std::vector<float> bf16_to_float(const void* device, size_t count) {
  std::vector<uint16_t> bits(count);
  check(cudaMemcpy(bits.data(), device, count * 2, cudaMemcpyDeviceToHost), "copy back");
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) {
    const uint32_t f = uint32_t{bits[i]} << 16;
    std::memcpy(&out[i], &f, 4);
  }
  return out;
}
// Rounding to nearest is within half a bf16 ulp of an fp32 sum; near a rounding boundary two fp32
// sums (other orders of the same products) may round to neighbours: one ulp, 2^-7 relative at
// most, plus an absolute term for sums near zero.
bool beyond_one_ulp(double d, float ref) { return std::fabs(d) > std::ldexp(std::fabs(ref), -7) + 1e-3; }
}  // namespace

GemmCheck check_gemm_against_cublas(const GemmShape& s, GemmConfig cfg, unsigned seed, OutType out) {
  cfg.out = out;
  const bool fp8 = cfg.in == InType::fp8;
  if (fp8 && out != OutType::bf16) throw std::invalid_argument("check_gemm_against_cublas: fp8 is checked with a bf16 C");
  const size_t elem = input_bytes(cfg), count = s.m * s.n;
  DeviceBuffer a(s.m * s.k * elem), b(s.k * s.n * elem), c(count * 4), ref(count * 4), magnitude(fp8 ? count * 4 : 1);
  random_inputs(a.p, s.m * s.k, seed, cfg.in);
  random_inputs(b.p, s.k * s.n, seed + 7919, cfg.in);
  if (out == OutType::fp32) fill_value<<<1024, 256>>>(static_cast<float*>(c.p), count, NAN);  // poison
  else check(cudaMemset(c.p, 0xff, count * 2), "poison");  // 0xffff: a bf16 NaN that rounding never produces
  check(cudaGetLastError(), "poison launch");
  if (fp8) {
    reference_fp8_gemm<<<dim3(unsigned((s.n + 127) / 128), unsigned(s.m)), 128>>>(
        static_cast<const fp8e4m3*>(a.p), static_cast<const fp8e4m3*>(b.p), static_cast<float*>(ref.p),
        static_cast<float*>(magnitude.p), int(s.m), int(s.n), int(s.k), cfg.scale_a * cfg.scale_b);
    check(cudaGetLastError(), "reference_fp8_gemm launch");
  } else {
    cublasHandle_t h;
    check(cublasCreate(&h), "cublasCreate");
    cublas_gemm(h, a.p, b.p, ref.p, s, cfg.b_row_major, CUDA_R_32F);
    check(cudaDeviceSynchronize(), "cuBLAS");
    cublasDestroy(h);
  }
  launch_gemm(a.p, b.p, c.p, s, cfg, nullptr);
  check(cudaDeviceSynchronize(), "gemm");
  std::vector<float> ours(count), theirs(count), mag;
  if (out == OutType::fp32) check(cudaMemcpy(ours.data(), c.p, count * 4, cudaMemcpyDeviceToHost), "copy back");
  else ours = bf16_to_float(c.p, count);
  check(cudaMemcpy(theirs.data(), ref.p, count * 4, cudaMemcpyDeviceToHost), "copy back");
  GemmCheck r{};
  // How far beyond bf16's rounding a C strays, over the sum of its products' magnitudes.
  const auto accumulation_error = [&](double d, size_t i) {
    return std::max(0.0, std::fabs(d) - std::ldexp(std::fabs(theirs[i]), -8)) / std::max(double(mag[i]), 1e-30);
  };
  if (fp8) {
    mag.resize(count);
    check(cudaMemcpy(mag.data(), magnitude.p, count * 4, cudaMemcpyDeviceToHost), "copy back");
    LtFp8Gemm lt(s, cfg.scale_a, cfg.scale_b, CUDA_R_16BF);
    lt.run(a.p, b.p, c.p);  // our C is copied out: its buffer takes cuBLASLt's
    check(cudaDeviceSynchronize(), "cuBLASLt");
    const std::vector<float> lt_c = bf16_to_float(c.p, count);
    for (size_t i = 0; i < count; ++i) {
      const double d = double(lt_c[i]) - theirs[i];
      if (beyond_one_ulp(d, theirs[i])) ++r.cublaslt_outside_rounding;
      r.cublaslt_accumulation_error = std::max(r.cublaslt_accumulation_error, accumulation_error(d, i));
    }
  }
  double num = 0, den = 0;
  for (size_t i = 0; i < count; ++i) {
    if (std::isnan(ours[i])) { ++r.unwritten; continue; }
    const double d = double(ours[i]) - theirs[i];
    num += d * d;
    den += double(theirs[i]) * theirs[i];
    if (out == OutType::bf16 && beyond_one_ulp(d, theirs[i])) ++r.outside_rounding;
    if (fp8) r.accumulation_error = std::max(r.accumulation_error, accumulation_error(d, i));
  }
  r.rel_frobenius_error = std::sqrt(num / std::max(den, 1e-30));
  return r;
}

int run_gemm_bench(bool quick, const std::string& json_path, const std::string& only_group) {
  if (!only_group.empty() && !is_gemm_sweep(only_group)) throw std::invalid_argument(unknown_gemm_sweep(only_group));
  std::vector<BenchRow> rows;
  auto add = [&](const char* group, int64_t m, int64_t n, int64_t k, GemmConfig cfg) {
    if (only_group.empty() || only_group == group) rows.push_back({group, {m, n, k}, cfg});
  };
  const GemmConfig best{};  // grouped:8, persistent, 3 stages, 128x256, B row-major, bf16 C
  auto with = [&](auto change) { GemmConfig c = best; change(c); return c; };  // the default, one knob turned
  for (int64_t s : {2048, 4096, 8192, 16384}) if (!quick || s == 4096) add("size", s, s, s, best);
  for (int64_t k : {64, 128, 256, 512, 1024}) if (!quick || k == 64) add("skinny", 4096, 4096, k, best);
  for (int st = 1; st <= 4; ++st) if (!quick || st == 1) { GemmConfig c = best; c.stages = st; add("stages", 4096, 4096, 4096, c); }
  if (!quick) {
    for (auto order : {sched::OrderSpec{sched::Order::row_major, 1}, sched::OrderSpec{sched::Order::col_major, 1},
                       sched::OrderSpec{sched::Order::grouped, 8}, sched::OrderSpec{sched::Order::grouped, 16}})
      for (bool persistent : {true, false}) {
        GemmConfig c = best;
        c.order = order;
        c.persistent = persistent;
        add("order", 16384, 16384, 16384, c);
      }
    GemmConfig bt = best; bt.b_row_major = false; add("layout", 8192, 8192, 8192, bt);
    // The other tile shapes at 4 stages: they stage their whole tile of C with 4 (the default 3 is for 128x256).
    GemmConfig n128 = best; n128.block_n = 128; n128.stages = 4; add("tile", 4096, 4096, 4096, n128); add("tile", 4096, 4096, 256, n128);
    GemmConfig one = best; one.consumers = 1; one.stages = 4; add("tile", 4096, 4096, 4096, one);
  }
  if (only_group == "cluster") {
    // Clusters of 2 sharing B by multicast (`--only cluster`), each shape beside the main sweep's
    // configuration in the same run. The grouped order walks clusters, so grouped:4 of clusters
    // covers the tile rows grouped:8 does without them.
    auto clustered = [&](int group) { GemmConfig c = best; c.cluster = 2; c.order.group = group; return c; };
    for (int64_t s : {2048, 4096, 8192, 16384}) {
      add("cluster", s, s, s, best);
      add("cluster", s, s, s, clustered(8));
      add("cluster", s, s, s, clustered(4));
    }
    for (int64_t k : {64, 256, 1024}) {
      add("cluster", 4096, 4096, k, best);
      add("cluster", 4096, 4096, k, clustered(8));
    }
  }
  if (only_group == "splitk") {
    // Split-K (`--only splitk`) on shapes whose tiles leave SMs idle: each beside the plain kernel
    // in the same run. 1024 x 1024 has 32 tiles of 128 x 256 for 132 SMs; 4096 x 4096 has 512 (nearly 4 per SM).
    auto split = [&](int s) { GemmConfig c = best; c.split_k = s; return c; };
    for (int s : {1, 2, 4}) add("splitk", 1024, 1024, 16384, split(s));
    for (int s : {1, 2, 4}) add("splitk", 2048, 1024, 8192, split(s));
    for (int s : {1, 2}) add("splitk", 4096, 4096, 1024, split(s));
    for (int s : {1, 4, 8}) add("splitk", 512, 1024, 32768, split(s));
  }
  if (only_group == "shapes") {
    // Non-square shapes (`--only shapes`): the default configuration beside the knobs a per-shape
    // choice could turn (group size, clusters, 128-wide tiles), each in the same run.
    for (auto [m, n, k] : {std::array<int64_t, 3>{16384, 2048, 4096}, {2048, 8192, 8192}, {12288, 8192, 4096}}) {
      add("shapes", m, n, k, best);
      add("shapes", m, n, k, with([](GemmConfig& c) { c.order.group = 4; }));
      add("shapes", m, n, k, with([](GemmConfig& c) { c.order.group = 16; }));
      add("shapes", m, n, k, with([](GemmConfig& c) { c.cluster = 2; c.order.group = 4; }));
      add("shapes", m, n, k, with([](GemmConfig& c) { c.block_n = 128; }));
    }
  }
  if (only_group == "epilogue") {
    // Whole-tile staging of C (`--only epilogue`): 3 stages (the default) leave room for each consumer's
    // whole 64 x 256 part of C, so its epilogue is one TMA store instead of two 16 KB chunks that wait on
    // each other; each shape beside 4 stages with chunks, and with 128-wide tiles where K is short.
    const auto four = with([](GemmConfig& c) { c.stages = 4; });
    for (auto [m, n, k] : {std::array<int64_t, 3>{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 16384, 16384},
                           {4096, 4096, 64}, {4096, 4096, 128}, {4096, 4096, 256}, {4096, 4096, 512}, {4096, 4096, 1024},
                           {16384, 2048, 4096}, {2048, 8192, 8192}, {12288, 8192, 4096}}) {
      add("epilogue", m, n, k, four);
      add("epilogue", m, n, k, best);
      if (k <= 1024) add("epilogue", m, n, k, with([](GemmConfig& c) { c.block_n = 128; c.stages = 4; }));
    }
    add("epilogue", 4096, 4096, 4096, with([](GemmConfig& c) { c.consumers = 1; c.stages = 4; }));
  }
  if (only_group == "tail") {
    // The split tail (`--only tail`): shapes whose tiles fill whole waves of the 132 SMs and then
    // at most half of one more, each with the tail off (1), as chosen per shape (0) and with other
    // range counts, in the same run. 12288 x 8192: 23 waves and 36 tiles; 3072^2: 2 and 24; 16384^3:
    // 62 and 8; 8192^3 (2048 tiles): 15 and 68, 6144 x 6144 x 8192 (1152): 8 and 96, both more than
    // half a wave: not split unless asked.
    const auto tail = [&](int t) { return with([t](GemmConfig& c) { c.tail_split = t; }); };
    for (int t : {1, 3, 2}) add("tail", 12288, 8192, 4096, tail(t));  // (K 4096: not split unless asked)
    for (int t : {1, 0, 3}) add("tail", 3072, 3072, 8192, tail(t));
    for (int t : {1, 0, 8}) add("tail", 16384, 16384, 16384, tail(t));
    for (int t : {1, 2}) add("tail", 8192, 8192, 8192, tail(t));
    for (int t : {1, 2}) add("tail", 6144, 6144, 8192, tail(t));
  }
  if (only_group == "fp8") {
    // FP8 e4m3 inputs, bf16 C, per-tensor scales (`--only fp8`), against cuBLASLt's FP8 GEMM.
    GemmConfig f8 = best;
    f8.in = InType::fp8;
    f8.b_row_major = false;
    f8.scale_a = 0.5f;
    f8.scale_b = 0.25f;
    for (int64_t s : {2048, 4096, 8192, 16384}) add("fp8", s, s, s, f8);
    for (int64_t k : {256, 1024}) add("fp8", 4096, 4096, k, f8);
    GemmConfig f8c = f8; f8c.cluster = 2; f8c.order.group = 4;
    for (int64_t s : {4096, 8192}) add("fp8", s, s, s, f8c);
  }
  if (only_group == "holdout") {
    // Configurations the simulator was never compared with while it was built: shapes, stage
    // counts and orders off the sweep above, to test it where nothing was tuned (`--only holdout`).
    add("holdout", 6144, 6144, 6144, best);
    add("holdout", 8192, 4096, 2048, with([](GemmConfig& c) { c.stages = 3; }));
    add("holdout", 4096, 8192, 1024, with([](GemmConfig& c) { c.order = {sched::Order::col_major, 1}; }));
    add("holdout", 3072, 3072, 8192, best);
    add("holdout", 16384, 2048, 4096, with([](GemmConfig& c) { c.order = {sched::Order::row_major, 1}; c.persistent = false; }));
    add("holdout", 4096, 4096, 2048, with([](GemmConfig& c) { c.block_n = 128; c.stages = 2; }));
    add("holdout", 8192, 8192, 512, best);
    add("holdout", 2048, 2048, 8192, with([](GemmConfig& c) { c.consumers = 1; }));
    add("holdout", 12288, 12288, 4096, with([](GemmConfig& c) { c.order = {sched::Order::grouped, 4}; }));
    add("holdout", 4096, 4096, 8192, with([](GemmConfig& c) { c.stages = 2; c.b_row_major = false; }));
  }
  if (rows.empty()) throw std::invalid_argument("sweep '" + only_group + "' has no rows in the quick subset");
  return bench_rows(rows, json_path);
}

int run_gemm_bench_config(const GemmShape& shape, const GemmConfig& cfg, const std::string& json_path) {
  if (const std::string why = validate(shape, cfg); !why.empty()) throw std::invalid_argument(why);
  std::vector<BenchRow> rows{{"custom", shape, cfg}};
  return bench_rows(rows, json_path);
}

}  // namespace ts::kernels
