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

#include "app/sim_runs.hpp"
#include "app/verbs.hpp"

namespace ts::app {

namespace {

struct Row {
  std::string group, shape, config;
  double measured = 0, simulated = 0;
  std::function<double()> simulate;  // TFLOPS
};

std::vector<Row> gemm_rows(const nlohmann::json& doc, const sim::MachineSpec& machine) {
  std::vector<Row> rows;
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
    // The simulator counts cycles; a row that recorded the clock it ran at is timed at that clock.
    const double clock = row.value("sm_clock_mhz", 0.0);
    char s[48];
    std::snprintf(s, sizeof s, "%lldx%lldx%lld", (long long)shape.m, (long long)shape.n, (long long)shape.k);
    rows.push_back({row.value("group", ""), s, kernels::describe(cfg), row.at("tflops"), 0, [=, &machine] {
                      return simulate_gemm(shape, cfg, sim::engine_params(machine, clock), {}).tflops;
                    }});
  }
  return rows;
}

std::vector<Row> attention_rows(const nlohmann::json& doc, const sim::MachineSpec& machine) {
  std::vector<Row> rows;
  for (const auto& row : doc.at("rows")) {
    kernels::AttentionShape s;
    s.batch = row.at("b"), s.heads_q = row.at("h_q"), s.heads_kv = row.at("h_kv");
    s.seq = row.at("n"), s.dim = row.at("d"), s.causal = row.at("causal");
    const bool bwd = row.at("pass") == "bwd";
    const double clock = row.value("sm_clock_mhz", 0.0);
    char shape[64];
    std::snprintf(shape, sizeof shape, "B%lld H%lld N%lld D%lld", (long long)s.batch, (long long)s.heads_q, (long long)s.seq,
                  (long long)s.dim);
    rows.push_back({row.value("group", ""), shape, std::string(bwd ? "backward" : "forward") + (s.causal ? " causal" : ""),
                    row.at("tflops"), 0, [=, &machine] {
                      return simulate_attention(s, bwd, {}, sim::engine_params(machine, clock), {}).tflops;
                    }});
  }
  return rows;
}

// Runs every row's simulation on all cores, with a progress line on stderr.
void simulate_all(std::vector<Row>& rows) {
  std::atomic<size_t> next{0}, done{0};
  std::mutex m;
  std::exception_ptr error;
  const auto t0 = std::chrono::steady_clock::now();
  auto work = [&] {
    for (size_t i; (i = next++) < rows.size();) {
      try {
        rows[i].simulated = rows[i].simulate();
      } catch (...) {
        std::lock_guard lock(m);
        if (!error) error = std::current_exception();
      }
      std::lock_guard lock(m);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "\rcompare: %zu of %zu rows simulated (%.0f s)   ", ++done, rows.size(), s);
    }
  };
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  std::fprintf(stderr, "\n");
  if (error) std::rethrow_exception(error);
}

}  // namespace

VerbRun add_compare_verb(CLI::App& cli) {
  struct Args {
    std::string measured, machine;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand("compare", "Every measured row beside its simulation: error, MAPE, rank correlation");
  cmd->add_option("--measured", a->measured,
                  "Measured JSON: a GEMM or attention bench file (default data/measured/h100/gemm.json)");
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
    std::vector<Row> rows;
    try {
      rows = doc.value("kernel", "gemm") == "attention" ? attention_rows(doc, machine) : gemm_rows(doc, machine);
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(path + ": " + e.what());
    }
    if (rows.empty()) throw UsageError(path + ": no rows");
    simulate_all(rows);
    std::vector<double> measured, simulated;
    double abs_pct = 0;
    std::printf("%-7s %-22s %-44s %9s %9s %8s\n", "sweep", "shape", "config", "measured", "simulated", "error");
    for (const Row& r : rows) {
      const double err = 100 * (r.simulated - r.measured) / r.measured;
      measured.push_back(r.measured);
      simulated.push_back(r.simulated);
      abs_pct += std::fabs(err);
      std::printf("%-7s %-22s %-44s %9.1f %9.1f %7.1f%%\n", r.group.c_str(), r.shape.c_str(), r.config.substr(0, 44).c_str(),
                  r.measured, r.simulated, err);
    }
    std::printf("\n%zu rows (TFLOPS), measured on %s, %s\nMAPE %.1f %%   Spearman rank correlation %.3f\n", rows.size(),
                doc.value("device", "?").c_str(), doc.value("date", "?").c_str(), abs_pct / rows.size(),
                spearman(measured, simulated));
    return 0;
  };
}

}  // namespace ts::app
