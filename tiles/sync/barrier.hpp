#pragma once
// The mbarrier object: one 64-bit word in shared memory. Its own header so that both backends'
// barrier code (tiles/sync/mbarrier.hpp, tiles/backend/host/) can name it without include cycles.
#include <cstdint>

namespace ts {
struct alignas(8) barrier {
  uint64_t word;
};
}  // namespace ts
