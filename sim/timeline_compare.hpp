#pragma once
// What a measured and a simulated timeline of one configuration say about each warp role, in the
// same terms, so that they can be set side by side: where each role's time goes (per op kind), how
// much of it is waiting, and the steady-state pace of the wgmma groups and of the TMA loads.
// Both timelines go through the same functions: a difference is the model's, not the method's.
#include <map>
#include <string>
#include <vector>

#include "sim/engine.hpp"

namespace ts::sim {

struct RoleProfile {
  std::string role;     // "producer", "consumer 0", "consumer 1", ...
  uint32_t warps = 0;   // (block, warp) pairs seen in this role
  double cycles = 0;    // their time, each from its first span's start to its last span's end
  std::map<OpKind, double> busy;  // cycles per op kind (overlapping spans of one warp both count)
  double waiting = 0;   // share of `cycles` in waits: mbarrier, wgmma, bulk-group, named and block barriers
  double share(OpKind k) const;
};

struct TimelineProfile {
  std::vector<RoleProfile> roles;  // the producer first, then the consumers in order
  // Steady state (the middle 80 % of each warp's events, median over warps), in cycles: between
  // consecutive wgmma groups of a consumer warp, between the producer's TMA issues, and between
  // the landings of its loads. 0 when the timeline has too few.
  double mma_interval = 0, tma_issue_interval = 0, tma_landing_interval = 0;
};

// Roles: a warp that issues TMA loads is the producer; a warp with wgmma groups is a consumer of
// warpgroup warp / 4 (numbered from 0); other warps are left out.
TimelineProfile profile(const std::vector<Span>& spans);

bool is_waiting(OpKind k);

}  // namespace ts::sim
