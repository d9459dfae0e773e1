// `tilescope calibrate`: runs the microbenchmarks of calibrate_sm.cu (tensor cores, mbarriers, SM
// clock), calibrate_memory.cu (shared memory, TMA, L2, HBM) and calibrate_pipes.cu (math pipes,
// named barriers) in one fixed order, each step's failure recorded and the others still run. Also
// here: what every other step stands on or beside, the clock-read overhead and the launch costs.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/calibrate/calibrate.hpp"
#include "kernels/calibrate/calibrate_common.cuh"

namespace ts::kernels::calibrate {
namespace detail {
namespace {

__global__ void clock_overhead_kernel(int reps, unsigned* cycles) {
  for (int r = 0; r < reps; ++r) {
    const uint64_t c0 = clock_cycles();
    const uint64_t c1 = clock_cycles();
    cycles[r] = static_cast<unsigned>(c1 - c0);
  }
}

__global__ void empty_kernel() {}
__global__ void empty_gemm_shaped_kernel() {}  // launched like the GEMM: 132 x 384 threads, 200 KB shared

// Median cycles of reading clock64 twice back to back; subtracted from single-event timings.
void clock_overhead(Context& ctx) {
  DeviceArray<unsigned> c(256);
  clock_overhead_kernel<<<1, 32>>>(256, c.p);
  TS_CHECK_LAUNCH("clock_overhead_kernel");
  TS_CHECK(cudaDeviceSynchronize());
  ctx.overhead = median(as_doubles(c.to_host(), 16));
  ctx.extra("clock_read_overhead", ctx.overhead, "cycles", "median of two back-to-back clock64 reads; subtracted from every single-event latency below");
}

void launch_overhead(Context& ctx) {
  Events ev;
  for (int i = 0; i < 100; ++i) {
    empty_kernel<<<1, 32>>>();
    TS_CHECK_LAUNCH("empty_kernel");
  }
  TS_CHECK(cudaDeviceSynchronize());
  std::vector<double> per_launch_us;
  for (int r = 0; r < ctx.sz.reps; ++r) {
    const double ms = ev.ms([&] {
      for (int i = 0; i < ctx.sz.launches; ++i) {
        empty_kernel<<<1, 32>>>();
        TS_CHECK_LAUNCH("empty_kernel");
      }
    });
    per_launch_us.push_back(ms * 1000.0 / ctx.sz.launches);
  }
  ctx.field("launch_overhead", round_to(median(per_launch_us), 2), "us",
        "CUDA events around " + std::to_string(ctx.sz.launches) + " back-to-back launches of an empty kernel <<<1, 32>>>, per launch; median of " + std::to_string(ctx.sz.reps) + " batches");
  std::vector<double> sync_us;
  for (int i = 0; i < 200; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    empty_kernel<<<1, 32>>>();
    TS_CHECK_LAUNCH("empty_kernel");
    TS_CHECK(cudaStreamSynchronize(nullptr));
    sync_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  ctx.extra("launch_sync_round_trip", round_to(median(sync_us), 2), "us", "host clock around one empty launch and cudaStreamSynchronize; median of 200");
  // What one timed launch costs on the GPU's side, as `tilescope bench` times a kernel: CUDA
  // events around a single launch with nothing queued behind it.
  const int smem = 200 * 1024;
  allow_smem(empty_gemm_shaped_kernel, smem);
  std::vector<double> alone_us;
  for (int i = 0; i < 200; ++i) {
    const double ms = ev.ms([&] {
      empty_gemm_shaped_kernel<<<ctx.rep.sm_count, 384, smem>>>();
      TS_CHECK_LAUNCH("empty_gemm_shaped_kernel");
    });
    if (i >= 10) alone_us.push_back(ms * 1000.0);
  }
  ctx.field("launch_latency_timed", round_to(median(alone_us), 2), "us",
        "CUDA events around one launch of an empty kernel shaped like the GEMM's grid (one block of 384 threads and 200 KB shared memory per SM), synchronised after each; median of 190");
}

}  // namespace
}  // namespace detail

using namespace detail;

std::string device_name() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    throw NoDevice(std::string("calibrate needs a CUDA GPU and found none (") +
                   (e != cudaSuccess ? cudaGetErrorString(e) : "no devices") + ")");
  cudaDeviceProp prop{};
  TS_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9 || prop.minor != 0)
    throw NoDevice(std::string("calibrate needs a Hopper GPU (compute capability 9.0); device 0 is ") + prop.name + " (" +
                   std::to_string(prop.major) + "." + std::to_string(prop.minor) + ")");
  return prop.name;
}

