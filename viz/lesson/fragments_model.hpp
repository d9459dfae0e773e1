#pragma once
// What the fragments scene shows, computed without drawing: which lane (and which of its
// registers) holds each element of a register tile, from the maps in tiles/layout/fragments.hpp
// that the device ops and the host backend use.
#include <string>
#include <vector>

#include "tiles/layout/fragments.hpp"
#include "viz/lesson/scenes.hpp"

namespace ts::viz {

struct LaneRegister {
  uint32_t reg = 0;                       // 32-bit register of the lane's fragment
  std::vector<layout::RowCol> elements;   // the elements it holds: 2 (bf16) or 1 (fp32)
};

struct FragmentsModel {
  uint32_t rows = 16, cols = 16;
  bool bf16 = true;
  bool row_layout = true;            // rows spread over lane groups (A / accumulator), else columns (B)
  uint32_t lanes = 32;               // 32, or the 128 threads of a warpgroup
  uint32_t registers_per_lane = 0;
  std::vector<layout::Owner> owners;  // row-major, rows x cols
  std::vector<LaneRegister> lane_registers;  // of the state's lane, register order
  layout::Owner pointed{};            // owner of the state's (row, col)
  std::string title;                  // for people: what the tile is and which map places it
  const layout::Owner& owner(uint32_t row, uint32_t col) const { return owners[size_t(row) * cols + col]; }
};

FragmentsModel fragments_model(const FragmentsState& s);

}  // namespace ts::viz
