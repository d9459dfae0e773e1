#include <catch2/catch.hpp>

#include "sim/banks.hpp"
#include "tiles/layout/fragments.hpp"
#include "tiles/layout/swizzle.hpp"

using namespace ts::sim;
using namespace ts::layout;

namespace {
std::array<uint32_t, 32> lanes(auto f) {
  std::array<uint32_t, 32> a{};
  for (uint32_t i = 0; i < 32; ++i) a[i] = f(i);
  return a;
}
BankReport run(std::string_view op, const std::array<uint32_t, 32>& offsets) {
  return analyze_banks(*find_smem_op(op), offsets);
}
}  // namespace

TEST_CASE("bank model reproduces the H100 measurements of the foundation issue", "[banks]") {
  auto r = run("ld32", lanes([](uint32_t i) { return 8 * i; }));
  CHECK(r.wavefronts == 2);
  CHECK(r.conflicts == 1);
  r = run("ld32", lanes([](uint32_t) { return 0u; }));
  CHECK(r.wavefronts == 1);
  CHECK(r.conflicts == 0);
  r = run("ld64", lanes([](uint32_t i) { return 16 * i; }));
  CHECK(r.wavefronts == 4);
  CHECK(r.conflicts == 2);
  r = run("ld128", lanes([](uint32_t i) { return 16 * i; }));
  CHECK(r.wavefronts == 4);
  CHECK(r.conflicts == 0);
  const auto plain = lanes([](uint32_t i) { return (i % 16) * 128 + (i / 16) * 16; });
  r = run("ldsm4", plain);
  CHECK(r.wavefronts == 32);
  CHECK(r.conflicts == 28);
  const auto swizzled = lanes([&](uint32_t i) { return swizzle_offset(Swizzle::b128, plain[i]); });
  r = run("ldsm4", swizzled);
  CHECK(r.wavefronts == 4);
  CHECK(r.conflicts == 0);
}

TEST_CASE("hand-worked cases", "[banks]") {
  // 32-bit, stride 32 words: every lane in bank 0, 32 distinct words.
  CHECK(run("st32", lanes([](uint32_t i) { return 128 * i; })).wavefronts == 32);
  // 32-bit, 4 lanes per word (broadcast), 8 distinct consecutive words: conflict-free.
  CHECK(run("ld32", lanes([](uint32_t i) { return 4 * (i / 4); })).wavefronts == 1);
  // 64-bit contiguous: each half-warp covers 128 bytes once.
  CHECK(run("ld64", lanes([](uint32_t i) { return 8 * i; })).wavefronts == 2);
  // 128-bit column read of a 128-byte-pitch tile: 8 rows per quarter all in banks 0-3.
  auto col = run("ld128", lanes([](uint32_t i) { return 128 * i; }));
  CHECK(col.wavefronts == 32);
  CHECK(col.conflicts == 28);
  // Padding each row by one 16-byte chunk spreads the rows over all banks.
  CHECK(run("ldsm4", lanes([](uint32_t i) { return (i % 16) * 144 + (i / 16) * 16; })).wavefronts == 4);
  // ldmatrix.x1 only reads lanes 0-7; the rest are ignored.
  auto x1 = run("ldsm1", lanes([](uint32_t i) { return i < 8 ? 16 * i : 12345u * 16; }));
  CHECK(x1.wavefronts == 1);
  CHECK(x1.conflicts == 0);
  // x2 of the plain tile: two matrices of 8 conflicting rows.
  CHECK(run("ldsm2", lanes([](uint32_t i) { return (i % 16) * 128; })).wavefronts == 16);
  // stmatrix and .trans touch the same words as ldmatrix.
  CHECK(run("stsm4", lanes([](uint32_t i) { return (i % 16) * 128; })).wavefronts == 32);
  CHECK(run("ldsm4t", lanes([](uint32_t i) { return (i % 16) * 128 + (i / 16) * 16; })).wavefronts == 32);
}

TEST_CASE("ldmatrix.x4 over a swizzled tile is conflict-free anywhere in the tile", "[banks]") {
  const SmemLayout tile{2, 64, 64, Swizzle::b128, 0};
  for (uint32_t r0 = 0; r0 < 64; r0 += 16)
    for (uint32_t c0 = 0; c0 < 64; c0 += 16) {
      const auto offs = lanes([&](uint32_t l) {
        const RowCol rc = ldmatrix_x4_row_start(l);
        return tile.element_offset(r0 + rc.row, c0 + rc.col);
      });
      CHECK(run("ldsm4", offs).conflicts == 0);
    }
}

TEST_CASE("bad input is refused with a reason", "[banks]") {
  CHECK_THROWS_WITH(run("ld64", lanes([](uint32_t i) { return 4 * i; })), Catch::Contains("lane 1"));
  CHECK_THROWS_WITH(run("ldsm4", lanes([](uint32_t i) { return 8 * i; })), Catch::Contains("aligned"));
  CHECK_THROWS_WITH(parse_lane_offsets("1,2,3"), Catch::Contains("expected 32"));
  CHECK_THROWS_WITH(parse_lane_offsets("0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,x"),
                    Catch::Contains("lane offset 31"));
  CHECK_THROWS_WITH(parse_lane_offsets("-4,0"), Catch::Contains("not a non-negative"));
  CHECK(parse_lane_offsets("0x10,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31")[0] == 16);
  CHECK_FALSE(find_smem_op("ld256").has_value());
}
