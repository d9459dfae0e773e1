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

}  // namespace ts::viz
