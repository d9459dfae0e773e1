// `tilescope compare`: every measured row of a bench file (the GEMM's or attention's) beside its
// simulation, each row timed at the clock it recorded: error per row, MAPE, rank correlation.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/compare_rows.hpp"
#include "app/compare_timeline.hpp"
#include "app/ncu_counters.hpp"
#include "app/sim_runs.hpp"
#include "app/verbs.hpp"

namespace ts::app {

namespace {

// fn(i) for i in 0..n on every core; the first exception any call threw is rethrown at the end.
void parallel_for(size_t n, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  std::mutex m;
  std::exception_ptr error;
  auto work = [&] {
    for (size_t i; (i = next++) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(m);
        if (!error) error = std::current_exception();
      }
    }
  };
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// Simulates every row on all cores, with one progress line on stderr for them all: rows done,
// and the share of all rows' estimated ops drawn so far (rows in flight count as far as they
// got), from which the time left follows. A Ctrl-C stops every row (sim::SimCancelled).
void simulate_all(std::vector<CompareRow>& rows, const sim::MachineSpec& machine) {
  CtrlC ctrl_c;
  Progress progress("compare", Progress::Items::rows);
  progress.set_total(rows.size());
  try {
    // First every row's op estimate, so that the line knows the whole. A rough one will do, and a
    // Ctrl-C stops it too: with many rows, or under a sanitizer, this alone takes seconds.
    parallel_for(rows.size(), [&](size_t i) {
      if (CtrlC::pressed()) throw sim::SimCancelled("");
      auto launches = trace_job(rows[i].job, machine.sm_count.value);
      for (const OpEstimate& e : estimate_ops(launches, 1e18, kProgressSample)) progress.add_work(e.ops);
    });
    parallel_for(rows.size(), [&](size_t i) {
      const sim::EngineParams p = sim::engine_params(machine, rows[i].clock_mhz);
      auto launches = trace_job(rows[i].job, p.sms);
      rows[i].simulated = simulate_launches(launches, rows[i].job, p, 0, &progress).tflops;
      progress.add_done(1);
    });
  } catch (const sim::SimCancelled&) {
    progress.finish();
    throw sim::SimCancelled("simulation stopped by Ctrl-C after " + std::to_string(progress.done()) + " of " +
                            std::to_string(rows.size()) + " rows");
  }
}

// The simulated launch that an Nsight Compute launch of `kernel` is: the backward's three kernels
// by their names (pipeline_kernel<attention_bwd_prep<...>>, attention_bwd<...>, attention_bwd_dq<...>);
// the GEMM and the forward have one launch. A launch of another kernel is a UsageError.
std::string simulated_launch(const SimJob& job, const std::string& kernel) {
  const std::string expect = job.attention ? (job.backward ? "attention_bwd" : "attention_fwd") : "gemm";
  if (kernel.find(expect) == std::string::npos)
    throw UsageError("the launch '" + kernel + "' is not " + expect + "'s: name the kernel that was profiled (" + job.title() + ")");
  if (!job.attention || !job.backward) return "";
  if (kernel.find("attention_bwd_prep") != std::string::npos) return "backward prep";
  if (kernel.find("attention_bwd_dq") != std::string::npos) return "backward dq";
  return "backward";
}

struct CounterArgs {
  std::string file, kernel_regex, clock;
  JobArgs job;
  bool force = false;
};

// `compare --counters`: one Nsight Compute launch beside the simulation of the configuration the
// options name, timed at the clock the launch ran at.
int compare_counters(const CounterArgs& a, const sim::MachineSpec& machine) {
  if (a.job.kernel.empty()) throw UsageError("--counters needs the configuration that was profiled: gemm or attention and its options, as for sim");
  const std::vector<NcuLaunch> launches = read_ncu(a.file);
  const NcuLaunch& measured = pick_launch(launches, a.kernel_regex, a.file);
  const SimJob job = job_from(a.job);
  const std::string launch = simulated_launch(job, measured.kernel);
  const double measured_clock = launch_clock_mhz(measured);
  const double clock = !a.clock.empty() ? clock_mhz(a.clock, machine) : measured_clock > 0 ? measured_clock : 0;
  sim::EngineParams p = sim::engine_params(machine, clock);
  // Nsight Compute's duration and cycles span the kernel's own run: the launch latency that CUDA
  // events around a lone launch add (launch_latency_timed, which the bench's rows include) is not
  // in them, nor in the share of the time a pipe was busy.
  p.kernel_launch_cycles = 0;
  sim::SimReport r;
  try {
    r = run_job(job, p, a.force, 0, launch);
  } catch (const sim::SimCancelled& e) {
    std::fprintf(stderr, "tilescope: %s\n", e.what());
    return kExitInterrupted;
  }
  std::printf("measured  %s: %s\nsimulated %s%s on %s at %.0f MHz (%s)\n\n", a.file.c_str(), measured.kernel.c_str(), job.title().c_str(),
              launch.empty() ? "" : (", launch '" + launch + "'").c_str(), machine.name.c_str(), p.clock_mhz,
              !a.clock.empty() ? "--clock" : measured_clock > 0 ? "the launch's own clock: sm__cycles_elapsed.avg / gpu__time_duration.sum"
                                                                : "the machine's sustained clock");
  print_counters(stdout, measured, r);
  return 0;
}

}  // namespace

VerbRun add_compare_verb(CLI::App& cli) {
  struct Args {
    std::string measured, machine;
    CounterArgs counters;
    TimelineCompareArgs timeline;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand("compare",
                                 "Every measured row beside its simulation: error, MAPE, rank correlation; or, with --counters, "
                                 "Nsight Compute's counters of one launch beside the simulated ones");
  cmd->add_option("--measured", a->measured,
                  "Measured JSON: a GEMM or attention bench file (default data/measured/h100/gemm.json)");
  cmd->add_option("--machine", a->machine, "Machine file (default data/machines/h100-sxm.json)");
  cmd->add_option("--counters", a->counters.file,
                  "Nsight Compute's counters of a launch: the CSV of ncu --csv --page raw, or the text of ncu --print-units base; "
                  "give the profiled configuration as for sim (e.g. attention --n 16384 --d 64)");
  cmd->add_option("--kernel", a->counters.kernel_regex, "--counters: the launch whose kernel name matches this regex (when the file has several)");
  cmd->add_option("--clock", a->counters.clock, "--counters: SM clock to time the simulation at (default: the launch's own)");
  cmd->add_flag("--force", a->counters.force, "--counters: simulate even a configuration estimated to take more than a couple of minutes");
  cmd->add_option("--timeline", a->timeline.measured,
                  "A measured timeline (bench --timeline-measured) beside the simulation of its configuration: each warp role's "
                  "time per op kind and the steady-state intervals");
  cmd->add_option("--timeline-out", a->timeline.simulated_out, "--timeline: also write both timelines here, as one Chrome trace (Perfetto): the measured SMs above the simulated ones");
  cmd->add_option("--timeline-sms", a->timeline.sms, "--timeline: SMs of the simulation to compare (default 4)")->check(CLI::Range(1, 1024));
  add_job_options(cmd, a->counters.job, false);
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
    if (!a->timeline.measured.empty()) {
      if (!a->measured.empty() || !a->counters.file.empty() || !a->counters.job.kernel.empty())
        throw UsageError("--timeline compares one measured timeline with its own configuration: give it alone");
      a->timeline.force = a->counters.force;
      return compare_timeline(a->timeline, machine_from(a->machine));
    }
    if (!a->timeline.simulated_out.empty()) throw UsageError("--timeline-out goes with --timeline FILE");
    if (!a->counters.file.empty()) {
      if (!a->measured.empty()) throw UsageError("--counters and --measured are two different comparisons: give one");
      return compare_counters(a->counters, machine_from(a->machine));
    }
    if (!a->counters.job.kernel.empty() || !a->counters.kernel_regex.empty() || !a->counters.clock.empty())
      throw UsageError("a kernel configuration, --kernel and --clock go with --counters FILE");
    std::string path = a->measured;
    nlohmann::json doc;
    try {
      if (path.empty()) path = sim::find_data_path("measured/h100/gemm.json").string();
      std::ifstream in(path);
      if (!in) throw UsageError("cannot read " + path);
      doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(path + ": " + e.what());
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
    const sim::MachineSpec machine = machine_from(a->machine);
    std::vector<CompareRow> rows;
    try {
      rows = compare_rows(doc, path);
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(path + ": " + e.what());
    }
    if (rows.empty()) throw UsageError(path + ": no rows");
    try {
      simulate_all(rows, machine);
    } catch (const sim::SimCancelled& e) {
      std::fprintf(stderr, "tilescope: %s\n", e.what());
      return kExitInterrupted;
    }
    std::vector<double> measured, simulated;
    double abs_pct = 0;
    size_t above_peak = 0;
    std::printf("%-7s %-22s %-44s %9s %9s %8s\n", "sweep", "shape", "config", "measured", "simulated", "error");
    for (const CompareRow& r : rows) {
      const double err = 100 * (r.simulated - r.measured) / r.measured;
      measured.push_back(r.measured);
      simulated.push_back(r.simulated);
      abs_pct += std::fabs(err);
      // A row faster than the tensor cores' peak at the clock it recorded ran at a higher clock than
      // that: its error is the clock reading's as much as the model's.
      const bool fp8 = !r.job.attention && r.job.gemm.in == kernels::InType::fp8;
      const double peak = machine.bf16_dense_tflops.value * (fp8 ? 2 : 1) * r.clock_mhz / machine.sm_clock.value;
      const bool impossible = r.clock_mhz > 0 && r.measured > peak;
      above_peak += impossible;
      std::printf("%-7s %-22s %-44s %9.1f %9.1f %7.1f%%%s\n", r.group.c_str(), r.shape.c_str(), r.config.substr(0, 44).c_str(),
                  r.measured, r.simulated, err, impossible ? "  (!)" : "");
    }
    std::printf("\n%zu rows (TFLOPS), measured on %s, %s\nMAPE %.1f %%   Spearman rank correlation %.3f\n", rows.size(),
                doc.value("device", "?").c_str(), doc.value("date", "?").c_str(), abs_pct / rows.size(),
                spearman(measured, simulated));
    if (above_peak > 0)
      std::printf("(!) %zu row%s measured faster than the tensor cores' peak at the SM clock recorded with %s (%.1f TFLOPS at %.0f MHz):\n"
                  "    the clock reading is low, so the simulation at that clock cannot reach the measured time\n",
                  above_peak, above_peak == 1 ? "" : "s", above_peak == 1 ? "it" : "them", machine.bf16_dense_tflops.value,
                  machine.sm_clock.value);
    return 0;
  };
}

}  // namespace ts::app
