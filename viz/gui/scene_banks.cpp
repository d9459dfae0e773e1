// Scene "banks": a shared tile drawn cell by cell in (row, column) order, each cell coloured by
// the bank its bytes land in after the layout's swizzle; the lanes of one phase of an access
// marked on the tile and stacked on a 32-bank strip; and the bank model's totals.
#include <algorithm>
#include <cmath>
#include <map>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/banks_model.hpp"

namespace ts::viz {

namespace {

struct PhaseLanes {
  uint32_t first = 0, count = 0;
  bool contains(uint32_t lane) const { return lane >= first && lane < first + count; }
};

// The tile in logical (row, column) order. Returns its rectangle.
// The rows of a tall tile that fit at a readable height: a window that starts at the first row
// the shown phase touches (rounded down to 8, where swizzle patterns repeat).
struct RowWindow {
  uint32_t first = 0, count = 0;
  bool contains(uint32_t row) const { return row >= first && row < first + count; }
};

RowWindow visible_rows(const BanksState& s, const BanksAnalysis& a, PhaseLanes phase, float avail_h) {
  constexpr float kMinRowPx = 4.0f;
  const uint32_t fit = std::max<uint32_t>(8, static_cast<uint32_t>(avail_h / kMinRowPx));
  if (s.rows <= fit) return {0, s.rows};
  uint32_t lowest = s.rows;
  for (const LaneAccess& l : a.lanes)
    if (phase.contains(l.lane)) lowest = std::min(lowest, l.row);
  if (lowest == s.rows) lowest = 0;
  return {std::min(lowest / 8 * 8, s.rows - fit), fit};
}

// The tile in logical (row, column) order. Returns its rectangle.
Rect draw_tile(const BanksState& s, const BanksAnalysis& a, PhaseLanes phase, const std::vector<std::string>& hl,
               const Fonts& f, ImDrawList* dl, Rect area) {
  const layout::SmemLayout& t = a.tile;
  const float label_w = 30, header_h = 16;
  const float avail_w = area.width() - label_w, avail_h = area.height() - header_h;
  // One cell per element when they are wide enough to see, else one per 16-byte chunk.
  uint32_t elems_per_cell = 1;
  if (avail_w / s.cols < 7.0f && t.row_bytes() % 16 == 0) elems_per_cell = 16 / t.elem_bytes;
  const uint32_t units = s.cols / elems_per_cell;
  const RowWindow rows = visible_rows(s, a, phase, avail_h);
  // Whole pixels per cell from a pixel-aligned origin: fractional cells blend into uneven rows and
  // columns, stripes that are not in the layout.
  const float cw = std::max(1.0f, std::floor(std::min(30.0f, avail_w / units)));
  const float ch = std::floor(std::clamp(avail_h / rows.count, 1.0f, 22.0f));
  const ImVec2 o(std::floor(area.min.x + label_w), std::floor(area.min.y + header_h));
  const auto cell_y = [&](uint32_t row) { return o.y + (row - rows.first) * ch; };

  // Which lane (of the shown phase) touches each visible cell; -2: another phase does; -1: nobody.
  std::vector<int> owner(size_t(rows.count) * units, -1);
  for (const LaneAccess& l : a.lanes) {
    if (!rows.contains(l.row)) continue;
    for (uint32_t e = 0; e < l.elems; ++e) {
      int& o_cell = owner[size_t(l.row - rows.first) * units + (l.col + e) / elems_per_cell];
      if (phase.contains(l.lane)) o_cell = static_cast<int>(l.lane);
      else if (o_cell == -1) o_cell = -2;
    }
  }

  const bool labels = cw >= 17 && ch >= 12;
  for (uint32_t r = rows.first; r < rows.first + rows.count; ++r) {
    for (uint32_t u = 0; u < units; ++u) {
      const uint32_t bank = bank_of_element(t, r, u * elems_per_cell);
      const int who = owner[size_t(r - rows.first) * units + u];
      const float alpha = who >= 0 ? 1.0f : who == -2 ? 0.6f : 0.38f;
      const ImVec2 p0(o.x + u * cw, cell_y(r)), p1(p0.x + cw - (cw > 4 ? 1 : 0), p0.y + ch - (ch > 4 ? 1 : 0));
      dl->AddRectFilled(p0, p1, bank_colour(bank, alpha));
      if (labels) {
        const std::string b = std::to_string(bank);
        text_at(dl, f.small, ImVec2(p0.x + (cw - text_size(f.small, b).x) / 2, p0.y + (ch - 13) / 2),
                who >= 0 ? colour::black : IM_COL32(0, 0, 0, 150), b);
      }
    }
    if (ch >= 12 || r % 8 == 0)
      text_at(dl, f.small, ImVec2(area.min.x, cell_y(r) + std::min(0.0f, (ch - 13) / 2)), colour::dim_text,
              std::to_string(r));
  }
  // Column numbers along the top; a tile too tall to show whole says which rows are shown instead
  // of the last few numbers.
  float labels_end = area.max.x;
  if (rows.count < s.rows) {
    const std::string note = "rows " + std::to_string(rows.first) + "-" + std::to_string(rows.first + rows.count - 1) +
                             " of " + std::to_string(s.rows);
    labels_end = area.max.x - text_size(f.small, note).x;
    text_at(dl, f.small, ImVec2(labels_end, area.min.y), colour::highlight, note);
  }
  const uint32_t col_step = std::max<uint32_t>(8, elems_per_cell * 4);
  for (uint32_t c = 0; c < s.cols; c += col_step) {
    const std::string label = std::to_string(c);
    const float x = o.x + (c / elems_per_cell) * cw;
    if (x + text_size(f.small, label).x + 8 < labels_end) text_at(dl, f.small, ImVec2(x, area.min.y), colour::dim_text, label);
  }

  // Each lane of the phase: a frame around the elements it reads, and its number.
  for (const LaneAccess& l : a.lanes) {
    if (!phase.contains(l.lane) || !rows.contains(l.row)) continue;
    const float x0 = o.x + (l.col / elems_per_cell) * cw, x1 = o.x + ((l.col + l.elems - 1) / elems_per_cell + 1) * cw;
    const ImVec2 p0(x0, cell_y(l.row)), p1(x1 - 1, cell_y(l.row) + ch - 1);
    dl->AddRect(p0, p1, has(hl, "lanes") ? colour::highlight : colour::white, 0.0f, 0, ch >= 6 ? 2.0f : 1.0f);
    if (ch >= 12) {
      const std::string lane = "L" + std::to_string(l.lane);
      const ImVec2 sz = text_size(f.small, lane);
      if (x1 - x0 > sz.x + 4) {
        const ImVec2 at(x1 - sz.x - 4, p0.y + (ch - 13) / 2);
        dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + sz.x + 1, at.y + 13), IM_COL32(0, 0, 0, 190), 2.0f);
        text_at(dl, f.small, at, colour::white, lane);
      }
    }
  }
  const Rect tile{o, ImVec2(o.x + units * cw, o.y + rows.count * ch)};
  if (has(hl, "tile")) draw_highlight_frame(dl, tile);
  return tile;
}

