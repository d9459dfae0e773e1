#include "app/sim_watch.hpp"

#include <algorithm>
#include <cstdio>

#include "app/sim_job.hpp"
#include "sim/engine.hpp"

namespace ts::app {

namespace {

// Set by the handler, read by the simulating threads. A lock-free atomic is as safe to set in a
// signal handler as a volatile sig_atomic_t ([support.signal]) and, unlike it, to read from other threads.
std::atomic<std::sig_atomic_t> g_ctrl_c{0};
static_assert(std::atomic<std::sig_atomic_t>::is_always_lock_free);

extern "C" void on_sigint(int) { g_ctrl_c.store(1, std::memory_order_relaxed); }

}  // namespace

CtrlC::CtrlC() {
  g_ctrl_c = 0;
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &previous_);
}

CtrlC::~CtrlC() { sigaction(SIGINT, &previous_, nullptr); }

bool CtrlC::pressed() { return g_ctrl_c.load(std::memory_order_relaxed) != 0; }

Progress::Progress(std::string label, Items items, double show_after_s)
    : label_(std::move(label)), items_(items), show_after_(show_after_s) {}

void Progress::ops_drawn(uint64_t n) {
  ops_ += n;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
  if (now < next_draw_ns_.load(std::memory_order_relaxed)) return;
  std::unique_lock lock(draw_, std::try_to_lock);  // another thread is drawing: it will do
  if (!lock.owns_lock() || now < next_draw_ns_) return;
  next_draw_ns_ = now + 250'000'000;
  if (now * 1e-9 >= show_after_) draw(now * 1e-9);
}

void Progress::draw(double elapsed) {
  const double work = work_, ops = double(ops_);
  std::string left;
  if (work > 0 && ops > 0) {
    const double f = std::min(ops / work, 0.999);  // the estimate can be a little short
    char buf[96];
    std::snprintf(buf, sizeof buf, ", %.0f %% of ~%s ops, %s so far, ~%s left", 100 * f, human_count(work).c_str(),
                  human_seconds(elapsed).c_str(), human_seconds(elapsed * (1 - f) / f).c_str());
    left = buf;
  }
  // Padded so that a shorter line covers the longer one before it.
  std::fprintf(stderr, "\r%s: %llu of %llu %s%s      ", label_.c_str(), (unsigned long long)done_.load(),
               (unsigned long long)total_.load(), items_ == Items::blocks ? "blocks" : "rows simulated", left.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  std::lock_guard lock(draw_);
  if (!drawn_) return;
  draw(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());  // where it ended
  std::fprintf(stderr, "\n");
  drawn_ = false;
  next_draw_ns_ = INT64_MAX;  // nothing after the newline
}

}  // namespace ts::app