Report run(const Options& options) {
  if (!options.only.empty() && !is_group(options.only))
    throw std::invalid_argument("unknown group '" + options.only + "' (expected " + group_list() + ")");
  Report rep;
  rep.device = device_name();
  cudaDeviceProp prop{};
  TS_CHECK(cudaGetDeviceProperties(&prop, 0));
  rep.sm_count = prop.multiProcessorCount;
  TS_CHECK(cudaDriverGetVersion(&rep.driver_version));
  TS_CHECK(cudaRuntimeGetVersion(&rep.runtime_version));
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  rep.date = date;

  Context ctx(options, rep);
  auto selected = [&](std::string_view group) { return options.only.empty() || options.only == group; };
  if (selected("clock"))
    ctx.field("sm_clock_boost", ctx.max_mhz, "MHz", "cudaDevAttrClockRate (the maximum the driver reports)");
  struct Step {
    const char* what;
    std::string_view group;  // of kGroups; empty: every run needs it
    std::function<void()> run;
  };
  const std::vector<Step> all_steps = {
      {"clock-read overhead", "", [&] { clock_overhead(ctx); }},
      {"launch overhead", "launch", [&] { launch_overhead(ctx); }},
      {"mbarrier round trip", "mbarrier", [&] { mbarrier_round_trip(ctx); }},
      {"wgmma latency m64n64k16", "tensor", [&] { wgmma_latency(ctx, 64); }},
      {"wgmma latency m64n128k16", "tensor", [&] { wgmma_latency(ctx, 128); }},
      {"wgmma latency m64n256k16", "tensor", [&] { wgmma_latency(ctx, 256); }},
      {"shared-memory bandwidth", "memory", [&] { smem_bandwidth(ctx); }},
      {"TMA latency", "memory", [&] { tma_latency(ctx); }},
      {"TMA bandwidth", "memory", [&] { tma_bandwidth(ctx); }},
      {"TMA stores", "memory", [&] { tma_store(ctx); }},
      {"L2 and HBM latency", "memory", [&] { chase(ctx); }},
      {"L2 bandwidth", "memory", [&] { l2_bandwidth(ctx); }},
      {"HBM bandwidth", "memory", [&] { hbm_bandwidth(ctx); }},
      {"HBM box streams", "memory", [&] { hbm_patterns(ctx); }},
      {"wgmma rate m64n64k16", "tensor", [&] { wgmma_rate(ctx, 64); }},
      {"wgmma rate m64n128k16", "tensor", [&] { wgmma_rate(ctx, 128); }},
      {"wgmma rate m64n256k16", "tensor", [&] { wgmma_rate(ctx, 256); }},
      {"SM clock under load", "clock", [&] { sm_clock_under_load(ctx); }},
      // After the clock, so that the bf16 figures above are taken as before these steps existed.
      {"wgmma latency m64n256k32 fp8", "tensor", [&] { wgmma_latency(ctx, 256, true); }},
      {"wgmma rate m64n256k32 fp8", "tensor", [&] { wgmma_rate(ctx, 256, true); }},
      // Last, so that the figures above are taken as before these steps existed.
      {"FMA pipe", "pipes", [&] { pipe(ctx, Pipe::fma); }},
      {"ALU pipe", "pipes", [&] { pipe(ctx, Pipe::alu); }},
      {"SFU pipe", "pipes", [&] { pipe(ctx, Pipe::sfu); }},
      {"conversion pipe", "pipes", [&] { pipe(ctx, Pipe::convert); }},
      {"warp shuffle", "pipes", [&] { pipe(ctx, Pipe::shuffle); }},
      {"named barrier", "pipes", [&] { named_barrier(ctx); }},
      {"shared port beside wgmma", "port", [&] { smem_port(ctx); }},
  };
  for (const auto& [what, group, step] : all_steps) {
    if (!group.empty() && !selected(group)) continue;
    const auto t0 = std::chrono::steady_clock::now();
    const size_t fields_before = rep.fields.size();
    try {
      step();
    } catch (const std::exception& e) {
      rep.failures.push_back(std::string(what) + ": " + e.what());
      std::fprintf(stderr, "calibrate: %-26s FAILED: %s\n", what, e.what());
      cudaGetLastError();  // clear a non-sticky error so that the next step may still run
      continue;
    }
    std::string got;
    for (size_t i = fields_before; i < rep.fields.size(); ++i)
      got += (got.empty() ? "" : ", ") + rep.fields[i].key + " " + fmt("%g", rep.fields[i].value) + " " + rep.fields[i].unit;
    std::fprintf(stderr, "calibrate: %-26s %6.2f s  %s\n", what,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), got.c_str());
  }
  // Keep the order of kMeasuredFields whatever order the steps ran in.
  std::stable_sort(rep.fields.begin(), rep.fields.end(), [](const Figure& a, const Figure& b) {
    auto at = [](const std::string& k) {
      for (size_t i = 0; i < kMeasuredFields.size(); ++i)
        if (kMeasuredFields[i].key == k) return i;
      return kMeasuredFields.size();
    };
    return at(a.key) < at(b.key);
  });
  return rep;
}

}  // namespace ts::kernels::calibrate