// The 32 banks; each bank's column stacks the distinct 4-byte words the phase touches in it.
void draw_bank_strip(const BanksAnalysis& a, uint32_t phase, const std::vector<std::string>& hl, const Fonts& f,
                     ImDrawList* dl, Rect area) {
  std::map<uint32_t, std::vector<const sim::WordAccess*>> by_bank;
  for (const auto& w : a.report->words)
    if (w.phase == phase) by_bank[w.bank].push_back(&w);
  size_t tallest = 1;
  for (const auto& [bank, words] : by_bank) tallest = std::max(tallest, words.size());

  text_at(dl, f.bold, area.min, colour::white, "Banks, phase " + std::to_string(phase));
  text_at(dl, f.small, ImVec2(area.min.x + 130, area.min.y + 2), colour::dim_text,
          "each box is one distinct 4-byte word; a column of k boxes costs k wavefronts");
  const float top = area.min.y + 22, bottom = area.max.y - 16;
  const float cw = area.width() / 32, bh = std::min(20.0f, (bottom - top) / tallest);
  for (uint32_t b = 0; b < 32; ++b) {
    const float x = area.min.x + b * cw;
    dl->AddRect(ImVec2(x, top), ImVec2(x + cw - 2, bottom), colour::faint);  // outline: cheap to rasterize
    const std::string label = std::to_string(b);
    text_at(dl, f.small, ImVec2(x + (cw - text_size(f.small, label).x) / 2, bottom + 1), colour::dim_text, label);
    const auto it = by_bank.find(b);
    if (it == by_bank.end()) continue;
    const bool conflict = it->second.size() > 1;
    for (size_t k = 0; k < it->second.size(); ++k) {
      const sim::WordAccess& w = *it->second[k];
      const ImVec2 p0(x + 1, bottom - (k + 1) * bh), p1(x + cw - 3, bottom - k * bh - 1);
      dl->AddRectFilled(p0, p1, bank_colour(b));
      if (conflict) dl->AddRect(p0, p1, colour::error, 0.0f, 0, 1.5f);
      std::string lanes;
      for (auto l : w.lanes) lanes += (lanes.empty() ? "" : ",") + std::to_string(l);
      if (bh >= 12 && text_size(f.small, lanes).x <= cw - 4)
        text_at(dl, f.small, ImVec2(p0.x + 2, p0.y + (bh - 14) / 2), colour::black, lanes);
    }
  }
  if (has(hl, "banks")) draw_highlight_frame(dl, {area.min, area.max});
}

