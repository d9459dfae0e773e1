// Register fragment maps against the PTX ISA figures: section "Matrix Fragments for
// mma.m16n8k16 with floating point type" (A, B, C/D) and, for wgmma, "Register Fragments and
// Shared Memory Matrix Layouts" (the m64nNk16 accumulator D and the register A operand).
#include <catch2/catch.hpp>
#include <set>

#include "tiles/layout/fragments.hpp"

using namespace ts::layout;

TEST_CASE("ldmatrix x4 lanes address the 16 rows and 2 column halves of a 16x16 tile", "[fragments]") {
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const RowCol rc = ldmatrix_x4_row_start(lane);
    seen.insert({rc.row, rc.col});
    // Matrix m = lane / 8 must hold rows 0-7 or 8-15 and columns 0-7 or 8-15 in A-fragment order.
    const uint32_t m = ldmatrix_matrix_of_lane(lane);
    CHECK(rc.row / 8 == m % 2);
    CHECK(rc.col / 8 == m / 2);
    CHECK(rc.row % 8 == ldmatrix_row_of_lane(lane));
  }
  CHECK(seen.size() == 32);
  CHECK(ldmatrix_lanes(1) == 8);
  CHECK(ldmatrix_lanes(4) == 32);
}

TEST_CASE("mma.m16n8k16 A fragment matches the PTX figure and is a bijection", "[fragments]") {
  // PTX figure: a0,a1 at (groupID, 2*tig + {0,1}); a2,a3 at (groupID+8, ...); a4..a7 8 columns on.
  // Our registers hold element pairs: reg0 = a0a1, reg1 = a2a3, reg2 = a4a5, reg3 = a6a7.
  CHECK(mma_a_element(0, 0, 0) == RowCol{0, 0});
  CHECK(mma_a_element(5, 0, 1) == RowCol{1, 3});
  CHECK(mma_a_element(5, 1, 0) == RowCol{9, 2});
  CHECK(mma_a_element(31, 3, 1) == RowCol{15, 15});
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (uint32_t lane = 0; lane < 32; ++lane)
    for (uint32_t reg = 0; reg < 4; ++reg)
      for (uint32_t half = 0; half < 2; ++half) {
        const RowCol rc = mma_a_element(lane, reg, half);
        REQUIRE(rc.row < 16);
        REQUIRE(rc.col < 16);
        REQUIRE(mma_a_owner(rc.row, rc.col) == Owner{lane, reg, half});
        seen.insert({rc.row, rc.col});
      }
  CHECK(seen.size() == 256);
}

TEST_CASE("mma.m16n8k16 B fragment (K x N) matches the PTX figure and is a bijection", "[fragments]") {
  // PTX figure: b0,b1 at (row k = 2*tig + {0,1}, col n = groupID); b2,b3 at k + 8.
  CHECK(mma_b_element(0, 0, 0) == RowCol{0, 0});
  CHECK(mma_b_element(6, 0, 1) == RowCol{5, 1});
  CHECK(mma_b_element(6, 1, 0) == RowCol{12, 1});
  CHECK(mma_b_element(6, 2, 0) == RowCol{4, 9});  // second n8 half
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (uint32_t lane = 0; lane < 32; ++lane)
    for (uint32_t reg = 0; reg < 4; ++reg)
      for (uint32_t half = 0; half < 2; ++half) {
        const RowCol rc = mma_b_element(lane, reg, half);
        REQUIRE(mma_b_owner(rc.row, rc.col) == Owner{lane, reg, half});
        seen.insert({rc.row, rc.col});
      }
  CHECK(seen.size() == 256);
}

TEST_CASE("mma.m16n8k16 fp32 accumulator matches the PTX figure and is a bijection", "[fragments]") {
  // PTX figure: c0,c1 at (groupID, 2*tig + {0,1}); c2,c3 at (groupID + 8, ...).
  CHECK(mma_c_element(0, 0) == RowCol{0, 0});
  CHECK(mma_c_element(9, 1) == RowCol{2, 3});
  CHECK(mma_c_element(9, 2) == RowCol{10, 2});
  CHECK(mma_c_element(9, 5) == RowCol{2, 11});
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (uint32_t lane = 0; lane < 32; ++lane)
    for (uint32_t reg = 0; reg < 8; ++reg) {
      const RowCol rc = mma_c_element(lane, reg);
      REQUIRE(rc.row < 16);
      REQUIRE(rc.col < 16);
      REQUIRE(mma_c_owner(rc.row, rc.col) == Owner{lane, reg, 0});
      seen.insert({rc.row, rc.col});
    }
  CHECK(seen.size() == 256);
}

TEST_CASE("wgmma m64nN accumulator: warp w owns rows 16w..16w+15, bijection for every N", "[fragments]") {
  CHECK(wgmma_d_element(32, 0) == RowCol{16, 0});     // warp 1, lane 0
  CHECK(wgmma_d_element(127, 2) == RowCol{63, 6});    // warp 3, lane 31, d2
  CHECK(wgmma_d_element(1, 4) == RowCol{0, 10});      // d4 starts the second 8-column group
  for (uint32_t n : {8u, 16u, 64u, 128u, 256u}) {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (uint32_t t = 0; t < 128; ++t)
      for (uint32_t reg = 0; reg < n / 2; ++reg) {
        const RowCol rc = wgmma_d_element(t, reg);
        REQUIRE(rc.row < 64);
        REQUIRE(rc.col < n);
        REQUIRE(wgmma_d_owner(rc.row, rc.col) == Owner{t, reg, 0});
        seen.insert({rc.row, rc.col});
      }
    CHECK(seen.size() == 64 * n);
  }
}

TEST_CASE("wgmma register A (m64 x k16) is the mma A fragment per warp", "[fragments]") {
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (uint32_t t = 0; t < 128; ++t)
    for (uint32_t reg = 0; reg < 4; ++reg)
      for (uint32_t half = 0; half < 2; ++half) {
        const RowCol rc = wgmma_a_element(t, reg, half);
        REQUIRE(rc.row / 16 == t / 32);
        REQUIRE(wgmma_a_owner(rc.row, rc.col) == Owner{t, reg, half});
        seen.insert({rc.row, rc.col});
      }
  CHECK(seen.size() == 64 * 16);
}
