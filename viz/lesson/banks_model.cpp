#include "viz/lesson/banks_model.hpp"

#include <array>
#include <stdexcept>

#include "tiles/layout/fragments.hpp"

namespace ts::viz {

using layout::Swizzle;

layout::Swizzle resolve_swizzle(const BanksState& s) {
  switch (s.swizzle) {
    case SwizzleKnob::none: return Swizzle::none;
    case SwizzleKnob::b32: return Swizzle::b32;
    case SwizzleKnob::b64: return Swizzle::b64;
    case SwizzleKnob::b128: return Swizzle::b128;
    case SwizzleKnob::automatic: return layout::largest_swizzle_for_row(s.cols * elem_bytes(s.dtype));
  }
  return Swizzle::none;
}

layout::SmemLayout tile_layout(const BanksState& s) {
  const Swizzle sw = resolve_swizzle(s);
  return layout::SmemLayout{elem_bytes(s.dtype), s.rows, s.cols, sw, sw == Swizzle::none ? s.pad : 0};
}

const sim::SmemOpInfo& access_op(Access a) {
  switch (a) {
    case Access::ldsm4: return sim::info(sim::SmemOp::ldsm4);
    case Access::row128:
    case Access::col128: return sim::info(sim::SmemOp::ld128);
    case Access::col32: return sim::info(sim::SmemOp::ld32);
  }
  throw std::logic_error("unknown access");
}

uint32_t bank_of_element(const layout::SmemLayout& tile, uint32_t row, uint32_t col) {
  return (tile.element_offset(row, col) / sim::kBankWidthBytes) % sim::kBanks;
}

namespace {

// Where each active lane's access starts, as (row, column) of the tile; "" or why it can't be.
std::string lane_starts(const BanksState& s, const layout::SmemLayout& tile, uint32_t active,
                        std::vector<layout::RowCol>& starts) {
  const uint32_t eb = tile.elem_bytes;
  const uint32_t row_bytes = tile.row_bytes();
  const std::string at = " at (r=" + std::to_string(s.r) + ", c=" + std::to_string(s.c) + ")";
  switch (s.access) {
    case Access::ldsm4:
      if (s.dtype != Dtype::bf16) return "ldmatrix moves 16-bit elements: set dtype=bf16";
      if (s.r + 16 > s.rows || s.c + 16 > s.cols)
        return "the 16x16 subtile" + at + " does not fit a " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + " tile";
      for (uint32_t lane = 0; lane < active; ++lane) {
        const layout::RowCol rc = layout::ldmatrix_x4_row_start(lane);
        starts.push_back({s.r + rc.row, s.c + rc.col});
      }
      return "";
    case Access::row128: {
      // Lane i takes the i-th 16 bytes after (r, c), walking the rows in order.
      const uint64_t first = uint64_t(s.r) * row_bytes + uint64_t(s.c) * eb;
      if (first + 16ull * active > uint64_t(s.rows) * row_bytes)
        return "the warp's 512 bytes from" + at + " run past the end of the tile";
      for (uint32_t lane = 0; lane < active; ++lane) {
        const uint64_t p = first + 16ull * lane;
        starts.push_back({uint32_t(p / row_bytes), uint32_t(p % row_bytes) / eb});
      }
      return "";
    }
    case Access::col128:
    case Access::col32: {
      const uint32_t bytes = s.access == Access::col128 ? 16 : 4;
      if (s.c >= s.cols || s.r >= s.rows || s.c * eb + bytes > row_bytes)
        return "a " + std::to_string(bytes) + "-byte read" + at + " does not fit in the row";
      for (uint32_t lane = 0; lane < active; ++lane) starts.push_back({(s.r + lane) % s.rows, s.c});
      return "";
    }
  }
  return "unknown access";
}

}  // namespace

BanksAnalysis analyze_banks_scene(const BanksState& s) {
  BanksAnalysis out{tile_layout(s), access_op(s.access), {}, std::nullopt, ""};
  const uint32_t row_bytes = out.tile.row_bytes();
  if (row_bytes % 16 != 0) {
    out.error = "a row is " + std::to_string(row_bytes) + " bytes; rows must be a multiple of 16 bytes";
    return out;
  }
  if (s.pad != 0 && resolve_swizzle(s) != Swizzle::none) {
    out.error = "row padding only applies without a swizzle (swizzle=none)";
    return out;
  }
  std::vector<layout::RowCol> starts;
  out.error = lane_starts(s, out.tile, out.op.active_lanes, starts);
  if (!out.error.empty()) return out;
  const uint32_t elems = out.op.bytes_per_lane / out.tile.elem_bytes;
  std::array<uint32_t, sim::kWarpSize> offsets{};
  for (uint32_t lane = 0; lane < starts.size(); ++lane) {
    offsets[lane] = out.tile.element_offset(starts[lane].row, starts[lane].col);
    out.lanes.push_back({lane, starts[lane].row, starts[lane].col, elems, offsets[lane]});
  }
  try {
    out.report = sim::analyze_banks(out.op, offsets);
  } catch (const std::invalid_argument& e) {
    out.error = e.what();  // e.g. a 4-byte pad leaves 16-byte reads misaligned
    out.lanes.clear();
  }
  return out;
}

}  // namespace ts::viz
