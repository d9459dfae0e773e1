#pragma once
// Which lane and which register own each element of a tile, for the tensor-core instructions that
// TileScope uses. Pure constexpr maps: the device ops, the host backend and the GUI all use them.
//
// Notation of the PTX ISA: in a warp, groupID = lane / 4 and threadID_in_group = lane % 4.
#include <cstdint>

#include "tiles/layout/hd.hpp"

namespace ts::layout {

struct RowCol {
  uint32_t row, col;
  friend constexpr bool operator==(RowCol, RowCol) = default;
};

// Owner of one element of a register fragment: the lane, the 32-bit register among that lane's
// fragment registers, and the half of it (0 = low 16 bits) for 16-bit types (always 0 for fp32).
struct Owner {
  uint32_t lane, reg, half;
  friend constexpr bool operator==(Owner, Owner) = default;
};

// ---- ldmatrix / stmatrix ------------------------------------------------------------------
// ldmatrix.xN loads N 8x8 matrices of 16-bit elements; lanes 8m..8m+7 give the row addresses of
// matrix m (PTX ISA, "Warp-level matrix load instruction: ldmatrix"). Lanes past 8N are ignored.
TS_HD constexpr uint32_t ldmatrix_lanes(uint32_t num_matrices) { return 8 * num_matrices; }
TS_HD constexpr uint32_t ldmatrix_matrix_of_lane(uint32_t lane) { return lane / 8; }
TS_HD constexpr uint32_t ldmatrix_row_of_lane(uint32_t lane) { return lane % 8; }

// TileScope's convention for a 16x16 tile of 16-bit elements moved by one x4 (or x2/x1 for the
// first 16/8 lanes): matrix 0 = rows 0-7 cols 0-7, 1 = rows 8-15 cols 0-7, 2 = rows 0-7 cols 8-15,
// 3 = rows 8-15 cols 8-15. This order makes the four loaded registers exactly the mma A fragment
// a0..a3 below, so a row-major 16x16 tile needs no shuffles. Lane l supplies the address of row
// (l % 16), 16-bit column (l / 16) * 8.
TS_HD constexpr RowCol ldmatrix_x4_row_start(uint32_t lane) { return {lane % 16, (lane / 16) * 8}; }
// With .trans each 8x8 matrix arrives transposed: lane l gets (rows 2 (l % 4) + {0, 1}, column l / 4)
// of matrix m in register m. The same lane addresses then give the mma B fragment (b0..b3 below)
// of a row-major 16x16 K x N tile. stmatrix (and stmatrix.trans) is the exact inverse of each.

// ---- mma.m16n8k16, 16-bit A/B, fp32 C/D ----------------------------------------------------
// PTX ISA, section "Matrix Fragments for mma.m16n8k16 with floating point type".
// A is 16x16 (M x K): four .b32 registers a0..a3 of two elements each.
TS_HD constexpr RowCol mma_a_element(uint32_t lane, uint32_t reg, uint32_t half) {
  const uint32_t g = lane / 4, t = lane % 4;
  return {g + 8 * (reg % 2), 2 * t + half + 8 * (reg / 2)};
}
TS_HD constexpr Owner mma_a_owner(uint32_t row, uint32_t col) {
  const uint32_t g = row % 8, t = (col % 8) / 2;
  return {4 * g + t, (row / 8) + 2 * (col / 8), col % 2};
}

// B of one m16n8k16 is 16x8 (K x N), two registers b0, b1. TileScope's 16x16 B tile (K x N) is
// two such n8 halves: registers 0-1 cover n 0-7, registers 2-3 cover n 8-15.
TS_HD constexpr RowCol mma_b_element(uint32_t lane, uint32_t reg, uint32_t half) {
  const uint32_t g = lane / 4, t = lane % 4;
  return {2 * t + half + 8 * (reg % 2), g + 8 * (reg / 2)};
}
TS_HD constexpr Owner mma_b_owner(uint32_t k, uint32_t n) {
  const uint32_t g = n % 8, t = (k % 8) / 2;
  return {4 * g + t, (k / 8) + 2 * (n / 8), k % 2};
}

// C/D of one m16n8k16 is 16x8 fp32, four registers c0..c3. A 16x16 accumulator tile is two n8
// halves: registers 0-3 cover n 0-7, registers 4-7 cover n 8-15. `half` is unused (fp32).
TS_HD constexpr RowCol mma_c_element(uint32_t lane, uint32_t reg) {
  const uint32_t g = lane / 4, t = lane % 4;
  return {g + 8 * ((reg / 2) % 2), 2 * t + (reg % 2) + 8 * (reg / 4)};
}
TS_HD constexpr Owner mma_c_owner(uint32_t row, uint32_t col) {
  const uint32_t g = row % 8, t = (col % 8) / 2;
  return {4 * g + t, (col % 2) + 2 * (row / 8) + 4 * (col / 8), 0};
}

// ---- register tiles and vectors (tiles/types/register.hpp, tiles/types/vector.hpp) -----------
// A register tile holds each 16x16 subtile as four pairs per lane. In row_l, pair k is mma A
// register k (rows spread over the 8 groups, columns over the 4 lanes of a group); in col_l pair k
// is mma B register k (the other way round). An fp32 row_l tile is also the accumulator: its pairs
// 0, 1 are c0..c3 of the first n8 half and pairs 2, 3 those of the second.
TS_HD constexpr RowCol rt_row_l_element(uint32_t lane, uint32_t pair, uint32_t half) { return mma_a_element(lane, pair, half); }
TS_HD constexpr RowCol rt_col_l_element(uint32_t lane, uint32_t pair, uint32_t half) { return mma_b_element(lane, pair, half); }

// fp32 pairs move 8 bytes a lane, and Hopper serves an 8-byte access a half-warp at a time (lanes
// 0-15: rows g = 0..3). In a 128B-swizzled fp32 tile, rows g and g ^ 1 of one 16-column block land on
// the same two 16-byte chunk positions (the swizzle XORs the chunk with the row), a 2-way bank
// conflict on every access. So at step j of such a walk the lanes of odd rows move block j ^ 1
// instead: a half-warp's four rows then cover all eight chunk positions, one wavefront each.
// Whole pairs of blocks only: the walk's width must be a multiple of 32 columns.
// warp::load/store of fp32 row_l tiles use it (the backward's dQ pass: 1.05 M conflicts to 0 in
// Nsight Compute, 95.0 -> 92.1 us on the H100), and so does warpgroup::store into an fp32 tile, at
// two selects per store: in the attention backward's dQ staging, whose stores wait on the wgmma
// reading its operands through the same shared-memory port, it made the main kernel 6 % faster at
// D 128 and 4 % causal at D 64, 0.8 % slower at D 64 unmasked (H100, 2026-11-27; it had lost 3.4 %
// at D 64 causal before the consumers took turns at the dQ shares).
TS_HD constexpr bool fp32_pairs_swap_blocks(uint32_t elem_bytes, uint32_t width) { return elem_bytes == 4 && width % 32 == 0; }
TS_HD constexpr uint32_t fp32_pair_block(uint32_t lane, uint32_t j) { return j ^ ((lane / 4) % 2); }
// warpgroup::store of an fp32 accumulator N columns wide into a tile of type T, Cols wide: it swaps
// only when it stores the whole accumulator. Storing a window (the GEMM's epilogue chunks, at a
// run-time col0) the selects' partner block is not known at compile time and the compiler indexed
// the registers from local memory (1.4 KB of stack, every wgmma serialized, C7511).
template <class T, int Cols, int N> TS_HD constexpr bool accumulator_swaps_blocks() {
  return N == Cols && fp32_pairs_swap_blocks(sizeof(T), Cols);
}

// A register vector holds its elements 16 at a time in one of two maps, the two ways a tile spreads
// its rows or columns over the lanes, so that broadcasts need no data movement and reductions only
// shuffles. Every lane that owns an element holds it (replicas agree):
//  - group map: element i of each 16 sits in the 4 lanes of group i % 8, slot i / 8 (2 slots);
//  - thread map: element i sits in the 8 lanes with threadID_in_group (i % 8) / 2, slot
//    2 (i / 8) + i % 2 (4 slots).
// Rows of a row_l tile and columns of a col_l tile follow the group map; the others the thread map.
TS_HD constexpr uint32_t rv_group_element(uint32_t lane, uint32_t slot) { return lane / 4 + 8 * slot; }
TS_HD constexpr uint32_t rv_thread_element(uint32_t lane, uint32_t slot) { return 2 * (lane % 4) + slot % 2 + 8 * (slot / 2); }

// The vector slot that holds the row (or the column) of element `half` of pair `pair` of a tile.
TS_HD constexpr uint32_t row_l_row_slot(uint32_t pair, uint32_t) { return pair % 2; }
TS_HD constexpr uint32_t row_l_col_slot(uint32_t pair, uint32_t half) { return 2 * (pair / 2) + half; }
TS_HD constexpr uint32_t col_l_row_slot(uint32_t pair, uint32_t half) { return 2 * (pair % 2) + half; }
TS_HD constexpr uint32_t col_l_col_slot(uint32_t pair, uint32_t) { return pair / 2; }

// ---- wgmma.m64nNk16 -------------------------------------------------------------------------
// PTX ISA, section "Register Fragments and Shared Memory Matrix Layouts" for wgmma: the warpgroup's
// 128 threads; warp w (0..3) owns rows 16w..16w+15, and inside its 16 rows each warp repeats the
// mma.m16n8 layout once per 8 columns. `thread` is 0..127 in the warpgroup.
//
// Accumulator D, m64 x N fp32: N/2 registers per thread.
TS_HD constexpr RowCol wgmma_d_element(uint32_t thread, uint32_t reg) {
  const uint32_t warp = thread / 32, lane = thread % 32;
  const uint32_t g = lane / 4, t = lane % 4;
  return {16 * warp + g + 8 * ((reg / 2) % 2), 8 * (reg / 4) + 2 * t + (reg % 2)};
}
TS_HD constexpr Owner wgmma_d_owner(uint32_t row, uint32_t col) {
  const uint32_t warp = row / 16, r = row % 16;
  const uint32_t g = r % 8, t = (col % 8) / 2;
  return {32 * warp + 4 * g + t, (col % 2) + 2 * (r / 8) + 4 * (col / 8), 0};
}

// A from registers, m64 x k16 16-bit: four registers per thread; each warp's 16x16 slice is the
// mma A fragment. (B always comes from shared memory.) `lane` of Owner is the warpgroup thread.
TS_HD constexpr RowCol wgmma_a_element(uint32_t thread, uint32_t reg, uint32_t half) {
  const RowCol rc = mma_a_element(thread % 32, reg, half);
  return {16 * (thread / 32) + rc.row, rc.col};
}
TS_HD constexpr Owner wgmma_a_owner(uint32_t row, uint32_t col) {
  const Owner o = mma_a_owner(row % 16, col);
  return {32 * (row / 16) + o.lane, o.reg, o.half};
}

}  // namespace ts::layout
