// `tilescope sim` and `tilescope compare`: the GEMM's own op streams replayed on the machine model,
// alone or against every measured row.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>

#include <nlohmann/json.hpp>

#include "app/verbs.hpp"
#include "kernels/gemm/gemm_trace.hpp"
#include "sim/engine.hpp"
#include "sim/machine.hpp"

namespace ts::app {

namespace {

sim::MachineSpec machine_from(const std::string& file) {
  try {
    return file.empty() ? sim::load_machine("h100-sxm") : sim::load_machine_file(file);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

// --clock: sustained, boost or a number of MHz.
double clock_mhz(const std::string& clock, const sim::MachineSpec& m) {
  if (clock == "sustained") return m.sm_clock_gemm_sustained.value;
  if (clock == "boost") return m.sm_clock_boost.value;
  char* end = nullptr;
  const double mhz = std::strtod(clock.c_str(), &end);
  if (end == clock.c_str() || *end != '\0' || !(mhz >= 100 && mhz <= 5000))
    throw UsageError("--clock takes sustained, boost or a clock in MHz (100..5000); got '" + clock + "'");
  return mhz;
}

sim::SimReport simulate_gemm(const kernels::GemmShape& shape, const kernels::GemmConfig& cfg, const sim::EngineParams& p,
                             const sim::SimOptions& opt) {
  std::unique_ptr<sim::GridTrace> grid;
  try {
    grid = kernels::gemm_grid_trace(shape, cfg, static_cast<int>(p.sms));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return sim::simulate(*grid, p, opt);
}

std::string report_json(const sim::SimReport& r, double clock_mhz) {
  nlohmann::json j = {{"seconds", r.seconds},         {"cycles", r.cycles},       {"clock_mhz", clock_mhz},
                      {"tflops", r.tflops},           {"flops", r.flops},
                      {"tensor_busy", r.tensor_busy}, {"tma_busy", r.tma_busy},
                      {"l2_busy", r.l2_busy},         {"l2_store_busy", r.l2_store_busy}, {"hbm_busy", r.hbm_busy},
                      {"bank_conflicts", r.bank_conflicts}, {"smem_wavefronts", r.smem_wavefronts},
                      {"l2_hit_rate", r.l2_hit_rate()}, {"hbm_read_bytes", r.hbm_read_bytes},
                      {"hbm_write_bytes", r.hbm_write_bytes}, {"blocks", r.blocks},
                      {"blocks_per_sm", r.blocks_per_sm}, {"ops", r.ops}};
  return j.dump(2);
}

// Spearman rank correlation (average ranks for ties).
double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<size_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < idx.size();) {
      size_t j = i;
      while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
      for (size_t k = i; k <= j; ++k) r[idx[k]] = (i + j) / 2.0;
      i = j + 1;
    }
    return r;
  };
  const auto ra = ranks(a), rb = ranks(b);
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / ra.size(), mb = std::accumulate(rb.begin(), rb.end(), 0.0) / rb.size();
  double num = 0, da = 0, db = 0;
  for (size_t i = 0; i < ra.size(); ++i) num += (ra[i] - ma) * (rb[i] - mb), da += (ra[i] - ma) * (ra[i] - ma), db += (rb[i] - mb) * (rb[i] - mb);
  return da > 0 && db > 0 ? num / std::sqrt(da * db) : 0;
}

}  // namespace

VerbRun add_sim_verb(CLI::App& cli) {
  struct Args {
    std::string kernel, order = "grouped", persistent = "on", machine, timeline, clock = "sustained";
    int64_t m = 4096, n = 4096, k = 4096;
    int stages = 4, block_n = 256, consumers = 2, timeline_sms = 2;
    bool json = false, stats = false, b_col_major = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand("sim", "Predict a kernel's time on the machine model from its own op streams");
  cmd->add_option("kernel", a->kernel, "Kernel: gemm")->required();
  cmd->add_option("--m", a->m, "Rows of A and C");
  cmd->add_option("--n", a->n, "Columns of B and C");
  cmd->add_option("--k", a->k, "Columns of A, rows of B");
  cmd->add_option("--stages", a->stages, "Pipeline stages, 1..4");
  cmd->add_option("--block-n", a->block_n, "Output tile width, 128 or 256");
  cmd->add_option("--consumers", a->consumers, "Consumer warpgroups of 64 rows, 1 or 2");
  cmd->add_option("--order", a->order, "Block order: row, col, grouped, grouped:G");
  cmd->add_option("--persistent", a->persistent, "on: one block per SM looping over tiles; off: one block per tile");
  cmd->add_flag("--b-col-major", a->b_col_major, "B stored N x K");
  cmd->add_option("--machine", a->machine, "Machine file (default data/machines/h100-sxm.json)");
  cmd->add_option("--clock", a->clock,
                  "SM clock: sustained (power-limited, back-to-back launches; the default), boost (one launch after idle) or MHz");
  cmd->add_flag("--json", a->json, "Print the report as JSON");
  cmd->add_option("--timeline", a->timeline, "Write per-warp spans (Chrome trace format, opens in Perfetto)");
  cmd->add_option("--timeline-sms", a->timeline_sms, "How many SMs the timeline shows");
  cmd->add_flag("--stats", a->stats, "Print the simulator's own speed");
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
    if (a->kernel != "gemm") throw UsageError("unknown kernel '" + a->kernel + "' (expected: gemm)");
    kernels::GemmConfig cfg;
    cfg.stages = a->stages;
    cfg.block_n = a->block_n;
    cfg.consumers = a->consumers;
    cfg.b_row_major = !a->b_col_major;
    const auto order = sched::parse_order(a->order);
    if (!order) throw UsageError("unknown order '" + a->order + "' (expected row, col, grouped or grouped:G)");
    cfg.order = *order;
    if (a->persistent != "on" && a->persistent != "off") throw UsageError("--persistent takes on or off");
    cfg.persistent = a->persistent == "on";
    const sim::MachineSpec machine = machine_from(a->machine);
    const sim::EngineParams p = sim::engine_params(machine, clock_mhz(a->clock, machine));
    sim::SimOptions opt;
    if (!a->timeline.empty()) opt.timeline_sms = static_cast<uint32_t>(std::max(a->timeline_sms, 1));
    const auto t0 = std::chrono::steady_clock::now();
    const sim::SimReport r = simulate_gemm({a->m, a->n, a->k}, cfg, p, opt);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!a->timeline.empty()) {
      std::ofstream out(a->timeline);
      if (!out) throw UsageError("cannot write " + a->timeline);
      out << sim::timeline_json(r, p);
    }
    if (a->json) {
      std::cout << report_json(r, p.clock_mhz) << "\n";
    } else {
      std::printf("gemm %lldx%lldx%lld %s on %s\n", (long long)a->m, (long long)a->n, (long long)a->k,
                  kernels::describe(cfg).c_str(), machine.name.c_str());
      std::printf("predicted time      %10.3f ms   %7.1f TFLOPS   (%.0f cycles at %.0f MHz)\n", r.seconds * 1e3, r.tflops,
                  r.cycles, p.clock_mhz);
      std::printf("busy                tensor %5.1f %%  TMA %5.1f %%  L2 reads %5.1f %%  L2 stores %5.1f %%  HBM %5.1f %%\n",
                  100 * r.tensor_busy, 100 * r.tma_busy, 100 * r.l2_busy, 100 * r.l2_store_busy, 100 * r.hbm_busy);
      std::printf("bank conflicts      %llu (of %llu wavefronts in shared stores)\n", (unsigned long long)r.bank_conflicts,
                  (unsigned long long)r.smem_wavefronts);
      std::printf("L2 hit rate         %5.1f %%\n", 100 * r.l2_hit_rate());
      std::printf("HBM bytes           read %.3f GB  written %.3f GB\n", r.hbm_read_bytes / 1e9, r.hbm_write_bytes / 1e9);
      std::printf("grid                %u blocks, %u per SM\n", r.blocks, r.blocks_per_sm);
    }
    if (a->stats)
      std::printf("simulator           %llu ops in %.3f s: %.2f M ops/s\n", (unsigned long long)r.ops, wall, r.ops / wall / 1e6);
    return 0;
  };
}

