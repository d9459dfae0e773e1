#include "viz/lesson/banks_model.hpp"

#include <array>
#include <cstdio>
#include <string>
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

namespace ts::viz {

std::string banks_access_text(const BanksState& s) {
  const std::string at = "(" + std::to_string(s.r) + ", " + std::to_string(s.c) + ")";
  switch (s.access) {
    case Access::ldsm4: return "ldmatrix.x4 of the 16x16 subtile at " + at;
    case Access::row128: return "128-bit row reads: the warp reads 512 bytes in row order from " + at;
    case Access::col128: return "128-bit column reads: lane i reads 16 bytes of row " + std::to_string(s.r) + "+i at column " + std::to_string(s.c);
    case Access::col32: return "32-bit column reads: lane i reads 4 bytes of row " + std::to_string(s.r) + "+i at column " + std::to_string(s.c);
  }
  return "";
}

std::string banks_layout_text(const BanksState& s, const layout::SmemLayout& t) {
  std::string sw = t.swizzle == layout::Swizzle::none ? "no swizzle" : std::to_string(layout::span_bytes(t.swizzle)) + "B swizzle";
  if (s.swizzle == SwizzleKnob::automatic) sw += " (auto)";
  std::string text = std::string(name_of(s.dtype)) + " tile " + std::to_string(s.rows) + " x " + std::to_string(s.cols) +
                     ", rows of " + std::to_string(t.row_bytes()) + " B, " + sw;
  if (t.swizzle == layout::Swizzle::none)
    text += ", pitch " + std::to_string(t.row_pitch()) + " B" + (t.pad_bytes ? " (" + std::to_string(t.pad_bytes) + " B pad)" : "");
  else if (t.block_row_bytes() < t.row_bytes())
    text += ", stored as " + std::to_string(t.row_bytes() / t.block_row_bytes()) + " column blocks of " +
            std::to_string(t.block_row_bytes()) + " B";
  return text + ", " + std::to_string(t.size_bytes()) + " B";
}

std::string banks_picture(const BanksState& s) {
  const BanksAnalysis a = analyze_banks_scene(s);
  if (!a.error.empty() || !a.report) return a.error + "\n";
  const sim::BankReport& r = *a.report;
  const layout::SmemLayout& t = a.tile;
  const uint32_t lpp = r.lanes_per_phase, first_lane = s.phase * lpp;
  const auto in_phase = [&](uint32_t lane) { return lane >= first_lane && lane < first_lane + lpp; };
  char buf[160];
  std::string out = banks_layout_text(s, t) + "\n" + banks_access_text(s) + "\n";
  std::snprintf(buf, sizeof buf, "phase %u of %u: lanes %u-%u\n", s.phase, r.phases(), first_lane, first_lane + lpp - 1);
  out += buf;

  // The tile, one cell per 16-byte chunk (as the scene draws a wide tile): the bank of the chunk's
  // first word; "[ 0]" a chunk the shown phase reads, "( 0)" one another phase reads.
  const uint32_t per_chunk = std::max(1u, 16 / t.elem_bytes), chunks = (s.cols + per_chunk - 1) / per_chunk;
  std::vector<char> mark(size_t(s.rows) * chunks, ' ');
  for (const LaneAccess& l : a.lanes)
    for (uint32_t e = 0; e < l.elems; ++e) {
      char& m = mark[size_t(l.row) * chunks + (l.col + e) / per_chunk];
      if (in_phase(l.lane)) m = '[';
      else if (m == ' ') m = '(';
    }
  out += "\nbank of each 16-byte chunk ([..] read by this phase, (..) by another):\n     ";
  for (uint32_t c = 0; c < chunks; ++c) {
    std::snprintf(buf, sizeof buf, " c%-3u", c * per_chunk);
    out += buf;
  }
  out += "\n";
  for (uint32_t row = 0; row < s.rows; ++row) {
    std::snprintf(buf, sizeof buf, "r%-3u ", row);
    out += buf;
    for (uint32_t c = 0; c < chunks; ++c) {
      const char m = mark[size_t(row) * chunks + c];
      const uint32_t bank = bank_of_element(t, row, c * per_chunk);
      std::snprintf(buf, sizeof buf, " %c%2u%c", m, bank, m == '[' ? ']' : m == '(' ? ')' : ' ');
      out += buf;
    }
    out += "\n";
  }

  // The bank strip of the shown phase: distinct words per bank, and the lanes behind them.
  std::vector<std::vector<const sim::WordAccess*>> per_bank(32);
  for (const auto& w : r.words)
    if (w.phase == s.phase) per_bank[w.bank].push_back(&w);
  out += "\nbanks, phase " + std::to_string(s.phase) + ": distinct 4-byte words (each costs a wavefront)\nbank ";
  for (uint32_t b = 0; b < 32; ++b) out += (std::snprintf(buf, sizeof buf, "%3u", b), buf);
  out += "\nwords";
  for (uint32_t b = 0; b < 32; ++b) out += (std::snprintf(buf, sizeof buf, "%3zu", per_bank[b].size()), buf);
  out += "\n";
  std::snprintf(buf, sizeof buf, "\nwavefronts %u, conflicts %u (ideal %u); per phase:", r.wavefronts, r.conflicts, r.ideal_wavefronts);
  out += buf;
  for (uint32_t w : r.wavefronts_per_phase) out += " " + std::to_string(w);
  return out + "\n";
}

}  // namespace ts::viz
