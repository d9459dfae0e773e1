#include "viz/lesson/gemm_sim.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <sys/resource.h>
#include <unistd.h>

#include "kernels/gemm/gemm_trace.hpp"
#include "sim/machine.hpp"
#include "tiles/sched/block_order.hpp"
#include "viz/lesson/gemm_tiles.hpp"
#include "viz/lesson/measured.hpp"

namespace ts::viz {

std::string GemmRun::key() const {
  return machine + (clock_mhz > 0 ? " @" + std::to_string(std::lround(clock_mhz)) + "MHz " : " ") + std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k) + " " +
         kernels::describe(cfg) + (tile_l2 ? " +tile-l2" : "");
}

uint64_t GemmRun::tile_iterations() const {
  const uint64_t block_m = 64 * cfg.consumers;
  const uint64_t tiles_m = (shape.m + block_m - 1) / block_m, tiles_n = (shape.n + cfg.block_n - 1) / cfg.block_n;
  const uint64_t block_k = static_cast<uint64_t>(kernels::gemm_block_k(cfg));  // 64 bf16, 128 fp8
  return tiles_m * tiles_n * uint64_t((shape.k + block_k - 1) / block_k);
}

namespace {

sim::EngineParams params_for(const std::string& machine, double clock_mhz) {
  static std::mutex lock;
  static std::map<std::string, sim::MachineSpec> loaded;
  const std::lock_guard<std::mutex> guard(lock);
  auto it = loaded.find(machine);
  if (it == loaded.end()) it = loaded.emplace(machine, sim::load_machine(machine)).first;
  return sim::engine_params(it->second, clock_mhz);
}

// The configuration with the K ranges its launches have on `machine` (split_k 0 and tail_split 0 resolved).
kernels::GemmConfig with_ranges(const kernels::GemmShape& shape, const kernels::GemmConfig& cfg, const std::string& machine) {
  if (!kernels::validate(shape, cfg).empty()) return kernels::with_k_splits(shape, cfg, machine_sms(machine));  // refused later, with its reason
  return kernels::with_plan(cfg, kernels::gemm_plan(shape, cfg, machine_sms(machine)));
}

}  // namespace

int machine_sms(const std::string& machine) { return static_cast<int>(params_for(machine, 0).sms); }

kernels::GemmConfig gemm_config(const GemmKnobs& g) {
  kernels::GemmConfig cfg;
  cfg.stages = static_cast<int>(g.stages);
  cfg.block_n = static_cast<int>(g.block_n);
  cfg.persistent = g.persistent;
  cfg.cluster = static_cast<int>(g.cluster);
  cfg.split_k = static_cast<int>(g.split_k);
  cfg.tail_split = static_cast<int>(g.tail_split);  // off unless a scene asks (the sweeps ran without)
  if (g.in == InKnob::fp8) {  // the fp8 instance: wgmma reads fp8 operands K-major only, so B is N x K
    cfg.in = kernels::InType::fp8;
    cfg.b_row_major = false;
  }
  switch (g.order) {
    case OrderKnob::row: cfg.order = {sched::Order::row_major, 1}; break;
    case OrderKnob::col: cfg.order = {sched::Order::col_major, 1}; break;
    case OrderKnob::grouped: cfg.order = {sched::Order::grouped, static_cast<int>(g.group)}; break;
  }
  return cfg;
}

GemmRun gemm_run(const GemmKnobs& g) {
  GemmRun run;
  run.shape = {g.m, g.n, g.k};
  run.cfg = with_ranges(run.shape, gemm_config(g), run.machine);
  const MeasuredData& md = measured_data();
  if (const MeasuredGemm* row = find_measured(md, run.shape, run.cfg)) {
    run.clock_mhz = row->sm_clock_mhz;
    return run;
  }
  // A configuration the H100 did not run is timed at the clock of one it did run at this shape
  // (the default configuration's first), so that a scene comparing the two (persistent on and off,
  // one stage count and another) compares cycles, not two clocks.
  GemmKnobs base;
  base.m = g.m, base.n = g.n, base.k = g.k;
  base.in = g.in;  // fp8 at the clock of the fp8 run (gemm-fp8.json), bf16 at the bf16 one's
  if (const MeasuredGemm* row = find_measured(md, run.shape, with_ranges(run.shape, gemm_config(base), run.machine))) {
    run.clock_mhz = row->sm_clock_mhz;
    return run;
  }
  // Else any run at this shape, of the same input type first.
  for (const auto* rows : {g.in == InKnob::fp8 ? &md.fp8 : &md.gemm, &md.gemm})
    for (const MeasuredGemm& row : *rows)
      if (row.shape.m == run.shape.m && row.shape.n == run.shape.n && row.shape.k == run.shape.k && row.sm_clock_mhz > 0) {
        run.clock_mhz = row.sm_clock_mhz;
        return run;
      }
  return run;
}

