#include "sim/tensor_core.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ts::sim {

namespace {
// Whether work w has reached x, give or take `slack`. The tolerance grows with w and with real
// time: in a long run (tens of millions of cycles) the rounding of a sum or of a time exceeds any
// fixed epsilon, and a group predicted done at t, not found done when the core is moved to t,
// would be woken at t again, forever.
bool reached(double x, double w, double slack = 0) { return x <= w + 1e-9 * std::max(1.0, std::abs(w)) + slack; }
// The work a warp covers at `rate` in the rounding of real time t.
double slack_at(double t, double rate) { return 1e-12 * std::max(1.0, t) * rate; }

// Every group of w whose threshold its work passes on the way from `from` to w.served, which it
// covers at `rate` per cycle from real time t0. A warp's groups complete in order (their thresholds
// grow with its work), so the first one not reached ends the search.
void mark_through(WarpMma& w, double from, double t0, double rate) {
  const double slack = slack_at(t0 + (w.served - from) / rate, rate);
  auto mark = [&](MmaGroup& g) {
    if (g.done >= 0 || g.threshold < 0) return true;
    if (!reached(g.threshold, w.served, slack)) return false;
    g.done = t0 + std::max(0.0, g.threshold - from) / rate;
    return true;
  };
  size_t i = 0;
  while (i < w.groups.size() && mark(w.groups[i])) ++i;
  if (i == w.groups.size()) mark(w.open);
}
}  // namespace

void TensorCore::set_age_weight(double a) {
  if (!(a >= 1.0) || a > 4.0) throw std::invalid_argument("wgmma_share_age_weight must be 1 to 4");
  double x = 1;
  for (double& w : weight_) w = x, x *= a;
}

void TensorCore::shares(size_t k, double* rates) const {
  double sum = 0;
  for (size_t i = 0; i < k; ++i) sum += weight_[k - 1 - i];
  for (size_t i = 0; i < k; ++i) rates[i] = weight_[k - 1 - i] / sum;
}

void TensorCore::advance(double t) {
  std::array<double, kMaxWarps> rates;
  while (t > now_ && !active_.empty()) {
    const size_t k = active_.size();
    shares(k, rates.data());
    double step = t - now_;
    for (size_t i = 0; i < k; ++i) step = std::min(step, (active_[i]->drain - active_[i]->served) / rates[i]);
    for (size_t i = 0; i < k; ++i) {
      WarpMma& w = *active_[i];
      const double from = w.served;
      w.served = std::min(w.drain, from + rates[i] * step);
      if (reached(w.drain, w.served, slack_at(now_ + step, rates[i]))) w.served = w.drain;
      mark_through(w, from, now_, rates[i]);
    }
    now_ += step, busy_ += step;
    std::erase_if(active_, [](const WarpMma* w) { return w->served >= w->drain; });
  }
  now_ = std::max(now_, t);
  // Groups within rounding of their warp's work are through now, as predict() says: a waiter woken
  // at the time predicted must find its group through even when the core could not move further.
  for (size_t i = 0; i < active_.size(); ++i) mark_through(*active_[i], active_[i]->served, now_, 1.0);
}

void TensorCore::issue(WarpMma& w, double t, double cycles, double operand_bytes_per_cycle, uint32_t instructions) {
  advance(t);
  w.operand_bytes = operand_bytes_per_cycle;
  if (reached(w.drain, w.served)) {  // idle until now: it joins as the youngest
    w.served = w.drain;
    if (active_.size() == kMaxWarps) throw std::runtime_error("more than 64 warps with MMAs on one tensor core");
    active_.push_back(&w);
  }
  if (w.open.threshold < 0) w.open = {0, -1, t};
  while (w.instructions.size() > 0 && reached(w.instructions.front(), w.served)) w.instructions.pop_front();
  for (uint32_t i = 1; i <= instructions; ++i) w.instructions.push_back(w.drain + cycles * i / instructions);
  w.drain += cycles;
  w.open.threshold = w.drain;
  w.open.done = -1;
}

double TensorCore::predict(const WarpMma& target, double threshold) const {
  if (reached(threshold, target.served)) return now_;
  // The core's future without new work, on a copy of each active warp's work left.
  const size_t n = active_.size();
  std::array<double, kMaxWarps> left, rates;
  std::array<size_t, kMaxWarps> order;  // active_ indices still running, oldest first
  size_t me = n;
  for (size_t i = 0; i < n; ++i) {
    left[i] = active_[i]->drain - active_[i]->served;
    order[i] = i;
    if (active_[i] == &target) me = i;
  }
  if (me == n || threshold > target.drain) return std::numeric_limits<double>::infinity();  // never, as things stand
  double t = now_, need = threshold - target.served;
  size_t k = n;
  while (k > 0) {
    shares(k, rates.data());
    double step = std::numeric_limits<double>::infinity();
    size_t my_rank = k;
    for (size_t r = 0; r < k; ++r) {
      step = std::min(step, left[order[r]] / rates[r]);
      if (order[r] == me) my_rank = r;
    }
    if (need <= rates[my_rank] * step) return t + need / rates[my_rank];
    need -= rates[my_rank] * step;
    t += step;
    size_t kept = 0;
    for (size_t r = 0; r < k; ++r) {
      left[order[r]] -= rates[r] * step;
      if (left[order[r]] > 1e-9 * std::max(1.0, active_[order[r]]->drain)) order[kept++] = order[r];
    }
    k = kept;
  }
  return t;
}

// Both count an instruction within the rounding of the core's time as through, as mark_through
// does a group: a held warp woken at the time predicted must find its room, or it would be woken at
// that time again, forever.
size_t TensorCore::in_flight() {
  const double slack = slack_at(now_, 1.0);
  size_t n = 0;
  for (WarpMma* w : active_) {
    while (w->instructions.size() > 0 && reached(w->instructions.front(), w->served, slack)) w->instructions.pop_front();
    n += w->instructions.size();
  }
  return n;
}

double TensorCore::next_through() const {
  const double slack = slack_at(now_, 1.0);
  double at = std::numeric_limits<double>::infinity();
  for (const WarpMma* w : active_)
    for (size_t i = 0; i < w->instructions.size(); ++i)
      if (!reached(w->instructions[i], w->served, slack)) {
        at = std::min(at, predict(*w, w->instructions[i]));
        break;
      }
  return at;
}

TensorCore::PortUse TensorCore::port_use(double t) const {
  PortUse u{0, t};
  double sum = 0;
  int busy = 0;
  for (const WarpMma* w : active_) {
    const double through = predict(*w, w->drain);
    if (through <= t) continue;
    sum += w->operand_bytes, ++busy;
    u.until = std::max(u.until, through);
  }
  if (busy > 0) u.bytes_per_cycle = sum / busy;
  return u;
}

}  // namespace ts::sim
