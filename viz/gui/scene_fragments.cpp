// Scene "fragments": a register tile cell by cell, each element coloured by the lane that holds
// it; the chosen lane's cells framed and its registers listed; one element pointed at.
#include <algorithm>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/fragments_model.hpp"

namespace ts::viz {

namespace {

std::string element_text(layout::RowCol rc) { return "(" + std::to_string(rc.row) + "," + std::to_string(rc.col) + ")"; }

// The chosen lane's registers and the elements in each.
void draw_register_list(const FragmentsState& s, const FragmentsModel& m, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  const std::string who = (m.lanes == 128 ? "Thread " : "Lane ") + std::to_string(s.lane);
  text_at(c.dl, f.bold, area.min, bank_colour(s.lane % 32), who);
  text_at(c.dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text,
          std::to_string(m.registers_per_lane) + " registers of 32 bits" + (m.bf16 ? ", two bf16 each" : ", one fp32 each"));
  const float line = f.small->FontSize + 3;
  float y = area.min.y + 42;
  size_t shown = 0;
  for (const LaneRegister& r : m.lane_registers) {
    if (y + line > area.max.y - line) break;
    std::string text = "r" + std::to_string(r.reg) + ":";
    for (const auto& e : r.elements) text += " " + element_text(e);
    text_at(c.dl, f.mono_small, ImVec2(area.min.x, y), colour::text, text);
    y += line;
    ++shown;
  }
  if (shown < m.lane_registers.size())
    text_at(c.dl, f.small, ImVec2(area.min.x, y), colour::dim_text,
            "... and " + std::to_string(m.lane_registers.size() - shown) + " more");
  if (c.lit("registers")) draw_highlight_frame(c.dl, {area.min, ImVec2(area.max.x, y + line)});
}

}  // namespace

void draw_fragments(const FragmentsState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  if (const std::string problem = validate(SceneState{s}); !problem.empty()) {
    text_at(dl, f.bold, area.min, colour::error, problem);
    return;
  }
  const FragmentsModel m = fragments_model(s);
  text_at(dl, f.bold, area.min, colour::white, m.title);
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text,
          "each cell is one element in its (row, column) place, coloured by the lane that holds it; the number is the lane"
          " (tiles/layout/fragments.hpp)");

  const float list_w = std::clamp(area.width() * 0.27f, 180.0f, 300.0f);
  const Rect grid_area{ImVec2(area.min.x + 34, area.min.y + 62), ImVec2(area.max.x - list_w - 20, area.max.y - 40)};
  const float cell = std::max(1.0f, std::min({grid_area.width() / m.cols, grid_area.height() / m.rows, 34.0f}));
  const ImVec2 o = grid_area.min;
  const bool labels = cell >= 18;
  for (uint32_t r = 0; r < m.rows; ++r) {
    for (uint32_t col = 0; col < m.cols; ++col) {
      const layout::Owner& w = m.owner(r, col);
      const bool mine = w.lane == s.lane;
      const ImVec2 p0(o.x + col * cell, o.y + r * cell), p1(p0.x + cell - (cell > 4 ? 1 : 0), p0.y + cell - (cell > 4 ? 1 : 0));
      dl->AddRectFilled(p0, p1, bank_colour(w.lane % 32, mine ? 1.0f : 0.55f));
      if (labels) {
        const std::string t = std::to_string(w.lane);
        text_at(dl, f.small, ImVec2(p0.x + (cell - text_size(f.small, t).x) / 2, p0.y + (cell - 14) / 2), colour::black, t);
      }
    }
    if (cell >= 12 || r % 8 == 0)
      text_at(dl, f.small, ImVec2(area.min.x, o.y + r * cell + std::min(0.0f, (cell - 13) / 2)), colour::dim_text,
              std::to_string(r));
  }
  const uint32_t col_step = cell >= 18 ? 2 : cell >= 8 ? 8 : 16;
  for (uint32_t col = 0; col < m.cols; col += col_step)
    text_at(dl, f.small, ImVec2(o.x + col * cell, o.y - 16), colour::dim_text, std::to_string(col));
  const Rect tile{o, ImVec2(o.x + m.cols * cell, o.y + m.rows * cell)};

  // The chosen lane's cells, framed.
  for (uint32_t r = 0; r < m.rows; ++r)
    for (uint32_t col = 0; col < m.cols; ++col)
      if (m.owner(r, col).lane == s.lane) {
        const ImVec2 p0(o.x + col * cell, o.y + r * cell), p1(p0.x + cell - 1, p0.y + cell - 1);
        const ImU32 mark = c.lit("lane") ? colour::highlight : colour::white;
        // Small cells: a frame would hide the colour it surrounds, so fill them instead.
        if (cell >= 10) dl->AddRect(p0, p1, mark, 0, 0, 2.0f);
        else dl->AddRectFilled(p0, p1, mark);
      }
  // 16x16 subtiles of the wide tile, and the four warps' rows of the warpgroup's accumulator.
  if (s.view == FragmentView::wide)
    for (uint32_t j = 1; j < 4; ++j)
      dl->AddLine(ImVec2(o.x + 16 * j * cell - 1, o.y - 2), ImVec2(o.x + 16 * j * cell - 1, tile.max.y + 2),
                  c.lit("subtiles") ? colour::highlight : colour::white, 2.5f);
  if (s.view == FragmentView::wgmma)
    for (uint32_t w = 0; w < 4; ++w) {
      const float y = o.y + 16 * w * cell;
      if (w > 0) dl->AddLine(ImVec2(o.x - 2, y - 1), ImVec2(tile.max.x + 2, y - 1), c.lit("warps") ? colour::highlight : colour::white, 2.0f);
      text_at(dl, f.small, ImVec2(tile.max.x + 4, y + 2), colour::dim_text, "warp " + std::to_string(w));
    }
  if (c.lit("tile")) draw_highlight_frame(dl, tile);

  // The element pointed at.
  const ImVec2 e0(o.x + s.col * cell, o.y + s.row * cell);
  dl->AddRect(ImVec2(e0.x - 2, e0.y - 2), ImVec2(e0.x + cell + 1, e0.y + cell + 1),
              c.lit("element") ? colour::highlight : colour::black, 0, 0, 3.0f);
  const std::string pointed = "element (" + std::to_string(s.row) + ", " + std::to_string(s.col) + ") is marked";
  text_at(dl, f.body, ImVec2(area.min.x, tile.max.y + 12), colour::text, pointed);

  draw_register_list(s, m, c, {ImVec2(area.max.x - list_w, area.min.y + 62), area.max});
}

}  // namespace ts::viz