std::optional<GemmRun> scene_run(const SceneState& state) {
  if (const auto* s = std::get_if<PipelineState>(&state)) return gemm_run(s->gemm);
  if (const auto* s = std::get_if<GridState>(&state)) {
    GemmRun run = gemm_run(s->gemm);
    run.tile_l2 = s->colour == TileColour::l2;
    return run;
  }
  if (const auto* s = std::get_if<BarriersState>(&state)) return gemm_run(s->gemm);
  if (const auto* s = std::get_if<RegistersState>(&state)) return gemm_run(s->gemm);
  return std::nullopt;
}

namespace {



// Which output tile each TMA load fed: a block's loads come in program order, the same number for
// each of its tiles, and its tiles are the block-order steps b, b + grid, b + 2 grid, ..., each
// the tile the kernel's own tile_index gives (cluster by cluster). A CTA of a cluster that
// overhangs M computes no tile: its loads (its share of B, for its peer) are left out.
void tile_l2_from_events(GemmSim& out, int sms) {
  const GemmTileOrder order = gemm_tile_order(out.run.shape, out.run.cfg, sms);
  const auto steps = static_cast<uint32_t>(order.steps.size());
  out.tiles.assign(size_t(out.tiles_m) * out.tiles_n, {});
  std::vector<std::vector<const sim::BarrierEvent*>> loads(out.grid);
  for (const auto& e : out.report.barrier_events)
    if (e.kind == sim::BarrierEvent::Kind::tma_issue && e.block < out.grid) loads[e.block].push_back(&e);
  for (uint32_t b = 0; b < out.grid; ++b) {
    const uint32_t tiles_of_block = b < steps ? (steps - b + out.grid - 1) / out.grid : 0;
    if (tiles_of_block == 0 || loads[b].empty()) continue;
    const size_t per_tile = std::max<size_t>(1, loads[b].size() / tiles_of_block);
    for (size_t j = 0; j < loads[b].size(); ++j) {
      const uint32_t index = b + out.grid * static_cast<uint32_t>(std::min<size_t>(j / per_tile, tiles_of_block - 1));
      const sched::TileIndex t = order.steps[index];
      if (!order.real(t)) continue;
      TileL2& tile = out.tiles[size_t(t.m) * out.tiles_n + t.n];
      (loads[b][j]->l2_hit ? tile.hit_bytes : tile.miss_bytes) += loads[b][j]->bytes;
    }
  }
  // Keep only what the timeline scenes draw: the events of the first SMs.
  auto& ev = out.report.barrier_events;
  ev.erase(std::remove_if(ev.begin(), ev.end(), [](const sim::BarrierEvent& e) { return e.sm >= kTimelineSms; }),
           ev.end());
  ev.shrink_to_fit();
}

}  // namespace

std::shared_ptr<const GemmSim> simulate_gemm_run(const GemmRun& run) {
  auto out = std::make_shared<GemmSim>();
  out->run = run;
  try {
    const sim::EngineParams p = params_for(run.machine, run.clock_mhz);
    out->clock_mhz = p.clock_mhz;
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = thread_cpu_ms();
    auto launches = kernels::gemm_grid_traces(run.shape, run.cfg, static_cast<int>(p.sms));
    sim::GridTrace* grid = launches.front().grid.get();
    {
      const sim::BlockTrace probe = grid->block(0);  // the kernel's own shared memory and registers
      out->shared_bytes = probe.shared_bytes;
      out->registers_per_thread = probe.registers_per_thread;
      out->threads = grid->threads_per_block();
    }
    sim::SimOptions opt;
    if (run.quick()) {
      opt.timeline_sms = kTimelineSms;
      opt.barrier_log_sms = kTimelineSms;
      if (run.tile_l2) opt.load_log_sms = p.sms;  // every SM's loads, for the per-tile L2
    }
    out->report = sim::simulate(*grid, p, opt);
    out->tiles_m = static_cast<uint32_t>(run.shape.m / (64 * run.cfg.consumers));
    out->tiles_n = static_cast<uint32_t>(run.shape.n / run.cfg.block_n);
    out->grid = out->report.blocks;
    const kernels::GemmPlan plan = kernels::gemm_plan(run.shape, run.cfg, static_cast<int>(p.sms));
    out->k_splits = static_cast<uint32_t>(plan.splits);
    out->tail_tiles = plan.head_tiles > 0 && plan.splits > 1 ? static_cast<uint32_t>(plan.tail_tiles()) : 0;
    out->gemm_cycles = out->report.cycles;
    if (run.quick() && run.tile_l2) tile_l2_from_events(*out, static_cast<int>(p.sms));
    if (launches.size() > 1) {  // the launches after: a split tail's, and the K ranges' fp32 slices summed into C
      for (size_t l = 1; l < launches.size(); ++l) {
        sim::SimReport r = sim::simulate(*launches[l].grid, p, sim::SimOptions{});
        (launches[l].name == kernels::kGemmSumLaunch ? out->sum_cycles : out->gemm_cycles) += r.cycles;
        sim::append_launch(out->report, r, false);
      }
      out->report.seconds = out->report.cycles / (p.clock_mhz * 1e6);
      out->report.flops = 2.0 * double(run.shape.m) * double(run.shape.n) * double(run.shape.k);
      out->report.tflops = out->report.seconds > 0 ? out->report.flops / out->report.seconds / 1e12 : 0;
    }
    out->wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out->cpu_ms = thread_cpu_ms() - cpu_start;
  } catch (const std::exception& e) {
    out->error = e.what();
  }
  return out;
}

