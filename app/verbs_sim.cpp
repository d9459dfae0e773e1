// `tilescope sim`: a kernel's own op streams (its source in trace mode) replayed on the machine
// model: the GEMM in any configuration, attention forward or backward.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "app/sim_runs.hpp"
#include "app/verbs.hpp"
#include "sim/engine.hpp"

namespace ts::app {

VerbRun add_sim_verb(CLI::App& cli) {
  struct Args {
    std::string kernel, order = "grouped", persistent = "on", machine, timeline, clock = "sustained";
    int64_t m = 4096, n = 4096, k = 4096;
    int stages = 4, block_n = 256, consumers = 0, timeline_sms = 2;
    int64_t batch = 1, heads = 16, heads_kv = 0, seq = 4096, dim = 128;
    int overlap = -1;
    bool json = false, stats = false, b_col_major = false, causal = false, bwd = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand("sim", "Predict a kernel's time on the machine model from its own op streams");
  cmd->add_option("kernel", a->kernel, "Kernel: gemm or attention")->required();
  cmd->add_option("--m", a->m, "gemm: rows of A and C");
  cmd->add_option("--n", a->n, "gemm: columns of B and C; attention: sequence length");
  cmd->add_option("--k", a->k, "gemm: columns of A, rows of B");
  cmd->add_option("--stages", a->stages, "gemm: pipeline stages, 1..4");
  cmd->add_option("--block-n", a->block_n, "gemm: output tile width, 128 or 256");
  cmd->add_option("--consumers", a->consumers, "Consumer warpgroups of 64 rows (gemm: 1 or 2, default 2; attention forward: 2 or 3, default per head size)");
  cmd->add_option("--order", a->order, "gemm: block order: row, col, grouped, grouped:G");
  cmd->add_option("--persistent", a->persistent, "gemm: on: one block per SM looping over tiles; off: one block per tile");
  cmd->add_flag("--b-col-major", a->b_col_major, "gemm: B stored N x K");
  cmd->add_option("--b", a->batch, "attention: batch");
  cmd->add_option("--h", a->heads, "attention: query heads");
  cmd->add_option("--hkv", a->heads_kv, "attention: key/value heads (default: --h)");
  cmd->add_option("--d", a->dim, "attention: head dimension, 64 or 128");
  cmd->add_flag("--causal", a->causal, "attention: causal mask");
  cmd->add_flag("--bwd", a->bwd, "attention: the backward pass (its three launches) instead of the forward");
  cmd->add_option("--overlap", a->overlap, "attention forward: 1: each warpgroup overlaps its softmax with its previous P V; 0: not");
  cmd->add_option("--machine", a->machine, "Machine file (default data/machines/h100-sxm.json)");
  cmd->add_option("--clock", a->clock,
                  "SM clock: sustained (power-limited, back-to-back launches; the default), boost (one launch after idle) or MHz");
  cmd->add_flag("--json", a->json, "Print the report as JSON");
  cmd->add_option("--timeline", a->timeline, "Write per-warp spans (Chrome trace format, opens in Perfetto)");
  cmd->add_option("--timeline-sms", a->timeline_sms, "How many SMs the timeline shows");
  cmd->add_flag("--stats", a->stats, "Print pipe and issue-slot utilisations, shared-memory traffic by kind, the simulator's own speed");
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
    if (a->kernel != "gemm" && a->kernel != "attention")
      throw UsageError("unknown kernel '" + a->kernel + "' (expected: gemm or attention)");
    const bool gemm = a->kernel == "gemm";
    const sim::MachineSpec machine = machine_from(a->machine);
    const sim::EngineParams p = sim::engine_params(machine, clock_mhz(a->clock, machine));
    sim::SimOptions opt;
    if (!a->timeline.empty()) opt.timeline_sms = static_cast<uint32_t>(std::max(a->timeline_sms, 1));
    const auto t0 = std::chrono::steady_clock::now();
    sim::SimReport r;
    std::string title;
    if (gemm) {
      kernels::GemmConfig cfg;
      cfg.stages = a->stages;
      cfg.block_n = a->block_n;
      cfg.consumers = a->consumers == 0 ? 2 : a->consumers;
      cfg.b_row_major = !a->b_col_major;
      const auto order = sched::parse_order(a->order);
      if (!order) throw UsageError("unknown order '" + a->order + "' (expected row, col, grouped or grouped:G)");
      cfg.order = *order;
      if (a->persistent != "on" && a->persistent != "off") throw UsageError("--persistent takes on or off");
      cfg.persistent = a->persistent == "on";
      r = simulate_gemm({a->m, a->n, a->k}, cfg, p, opt);
      title = "gemm " + std::to_string(a->m) + "x" + std::to_string(a->n) + "x" + std::to_string(a->k) + " " + kernels::describe(cfg);
    } else {
      kernels::AttentionShape s;
      s.batch = a->batch, s.heads_q = a->heads, s.heads_kv = a->heads_kv == 0 ? a->heads : a->heads_kv;
      s.seq = a->n, s.dim = a->dim, s.causal = a->causal;
      kernels::AttentionConfig cfg{a->consumers, a->overlap};
      if (a->bwd && (a->consumers != 0 || a->overlap != -1))
        throw UsageError("--consumers and --overlap are knobs of the attention forward");
      r = simulate_attention(s, a->bwd, cfg, p, opt);
      title = kernels::describe(s) + (a->bwd ? " backward" : " forward");
    }
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
      std::printf("busy                tensor %5.1f %%  TMA %5.1f %%  L2 reads %5.1f %%  L2 stores %5.1f %%  HBM %5.1f %%\n",
                  100 * r.tensor_busy, 100 * r.tma_busy, 100 * r.l2_busy, 100 * r.l2_store_busy, 100 * r.hbm_busy);
      std::printf("bank conflicts      %llu (of %llu wavefronts in register <-> shared moves)\n",
                  (unsigned long long)r.bank_conflicts, (unsigned long long)r.smem_wavefronts);
      std::printf("L2 hit rate         %5.1f %%\n", 100 * r.l2_hit_rate());
      std::printf("HBM bytes           read %.3f GB  written %.3f GB\n", r.hbm_read_bytes / 1e9, r.hbm_write_bytes / 1e9);
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
