#include <catch2/catch.hpp>
#include <set>

#include "tiles/layout/swizzle.hpp"

using namespace ts::layout;

TEST_CASE("swizzle is a bijection on each repeat of its pattern", "[swizzle]") {
  for (Swizzle s : {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128}) {
    std::set<uint32_t> seen;
    for (uint32_t off = 0; off < 4096; off += 2) {
      const uint32_t sw = swizzle_offset(s, off);
      REQUIRE(sw / 1024 == off / 1024);  // stays inside its 1024-byte atom
      REQUIRE(sw % 16 == off % 16);      // moves whole 16-byte chunks only
      seen.insert(sw);
    }
    REQUIRE(seen.size() == 2048);
  }
}

TEST_CASE("swizzle formulas match the hand-worked chunk permutation", "[swizzle]") {
  // Row 1 of a 128-byte-pitch tile: chunk c moves to c ^ 1 under every swizzle.
  CHECK(swizzle_offset(Swizzle::b128, 128 + 0) == 128 + 16);
  CHECK(swizzle_offset(Swizzle::b64, 128 + 16) == 128 + 0);
  CHECK(swizzle_offset(Swizzle::b32, 128 + 32) == 128 + 48);
  // Row 5: 128B XORs with 5, 64B with 5 & 3 = 1, 32B with 5 & 1 = 1.
  CHECK(swizzle_offset(Swizzle::b128, 5 * 128 + 0) == 5 * 128 + 5 * 16);
  CHECK(swizzle_offset(Swizzle::b64, 5 * 128 + 0) == 5 * 128 + 1 * 16);
  CHECK(swizzle_offset(Swizzle::b32, 5 * 128 + 32) == 5 * 128 + 48);
  // Row 8 starts a new atom: no permutation.
  CHECK(swizzle_offset(Swizzle::b128, 8 * 128 + 48) == 8 * 128 + 48);
  CHECK(swizzle_offset(Swizzle::none, 5 * 128 + 3) == 5 * 128 + 3);
}

TEST_CASE("the largest swizzle a row allows is chosen", "[swizzle]") {
  CHECK(largest_swizzle_for_row(128) == Swizzle::b128);  // 64 bf16
  CHECK(largest_swizzle_for_row(256) == Swizzle::b128);  // 128 bf16, two column blocks
  CHECK(largest_swizzle_for_row(64) == Swizzle::b64);    // 32 bf16
  CHECK(largest_swizzle_for_row(96) == Swizzle::b32);    // 48 bf16
  CHECK(largest_swizzle_for_row(32) == Swizzle::b32);    // 16 bf16
  CHECK(largest_swizzle_for_row(16) == Swizzle::none);   // 8 bf16
  static_assert(auto_layout<uint16_t>(64, 64).swizzle == Swizzle::b128);
  static_assert(auto_layout<float>(16, 8).swizzle == Swizzle::b32);
}

TEST_CASE("every shared layout maps its elements one-to-one inside its footprint", "[swizzle]") {
  for (uint32_t eb : {2u, 4u})
    for (uint32_t rows : {8u, 16u, 64u})
      for (uint32_t cols : {8u, 16u, 32u, 64u, 128u})
        for (Swizzle s : {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128})
          for (uint32_t pad : {0u, 16u}) {
            if (s != Swizzle::none && pad) continue;
            const SmemLayout l{eb, rows, cols, s, pad};
            std::set<uint32_t> seen;
            for (uint32_t r = 0; r < rows; ++r)
              for (uint32_t c = 0; c < cols; ++c) {
                const uint32_t off = l.element_offset(r, c);
                REQUIRE(off % eb == 0);
                REQUIRE(off + eb <= std::max(l.size_bytes(), 1024u * ((l.size_bytes() + 1023) / 1024)));
                seen.insert(off);
              }
            REQUIRE(seen.size() == rows * cols);
          }
}

TEST_CASE("a layout's element offset is its linear offset swizzled, for every layout and element", "[swizzle]") {
  for (uint32_t eb : {1u, 2u, 4u})
    for (uint32_t rows : {1u, 3u, 8u, 64u})
      for (uint32_t cols : {8u, 16u, 48u, 64u, 128u, 256u})
        for (Swizzle s : {Swizzle::b32, Swizzle::b64, Swizzle::b128}) {
          const SmemLayout l{eb, rows, cols, s, 0};
          for (uint32_t r = 0; r < rows; ++r)
            for (uint32_t c = 0; c < cols; ++c)
              REQUIRE(l.element_offset(r, c) == swizzle_offset(s, l.linear_byte(r, c * eb)));
        }
}

TEST_CASE("column blocks: a 256-byte row is two 128-byte blocks of all rows", "[swizzle]") {
  const SmemLayout l{2, 64, 128, Swizzle::b128, 0};
  CHECK(l.linear_byte(0, 128) == 64 * 128);  // column 64 starts the second block
  CHECK(l.element_offset(3, 64) == 64 * 128 + 3 * 128 + (3 << 4));
}
