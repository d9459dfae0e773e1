#include "sim/tensor_core.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

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
// `t_end`: a time no earlier than when the work reaches w.served (for a quick look first: a warp's
// next group is most often far from through, and this is asked for every warp at every move).
inline void mark_through(WarpMma& w, double from, double t0, double rate, double t_end) {
  size_t first = 0;
  while (first < w.groups.size() && w.groups[first].done >= 0) ++first;
  const MmaGroup& next = first < w.groups.size() ? w.groups[first] : w.open;
  if (next.done >= 0 || next.threshold < 0 || !reached(next.threshold, w.served, slack_at(t_end, rate))) return;
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

TensorCore::ShareTable::ShareTable(double a) {
  std::array<double, kMaxWarps> weight;  // weight[j] = a^j
  double x = 1;
  for (double& w : weight) w = x, x *= a;
  for (size_t k = 1; k <= kMaxWarps; ++k) {
    double* rates = rates_.data() + k * (k - 1) / 2;
    double sum = 0;
    for (size_t i = 0; i < k; ++i) sum += weight[k - 1 - i];
    for (size_t i = 0; i < k; ++i) rates[i] = weight[k - 1 - i] / sum;
  }
}

// One table per weight for all the cores (528 on an H100): kept, as a simulation makes its cores
// again and again with the machine's weight.
void TensorCore::set_age_weight(double a) {
  if (!(a >= 1.0) || a > 4.0) throw std::invalid_argument("a share age weight (wgmma_share_age_weight, sfu_share_age_weight) must be 1 to 4");
  static std::mutex mutex;
  static std::vector<std::shared_ptr<const ShareTable>> tables;
  static std::vector<double> weights;
  const std::lock_guard<std::mutex> lock(mutex);
  for (size_t i = 0; i < weights.size(); ++i)
    if (weights[i] == a) {
      shares_ = tables[i];
      return;
    }
  shares_ = std::make_shared<const ShareTable>(a);
  tables.push_back(shares_);
  weights.push_back(a);
}

void TensorCore::advance(double t) {
  if (t <= now_ && settled_) return;  // nothing to move, nothing new to mark
  while (t > now_ && !active_.empty()) {
    const size_t k = active_.size();
    const double* rates = shares_->rates(k);
    double step = t - now_;
    if (stepped_) {
      step = std::min(step, first_step_);
    } else if (planned_ && segments_ > 0) {
      step = std::min(step, plan_[1]);  // the plan's first step: the same quotients, worked out already
    } else {
      for (size_t i = 0; i < k; ++i) step = std::min(step, (active_[i]->drain - active_[i]->served) / rates[i]);
    }
    planned_ = stepped_ = counted_ = false;
    for (size_t i = 0; i < k; ++i) {
      WarpMma& w = *active_[i];
      const double from = w.served;
      w.served = std::min(w.drain, from + rates[i] * step);
      if (reached(w.drain, w.served, slack_at(now_ + step, rates[i]))) w.served = w.drain;
      mark_through(w, from, now_, rates[i], 2 * (now_ + step) + 1);
    }
    now_ += step, busy_ += step;
    std::erase_if(active_, [](const WarpMma* w) { return w->served >= w->drain; });
  }
  if (t > now_) now_ = t, planned_ = stepped_ = counted_ = false;
  // Groups within rounding of their warp's work are through now, as predict() says: a waiter woken
  // at the time predicted must find its group through even when the core could not move further.
  for (size_t i = 0; i < active_.size(); ++i) mark_through(*active_[i], active_[i]->served, now_, 1.0, now_);
  settled_ = true;
}

void TensorCore::issue(WarpMma& w, double t, double cycles, double operand_bytes_per_cycle, uint32_t instructions) {
  advance(t);
  planned_ = stepped_ = counted_ = settled_ = false;
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

// The core's future without new work, simulated on a copy of each active warp's work left, one
// segment at a time and only as far as a prediction needs it (most look no further than the first
// warp to run out): each segment runs until the next warp's work is through, every warp still
// running at its share. A warp that has run out keeps, as its rate in later segments, the share last
// written at the rank one past the last of those still running (what a simulation for that warp
// alone read there: only rounding leaves it work to do then).
void TensorCore::start_plan() const {
  const size_t n = active_.size();
  // Each segment ends with a warp's work through, so n segments at most: room for them once.
  if (plan_.size() < n * (n + 2)) plan_.resize(n * (n + 2));
  plan_work_.resize(2 * n);
  plan_index_.resize(2 * n);
  for (size_t i = 0; i < n; ++i) {
    plan_work_[i] = active_[i]->drain - active_[i]->served;
    plan_index_[i] = plan_index_[n + i] = static_cast<uint8_t>(i);
  }
  segments_ = 0, running_ = n, plan_end_ = now_;
  planned_ = true;
}

void TensorCore::extend_plan() const {
  const size_t n = active_.size(), k = running_;
  double* left = plan_work_.data();
  double* rates = left + n;  // as a simulation's array: entries past k keep what was last written there
  uint8_t* order = plan_index_.data();  // active_ indices still running, oldest first
  uint8_t* rank = order + n;            // each active_ index's place in order (kMaxWarps: run out)
  const double* share = shares_->rates(k);
  std::copy(share, share + k, rates);
  double step = std::numeric_limits<double>::infinity();
  for (size_t r = 0; r < k; ++r) step = std::min(step, left[order[r]] / rates[r]);
  if (plan_.size() < (segments_ + 1) * (n + 2)) plan_.resize((segments_ + 1) * (n + 2));  // (never, as above)
  double* seg = plan_.data() + segments_ * (n + 2);
  seg[0] = plan_end_, seg[1] = step;
  for (size_t i = 0; i < n; ++i) seg[2 + i] = rates[std::min<size_t>(rank[i], k)];
  ++segments_;
  plan_end_ += step;
  size_t kept = 0;
  for (size_t r = 0; r < k; ++r) {
    const size_t i = order[r];
    left[i] -= rates[r] * step;
    rank[i] = kMaxWarps;
    if (left[i] > 1e-9 * std::max(1.0, active_[i]->drain)) rank[i] = static_cast<uint8_t>(kept), order[kept++] = static_cast<uint8_t>(i);
  }
  running_ = kept;
}

// How long until the first warp's work is through, every warp at its share: the plan's first
// segment (extend_plan works it out the same way), kept until the core changes.
double TensorCore::first_step() const {
  if (!stepped_) {
    const size_t k = active_.size();
    const double* share = shares_->rates(k);
    first_step_ = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < k; ++i) first_step_ = std::min(first_step_, (active_[i]->drain - active_[i]->served) / share[i]);
    stepped_ = true;
  }
  return first_step_;
}

double TensorCore::predict(const WarpMma& target, double threshold) const {
  if (reached(threshold, target.served)) return now_;
  const size_t n = active_.size();
  size_t me = n;  // (the last entry of it, as a simulation for it alone found)
  for (size_t i = n; i-- > 0;)
    if (active_[i] == &target) {
      me = i;
      break;
    }
  if (me == n || threshold > target.drain) return std::numeric_limits<double>::infinity();  // never, as things stand
  double need = threshold - target.served;
  if (!planned_) {  // the first segment answers most questions, and needs no plan
    const double rate = shares_->rates(n)[me];
    if (need <= rate * first_step()) return now_ + need / rate;
    start_plan();
  }
  for (size_t s = 0;; ++s) {
    if (s == segments_) {
      if (running_ == 0) return plan_end_;
      extend_plan();
    }
    const double* seg = plan_.data() + s * (n + 2);
    const double rate = seg[2 + me], covered = rate * seg[1];
    if (need <= covered) return seg[0] + need / rate;
    need -= covered;
  }
}

// Both count an instruction within the rounding of the core's time as through, as mark_through
// does a group: a held warp woken at the time predicted must find its room, or it would be woken at
// that time again, forever.
size_t TensorCore::in_flight() {
  if (counted_) return in_flight_;  // asked again before the core changed (an issue after its wake-up)
  const double slack = slack_at(now_, 1.0);
  size_t n = 0;
  for (WarpMma* w : active_) {
    while (w->instructions.size() > 0 && reached(w->instructions.front(), w->served, slack)) w->instructions.pop_front();
    n += w->instructions.size();
  }
  counted_ = true;
  in_flight_ = n;
  return n;
}

// The first instruction through is nearly always within the plan's first segment (until the first
// warp runs out), and asked for after nearly every issue: so that segment is worked out here as
// extend_plan() would, with predict()'s arithmetic, and the plan is built only when a warp's next
// instruction lies beyond it and the segment's own answers do not come first.
double TensorCore::next_through() const {
  const double slack = slack_at(now_, 1.0);
  const double never = std::numeric_limits<double>::infinity();
  const size_t k = active_.size();
  if (k == 0) return never;
  const double* share = shares_->rates(k);
  const double step = first_step();
  double at = never;
  bool beyond = false;
  for (size_t i = 0; i < k; ++i) {
    const WarpMma& w = *active_[i];
    for (size_t j = 0; j < w.instructions.size(); ++j) {
      const double x = w.instructions[j];
      if (reached(x, w.served, slack)) continue;
      if (x <= w.drain) {
        const double need = x - w.served;
        if (need <= share[i] * step) at = std::min(at, now_ + need / share[i]);
        else beyond = true;
      }
      break;
    }
  }
  // Answers from later segments come at or after the first segment's end.
  if (!beyond || at <= now_ + step) return at;
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
