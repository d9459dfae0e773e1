#pragma once
// Long simulations as a user sees them: a progress line on stderr once a run has gone on for a
// couple of seconds, and Ctrl-C stopping it cleanly (sim::SimCancelled, then one line and exit
// status 130 from the verb).
//
// Progress counts trace ops as the engine draws them from the kernel's op streams
// (sim::SimOptions::ops_drawn), against the estimate made before the run (sim_job.hpp). Blocks
// finished alone would not do: a persistent grid's blocks all finish near the end, so the line
// would sit at "0 of 132 blocks" for the whole run, and a Ctrl-C checked only as blocks finish
// would not stop it either.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "sim/trace.hpp"

namespace ts::app {

// While one lives, SIGINT sets a flag instead of killing the process; the previous handler comes
// back when it goes. Not nested.
class CtrlC {
 public:
  CtrlC();
  ~CtrlC();
  CtrlC(const CtrlC&) = delete;
  CtrlC& operator=(const CtrlC&) = delete;
  static bool pressed();

 private:
  struct sigaction previous_ {};
};

// Exit status of a verb stopped by Ctrl-C (128 + SIGINT, as shells report it).
inline constexpr int kExitInterrupted = 130;

// One progress line, shared by the threads that simulate (compare runs rows on every core):
// "<label>: <done> of <total> blocks|rows simulated, <p> % of ~<ops> ops, <t> so far, ~<t> left".
// Drawn at most four times a second, only once `show_after` seconds have passed, rewritten in
// place with \r; finish() ends it with a newline if it was ever drawn.
class Progress {
 public:
  enum class Items { blocks, rows };  // what done and total count
  Progress(std::string label, Items items, double show_after_s = 2.0);
  ~Progress() { finish(); }
  void add_work(double estimated_ops) { work_.fetch_add(estimated_ops); }
  void set_total(uint64_t items) { total_ = items; }
  void add_done(uint64_t items) { done_ += items; }
  uint64_t done() const { return done_; }
  uint64_t total() const { return total_; }
  // Blocks the engine retired so far in the run (when items are blocks; rows count themselves).
  void blocks_retired(uint64_t blocks) {
    if (items_ == Items::blocks) done_ = blocks;
  }
  // Ops drawn by the engine; redraws the line when due.
  void ops_drawn(uint64_t n);
  void finish();

 private:
  void draw(double elapsed);
  std::string label_;
  Items items_;
  double show_after_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::atomic<double> work_{0};
  std::atomic<uint64_t> ops_{0}, done_{0}, total_{0};
  std::atomic<int64_t> next_draw_ns_{0};
  std::mutex draw_;
  bool drawn_ = false;  // under draw_
};

}  // namespace ts::app
