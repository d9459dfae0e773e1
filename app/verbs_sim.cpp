// `tilescope sim`: a kernel's own op streams (its source in trace mode) replayed on the machine
// model: the GEMM in any configuration, attention forward or backward.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "app/sim_runs.hpp"
#include "app/verbs.hpp"
#include "sim/engine.hpp"

namespace ts::app {

VerbRun add_sim_verb(CLI::App& cli) {
  struct Args {
    JobArgs job;
    std::string machine, timeline, clock = "sustained", launch;
    int timeline_sms = 2;
    bool json = false, stats = false, force = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand("sim", "Predict a kernel's time on the machine model from its own op streams");
  add_job_options(cmd, a->job, true);
  cmd->add_option("--machine", a->machine, "Machine file (default data/machines/h100-sxm.json)");
  cmd->add_option("--clock", a->clock,
                  "SM clock: sustained (power-limited, back-to-back launches; the default), boost (one launch after idle) or MHz");
  cmd->add_flag("--json", a->json, "Print the report as JSON");
  cmd->add_option("--timeline", a->timeline, "Write per-warp spans (Chrome trace format, opens in Perfetto)");
  cmd->add_option("--timeline-sms", a->timeline_sms, "How many SMs the timeline shows");
  cmd->add_option("--launch", a->launch,
                  "Only this launch of a pass of several: 'backward prep', 'backward' or 'backward dq' (attention --bwd), "
                  "'gemm', 'gemm tail' or 'split-K sum' (a GEMM with split tiles)");
  cmd->add_flag("--stats", a->stats, "Print pipe and issue-slot utilisations, shared-memory traffic by kind, the simulator's own speed");
  cmd->add_flag("--force", a->force, "Simulate even a configuration estimated to take more than a couple of minutes");
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
    const SimJob job = job_from(a->job);
    const sim::MachineSpec machine = machine_from(a->machine);
    const sim::EngineParams p = sim::engine_params(machine, clock_mhz(a->clock, machine));
    const uint32_t timeline_sms = a->timeline.empty() ? 0 : static_cast<uint32_t>(std::max(a->timeline_sms, 1));
    // The timeline is written after the run (never half of one); a folder that is not there is
    // said now rather than after a long simulation.
    if (const auto dir = std::filesystem::path(a->timeline).parent_path(); !dir.empty() && !std::filesystem::is_directory(dir))
      throw UsageError("cannot write " + a->timeline + ": there is no folder " + dir.string());
    const auto t0 = std::chrono::steady_clock::now();
    sim::SimReport r;
    try {
      r = run_job(job, p, a->force, timeline_sms, a->launch);
    } catch (const sim::SimCancelled& e) {
      std::fprintf(stderr, "tilescope: %s\n", e.what());
      return kExitInterrupted;  // nothing written: the timeline only follows a finished run
    }
    const std::string title = job.title();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!a->timeline.empty()) {
      std::ofstream out(a->timeline);
      if (!out) throw UsageError("cannot write " + a->timeline);
      out << sim::timeline_json(r, p);
    }
    if (a->json) {
      std::cout << report_json(r, p.clock_mhz) << "\n";
    } else {
      std::printf("%s on %s\n", title.c_str(), machine.name.c_str());
      std::printf("predicted time      %10.3f ms   %7.1f TFLOPS   (%.0f cycles at %.0f MHz)\n", r.seconds * 1e3, r.tflops,
                  r.cycles, p.clock_mhz);
      for (const auto& l : r.launches)
        std::printf("  launch %-12s %10.3f ms   (%.0f cycles)\n", l.name.c_str(), l.cycles / (p.clock_mhz * 1e6) * 1e3, l.cycles);
      std::printf("busy                tensor %5.1f %%  TMA %5.1f %%  L2 reads %5.1f %%  L2 stores %5.1f %%  HBM %5.1f %%\n",
                  100 * r.tensor_busy, 100 * r.tma_busy, 100 * r.l2_busy, 100 * r.l2_store_busy, 100 * r.hbm_busy);
      std::printf("bank conflicts      %llu (of %llu wavefronts in register <-> shared moves)\n",
                  (unsigned long long)r.bank_conflicts, (unsigned long long)r.smem_wavefronts);
      std::printf("L2 hit rate         %5.1f %% of the bytes read; %5.1f %% of the L2's lookups (%.0f %% of the bytes looked up,"
                  " the rest served by a lookup in flight)\n",
                  100 * r.l2_hit_rate(), 100 * r.l2_lookup_hit_rate(), 100 * r.l2_lookup_share());
      std::printf("HBM bytes           read %.3f GB  written %.3f GB (of %.3f GB stored; the rest still in L2 at the end)\n",
                  r.hbm_read_bytes / 1e9, r.hbm_write_bytes / 1e9, r.global_write_bytes / 1e9);
      std::printf("grid                %u blocks, %u per SM\n", r.blocks, r.blocks_per_sm);
    }
    if (a->stats) {
      if (!a->json) print_unit_stats(r);
      std::fprintf(a->json ? stderr : stdout, "simulator           %llu ops in %.3f s: %.2f M ops/s\n",
                   (unsigned long long)r.ops, wall, r.ops / wall / 1e6);
    }
    return 0;
  };
}

}  // namespace ts::app