SimCache::SimCache() : quick_thread_([this] { work(true); }), slow_thread_([this] { work(false); }) {}

SimCache::~SimCache() {
  {
    const std::lock_guard<std::mutex> guard(lock_);
    stop_ = true;
  }
  wake_.notify_all();
  quick_thread_.join();
  slow_thread_.join();
}

std::shared_ptr<const GemmSim> SimCache::get(const GemmRun& run) {
  if (refused(run)) {
    const std::lock_guard<std::mutex> guard(lock_);
    auto it = done_.find(run.key());
    return it == done_.end() ? nullptr : std::static_pointer_cast<const GemmSim>(it->second);
  }
  return std::static_pointer_cast<const GemmSim>(get_job(run.key(), run.quick(), [run] { return simulate_gemm_run(run); }));
}

std::shared_ptr<const GemmSim> SimCache::get_now(const GemmRun& run) {
  if (refused(run)) return get(run);
  return std::static_pointer_cast<const GemmSim>(get_job_now(run.key(), run.quick(), [run] { return simulate_gemm_run(run); }));
}

std::shared_ptr<const void> SimCache::get_job(const std::string& key, bool quick, const Compute& compute) {
  std::unique_lock<std::mutex> guard(lock_);
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  if (!quick && !slow_allowed) return nullptr;
  auto& lane = quick ? quick_ : slow_;
  const auto queued = std::find_if(lane.begin(), lane.end(), [&](const Job& j) { return j.key == key; });
  if (queued != lane.end()) {
    if (quick && queued != lane.begin()) {  // asked again: serve it next
      Job job = std::move(*queued);
      lane.erase(queued);
      lane.push_front(std::move(job));
    }
    return nullptr;
  }
  if (quick) lane.push_front({key, compute});
  else lane.push_back({key, compute});
  guard.unlock();
  wake_.notify_all();
  return nullptr;
}

std::shared_ptr<const void> SimCache::get_job_now(const std::string& key, bool quick, const Compute& compute) {
  if (auto done = get_job(key, quick, compute)) return done;
  if (!quick && !slow_allowed) return nullptr;
  std::unique_lock<std::mutex> guard(lock_);
  std::shared_ptr<const void> result;
  idle_.wait(guard, [&] {
    if (auto it = done_.find(key); it != done_.end()) result = it->second;
    return result != nullptr;
  });
  return result;
}

size_t SimCache::pending() const {
  const std::lock_guard<std::mutex> guard(lock_);
  return quick_.size() + slow_.size() + running_;
}

bool SimCache::wait_idle(double seconds) {
  std::unique_lock<std::mutex> guard(lock_);
  return idle_.wait_for(guard, std::chrono::duration<double>(seconds),
                        [&] { return quick_.empty() && slow_.empty() && running_ == 0; });
}

void SimCache::work(bool quick_lane) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  // The slow lane's simulations (seconds of CPU) run behind the frames, at a lower priority than
  // the threads llvmpipe draws with: on two cores, the frames of a step drawn while its 8192^3
  // simulation ran measured 15.1 ms against 16.4 (medians of 9 alternating runs), at worst 17.0
  // against 24.2 (data/measured/viz-lessons-timing.txt).
  if (!quick_lane) setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
#endif
  auto& lane = quick_lane ? quick_ : slow_;
  std::unique_lock<std::mutex> guard(lock_);
  while (true) {
    wake_.wait(guard, [&] { return stop_ || !lane.empty(); });
    if (stop_) return;
    const Job job = std::move(lane.front());
    lane.pop_front();
    ++running_;
    guard.unlock();
    auto result = job.compute();
    guard.lock();
    done_[job.key] = std::move(result);
    done_order_.push_back(job.key);
    while (done_order_.size() > kKept) {
      done_.erase(done_order_.front());  // a scene that still wants it asks again
      done_order_.pop_front();
    }
    --running_;
    idle_.notify_all();
  }
}

// CPU time of the calling thread, in ms: unlike wall time it does not grow when other processes
// share the cores.
double thread_cpu_ms() {
#if defined(__EMSCRIPTEN__)
  return web::worker_run_ms();  // a lane's own time: the page's one thread runs other work between its slices
#elif defined(RUSAGE_THREAD)
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
#else
  return 0;
#endif
}

}  // namespace ts::viz
