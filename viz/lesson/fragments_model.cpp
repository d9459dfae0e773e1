#include "viz/lesson/fragments_model.hpp"

namespace ts::viz {

using layout::Owner;

FragmentsModel fragments_model(const FragmentsState& s) {
  FragmentsModel m;
  const bool wgmma = s.view == FragmentView::wgmma;
  m.rows = wgmma ? 64 : 16;
  m.cols = wgmma ? s.n : s.view == FragmentView::wide ? 64 : 16;
  m.bf16 = s.view == FragmentView::a || s.view == FragmentView::b || s.view == FragmentView::wide;
  m.lanes = wgmma ? 128 : 32;
  // b is the column layout; swap_layout flips whichever layout the tile is in.
  m.row_layout = (s.view != FragmentView::b) != s.swapped;
  m.owners.reserve(size_t(m.rows) * m.cols);
  for (uint32_t r = 0; r < m.rows; ++r)
    for (uint32_t c = 0; c < m.cols; ++c) {
      Owner o{};
      if (wgmma) o = layout::wgmma_d_owner(r, c);
      else if (s.view == FragmentView::acc) o = layout::mma_c_owner(r, c);
      else {
        // bf16 tiles are 16x16 subtiles side by side, four registers per lane each.
        const uint32_t sub = c / 16, cc = c % 16;
        o = m.row_layout ? layout::mma_a_owner(r, cc) : layout::mma_b_owner(r, cc);
        o.reg += 4 * sub;
      }
      m.owners.push_back(o);
    }
  m.registers_per_lane = uint32_t(m.rows) * m.cols / m.lanes / (m.bf16 ? 2 : 1);
  m.lane_registers.resize(m.registers_per_lane);
  for (uint32_t i = 0; i < m.registers_per_lane; ++i) m.lane_registers[i].reg = i;
  for (uint32_t r = 0; r < m.rows; ++r)
    for (uint32_t c = 0; c < m.cols; ++c) {
      const Owner& o = m.owner(r, c);
      if (o.lane == s.lane && o.reg < m.registers_per_lane) m.lane_registers[o.reg].elements.push_back({r, c});
    }
  if (s.row < m.rows && s.col < m.cols) m.pointed = m.owner(s.row, s.col);

  const std::string layout = m.row_layout ? "row layout (mma A fragment)" : "column layout (mma B fragment)";
  switch (s.view) {
    case FragmentView::a:
    case FragmentView::b: m.title = "16x16 bf16 register tile, " + layout; break;
    case FragmentView::acc: m.title = "16x16 fp32 accumulator (mma.m16n8k16 C/D fragment, two n8 halves)"; break;
    case FragmentView::wide: m.title = "16x64 bf16 register tile = four 16x16 tiles, " + layout; break;
    case FragmentView::wgmma:
      m.title = "64x" + std::to_string(s.n) + " fp32 wgmma accumulator: 4 warps x 16 rows, 128 threads";
      break;
  }
  if (s.swapped) m.title += ", after swap_layout";
  return m;
}

}  // namespace ts::viz
