// The simulator's L2 (sim/l2.hpp): least recently used over boxes, capacity in bytes, worked by hand.
#include <catch2/catch.hpp>

#include "sim/l2.hpp"

using ts::sim::BoxCache;
using ts::sim::GlobalBox;

namespace {
GlobalBox box(uint64_t offset, uint32_t tensor = 1) { return {tensor, 64, 128, offset}; }  // 8 KB each
}  // namespace

TEST_CASE("L2 box cache: hits, least-recently-used eviction, capacity in bytes", "[l2]") {
  BoxCache l2(3 * 8192);  // room for three boxes
  CHECK_FALSE(l2.access(box(0)));      // A
  CHECK_FALSE(l2.access(box(8192)));   // B
  CHECK_FALSE(l2.access(box(16384)));  // C
  CHECK(l2.access(box(0)));            // A again: now B is the oldest
  CHECK_FALSE(l2.access(box(24576)));  // D evicts B
  CHECK(l2.access(box(16384)));        // C still there
  CHECK(l2.access(box(0)));            // A still there
  CHECK_FALSE(l2.access(box(8192)));   // B was evicted; it evicts D (oldest now)
  CHECK_FALSE(l2.access(box(24576)));  // D gone
  CHECK_FALSE(l2.access(box(0, 2)));   // same offset, other tensor: another box
}

TEST_CASE("L2 box cache: thousands of boxes stay consistent through growth and eviction", "[l2]") {
  const uint64_t boxes = 3000;
  BoxCache l2(boxes * 8192);
  for (uint64_t i = 0; i < boxes; ++i) REQUIRE_FALSE(l2.access(box(i * 8192)));
  for (uint64_t i = 0; i < boxes; ++i) REQUIRE(l2.access(box(i * 8192)));  // all fit
  // Streaming as many new boxes pushes every old one out, oldest first.
  for (uint64_t i = 0; i < boxes; ++i) REQUIRE_FALSE(l2.access(box((boxes + i) * 8192)));
  for (uint64_t i = 0; i < boxes; i += 97) CHECK_FALSE(l2.access(box(i * 8192)));
}

TEST_CASE("L2 box cache: a request while a lookup is in flight is merged into it", "[l2]") {
  using ts::sim::Lookup;
  BoxCache l2(4 * 8192);
  // A miss's lookup is in flight for the miss window (its data comes from HBM), a hit's for the hit window.
  CHECK(l2.access_at(box(0), 100, 300, 700) == Lookup::miss);
  CHECK(l2.access_at(box(0), 500, 300, 700) == Lookup::merged);  // within 100 + 700
  CHECK(l2.access_at(box(0), 799, 300, 700) == Lookup::merged);
  CHECK(l2.access_at(box(0), 800, 300, 700) == Lookup::hit);     // the fill is done: a lookup of its own
  CHECK(l2.access_at(box(0), 1000, 300, 700) == Lookup::merged); // within 800 + 300
  CHECK(l2.access_at(box(0), 1100, 300, 700) == Lookup::hit);
  // A merged request does not extend the window: the lookup it joined ends when it ends.
  CHECK(l2.access_at(box(0), 1200, 300, 700) == Lookup::merged);
  CHECK(l2.access_at(box(0), 1400, 300, 700) == Lookup::hit);
  // Another box, and the plain access (no windows), which never merges.
  CHECK(l2.access_at(box(8192), 1400, 300, 700) == Lookup::miss);
  CHECK(l2.access(box(8192)));
  CHECK(l2.access(box(8192)));
}
