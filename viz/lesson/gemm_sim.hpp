#pragma once
// The scenes' simulations of the GEMM (kernels/gemm/gemm.cuh, its own op streams in trace mode)
// on a machine file, computed off the drawing thread and kept per configuration, so that a knob
// that comes back to an earlier value costs nothing and a frame never waits for the simulator.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kernels/gemm/gemm_api.hpp"
#include "sim/engine.hpp"
#include "viz/lesson/scenes.hpp"
#ifdef __EMSCRIPTEN__
#include "viz/lesson/web_workers.hpp"  // a page has one thread: the lanes are fibers run between frames
#endif

namespace ts::viz {

struct GemmRun {
  kernels::GemmShape shape{2048, 2048, 2048};
  kernels::GemmConfig cfg{};
  std::string machine = "h100-sxm";
  // The SM clock to time the cycles at: a measured row's own clock, so that simulated and measured
  // sit side by side at the clock the GPU ran; 0 for the machine's sustained clock.
  double clock_mhz = 0;
  // Also count each output tile's L2 hits (the grid scene's L2 colours): logs every SM's loads,
  // which costs time, so only the scenes that draw it ask for it.
  bool tile_l2 = false;
  std::string key() const;
  // Tiles x k-iterations: what a simulation's cost grows with (about 60 ops each).
  uint64_t tile_iterations() const;
  // Small enough to re-simulate while the student moves a knob (4096^3 is 32768).
  bool quick() const { return tile_iterations() <= kQuickTileIterations; }
  static constexpr uint64_t kQuickTileIterations = 1u << 15;
};

// The run the knobs describe, at the clock of its measured row when data/measured has one. Its
// cfg.split_k is the K ranges the launch really has on the machine's SMs (kernels::with_k_splits:
// the knob's "auto" resolved), so that two runs with the same ranges share a key and a measured row.
GemmRun gemm_run(const GemmKnobs& knobs);
// The knobs as a kernel configuration; split_k 0 ("auto") is left for the kernel to choose.
kernels::GemmConfig gemm_config(const GemmKnobs& knobs);
// The SMs of a machine file (data/machines/<machine>.json), the count the K ranges are chosen for.
int machine_sms(const std::string& machine);

// The SMs whose warps quick runs record spans for, and whose barrier events they keep.
inline constexpr uint32_t kTimelineSms = 4;

struct TileL2 {
  uint64_t hit_bytes = 0, miss_bytes = 0;
  double hit_rate() const {
    const double all = double(hit_bytes) + double(miss_bytes);
    return all > 0 ? hit_bytes / all : 0;
  }
};

struct GemmSim {
  GemmRun run;
  // Quick runs: spans of SMs 0..kTimelineSms-1 and barrier events of those SMs. With split-K the
  // report covers both launches, the GEMM's and the sum of its K ranges (gemm_sum.cuh), one after
  // the other, as tilescope sim counts them: cycles, bytes and busy fractions of both, the GEMM's
  // 2 M N K FLOPs; its spans, events and blocks are the GEMM launch's.
  sim::SimReport report;
  uint32_t k_splits = 1;                 // K ranges the split tiles ran in (all tiles, or a split tail's)
  uint32_t tail_tiles = 0;               // with a split tail: the tiles past the whole waves (0: none)
  // The GEMM launches' share of report.cycles (the head and a split tail's launch) and the sum's
  // (0 without ranges).
  double gemm_cycles = 0, sum_cycles = 0;
  std::vector<TileL2> tiles;  // quick runs with tile_l2: per output tile (m-major: tile_m * tiles_n + tile_n)
  uint32_t tiles_m = 0, tiles_n = 0, grid = 0;
  uint32_t shared_bytes = 0, registers_per_thread = 0, threads = 0;  // what one block asks of an SM
  double clock_mhz = 0;
  double wall_ms = 0;         // how long the simulation took on this machine
  double cpu_ms = 0;          // CPU time of the simulating thread (what wall_ms is on an idle core)
  std::string error;          // set when the simulator refused the run
};

// The simulation a scene's main picture needs (moving one of its knobs asks for another such
// run); nothing for scenes that do not simulate, or simulate fixed rows (accuracy).
std::optional<GemmRun> scene_run(const SceneState& state);

// Runs one simulation on the calling thread (quick runs with timelines and logs).
std::shared_ptr<const GemmSim> simulate_gemm_run(const GemmRun& run);

// Simulations computed by two background threads: one for quick runs (newest request first, so
// the knob the student just moved is served next) and one for slow ones (16384^3: seconds).
// The GEMM's runs and any other kernel's (viz/lesson/attention_sim.hpp) share the threads, the
// results kept and pending(), so a frame or a headless render waits for all of them alike.
class SimCache {
 public:
  SimCache();
  ~SimCache();
  SimCache(const SimCache&) = delete;
  SimCache& operator=(const SimCache&) = delete;

  // The finished simulation, or nullptr while it is queued or running (it is queued on the first ask).
  std::shared_ptr<const GemmSim> get(const GemmRun& run);
  // Waits for the result on the calling thread (tests, checkers run outside the app).
  std::shared_ptr<const GemmSim> get_now(const GemmRun& run);
  // Any simulation, named by a key unique across kernels: `compute` runs on the quick or slow
  // thread and its result is kept as the GEMM's are (get and get_now above are these, typed).
  using Compute = std::function<std::shared_ptr<const void>()>;
  std::shared_ptr<const void> get_job(const std::string& key, bool quick, const Compute& compute);
  std::shared_ptr<const void> get_job_now(const std::string& key, bool quick, const Compute& compute);
  // Queued or running simulations.
  size_t pending() const;
  // Waits until nothing is pending, at most `seconds`; true when nothing is.
  bool wait_idle(double seconds);
  // Only quick runs: slow ones are refused (get returns nullptr and `refused` says so).
  bool slow_allowed = true;
  bool refused(const GemmRun& run) const { return !slow_allowed && !run.quick(); }
  // Results kept; past that the oldest go (a quick run with its timeline is a few MB).
  static constexpr size_t kKept = 64;

 private:
  struct Job {
    std::string key;
    Compute compute;
  };
  void work(bool quick_lane);
  mutable std::mutex lock_;
#ifdef __EMSCRIPTEN__
  web::CondVar wake_, idle_;
#else
  std::condition_variable wake_, idle_;
#endif
  std::map<std::string, std::shared_ptr<const void>> done_;
  std::deque<std::string> done_order_;  // oldest first
  std::deque<Job> quick_, slow_;
  size_t running_ = 0;
  bool stop_ = false;
#ifdef __EMSCRIPTEN__
  web::Thread quick_thread_, slow_thread_;
#else
  std::thread quick_thread_, slow_thread_;
#endif
};

// CPU time of the calling thread, in ms (0 where the system cannot say; in the browser, the time the
// calling simulation lane has run): what the scenes' simulation budgets are measured in, since unlike
// wall time it does not grow when other processes share the cores.
double thread_cpu_ms();

}  // namespace ts::viz
