#include "viz/lesson/attention_sim.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>

#include <sys/resource.h>

#include "kernels/attention/attention_layout.hpp"
#include "kernels/attention/attention_trace.hpp"
#include "sim/machine.hpp"

namespace ts::viz {

std::string AttentionRun::key() const {
  const auto& s = shape;
  kernels::AttentionConfig c = cfg;
  try {
    if (!backward) c = kernels::resolve(s, cfg);
  } catch (const std::exception&) {  // simulate_attention_run says why; the key only has to differ
  }
  return "attention " + machine + (clock_mhz > 0 ? " @" + std::to_string(std::lround(clock_mhz)) + "MHz " : " ") +
         kernels::describe(s) + (backward ? " backward" : " forward consumers " + std::to_string(c.consumers) +
                                                              " overlap " + std::to_string(c.overlap));
}

uint64_t AttentionRun::work() const {
  const auto& s = shape;
  const uint64_t kv_blocks = kernels::ceil_div(s.seq, 128);
  const uint64_t q_blocks = kernels::ceil_div(s.seq, 64);  // per 64 query rows, both passes
  const uint64_t heads = uint64_t(s.batch) * uint64_t(s.heads_q);
  const uint64_t pairs = heads * q_blocks * kv_blocks;
  return (s.causal ? (pairs + heads * q_blocks) / 2 : pairs) * (backward ? 3 : 1);
}

namespace {


const sim::MachineSpec& machine_spec(const std::string& id) {
  static std::mutex lock;
  static std::map<std::string, sim::MachineSpec> loaded;
  const std::lock_guard<std::mutex> guard(lock);
  auto it = loaded.find(id);
  if (it == loaded.end()) it = loaded.emplace(id, sim::load_machine(id)).first;
  return it->second;
}

// Each block's first and last cycle, from every SM's spans; then only SMs 0..kTimelineSms-1 keep theirs.
std::vector<BlockSpan> block_spans(sim::SimReport& r) {
  std::vector<BlockSpan> blocks(r.blocks);
  std::vector<bool> seen(r.blocks, false);
  for (const sim::Span& s : r.spans) {
    if (s.block >= blocks.size()) continue;
    BlockSpan& b = blocks[s.block];
    if (!seen[s.block]) b = {s.block, s.sm, s.start, s.end}, seen[s.block] = true;
    b.start = std::min(b.start, s.start);
    b.end = std::max(b.end, s.end);
  }
  std::erase_if(r.spans, [](const sim::Span& s) { return s.sm >= kTimelineSms; });
  r.spans.shrink_to_fit();
  return blocks;
}

}  // namespace

std::shared_ptr<const AttentionSim> simulate_attention_run(const AttentionRun& run) {
  auto out = std::make_shared<AttentionSim>();
  out->run = run;
  try {
    const sim::EngineParams p = sim::engine_params(machine_spec(run.machine), run.clock_mhz);
    out->clock_mhz = p.clock_mhz;
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = thread_cpu_ms();
    auto launches = kernels::attention_grid_traces(run.shape, run.backward, run.cfg, static_cast<int>(p.sms));
    sim::SimOptions opt;
    // Quick runs record every SM's spans, for each block's start and end (the causal scene's
    // per-CTA work and tail); slow ones the timeline SMs only.
    opt.timeline_sms = run.quick() ? p.sms : kTimelineSms;
    for (auto& launch : launches) {
      AttentionLaunchSim l;
      l.name = launch.name;
      l.start = out->cycles;
      l.report = sim::simulate(*launch.grid, p, opt);
      if (run.quick()) l.blocks = block_spans(l.report);
      out->cycles += l.report.cycles;
      out->launches.push_back(std::move(l));
    }
    out->seconds = out->cycles / (p.clock_mhz * 1e6);
    out->flops = kernels::attention_flops(run.shape, run.backward);
    out->tflops = out->seconds > 0 ? out->flops / out->seconds / 1e12 : 0;
    out->wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out->cpu_ms = thread_cpu_ms() - cpu_start;
  } catch (const std::exception& e) {
    out->error = e.what();
  }
  return out;
}

std::shared_ptr<const AttentionSim> get_attention(SimCache& sims, const AttentionRun& run) {
  return std::static_pointer_cast<const AttentionSim>(
      sims.get_job(run.key(), run.quick(), [run] { return simulate_attention_run(run); }));
}

std::shared_ptr<const AttentionSim> get_attention_now(SimCache& sims, const AttentionRun& run) {
  return std::static_pointer_cast<const AttentionSim>(
      sims.get_job_now(run.key(), run.quick(), [run] { return simulate_attention_run(run); }));
}

}  // namespace ts::viz
