#include "sim/tensor_core.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace ts::sim {

namespace {
// Whether virtual time v has reached x. The tolerance grows with v: in a long run (tens of millions
// of cycles) the rounding of v exceeds any fixed epsilon, and a group predicted done at t, not
// found done when the core is advanced to t, would be woken at t again, forever.
bool reached(double x, double v) { return x <= v + 1e-9 * std::max(1.0, std::abs(v)); }
}

// Every group of the active warps with a threshold up to v_end completes in the segment that starts
// at (v_time_, v_) and runs at k real cycles per virtual cycle.
// A warp's groups complete in order (their thresholds grow with its queue), so the first one not
// reached ends the warp's search.
void TensorCore::record_completions(double v_end, double k) {
  auto mark = [&](MmaGroup& g) {  // false: g is not reached, nor is any later group
    if (g.done >= 0 || g.threshold < 0) return true;
    if (!reached(g.threshold, v_end)) return false;
    g.done = v_time_ + std::max(0.0, g.threshold - v_) * k;
    return true;
  };
  for (WarpMma* w : active_) {
    size_t i = 0;
    while (i < w->groups.size() && mark(w->groups[i])) ++i;
    if (i == w->groups.size()) mark(w->open);
  }
}

void TensorCore::advance(double t) {
  while (t > v_time_) {
    const double k = static_cast<double>(active_.size());
    if (k == 0) {
      v_time_ = t;
      return;
    }
    double next_drain = std::numeric_limits<double>::infinity();
    for (const WarpMma* w : active_) next_drain = std::min(next_drain, w->drain);
    const double drain_time = v_time_ + (next_drain - v_) * k;
    const double end = std::min(t, drain_time);
    const double v_end = end >= drain_time ? next_drain : v_ + (end - v_time_) / k;
    record_completions(v_end, k);
    busy_ += end - v_time_;
    v_ = v_end, v_time_ = end;
    if (end >= drain_time)
      std::erase_if(active_, [&](const WarpMma* w) { return reached(w->drain, v_); });
  }
  // Groups within rounding of the clock are through now, as predict() says: a waiter woken at the
  // time predicted must find its group through even when the core could not move any further.
  record_completions(v_, 1.0);
}

void TensorCore::issue(WarpMma& w, double t, double cycles, double operand_bytes_per_cycle) {
  advance(t);
  w.operand_bytes = operand_bytes_per_cycle;
  if (reached(w.drain, v_)) {  // idle until now: its work starts at the core's present
    w.drain = v_;
    active_.push_back(&w);
  }
  if (w.open.threshold < 0) w.open = {0, -1, t};
  w.drain += cycles;
  w.open.threshold = w.drain;
  w.open.done = -1;
}

double TensorCore::predict(double threshold) const {
  if (reached(threshold, v_)) return v_time_;
  // At most a few warps share a core (an SM holds 64): sort their drains on the stack.
  std::array<double, 64> drains;
  const size_t n = std::min(active_.size(), drains.size());
  for (size_t i = 0; i < n; ++i) drains[i] = active_[i]->drain;
  std::sort(drains.begin(), drains.begin() + n);
  double v = v_, t = v_time_, k = static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    const double d = drains[i];
    if (reached(threshold, d)) return t + (threshold - v) * k;
    t += (d - v) * k, v = d, k -= 1;
  }
  return std::numeric_limits<double>::infinity();  // beyond all queued work: never, as things stand
}

TensorCore::PortUse TensorCore::port_use(double t) const {
  PortUse u{0, t};
  double sum = 0;
  int busy = 0;
  for (const WarpMma* w : active_) {
    const double through = predict(w->drain);
    if (through <= t) continue;
    sum += w->operand_bytes, ++busy;
    u.until = std::max(u.until, through);
  }
  if (busy > 0) u.bytes_per_cycle = sum / busy;
  return u;
}

}  // namespace ts::sim
