#pragma once
// `tilescope calibrate`: CUDA microbenchmarks (calibrate.cu) that measure, on one Hopper GPU, the
// figures of the machine file that the cycle model needs. Plain C++ interface: the verb, the
// tests and machines without CUDA include this header; only calibrate.cu needs nvcc.
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ts::kernels::calibrate {

// The machine-file fields (sim/machine.hpp) the microbenchmarks measure, each in the unit the file
// wants (tests/test_machine.cpp checks both against machine_fields()).
struct MeasuredField {
  std::string_view key, unit;
};
inline constexpr std::array<MeasuredField, 21> kMeasuredFields{{
    {"sm_clock_under_load", "MHz"},
    {"sm_clock_boost", "MHz"},
    {"wgmma_m64n64k16_interval", "cycles/instruction"},
    {"wgmma_m64n128k16_interval", "cycles/instruction"},
    {"wgmma_m64n256k16_interval", "cycles/instruction"},
    {"wgmma_m64n64k16_latency", "cycles"},
    {"wgmma_m64n128k16_latency", "cycles"},
    {"wgmma_m64n256k16_latency", "cycles"},
    {"tma_load_latency_l2_hit", "cycles"},
    {"tma_load_latency_hbm", "cycles"},
    {"tma_bandwidth_per_sm", "bytes/cycle"},
    {"tma_store_latency", "cycles"},
    {"tma_store_bandwidth", "TB/s"},
    {"mbarrier_round_trip", "cycles"},
    {"smem_bandwidth_per_sm", "bytes/cycle"},
    {"l2_hit_bandwidth", "TB/s"},
    {"l2_hit_latency", "cycles"},
    {"hbm_bandwidth_measured", "TB/s"},
    {"hbm_latency_measured", "cycles"},
    {"launch_overhead", "us"},
    {"launch_latency_timed", "us"},
}};

// One measured figure: a field of kMeasuredFields, or (extras) a figure of its own name.
struct Figure {
  std::string key;
  double value = 0;
  std::string unit;
  std::string method;  // how it was measured, one line
};

struct Options {
  bool quick = false;  // small sizes and few repetitions: checks that everything runs (sanitizers), not figures
};

struct Report {
  std::string device;  // cudaDeviceProp::name
  std::string date;    // UTC, YYYY-MM-DD
  int sm_count = 0, driver_version = 0, runtime_version = 0;
  std::vector<Figure> fields;          // figures of kMeasuredFields, in that order, those that were measured
  std::vector<Figure> extras;          // further figures behind them (spreads, one-warpgroup rates, ...)
  std::vector<std::string> failures;   // "what: why" for each microbenchmark that failed
};

// No usable GPU (none found, or not a Hopper): the verb reports it in one line and exits 2.
struct NoDevice : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Name of device 0; throws NoDevice.
std::string device_name();

// Runs every microbenchmark on device 0 (random data, medians, every CUDA call checked) and
// prints one progress line per step to stderr. Throws NoDevice; a failing microbenchmark is
// recorded in Report::failures and the others still run.
Report run(const Options& options);

}  // namespace ts::kernels::calibrate