VerbRun add_compare_verb(CLI::App& cli) {
  struct Args {
    std::string measured, machine;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand("compare", "Every measured row beside its simulation: error, MAPE, rank correlation");
  cmd->add_option("--measured", a->measured, "Measured JSON (default data/measured/h100/gemm.json)");
  cmd->add_option("--machine", a->machine, "Machine file (default data/machines/h100-sxm.json)");
  return [cmd, a]() -> int {
    if (!cmd->parsed()) return -1;
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
    const sim::EngineParams p = sim::engine_params(machine);
    std::vector<double> measured, simulated;
    double abs_pct = 0;
    std::printf("%-7s %-17s %-44s %9s %9s %8s\n", "sweep", "M x N x K", "config", "measured", "simulated", "error");
    for (const auto& row : doc.at("rows")) {
      kernels::GemmConfig cfg;
      cfg.stages = row.at("stages");
      cfg.block_n = row.at("block_n");
      cfg.consumers = row.value("consumers", 2);
      cfg.persistent = row.at("persistent");
      cfg.b_row_major = row.at("b_row_major");
      cfg.out = row.at("out") == "bf16" ? kernels::OutType::bf16 : kernels::OutType::fp32;
      const auto order = sched::parse_order(row.at("order").get<std::string>());
      cfg.order = order.value_or(sched::OrderSpec{});
      if (cfg.order.order == sched::Order::grouped) cfg.order.group = row.value("group_size", 8);
      const kernels::GemmShape shape{row.at("m"), row.at("n"), row.at("k")};
      const double meas = row.at("tflops");
      // The simulator counts cycles; a row that recorded the clock it ran at is timed at that clock.
      const double row_clock = row.value("sm_clock_mhz", 0.0);
      const double simu = simulate_gemm(shape, cfg, row_clock > 0 ? sim::engine_params(machine, row_clock) : p, {}).tflops;
      const double err = 100 * (simu - meas) / meas;
      measured.push_back(meas);
      simulated.push_back(simu);
      abs_pct += std::fabs(err);
      char s[48];
      std::snprintf(s, sizeof s, "%lldx%lldx%lld", (long long)shape.m, (long long)shape.n, (long long)shape.k);
      std::printf("%-7s %-17s %-44s %9.1f %9.1f %7.1f%%\n", row.value("group", "").c_str(), s,
                  kernels::describe(cfg).substr(0, 44).c_str(), meas, simu, err);
    }
    if (measured.empty()) throw UsageError(path + ": no rows");
    std::printf("\n%zu rows (TFLOPS), measured on %s, %s\nMAPE %.1f %%   Spearman rank correlation %.3f\n", measured.size(),
                doc.value("device", "?").c_str(), doc.value("date", "?").c_str(), abs_pct / measured.size(),
                spearman(measured, simulated));
    return 0;
  };
}

}  // namespace ts::app
