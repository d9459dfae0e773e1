#pragma once
// `tilescope calibrate`: CUDA microbenchmarks (calibrate*.cu) that measure, on one Hopper GPU, the
// figures of the machine file that the cycle model needs. Plain C++ interface: the verb, the
// tests and machines without CUDA include this header; only the .cu files need nvcc.
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ts::kernels::calibrate {

// Groups of microbenchmarks: `tilescope calibrate --only GROUP` runs one group alone and rewrites
// only its fields. launch: launch costs; mbarrier: the mbarrier round trip; tensor: wgmma rates and
// latencies; clock: the SM clocks (boost as the driver reports it, and under a wgmma load); memory:
// shared memory, TMA, L2 and HBM; pipes: the math pipes of the SM's sub-partitions and named barriers;
// port: what the warps' shared loads and stores get while wgmma reads its operands.
inline constexpr std::array<std::string_view, 7> kGroups{"launch", "mbarrier", "tensor", "clock", "memory", "pipes", "port"};

inline bool is_group(std::string_view g) {
  for (auto k : kGroups)
    if (k == g) return true;
  return false;
}
// "launch, mbarrier, ..., memory or pipes", for messages.
inline std::string group_list() {
  std::string s;
  for (size_t i = 0; i < kGroups.size(); ++i) s += std::string(i == 0 ? "" : i + 1 == kGroups.size() ? " or " : ", ") + std::string(kGroups[i]);
  return s;
}

// The machine-file fields (sim/machine.hpp) the microbenchmarks measure, each in the unit the file
// wants (tests/test_machine.cpp checks both against machine_fields()), and the group that measures it.
struct MeasuredField {
  std::string_view key, unit, group;
};
inline constexpr auto kMeasuredFields = std::to_array<MeasuredField>({
    {"sm_clock_under_load", "MHz", "clock"},
    {"sm_clock_boost", "MHz", "clock"},
    {"wgmma_m64n64k16_interval", "cycles/instruction", "tensor"},
    {"wgmma_m64n128k16_interval", "cycles/instruction", "tensor"},
    {"wgmma_m64n256k16_interval", "cycles/instruction", "tensor"},
    {"wgmma_m64n64k16_latency", "cycles", "tensor"},
    {"wgmma_m64n128k16_latency", "cycles", "tensor"},
    {"wgmma_m64n256k16_latency", "cycles", "tensor"},
    {"wgmma_m64n256k32_fp8_interval", "cycles/instruction", "tensor"},
    {"wgmma_m64n256k32_fp8_latency", "cycles", "tensor"},
    {"tma_load_latency_l2_hit", "cycles", "memory"},
    {"tma_load_latency_hbm", "cycles", "memory"},
    {"tma_bandwidth_per_sm", "bytes/cycle", "memory"},
    {"tma_store_latency", "cycles", "memory"},
    {"tma_store_bandwidth", "TB/s", "memory"},
    {"tma_reduce_bandwidth", "TB/s", "memory"},
    {"mbarrier_round_trip", "cycles", "mbarrier"},
    {"smem_bandwidth_per_sm", "bytes/cycle", "memory"},
    {"l2_hit_bandwidth", "TB/s", "memory"},
    {"l2_hit_latency", "cycles", "memory"},
    {"hbm_bandwidth_measured", "TB/s", "memory"},
    {"hbm_latency_measured", "cycles", "memory"},
    {"launch_overhead", "us", "launch"},
    {"launch_latency_timed", "us", "launch"},
    {"fma_interval", "cycles/instruction", "pipes"},
    {"fma_latency", "cycles", "pipes"},
    {"alu_interval", "cycles/instruction", "pipes"},
    {"alu_latency", "cycles", "pipes"},
    {"sfu_interval", "cycles/instruction", "pipes"},
    {"sfu_latency", "cycles", "pipes"},
    {"convert_interval", "cycles/instruction", "pipes"},
    {"convert_latency", "cycles", "pipes"},
    {"shuffle_interval", "cycles/instruction", "pipes"},
    {"shuffle_latency", "cycles", "pipes"},
    {"named_barrier_cycles", "cycles", "pipes"},
    {"lsu_load_bytes_under_wgmma", "bytes/cycle", "port"},
    {"lsu_store_bytes_under_wgmma", "bytes/cycle", "port"},
});

// One measured figure: a field of kMeasuredFields, or (extras) a figure of its own name.
struct Figure {
  std::string key;
  double value = 0;
  std::string unit;
  std::string method;  // how it was measured, one line
};

struct Options {
  bool quick = false;  // small sizes and few repetitions: checks that everything runs (sanitizers), not figures
  std::string only;    // one of kGroups: run that group's microbenchmarks alone; empty: all of them
  int sub_partitions = 0;  // the machine file's sub_partitions: per-sub-partition figures of the pipes group need it
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

// Runs every microbenchmark (or those of options.only) on device 0 (random data, medians, every CUDA
// call checked) and prints one progress line per step to stderr. Throws NoDevice, and
// std::invalid_argument for an unknown group; a failing microbenchmark is recorded in
// Report::failures and the others still run.
Report run(const Options& options);

}  // namespace ts::kernels::calibrate
