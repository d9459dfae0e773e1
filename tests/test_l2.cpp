// The simulator's L2 (sim/l2.hpp): least recently used over boxes, capacity in bytes, worked by hand.
#include <catch2/catch.hpp>

#include "sim/l2.hpp"

using ts::sim::BoxCache;
using ts::sim::GlobalBox;

namespace {
GlobalBox box(uint64_t offset, uint32_t tensor = 1) {  // 8 KB each
  return {.tensor = tensor, .rows = 64, .row_bytes = 128, .row_pitch = 128, .offset = offset};
}
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
  // Each lookup, a miss's or a hit's, serves the requests of the next 300 cycles.
  CHECK(l2.access_at(box(0), 100, 300) == Lookup::miss);
  CHECK(l2.access_at(box(0), 250, 300) == Lookup::merged);
  CHECK(l2.access_at(box(0), 399, 300) == Lookup::merged);
  CHECK(l2.access_at(box(0), 400, 300) == Lookup::hit);     // a lookup of its own
  CHECK(l2.access_at(box(0), 600, 300) == Lookup::merged);  // within 400 + 300
  // A merged request does not extend the window: the lookup it joined ends when it ends.
  CHECK(l2.access_at(box(0), 699, 300) == Lookup::merged);
  CHECK(l2.access_at(box(0), 700, 300) == Lookup::hit);
  // Another box, and the plain access (no window), which reports a hit either way.
  CHECK(l2.access_at(box(8192), 700, 300) == Lookup::miss);
  CHECK(l2.access(box(8192)));
  CHECK(l2.access(box(8192)));
}
