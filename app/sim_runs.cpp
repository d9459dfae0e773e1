#include "app/sim_runs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "app/verbs.hpp"
#include "kernels/attention/attention_trace.hpp"
#include "kernels/gemm/gemm_trace.hpp"

namespace ts::app {

sim::MachineSpec machine_from(const std::string& file) {
  try {
    return file.empty() ? sim::load_machine("h100-sxm") : sim::load_machine_file(file);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

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

namespace {

// `next` appended to `total` as the launch that follows it.
void append(sim::SimReport& total, sim::SimReport&& next) {
  const double t0 = total.cycles, t = t0 + next.cycles;
  auto blend = [&](double& a, double b) { a = t > 0 ? (a * t0 + b * next.cycles) / t : 0; };
  blend(total.tensor_busy, next.tensor_busy);
  blend(total.tma_busy, next.tma_busy);
  blend(total.l2_busy, next.l2_busy);
  blend(total.l2_store_busy, next.l2_store_busy);
  blend(total.hbm_busy, next.hbm_busy);
  for (int i = 0; i < sim::kPipes; ++i) {
    blend(total.pipe_busy[i], next.pipe_busy[i]);
    total.pipe_instructions[i] += next.pipe_instructions[i];
  }
  for (size_t i = 0; i < total.issue_busy.size(); ++i) blend(total.issue_busy[i], next.issue_busy[i]);
  for (int st = 0; st < 2; ++st)
    for (int w = 0; w < sim::kSmemWalks; ++w) {
      auto &a = total.smem[st][w], &b = next.smem[st][w];
      a.instructions += b.instructions, a.wavefronts += b.wavefronts, a.conflicts += b.conflicts;
    }
  total.bank_conflicts += next.bank_conflicts;
  total.smem_wavefronts += next.smem_wavefronts;
  total.l2_hits += next.l2_hits, total.l2_misses += next.l2_misses;
  total.l2_hit_bytes += next.l2_hit_bytes, total.hbm_read_bytes += next.hbm_read_bytes;
  total.hbm_write_bytes += next.hbm_write_bytes;
  total.ops += next.ops;
  total.blocks += next.blocks;
  total.blocks_per_sm = std::max(total.blocks_per_sm, next.blocks_per_sm);
  for (sim::Span s : next.spans) {
    s.start += t0, s.end += t0;
    total.spans.push_back(s);
  }
  total.cycles = t;
}

}  // namespace

sim::SimReport simulate_attention(const kernels::AttentionShape& shape, bool backward, const kernels::AttentionConfig& cfg,
                                  const sim::EngineParams& p, const sim::SimOptions& opt) {
  std::vector<kernels::TracedLaunch> launches;
  try {
    launches = kernels::attention_grid_traces(shape, backward, cfg);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  sim::SimReport total;
  for (auto& launch : launches) append(total, sim::simulate(*launch.grid, p, opt));
  total.seconds = total.cycles / (p.clock_mhz * 1e6);
  total.flops = kernels::attention_flops(shape, backward);
  total.tflops = total.seconds > 0 ? total.flops / total.seconds / 1e12 : 0;
  return total;
}

std::string report_json(const sim::SimReport& r, double clock_mhz) {
  nlohmann::json pipes, issue = nlohmann::json::array(), smem = nlohmann::json::array();
  for (int i = 0; i < sim::kPipes; ++i)
    pipes[std::string(sim::pipe_name(static_cast<sim::Pipe>(i)))] = {{"busy", r.pipe_busy[i]},
                                                                    {"instructions", r.pipe_instructions[i]}};
  for (double b : r.issue_busy) issue.push_back(b);
  for (int st = 0; st < 2; ++st)
    for (int w = 0; w < sim::kSmemWalks; ++w) {
      const sim::SmemStats& s = r.smem[st][w];
      if (s.instructions == 0) continue;
      smem.push_back({{"kind", std::string(st ? "store " : "load ") + std::string(sim::smem_walk_name(static_cast<sim::SmemWalk>(w)))},
                      {"instructions", s.instructions}, {"wavefronts", s.wavefronts}, {"bank_conflicts", s.conflicts}});
    }
  nlohmann::json j = {{"seconds", r.seconds},         {"cycles", r.cycles},       {"clock_mhz", clock_mhz},
                      {"tflops", r.tflops},           {"flops", r.flops},
                      {"tensor_busy", r.tensor_busy}, {"tma_busy", r.tma_busy},
                      {"l2_busy", r.l2_busy},         {"l2_store_busy", r.l2_store_busy}, {"hbm_busy", r.hbm_busy},
                      {"pipes", pipes},               {"issue_busy_per_sub_partition", issue},
                      {"bank_conflicts", r.bank_conflicts}, {"smem_wavefronts", r.smem_wavefronts},
                      {"smem_by_kind", smem},
                      {"l2_hit_rate", r.l2_hit_rate()}, {"hbm_read_bytes", r.hbm_read_bytes},
                      {"hbm_write_bytes", r.hbm_write_bytes}, {"blocks", r.blocks},
                      {"blocks_per_sm", r.blocks_per_sm}, {"ops", r.ops}};
  return j.dump(2);
}

void print_unit_stats(const sim::SimReport& r) {
  std::printf("pipes (busy)        tensor %5.1f %%", 100 * r.tensor_busy);
  for (int i = 0; i < sim::kPipes; ++i)
    std::printf("  %s %5.1f %%", std::string(sim::pipe_name(static_cast<sim::Pipe>(i))).c_str(), 100 * r.pipe_busy[i]);
  std::printf("\nissue slots (used)  ");
  for (size_t i = 0; i < r.issue_busy.size(); ++i) std::printf("sub-partition %zu %5.1f %%  ", i, 100 * r.issue_busy[i]);
  std::printf("(register math only)\n");
  for (int st = 0; st < 2; ++st)
    for (int w = 0; w < sim::kSmemWalks; ++w) {
      const sim::SmemStats& s = r.smem[st][w];
      if (s.instructions == 0) continue;
      std::printf("shared %-5s %-24s %12llu instructions %12llu wavefronts %12llu conflicts\n", st ? "store" : "load",
                  std::string(sim::smem_walk_name(static_cast<sim::SmemWalk>(w))).c_str(),
                  (unsigned long long)s.instructions, (unsigned long long)s.wavefronts, (unsigned long long)s.conflicts);
    }
}

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

}  // namespace ts::app
