#include "sim/timeline_compare.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace ts::sim {

bool is_waiting(OpKind k) {
  return k == OpKind::wait || k == OpKind::mma_wait || k == OpKind::tma_store_wait || k == OpKind::warpgroup_sync ||
         k == OpKind::block_sync;
}

double RoleProfile::share(OpKind k) const {
  const auto it = busy.find(k);
  return it == busy.end() || cycles <= 0 ? 0.0 : it->second / cycles;
}

namespace {

// The mean spacing of sorted event times over their middle 80 %.
double steady_interval(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  if (t.size() < 4) return 0;
  const size_t lo = t.size() / 10, hi = t.size() - 1 - t.size() / 10;
  return hi > lo ? (t[hi] - t[lo]) / double(hi - lo) : 0;
}

double median(std::vector<double> v) {
  v.erase(std::remove(v.begin(), v.end(), 0.0), v.end());
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

TimelineProfile profile(const std::vector<Span>& spans) {
  using Key = std::tuple<uint32_t, uint32_t, uint32_t>;  // sm, block, warp
  struct Warp {
    double first = 1e300, last = -1e300;
    std::map<OpKind, double> busy;
    std::vector<double> mma_starts, tma_issues, tma_landings;
  };
  std::map<Key, Warp> warps;
  for (const Span& s : spans) {
    Warp& w = warps[{s.sm, s.block, s.warp}];
    w.first = std::min(w.first, s.start);
    w.last = std::max(w.last, s.end);
    w.busy[s.kind] += s.end - s.start;
    if (s.kind == OpKind::mma) w.mma_starts.push_back(s.start);
    if (s.kind == OpKind::tma_load) w.tma_issues.push_back(s.start), w.tma_landings.push_back(s.end);
  }
  std::map<int, RoleProfile> roles;  // -1: the producer, g >= 0: consumer warpgroup g
  std::vector<double> mma, issue, landing;
  for (auto& [key, w] : warps) {
    int role;
    if (!w.tma_issues.empty()) role = -1;
    else if (!w.mma_starts.empty()) role = static_cast<int>(std::get<2>(key) / 4);
    else continue;
    RoleProfile& r = roles[role];
    r.role = role < 0 ? "producer" : "consumer " + std::to_string(role);
    ++r.warps;
    r.cycles += w.last - w.first;
    for (const auto& [k, c] : w.busy) {
      r.busy[k] += c;
      if (is_waiting(k)) r.waiting += c;
    }
    if (role >= 0) {
      // One warp's groups: a group may be split into several spans only if waits retire it in
      // parts, which they do not, so starts are distinct groups.
      std::sort(w.mma_starts.begin(), w.mma_starts.end());
      w.mma_starts.erase(std::unique(w.mma_starts.begin(), w.mma_starts.end()), w.mma_starts.end());
      mma.push_back(steady_interval(w.mma_starts));
    } else {
      issue.push_back(steady_interval(w.tma_issues));
      landing.push_back(steady_interval(w.tma_landings));
    }
  }
  TimelineProfile p;
  for (auto& [role, r] : roles) {
    if (r.cycles > 0) r.waiting /= r.cycles;
    p.roles.push_back(std::move(r));
  }
  p.mma_interval = median(mma);
  p.tma_issue_interval = median(issue);
  p.tma_landing_interval = median(landing);
  return p;
}

}  // namespace ts::sim
