#pragma once
// What the banks scene shows, computed without any drawing: the shared tile's layout (from
// tiles/layout, the same swizzle the GPU uses), where each lane's access lands, and the bank
// model's verdict (sim/banks).
#include <optional>
#include <string>
#include <vector>

#include "sim/banks.hpp"
#include "tiles/layout/swizzle.hpp"
#include "viz/lesson/scenes.hpp"

namespace ts::viz {

layout::Swizzle resolve_swizzle(const BanksState& s);  // "auto" -> the largest the row allows
layout::SmemLayout tile_layout(const BanksState& s);
const sim::SmemOpInfo& access_op(Access a);  // ldsm4 -> ldsm4, row128/col128 -> ld128, col32 -> ld32

// Bank (0..31) of the 4-byte word holding element (row, col).
uint32_t bank_of_element(const layout::SmemLayout& tile, uint32_t row, uint32_t col);

// One lane's access: `elems` consecutive elements of row `row` from column `col`, starting at
// shared byte offset `byte_offset` (swizzle applied).
struct LaneAccess {
  uint32_t lane, row, col, elems, byte_offset;
};

struct BanksAnalysis {
  layout::SmemLayout tile;
  sim::SmemOpInfo op;
  std::vector<LaneAccess> lanes;         // the op's active lanes, lane order; empty if error
  std::optional<sim::BankReport> report;  // empty if error
  std::string error;                      // why the access cannot be made, for people
};

BanksAnalysis analyze_banks_scene(const BanksState& s);

// For people, as the scene heads its picture: "bf16 tile 16 x 64, rows of 128 B, 128B swizzle,
// 2048 B" and "ldmatrix.x4 of the 16x16 subtile at (0, 0)".
std::string banks_layout_text(const BanksState& s, const layout::SmemLayout& t);
std::string banks_access_text(const BanksState& s);

// The scene's picture as text (tilescope banks in the scene's form): the tile chunk by chunk with
// the bank of each 16-byte chunk and the shown phase's lanes marked, the 32-bank strip of that
// phase, and the totals. `s` must be valid (validate(s) empty).
std::string banks_picture(const BanksState& s);

}  // namespace ts::viz
