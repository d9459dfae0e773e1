#pragma once
// One kernel configuration to simulate, as `tilescope sim` takes it on the command line (and
// `tilescope compare --counters` with the same options) or `tilescope compare` reads it from a
// bench row: its options, its traced launches, and its op count estimated before simulating, so
// that a run that would take hours is refused up front.
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "kernels/attention/attention_api.hpp"
#include "kernels/attention/attention_trace.hpp"
#include "kernels/gemm/gemm_api.hpp"
#include "sim/trace.hpp"

namespace ts::app {

struct SimJob {
  bool attention = false;  // else the GEMM
  kernels::GemmShape gemm_shape{4096, 4096, 4096};
  kernels::GemmConfig gemm;
  kernels::AttentionShape attention_shape;
  kernels::AttentionConfig attention_cfg;
  bool backward = false;  // attention only
  // "gemm 4096x4096x4096 tile 128x256x64 ..." or "attention B1 Hq16 ... forward".
  std::string title() const;
};

// The kernel options of `tilescope sim`, which every verb that names a configuration shares.
struct JobArgs {
  std::string kernel, order = "grouped";
  std::string persistent;  // on, off, or empty: the kernel's default (gemm: on)
  int64_t m = 4096, n = 4096, k = 4096;
  int stages = kernels::GemmConfig{}.stages, block_n = kernels::GemmConfig{}.block_n, consumers = 0, cluster = 1, split_k = 0, tail_split = 0;
  int64_t batch = 1, heads = 16, heads_kv = 0, dim = 128;
  int overlap = -1;
  bool b_col_major = false, causal = false, bwd = false;
  std::string in = "bf16";  // gemm: bf16 or fp8 (e4m3) A and B
  float scale_a = 1, scale_b = 1;
};
// Adds the positional kernel (gemm or attention) and its options to `cmd`.
void add_job_options(CLI::App* cmd, JobArgs& a, bool kernel_required);
// True when the command line named any of the options add_job_options adds (other than the kernel).
bool any_job_option(const CLI::App* cmd);
// The options by name, as a timeline file records the configuration it ran, and back (a missing
// key keeps its default; a value of the wrong type is a UsageError).
nlohmann::json job_args_json(const JobArgs& a);
JobArgs job_args_from_json(const nlohmann::json& j);
// Throws UsageError for an unknown kernel or a bad option value.
SimJob job_from(const JobArgs& a);

// The job's launches in trace mode, in launch order (the GEMM: one, named "gemm"). A shape the
// kernels refuse, or one whose grid or tile count does not fit the kernels' 32-bit tile indices,
// is a UsageError.
std::vector<kernels::TracedLaunch> trace_job(const SimJob& job, uint32_t sms);

// The simulator's speed, for turning an op count into a time before simulating. Measured once,
// here (RelWithDebInfo build, one core of the 2-core development machine, 2026-11-23):
// `tilescope sim gemm --m 8192 --n 8192 --k 8192 --stats` and
// `tilescope sim attention --n 16384 --d 128 --stats` report their ops per second; the rate is
// the slower of the two, rounded down (see sim_job.cpp's comment for the figures).
extern const double kSimOpsPerSecond;
// A run estimated to take longer than this is refused unless the user insists (--force).
inline constexpr double kRefuseSeconds = 120;

struct OpEstimate {
  double ops = 0;            // trace ops the simulator would replay
  bool lower_bound = false;  // a block was cut short at the cap: the run has at least `ops`
};
// A grid's ops before simulating it: blocks drained in trace mode (each warp's op stream) in a
// well-spread order until a sample is reached, their mean times the grid's blocks; a grid smaller
// than the sample is counted exactly. A block is drained no further than its share of `cap` ops
// (twice cap over blocks, or the sample's ops if more), so a configuration far too big is known
// to be so in a bounded time; the estimate is then a lower bound.
struct EstimateSample {
  double ops;       // stop once the drained blocks hold this many ops ...
  uint32_t blocks;  // ... or this many blocks were drained (each costs its warps' fibers)
};
// The refusal of over-long runs: a quarter second of tracing, good to a few per cent.
inline constexpr EstimateSample kRefusalSample{25e6, 1024};
// A progress line's total (compare estimates every row first): a few hundredths of a second a row.
inline constexpr EstimateSample kProgressSample{1.25e6, 64};
OpEstimate estimate_ops(sim::GridTrace& grid, double cap, EstimateSample sample = kRefusalSample);
// Every launch's estimate, in order, with the same cap on their sum.
std::vector<OpEstimate> estimate_ops(std::vector<kernels::TracedLaunch>& launches, double cap,
                                     EstimateSample sample = kRefusalSample);

// Throws UsageError, naming the estimated op count and time and --force, when the launches'
// estimates add up to more than kRefuseSeconds of simulation.
void refuse_if_too_long(const SimJob& job, const std::vector<OpEstimate>& estimates);

// "950000", "42 million", "3.4 billion", "2.0 trillion".
std::string human_count(double n);
// "40 s", "3.5 min", "2.1 h", "4.0 days".
std::string human_seconds(double s);

}  // namespace ts::app