void draw_totals(const BanksState& s, const BanksAnalysis& a, const std::vector<std::string>& hl, const Fonts& f,
                 ImDrawList* dl, ImVec2 at) {
  const sim::BankReport& r = *a.report;
  const std::string total = "wavefronts " + std::to_string(r.wavefronts) + ", conflicts " + std::to_string(r.conflicts) +
                            " (ideal " + std::to_string(r.ideal_wavefronts) + ")";
  text_at(dl, f.heading, at, r.conflicts == 0 ? colour::good : colour::error, total);
  std::string per_phase = "per phase:";
  for (auto w : r.wavefronts_per_phase) per_phase += " " + std::to_string(w);
  const uint32_t wf = r.wavefronts_per_phase[s.phase];
  per_phase += "   (phase " + std::to_string(s.phase) + ": " +
               (wf == 1 ? std::string("conflict-free") : std::to_string(wf) + "-way conflict") + ")   " +
               std::string(r.op.instruction);
  text_at(dl, f.small, ImVec2(at.x, at.y + 24), colour::dim_text, per_phase);
  if (has(hl, "totals"))
    draw_highlight_frame(dl, {at, ImVec2(at.x + text_size(f.heading, total).x, at.y + f.heading->FontSize)});
}

}  // namespace

void draw_banks(const BanksState& s, const std::vector<std::string>& hl, const Fonts& f, ImDrawList* dl, Rect area) {
  const BanksAnalysis a = analyze_banks_scene(s);
  text_at(dl, f.bold, area.min, colour::white, banks_layout_text(s, a.tile));
  text_at(dl, f.body, ImVec2(area.min.x, area.min.y + 20), colour::text, banks_access_text(s));

  // Phases as the bank model ran them (paired 64/128-bit loads merge phases).
  const uint32_t lpp = a.report ? a.report->lanes_per_phase : a.op.lanes_per_phase;
  const uint32_t phases = a.report ? a.report->phases() : a.op.phases();
  const PhaseLanes phase{s.phase * lpp, a.report && s.phase < phases ? lpp : 0};
  if (phase.count)
    text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 40), colour::dim_text,
            "phase " + std::to_string(s.phase) + " of " + std::to_string(phases) + ": lanes " +
                std::to_string(phase.first) + "-" + std::to_string(phase.first + lpp - 1) +
                " (framed); cells are elements in (row, column) order, coloured by the bank of their bytes");

  const float strip_h = std::clamp(area.height() * 0.30f, 110.0f, 240.0f);
  const float totals_h = 48;
  const Rect tile_area{ImVec2(area.min.x, area.min.y + 62), ImVec2(area.max.x, area.max.y - strip_h - totals_h - 12)};
  draw_tile(s, a, phase, hl, f, dl, tile_area);

  const ImVec2 totals_at(area.min.x, area.max.y - strip_h - totals_h);
  std::string problem = a.error;
  if (problem.empty() && !phase.count) problem = validate(SceneState{s});
  if (!problem.empty()) {
    text_at(dl, f.bold, totals_at, colour::error, "cannot make this access: " + problem);
    return;
  }
  draw_totals(s, a, hl, f, dl, totals_at);
  draw_bank_strip(a, s.phase, hl, f, dl, {ImVec2(area.min.x, area.max.y - strip_h), area.max});
}

