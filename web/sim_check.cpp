// The simulator on the GEMM's own op streams, as a small program built for both sides: under
// Emscripten (node, Emscripten's fibers) and natively (Boost.Context). web/test-node compares the
// two outputs digit for digit, which is the claim of the browser build: one kernel source, one
// trace mode, one simulator, the same numbers. Also times each run (the browser's speed ratio).
//
//   tilescope_web_sim M,N,K[,stages,block_n,consumers] ...   one JSON line per run
//   tilescope_web_sim --lessons [--warmup] [--direct]   each lesson step's simulation as the page
//       runs it: on a simulation lane of viz/lesson/web_workers.hpp (SimCache's, paused and resumed
//       every 50 ms), timed by the lane's own running time (the page's figure: wall time of its
//       slices) and by node's CPU time (what `tilescope lessons --sim-timing` gives the desktop:
//       unlike wall time it does not grow when other processes share the cores); web/sim-speed
//       pairs the two. --warmup simulates the first one once before (node compiles the wasm lazily
//       and its heap grows: its first run is several times slower than the next); --direct runs
//       them on the calling context instead of a lane (what the lane's deeper stack costs)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_trace.hpp"
#include "sim/engine.hpp"
#include "sim/machine.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/lesson.hpp"
#include "viz/lesson/measured.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
// The process's CPU time under node (its compiler's background threads included, which are idle
// once the code is warm), in ms; elsewhere (a browser has no such clock) wall time.
EM_JS(double, process_cpu_ms, (), {
  if (typeof process == "undefined" || !process.cpuUsage) return performance.now();
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
});
#else
#include <ctime>
static double process_cpu_ms() { return 1e3 * double(std::clock()) / CLOCKS_PER_SEC; }
#endif

namespace {

// The lessons' simulations, as app/verbs_lessons.cpp's print_sim_timing lists them for the desktop
// (quick runs only: the page's test walks with ?slow=off), each run on the page's own lane.
int lesson_timing(bool warmup, bool direct) {
  using namespace ts;
  const viz::LessonSet set = viz::load_lessons(viz::default_lessons_dir());
  viz::SimCache cache;
  cache.slow_allowed = false;
  struct Timed {
    std::shared_ptr<const viz::GemmSim> sim;
    double cpu_ms;
  };
  std::map<std::string, Timed> seen;
  std::printf("%-20s %4s  %-52s %8s %8s %8s %10s\n", "lesson", "step", "simulated configuration", "wall ms", "lane ms",
              "cpu ms", "ops");
  for (const auto& lesson : set.lessons)
    for (size_t s = 0; s < lesson.steps.size(); ++s) {
      const auto run = viz::scene_run(lesson.steps[s].state);
      if (!run || !run->quick()) continue;
      auto it = seen.find(run->key());
      if (it == seen.end()) {
        if (warmup) {
          viz::simulate_gemm_run(*run);
          warmup = false;
        }
        const double cpu0 = process_cpu_ms();
        const auto sim = direct ? viz::simulate_gemm_run(*run) : cache.get_now(*run);
        const double cpu = process_cpu_ms() - cpu0;
        if (!sim || !sim->error.empty())
          throw std::runtime_error(lesson.id + " step " + std::to_string(s + 1) + ": " + (sim ? sim->error : "not simulated"));
        it = seen.emplace(run->key(), Timed{sim, cpu}).first;
      }
      const std::string what = std::to_string(run->shape.m) + "x" + std::to_string(run->shape.n) + "x" +
                               std::to_string(run->shape.k) + " " + viz::short_config(run->cfg);
      const viz::GemmSim& sim = *it->second.sim;
      std::printf("%-20s %4zu  %-52s %8.1f %8.1f %8.1f %10llu\n", lesson.id.c_str(), s + 1, what.substr(0, 52).c_str(),
                  sim.wall_ms, sim.cpu_ms, it->second.cpu_ms, (unsigned long long)sim.report.ops);
      std::fflush(stdout);
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ts;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s M,N,K[,stages,block_n,consumers] ... | --lessons [--warmup] [--direct]\n", argv[0]);
    return 2;
  }
  if (std::strcmp(argv[1], "--lessons") == 0) {
    try {
      bool warmup = false, direct = false;
      for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--warmup") == 0) warmup = true;
        else if (std::strcmp(argv[i], "--direct") == 0) direct = true;
        else throw std::runtime_error(std::string("unknown option ") + argv[i]);
      }
      return lesson_timing(warmup, direct);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tilescope_web_sim: %s\n", e.what());
      return 1;
    }
  }
  try {
    const sim::MachineSpec machine = sim::load_machine("h100-sxm");
    const sim::EngineParams p = sim::engine_params(machine, machine.sm_clock_gemm_sustained.value);
    for (int i = 1; i < argc; ++i) {
      std::vector<long long> v;
      for (const char* s = argv[i]; *s;) {
        char* end = nullptr;
        v.push_back(std::strtoll(s, &end, 10));
        if (end == s || (*end && *end != ',')) {
          std::fprintf(stderr, "tilescope_web_sim: '%s' is not M,N,K[,stages,block_n,consumers]\n", argv[i]);
          return 2;
        }
        s = *end ? end + 1 : end;
      }
      if (v.size() != 3 && v.size() != 6) {
        std::fprintf(stderr, "tilescope_web_sim: '%s' is not M,N,K[,stages,block_n,consumers]\n", argv[i]);
        return 2;
      }
      kernels::GemmConfig cfg;
      if (v.size() == 6) cfg.stages = int(v[3]), cfg.block_n = int(v[4]), cfg.consumers = int(v[5]);
      const auto t0 = std::chrono::steady_clock::now();
      auto launches = kernels::gemm_grid_traces({v[0], v[1], v[2]}, cfg, static_cast<int>(p.sms));
      sim::SimReport r = sim::simulate(*launches.front().grid, p);
      for (size_t l = 1; l < launches.size(); ++l) sim::append_launch(r, sim::simulate(*launches[l].grid, p), false);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::printf(
          "{\"run\": \"%s\", \"cycles\": %.17g, \"ops\": %llu, \"hbm_read_bytes\": %llu, \"l2_hit_bytes\": %llu, "
          "\"bank_conflicts\": %llu, \"wall_ms\": %.1f}\n",
          argv[i], r.cycles, (unsigned long long)r.ops, (unsigned long long)r.hbm_read_bytes,
          (unsigned long long)r.l2_hit_bytes, (unsigned long long)r.bank_conflicts, ms);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tilescope_web_sim: %s\n", e.what());
    return 1;
  }
  return 0;
}
