#include "sim/smem_walk.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "sim/banks.hpp"
#include "tiles/layout/fragments.hpp"

namespace ts::sim {

namespace {

using Offsets = std::array<uint32_t, kWarpSize>;

void add(SmemCost& cost, SmemOp op, const Offsets& offsets) {
  const BankReport r = analyze_banks(info(op), offsets);
  ++cost.instructions;
  cost.wavefronts += r.wavefronts;
  cost.conflicts += r.conflicts;
}

// A vector's 16-bit element shares its 4-byte word with a neighbour: the access is to that word.
uint32_t word_of(const layout::SmemLayout& t, uint32_t element) { return t.element_offset(0, element) & ~3u; }

}  // namespace

SmemCost smem_access_cost(const SmemAccess& a, bool store) {
  const layout::SmemLayout& t = a.tile;
  const bool fp32 = t.elem_bytes == 4;
  const bool vector = a.walk == SmemWalk::vector_by_group || a.walk == SmemWalk::vector_by_thread;
  if (!vector && (a.rows % 16 != 0 || a.cols % 16 != 0))
    throw std::invalid_argument("shared-memory access of " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                                " elements: a tile walk covers whole 16 x 16 subtiles");
  auto at = [&](uint32_t r, uint32_t c) { return t.element_offset(a.row0 + r, a.col0 + c); };
  // warp::load/store of fp32 row_l tiles: the lanes of odd rows move the partner 16-column block.
  const bool swap_pairs = layout::fp32_pairs_swap_blocks(t.elem_bytes, a.cols);
  if (a.walk == SmemWalk::accumulator_pairs && !fp32)
    throw std::invalid_argument("accumulator-pair walk of a 16-bit tile: warpgroup::store moves those by stmatrix (matrix_x4)");
  SmemCost cost;
  Offsets off{};
  switch (a.walk) {
    case SmemWalk::accumulator_pairs:  // 16 rows: 4 instructions per 16 columns, one per register pair
      for (uint32_t j = 0; j < a.cols / 16u; ++j)
        for (uint32_t pair = 0; pair < 4; ++pair) {
          for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
            const layout::RowCol rc = layout::mma_c_element(lane, 2 * pair);  // the first of the pair
            off[lane] = at(rc.row, 16 * j + rc.col);
          }
          add(cost, store ? SmemOp::st64 : SmemOp::ld64, off);
        }
      break;
    case SmemWalk::matrix_x4:
      for (uint32_t i = 0; i < a.rows / 16u; ++i)
        for (uint32_t j = 0; j < a.cols / 16u; ++j) {
          for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
            const layout::RowCol rc = layout::ldmatrix_x4_row_start(lane);
            off[lane] = at(16 * i + rc.row, 16 * j + rc.col);
          }
          add(cost, store ? SmemOp::stsm4 : SmemOp::ldsm4, off);
        }
      break;
    case SmemWalk::row_pairs:
    case SmemWalk::column_pairs: {
      const bool rows = a.walk == SmemWalk::row_pairs;
      for (uint32_t i = 0; i < a.rows / 16u; ++i)
        for (uint32_t j = 0; j < a.cols / 16u; ++j)
          for (uint32_t k = 0; k < 4; ++k)
            for (uint32_t h = 0; h < (rows ? 1u : 2u); ++h) {  // col_l: the pair is one above the other
              for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
                const layout::RowCol e = rows ? layout::rt_row_l_element(lane, k, 0) : layout::rt_col_l_element(lane, k, 0);
                off[lane] = at(16 * i + e.row + h, 16 * (rows && swap_pairs ? layout::fp32_pair_block(lane, j) : j) + e.col);
              }
              if (rows) add(cost, store ? SmemOp::st64 : SmemOp::ld64, off);
              else add(cost, store ? SmemOp::st32 : SmemOp::ld32, off);
            }
      break;
    }
    case SmemWalk::vector_by_group:  // slots 0 and 1 are elements g and g + 8: one access each
      for (uint32_t blk = 0; blk < a.cols / 16u; ++blk)
        for (uint32_t slot = 0; slot < 2; ++slot) {
          for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
            // A store writes from one replica of each element (lane 4g); the other lanes are idle,
            // drawn here on their writer's word, which costs nothing more.
            const uint32_t from = store ? lane & ~3u : lane;
            off[lane] = word_of(t, 16 * blk + layout::rv_group_element(from, slot));
          }
          add(cost, store ? SmemOp::st32 : SmemOp::ld32, off);
        }
      break;
    case SmemWalk::vector_by_thread: {
      // Slots 2p and 2p + 1 are the adjacent elements 2t + 8p and 2t + 8p + 1, which the compiler
      // moves in one access (seen in Nsight Compute's count of the backward's shared loads): 64-bit
      // for fp32, 32-bit for 16-bit elements. A store writes from group 0 (lanes 0-3).
      const bool wide = t.elem_bytes == 4;
      for (uint32_t blk = 0; blk < a.cols / 16u; ++blk)
        for (uint32_t pair = 0; pair < 2; ++pair) {
          for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
            const uint32_t from = store ? lane % 4 : lane;
            const uint32_t element = 16 * blk + layout::rv_thread_element(from, 2 * pair);
            off[lane] = wide ? t.element_offset(0, element) : word_of(t, element);
          }
          if (wide) add(cost, store ? SmemOp::st64 : SmemOp::ld64, off);
          else add(cost, store ? SmemOp::st32 : SmemOp::ld32, off);
        }
      break;
    }
  }
  return cost;
}

}  // namespace ts::sim
