// The tensor core's cached plan (sim/tensor_core.hpp): every prediction it answers must be the very
// time, to the last bit, that simulating the core's future from scratch gives, as predict() did
// before the plan (the simulation's cycles must not move when only its speed changes). The
// reference below is that old predict(), fed the same state the core keeps.
#include <algorithm>
#include <array>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/tensor_core.hpp"

using namespace ts::sim;

namespace {
// The old predict(): the active warps (oldest first) simulated from `now` until `target` reaches
// `threshold`, every warp at its age-weighted share.
double reference_predict(const std::vector<WarpMma*>& active, double now, double age_weight, const WarpMma& target,
                         double threshold) {
  const auto reached = [](double x, double w) { return x <= w + 1e-9 * std::max(1.0, std::abs(w)); };
  if (reached(threshold, target.served)) return now;
  std::array<double, TensorCore::kMaxWarps> weight, left, rates;
  double x = 1;
  for (double& w : weight) w = x, x *= age_weight;
  const size_t n = active.size();
  std::array<size_t, TensorCore::kMaxWarps> order;
  size_t me = n;
  for (size_t i = 0; i < n; ++i) {
    left[i] = active[i]->drain - active[i]->served;
    order[i] = i;
    if (active[i] == &target) me = i;
  }
  if (me == n || threshold > target.drain) return std::numeric_limits<double>::infinity();
  double t = now, need = threshold - target.served;
  size_t k = n;
  while (k > 0) {
    double sum = 0;
    for (size_t i = 0; i < k; ++i) sum += weight[k - 1 - i];
    for (size_t i = 0; i < k; ++i) rates[i] = weight[k - 1 - i] / sum;
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
      if (left[order[r]] > 1e-9 * std::max(1.0, active[order[r]]->drain)) order[kept++] = order[r];
    }
    k = kept;
  }
  return t;
}
}  // namespace

TEST_CASE("the tensor core's plan predicts, to the bit, what simulating its future from scratch does", "[engine]") {
  for (const double age_weight : {1.0, 1.2, 1.7}) {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> unit(0, 1);
    TensorCore core(age_weight);
    std::array<WarpMma, 6> warps;
    std::vector<WarpMma*> active;  // as the core keeps them: in the order they joined
    double now = 0;
    int checked = 0;
    for (int round = 0; round < 3000; ++round) {
      WarpMma& w = warps[rng() % warps.size()];
      now += unit(rng) < 0.3 ? 0.0 : 200 * unit(rng);
      core.in_flight();  // drops the instructions through, as the engine's issue does
      if (w.instructions.size() + 4 > GroupFifo<double>::kCapacity || w.groups.size() + 1 >= GroupFifo<MmaGroup>::kCapacity) {
        core.advance(now);
        std::erase_if(active, [](const WarpMma* x) { return x->served >= x->drain; });
        continue;
      }
      core.advance(now);  // as the issue does first: warps that ran out by now are gone, w among them
      std::erase_if(active, [](const WarpMma* x) { return x->served >= x->drain; });
      if (std::find(active.begin(), active.end(), &w) == active.end()) active.push_back(&w);  // it joins as the youngest
      core.issue(w, now, 50 + 900 * unit(rng), 0, 1 + static_cast<uint32_t>(rng() % 4));
      if (rng() % 2 == 0) w.groups.push_back(w.open), w.open = MmaGroup{-1};
      std::erase_if(active, [](const WarpMma* x) { return x->served >= x->drain; });
      // Several questions in this one state, as the engine asks them, then a move, sometimes to a
      // time predicted.
      double earliest = std::numeric_limits<double>::infinity();
      for (WarpMma* x : active) {
        const std::array<double, 3> thresholds{x->drain, x->served + (x->drain - x->served) * unit(rng),
                                               x->groups.size() > 0 ? x->groups[0].threshold : x->drain};
        for (const double threshold : thresholds) {
          const double expected = reference_predict(active, now, age_weight, *x, threshold);
          REQUIRE(core.predict(*x, threshold) == expected);
          ++checked;
        }
        earliest = std::min(earliest, core.predict(*x, x->drain));
      }
      if (rng() % 3 == 0 && earliest < std::numeric_limits<double>::infinity()) {
        now = earliest;
        core.advance(now);
        std::erase_if(active, [](const WarpMma* x) { return x->served >= x->drain; });
      }
      for (WarpMma& x : warps)
        while (x.groups.size() > 0 && x.groups.front().done >= 0) x.groups.pop_front();
    }
    CHECK(checked > 5000);  // about 10,000 (9,975 in the sanitized build): many states, each asked several questions
  }
}