namespace {

template <class E, size_t N>
bool choice_combo(const char* label, E& value, const E (&choices)[N]) {
  bool changed = false;
  if (ImGui::BeginCombo(label, std::string(name_of(value)).c_str())) {
    for (E e : choices)
      if (ImGui::Selectable(std::string(name_of(e)).c_str(), e == value)) {
        value = e;
        changed = true;
      }
    ImGui::EndCombo();
  }
  return changed;
}

bool uint_slider(const char* label, uint32_t& value, int lo, int hi, int step = 1) {
  int v = static_cast<int>(value);
  if (!ImGui::SliderInt(label, &v, lo, std::max(lo, hi), "%d", ImGuiSliderFlags_AlwaysClamp)) return false;
  value = static_cast<uint32_t>(v / step * step);
  return true;
}

}  // namespace

bool edit_banks_knobs(BanksState& s) {
  static constexpr Dtype dtypes[] = {Dtype::bf16, Dtype::fp32};
  static constexpr SwizzleKnob swizzles[] = {SwizzleKnob::none, SwizzleKnob::b32, SwizzleKnob::b64, SwizzleKnob::b128,
                                             SwizzleKnob::automatic};
  static constexpr Access accesses[] = {Access::ldsm4, Access::row128, Access::col128, Access::col32};
  bool changed = false;
  changed |= choice_combo("dtype", s.dtype, dtypes);
  changed |= uint_slider("rows", s.rows, 1, kMaxTileRows);
  changed |= uint_slider("cols", s.cols, 1, kMaxTileCols);
  if (choice_combo("swizzle", s.swizzle, swizzles)) {
    if (s.swizzle != SwizzleKnob::none) s.pad = 0;  // padding is the alternative to a swizzle, never both
    changed = true;
  }
  if (s.swizzle == SwizzleKnob::none)
    changed |= uint_slider("pad bytes", s.pad, 0, 128, 4);
  else
    ImGui::TextDisabled("pad: only without a swizzle");
  changed |= choice_combo("access", s.access, accesses);
  changed |= uint_slider("r", s.r, 0, static_cast<int>(s.rows) - 1);
  changed |= uint_slider("c", s.c, 0, static_cast<int>(s.cols) - 1);
  const BanksAnalysis a = analyze_banks_scene(s);
  const uint32_t phases = a.report ? a.report->phases() : a.op.phases();
  changed |= uint_slider("phase", s.phase, 0, static_cast<int>(phases) - 1);
  return changed;
}

}  // namespace ts::viz
