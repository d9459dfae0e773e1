#pragma once
// What a warp's register <-> shared-memory op costs the SM's shared-memory pipe: each instruction
// of the device backend's walk (sim::SmemWalk) gets its lanes' addresses from the tile's own
// swizzled layout, and the bank model (sim/banks.hpp) counts its wavefronts and conflicts.
#include <cstdint>

#include "tiles/backend/host/trace_op.hpp"

namespace ts::sim {

struct SmemCost {
  uint64_t instructions = 0, wavefronts = 0, conflicts = 0;
};

// Throws std::invalid_argument when the access does not fit the walk (e.g. rows not a multiple of 16).
SmemCost smem_access_cost(const SmemAccess& access, bool store);

}  // namespace ts::sim
