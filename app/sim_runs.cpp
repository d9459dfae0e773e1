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


sim::SimReport simulate_launches(std::vector<kernels::TracedLaunch>& launches, const SimJob& job, const sim::EngineParams& p,
                                 uint32_t timeline_sms, Progress* progress) {
  sim::SimOptions opt;
  opt.timeline_sms = timeline_sms;
  sim::SimReport total;
  uint64_t blocks_before = 0;  // in the launches already simulated
  for (auto& launch : launches) {
    if (progress) {
      // Blocks as the engine retires them, and the ops it draws (a Ctrl-C seen within a few
      // thousand ops).
      opt.progress = [progress, blocks_before](uint32_t done, uint32_t) {
        progress->blocks_retired(blocks_before + done);
        return !CtrlC::pressed();
      };
      opt.ops_drawn = [progress](uint64_t ops) {
        progress->ops_drawn(ops);
        return !CtrlC::pressed();
      };
    }
    sim::SimReport r = sim::simulate(*launch.grid, p, opt);
    blocks_before += launch.grid->blocks();
    if (launches.size() == 1) {
      total = std::move(r);
    } else {
      total.launches.push_back({launch.name, r.cycles});
      sim::append_launch(total, r, true);
    }
  }
  if (launches.size() > 1) total.seconds = total.cycles / (p.clock_mhz * 1e6);
  // The pass's FLOPs as the bench counts them, when these are all its launches (one of the
  // backward's alone keeps the engine's count of its MMAs).
  if (job.attention && launches.size() == (job.backward ? 3u : 1u))
    total.flops = kernels::attention_flops(job.attention_shape, job.backward);
  // Split-K's two launches (the GEMM and the sum of its K ranges): the GEMM's 2 M N K.
  if (!job.attention && launches.size() > 1)
    total.flops = 2.0 * double(job.gemm_shape.m) * double(job.gemm_shape.n) * double(job.gemm_shape.k);
  total.tflops = total.seconds > 0 ? total.flops / total.seconds / 1e12 : 0;
  return total;
}

sim::SimReport run_job(const SimJob& job, const sim::EngineParams& p, bool force, uint32_t timeline_sms,
                       const std::string& only_launch) {
  CtrlC ctrl_c;  // before the estimate: draining a big block takes a moment too
  auto launches = trace_job(job, p.sms);
  if (!only_launch.empty())
    std::erase_if(launches, [&](const kernels::TracedLaunch& l) { return l.name != only_launch; });
  if (launches.empty()) throw UsageError(job.title() + " has no launch named '" + only_launch + "'");
  const auto estimates = estimate_ops(launches, kRefuseSeconds * kSimOpsPerSecond);
  if (!force) refuse_if_too_long(job, estimates);
  Progress progress("sim", Progress::Items::blocks);
  uint64_t blocks = 0;
  for (size_t i = 0; i < launches.size(); ++i) {
    blocks += launches[i].grid->blocks();
    progress.add_work(estimates[i].ops);
  }
  progress.set_total(blocks);
  try {
    return simulate_launches(launches, job, p, timeline_sms, &progress);
  } catch (const sim::SimCancelled&) {
    progress.finish();
    throw sim::SimCancelled("simulation stopped by Ctrl-C after " + std::to_string(progress.done()) + " of " +
                            std::to_string(progress.total()) + " blocks");
  }
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
                      {"l2_hit_rate", r.l2_hit_rate()}, {"l2_lookup_hit_rate", r.l2_lookup_hit_rate()},
                      {"l2_lookup_share", r.l2_lookup_share()}, {"hbm_read_bytes", r.hbm_read_bytes},
                      {"hbm_write_bytes", r.hbm_write_bytes}, {"global_write_bytes", r.global_write_bytes}, {"blocks", r.blocks},
                      {"blocks_per_sm", r.blocks_per_sm}, {"ops", r.ops}};
  if (!r.launches.empty()) {
    nlohmann::json launches = nlohmann::json::array();
    for (const auto& l : r.launches) launches.push_back({{"name", l.name}, {"cycles", l.cycles}, {"seconds", l.cycles / (clock_mhz * 1e6)}});
    j["launches"] = launches;
  }
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
