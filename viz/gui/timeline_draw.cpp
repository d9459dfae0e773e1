#include "viz/gui/timeline_draw.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "viz/gui/scenes.hpp"

namespace ts::viz {

namespace {

// The producer's mbarrier waits are for a stage to be handed back, not for data: their own colour.
constexpr ImU32 kFreeStage = IM_COL32(95, 105, 150, 255);
// A stage the consumers hold: landed, read by a wgmma, or kept for the wgmma still in flight.
constexpr ImU32 kHeld = IM_COL32(60, 150, 110, 255);
constexpr ImU32 kMath = IM_COL32(185, 125, 235, 255);
constexpr ImU32 kSmemLoad = IM_COL32(200, 190, 110, 255);
constexpr ImU32 kSync = IM_COL32(170, 120, 70, 255);  // the epilogue's warpgroup syncs
constexpr ImU32 kOwnMma = IM_COL32(80, 110, 90, 255);

// Draws a row's bars left to right with at most about one rectangle per pixel column: bars that
// touch and share a colour merge, a bar inside what is already painted is left out, and every bar
// is at least a pixel wide, so a row never needs many more rectangles than it has pixels. A long
// run has thousands of bars, and a software renderer pays for every rectangle.
class RowPainter {
 public:
  RowPainter(ImDrawList* dl, float y0, float y1) : dl_(dl), y0_(y0), y1_(y1) {}
  ~RowPainter() { flush(); }
  void bar(float x0, float x1, ImU32 col, float inset = 0) {
    if (x1 <= end_ && x0 >= start_) return;  // inside what is already painted
    if (col == col_ && inset == inset_ && x0 <= end_ + 1) {
      end_ = std::max(end_, x1);
      return;
    }
    flush();
    start_ = std::max(x0, end_), end_ = x1, col_ = col, inset_ = inset;
  }

 private:
  void flush() {
    if (end_ > start_) dl_->AddRectFilled(ImVec2(start_, y0_ + inset_), ImVec2(end_, y1_ - inset_), col_);
  }
  ImDrawList* dl_;
  float y0_, y1_, start_ = -1e9f, end_ = -1e9f, inset_ = 0;
  ImU32 col_ = 0;
};

struct ColouredSpan {
  float x0, x1;  // pixels
  ImU32 col;
};

// Zoomed far out, many spans share each pixel column: paint each column in the colour that covers
// most of it, and merge neighbouring columns of one colour. A faithful summary at that zoom, and a
// few rectangles instead of thousands.
void paint_binned(ImDrawList* dl, const std::vector<ColouredSpan>& spans, float left, float right, float y0, float y1) {
  const int columns = std::max(1, static_cast<int>(std::ceil(right - left)));
  std::vector<ImU32> colours;
  std::vector<float> cover;  // columns x colours
  const auto index_of = [&](ImU32 col) {
    const auto it = std::find(colours.begin(), colours.end(), col);
    if (it != colours.end()) return static_cast<size_t>(it - colours.begin());
    colours.push_back(col);
    std::vector<float> wider(size_t(columns) * colours.size(), 0);
    for (int c = 0; c < columns; ++c)
      for (size_t k = 0; k + 1 < colours.size(); ++k) wider[c * colours.size() + k] = cover[c * (colours.size() - 1) + k];
    cover.swap(wider);
    return colours.size() - 1;
  };
  for (const ColouredSpan& s : spans) {
    const size_t k = index_of(s.col);
    const float a = std::max(s.x0, left) - left, b = std::min(s.x1, right) - left;
    for (int c = std::max(0, static_cast<int>(a)); c < columns && c < b; ++c)
      cover[c * colours.size() + k] += std::min(b, c + 1.0f) - std::max(a, static_cast<float>(c));
  }
  int run_start = 0;
  ImU32 run_col = 0;
  for (int c = 0; c <= columns; ++c) {
    ImU32 col = 0;
    if (c < columns) {
      float best = 0;
      for (size_t k = 0; k < colours.size(); ++k)
        if (cover[c * colours.size() + k] > best) best = cover[c * colours.size() + k], col = colours[k];
    }
    if (c == columns || col != run_col) {
      if (run_col) dl->AddRectFilled(ImVec2(left + run_start, y0), ImVec2(left + c, y1), run_col);
      run_start = c, run_col = col;
    }
  }
}

struct TimeAxis {
  float x0, x1;
  double t0, t1;
  float x(double t) const { return x0 + static_cast<float>((t - t0) / (t1 - t0)) * (x1 - x0); }
};

// "12000", "1.5k" is not used: cycles as a profiler prints them, whole.
std::string cycles_text(double c) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", c);
  return text;
}

// Ticks at round numbers of cycles (from `origin`), each labelled in cycles and, below, in
// microseconds at `clock_mhz`; the units named at the left, under the row labels.
void draw_time_axis(const TimeAxis& ax, double origin, double clock_mhz, float y, float label_x, const Fonts& f, ImDrawList* dl) {
  const double c0 = ax.t0 - origin, c1 = ax.t1 - origin;
  const double step = nice_step(c1 - c0, 6);
  const float line = f.small->FontSize + 1;
  for (double c = std::ceil(c0 / step) * step; c <= c1 + step * 1e-6; c += step) {
    const float x = ax.x(c + origin);
    dl->AddLine(ImVec2(x, y), ImVec2(x, y + 4), colour::dim_text);
    const std::string cyc = cycles_text(c), us = clock_mhz > 0 ? short_number(c / clock_mhz) : "";
    text_at(dl, f.small, ImVec2(x - text_size(f.small, cyc).x / 2, y + 5), colour::text, cyc);
    if (!us.empty()) text_at(dl, f.small, ImVec2(x - text_size(f.small, us).x / 2, y + 5 + line), colour::dim_text, us);
  }
  text_at(dl, f.small, ImVec2(label_x, y + 5), colour::text, "cycles");
  if (clock_mhz > 0) {
    char unit[48];
    std::snprintf(unit, sizeof unit, "\xC2\xB5s at %.0f MHz", clock_mhz);
    text_at(dl, f.small, ImVec2(label_x, y + 5 + line), colour::dim_text, unit);
  }
}

// The legend: every colour drawn in `m`, named by the op kinds it stands for.
struct LegendEntry {
  ImU32 col;
  std::string label;
};

std::vector<LegendEntry> legend_entries(const PipelineModel& m) {
  // In the order a reader meets them: loads, the tensor cores, waits, math, the epilogue.
  static const std::pair<sim::OpKind, const char*> kNames[] = {
      {sim::OpKind::tma_load, "TMA load (band: in flight)"},
      {sim::OpKind::mma, "wgmma group"},
      {sim::OpKind::mma_wait, "waits for own wgmma"},
      {sim::OpKind::wait, "mbarrier wait (data)"},
      {sim::OpKind::tma_store_wait, "store wait"},
      {sim::OpKind::block_sync, "block sync"},
      {sim::OpKind::math, "register math"},
      {sim::OpKind::smem_load, "shared load"},
      {sim::OpKind::smem_store, "shared store"},
      {sim::OpKind::gmem_load, "global load (plain)"},
      {sim::OpKind::gmem_store, "global store (plain)"},
      {sim::OpKind::tma_store, "TMA store (tick: issue)"},
      {sim::OpKind::warpgroup_sync, "warpgroup sync"},
  };
  std::map<std::pair<sim::OpKind, bool>, bool> present;  // (kind, by the producer)
  for (const GanttRow& row : m.rows)
    for (const GanttBar& b : row.bars) present[{b.kind, row.producer}] = true;
  std::vector<LegendEntry> out;
  const auto add = [&](ImU32 col, const std::string& label) {
    for (LegendEntry& e : out)
      if (e.col == col) {
        e.label += ", " + label;
        return;
      }
    out.push_back({col, label});
  };
  for (const auto& [kind, name] : kNames) {
    if (present.count({kind, false}) || (kind != sim::OpKind::wait && present.count({kind, true}))) add(kind_colour(kind), name);
    if (kind == sim::OpKind::wait && present.count({kind, true})) add(kFreeStage, "producer: waits for a free stage");
  }
  if (!m.stages.empty()) add(kHeld, "stage held");
  return out;
}

}  // namespace

ImU32 kind_colour(sim::OpKind k, bool producer) {
  if (producer && k == sim::OpKind::wait) return kFreeStage;
  switch (k) {
    case sim::OpKind::tma_load: return colour::tma;
    case sim::OpKind::mma: return colour::mma;
    case sim::OpKind::smem_store:
    case sim::OpKind::gmem_store:
    case sim::OpKind::tma_store: return colour::epilogue;
    case sim::OpKind::warpgroup_sync: return kSync;
    case sim::OpKind::mma_wait: return kOwnMma;
    case sim::OpKind::math: return kMath;
    case sim::OpKind::smem_load:
    case sim::OpKind::gmem_load: return kSmemLoad;
    default: return colour::waiting;
  }
}

Rect draw_timeline_panel(const PipelineModel& m, const TimelineStyle& st, Rect area, float right, double t0, double t1,
                         double origin, double clock_mhz, bool legend, bool mma_under) {
  const Fonts& f = st.fonts;
  ImDrawList* dl = st.dl;
  char idle[96];
  std::snprintf(idle, sizeof idle, "red: all four tensor cores idle, %.1f %% of the run", 100 * m.idle_fraction());
  // The legend's lines, laid out first: the rows get what they leave.
  std::vector<std::vector<LegendEntry>> legend_lines;
  if (legend) {
    float x = 0;
    legend_lines.emplace_back();
    for (const LegendEntry& e : legend_entries(m)) {
      const float w = 16 + text_size(f.small, e.label).x + 14;
      if (x + w > area.width() && !legend_lines.back().empty()) legend_lines.emplace_back(), x = 0;
      legend_lines.back().push_back(e);
      x += w;
    }
    legend_lines.emplace_back();  // what red means, on a line of its own
  }
  const float small_line = f.small->FontSize + 1;
  const float axis_h = 10 + 2 * small_line, legend_line_h = small_line + 4;
  const float label_w = 140, waits_w = 120, top = area.min.y + st.header;
  const float bottom = area.max.y - axis_h - legend_lines.size() * legend_line_h;
  const float plot_x1 = area.max.x - right - 24 - waits_w;
  const TimeAxis ax{area.min.x + label_w, plot_x1, t0, std::max(t1, t0 + 1)};
  const size_t core_row0 = m.rows.size(), stage_row0 = core_row0 + kSubPartitions;
  const size_t n_rows = stage_row0 + m.stages.size();
  const float row_h = std::max(4.0f, std::min(30.0f, (bottom - top) / n_rows)), bar_h = row_h - 4;

  dl->PushClipRect(ImVec2(ax.x0, top - 2), ImVec2(ax.x1, bottom + 2), true);
  const float plot_px = ax.x1 - ax.x0;
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const GanttRow& row = m.rows[i];
    const float y = top + i * row_h;
    const size_t shown = std::count_if(row.bars.begin(), row.bars.end(),
                                       [&](const GanttBar& b) { return b.end >= ax.t0 && b.start <= ax.t1; });
    if (shown > plot_px && !row.producer) {
      std::vector<ColouredSpan> spans;
      // The warp's own ops: its TMA copies run on their own and would cover what it does meanwhile.
      for (const GanttBar& b : row.bars)
        if (b.end >= ax.t0 && b.start <= ax.t1 && b.kind != sim::OpKind::tma_load && b.kind != sim::OpKind::tma_store)
          spans.push_back({ax.x(b.start), ax.x(b.end), kind_colour(b.kind, row.producer)});
      paint_binned(dl, spans, ax.x0, ax.x1, y + 2, y + 2 + bar_h);
      continue;
    }
    // Two layers: what the warp itself is doing (thin), and its wgmma slices on the tensor core
    // (full height): a slice runs asynchronously, while the warp already waits for the next. The
    // slices go on top, or (mma_under: measured groups, which overlap, end when a wait found them
    // done) below, so that the warp's own ops show inside them.
    const bool layers[2] = {mma_under, !mma_under};  // is each pass the wgmma layer
    for (const bool mma_layer : layers) {
      RowPainter loads(dl, y + 2, y + 2 + bar_h / 2), stores(dl, y + 2 + bar_h / 2, y + 2 + bar_h), work(dl, y + 2, y + 2 + bar_h);
      float tick_x = -1e9f;
      for (const GanttBar& b : row.bars) {
        if (b.end < ax.t0 || b.start > ax.t1 || (b.kind == sim::OpKind::mma) != mma_layer) continue;
        const float x0 = ax.x(b.start), x1 = std::max(ax.x(b.end), x0 + 1);
        if (b.kind == sim::OpKind::tma_load || b.kind == sim::OpKind::tma_store) {
          // TMA copies run on their own (several in flight, a measured store until the warp's next
          // bulk-group wait, which may come a tile later): a band while any is in flight, a tick at
          // each issue (at most one per two pixels), under the warp's own ops.
          const bool load = b.kind == sim::OpKind::tma_load;
          (load ? loads : stores).bar(x0, x1, load ? IM_COL32(90, 170, 255, 90) : IM_COL32(235, 150, 70, 90));
          if (x0 >= tick_x + 2) dl->AddLine(ImVec2(x0, y + 1), ImVec2(x0, y + bar_h), kind_colour(b.kind), 1.5f), tick_x = x0;
          continue;
        }
        work.bar(x0, x1, kind_colour(b.kind, row.producer), mma_layer ? 0 : bar_h * 0.25f);
      }
    }
  }
  // One row per tensor core: busy and, in red, idle. Idle stays red under a highlight (the frame
  // marks it), so the colour the text names is the colour on screen.
  const auto paint_intervals = [&](float y, const std::vector<std::pair<Interval, ImU32>>& parts) {
    if (parts.size() > plot_px) {
      std::vector<ColouredSpan> spans;
      for (const auto& [iv, col] : parts) spans.push_back({ax.x(iv.start), ax.x(iv.end), col});
      paint_binned(dl, spans, ax.x0, ax.x1, y + 2, y + 2 + bar_h);
    } else {
      RowPainter pipe(dl, y + 2, y + 2 + bar_h);
      for (const auto& [iv, col] : parts)
        if (iv.end >= ax.t0 && iv.start <= ax.t1) pipe.bar(ax.x(iv.start), std::max(ax.x(iv.end), ax.x(iv.start) + 1), col);
    }
  };
  for (uint32_t p = 0; p < kSubPartitions; ++p) {
    // Busy and idle alternate along the row: paint them in time order so that one painter merges both.
    std::vector<std::pair<Interval, ImU32>> parts;
    for (const Interval& b : m.tensor[p].busy) parts.push_back({b, colour::mma});
    for (const Interval& g : m.tensor[p].idle) parts.push_back({g, colour::idle});
    std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first.start < b.first.start; });
    paint_intervals(top + (core_row0 + p) * row_h, parts);
  }
  for (size_t slot = 0; slot < m.stages.size(); ++slot) {
    std::vector<std::pair<Interval, ImU32>> parts;
    for (const StageSpan& s : m.stages[slot]) parts.push_back({{s.start, s.end}, s.loading ? colour::tma : kHeld});
    paint_intervals(top + (stage_row0 + slot) * row_h, parts);
  }
  dl->PopClipRect();

  for (size_t i = 0; i < n_rows; ++i) {
    const float y = top + i * row_h;
    std::string label;
    if (i < core_row0) label = m.rows[i].label;
    else if (i < stage_row0) label = "tensor core, SP " + std::to_string(i - core_row0);
    else label = "stage " + std::to_string(i - stage_row0);
    if (row_h >= 9) text_at(dl, f.small, ImVec2(area.min.x, y + (row_h - 14) / 2), i < core_row0 ? colour::text : colour::white, label);
    // Hovering a warp's row names where all its waiting went.
    if (i < core_row0 && ImGui::IsMouseHoveringRect(ImVec2(area.min.x, y), ImVec2(ax.x1 + 120, y + row_h))) {
      const WaitSummary& w = m.rows[i].waits;
      const auto pct = [&](double v) { return std::to_string(static_cast<int>(std::lround(w.run > 0 ? 100 * v / w.run : 0))) + " %"; };
      const std::string tip =
          m.rows[i].label + ", sub-partition " + std::to_string(m.rows[i].sub_partition) + ", over the SM's run:\n" +
          (m.rows[i].producer ? "waits for a free stage (empty barrier) " + pct(w.free_stage) + "\n"
                              : "waits for data (full barrier) " + pct(w.data) + ", of it with its tensor core idle " +
                                    pct(w.starved) + "\nwaits for its own wgmma " + pct(w.own_mma) + "\n") +
          "waits for stores to read their tile " + pct(w.store) + "\nwarpgroup and block syncs " + pct(w.sync);
      ImGui::SetTooltip("%s", tip.c_str());
    }
    dl->AddLine(ImVec2(ax.x0, y + row_h - 1), ImVec2(ax.x1, y + row_h - 1), colour::faint);
  }
  // What each warp's waiting went to, over the SM's whole run.
  const float wx = ax.x1 + 8;
  text_at(dl, f.small, ImVec2(wx, top - 16), colour::dim_text, "starved: waits for");
  for (size_t i = 0; i < m.rows.size() && row_h >= 9; ++i) {
    const WaitSummary& w = m.rows[i].waits;
    const auto pct = [&](double v) { return std::to_string(static_cast<int>(std::lround(w.run > 0 ? 100 * v / w.run : 0))) + "%"; };
    const std::string text = m.rows[i].producer ? "free stage " + pct(w.free_stage) : "data, core idle " + pct(w.starved);
    text_at(dl, f.small, ImVec2(wx, top + i * row_h + (row_h - 14) / 2), colour::text, text);
  }
  const float axis_y = top + n_rows * row_h + 2;
  draw_time_axis(ax, origin, clock_mhz, axis_y, area.min.x, f, dl);
  const auto frame_rows = [&](size_t first, size_t count) {
    draw_highlight_frame(dl, {ImVec2(area.min.x, top + first * row_h), ImVec2(ax.x1, top + (first + count) * row_h)});
  };
  const size_t producers = std::count_if(m.rows.begin(), m.rows.end(), [](const GanttRow& r) { return r.producer; });
  if (st.lit("producer")) frame_rows(0, producers);
  if (st.lit("consumers")) frame_rows(producers, m.rows.size() - producers);
  if (st.lit("tensor") || st.lit("idle")) frame_rows(core_row0, kSubPartitions);
  if (st.lit("stages") && !m.stages.empty()) frame_rows(stage_row0, m.stages.size());
  const Rect plot{ImVec2(ax.x0, top), ImVec2(ax.x1, top + n_rows * row_h)};

  if (!legend) return plot;
  float ly = axis_y + axis_h;
  for (size_t line = 0; line + 1 < legend_lines.size(); ++line, ly += legend_line_h) {
    float x = area.min.x;
    for (const LegendEntry& e : legend_lines[line]) x = legend_item(dl, f, ImVec2(x, ly), e.col, e.label);
  }
  text_at(dl, st.lit("idle") ? f.bold : f.small, ImVec2(area.min.x, ly), colour::idle, idle);
  if (st.lit("epilogue")) {
    // Frame where the epilogue's stores sit in the shown window.
    double e0 = ax.t1, e1 = ax.t0;
    for (const GanttRow& row : m.rows)
      for (const GanttBar& b : row.bars)
        if ((b.kind == sim::OpKind::smem_store || b.kind == sim::OpKind::tma_store) && b.end >= ax.t0 && b.start <= ax.t1)
          e0 = std::min(e0, b.start), e1 = std::max(e1, b.end);
    if (e1 > e0)
      draw_highlight_frame(dl, {ImVec2(std::max(ax.x0, ax.x(e0)), top), ImVec2(std::min(ax.x1, ax.x(e1)), top + m.rows.size() * row_h)});
  }
  return plot;
}

namespace {

const GanttRow* row_of_warp(const PipelineModel& m, uint32_t warp) {
  for (const GanttRow& r : m.rows)
    if (r.warp == warp) return &r;
  return nullptr;
}

// Zooms `z` to one steady-state iteration of its warp: the measured one from the window's start,
// the simulated panel moved to start at its own, both at the scale of the longer.
void zoom_to_iteration(const TimelinePair& p, TimelineZoom& z, double hi) {
  const PipelineModel& mm = *p.measured;
  const GanttRow* mrow = row_of_warp(mm, z.warp);
  const GanttRow* srow = p.simulated ? row_of_warp(*p.simulated, z.warp) : nullptr;
  const std::optional<Interval> mi =
      mrow ? steady_iteration(mrow->bars, anchors_per_iteration(mm, *mrow, p.simulated)) : std::optional<Interval>{};
  const std::optional<Interval> si =
      srow ? steady_iteration(srow->bars, anchors_per_iteration(*p.simulated, *srow, &mm)) : std::optional<Interval>{};
  const std::string warp = "warp " + std::to_string(z.warp);
  if (!mi) {
    z.note = warp + ": no steady-state iteration found in the measured timeline";
    return;
  }
  const double width = std::max(mi->length(), si ? si->length() : 0.0), margin = 0.05 * width;
  const double start = mi->start - mm.first;
  z.window = clamp_window({start - margin, start + width + margin}, 0, hi);
  z.sim_offset = si ? (si->start - p.simulated->first) - start : 0;
  char text[200];
  if (si)
    std::snprintf(text, sizeof text, "one iteration of %s: measured %.0f cycles, simulated %.0f (%+.0f %%); each panel from its own iteration's start",
                  warp.c_str(), mi->length(), si->length(), 100 * (si->length() / mi->length() - 1));
  else
    std::snprintf(text, sizeof text, "one iteration of %s: measured %.0f cycles (none found in the simulated timeline)", warp.c_str(),
                  mi->length());
  z.note = text;
}

// Wheel zooms around the mouse, a drag pans, a double click shows the whole run; over `plot`,
// whose window is z.window shifted by `shift` cycles.
void handle_mouse(const char* id, Rect plot, TimelineZoom& z, double hi) {
  if (plot.width() < 2 || plot.height() < 2) return;
  ImGui::SetCursorScreenPos(plot.min);
  ImGui::InvisibleButton(id, ImVec2(plot.width(), plot.height()));
  const ImGuiIO& io = ImGui::GetIO();
  const double per_px = z.window.width() / plot.width();
  if (ImGui::IsItemHovered() && io.MouseWheel != 0) {
    const double at = z.window.t0 + (io.MousePos.x - plot.min.x) * per_px;
    z.window = zoom_window(z.window, at, std::pow(0.8, io.MouseWheel), 0, hi);
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0))
    z.window = pan_window(z.window, -io.MouseDelta.x * per_px, 0, hi);
  if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) z.window = TimeWindow{0, hi}, z.sim_offset = 0, z.note.clear();
}

}  // namespace

void draw_timeline_pair(const TimelinePair& p, TimelineZoom& z, const TimelineStyle& st, Rect area, float right) {
  const Fonts& f = st.fonts;
  ImDrawList* dl = st.dl;
  if (!p.measured) return;
  const PipelineModel& mm = *p.measured;
  const double m_len = mm.last - mm.first, s_len = p.simulated ? p.simulated->last - p.simulated->first : 0;
  const double hi = std::max({m_len, s_len, 1.0});
  if (!(z.window.width() > 0)) z.window = clamp_window({hi * z.from, hi * z.to}, 0, hi);
  if (z.warp == ~0u || !row_of_warp(mm, z.warp))
    for (const GanttRow& r : mm.rows)
      if (!r.producer) {
        z.warp = r.warp;
        break;
      }
  if (z.iteration && !p.simulated_pending) {
    zoom_to_iteration(p, z, hi);
    z.iteration = false;
  }

  // The controls, in one line.
  ImGui::SetCursorScreenPos(area.min);
  ImGui::PushFont(f.small);
  const auto block_name = [](const RecordedBlock& b) { return "block " + std::to_string(b.block) + " (SM " + std::to_string(b.sm) + ")"; };
  std::string current = "block " + std::to_string(z.block);
  for (const RecordedBlock& b : p.blocks)
    if (b.block == z.block) current = block_name(b);
  ImGui::SetNextItemWidth(150);
  if (ImGui::BeginCombo("##block", current.c_str())) {
    for (const RecordedBlock& b : p.blocks)
      if (ImGui::Selectable(block_name(b).c_str(), b.block == z.block) && b.block != z.block) {
        z.block = b.block;
        z.window = TimeWindow{}, z.sim_offset = 0, z.note.clear();
      }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The recorded block to show, and the SM it ran on");
  ImGui::SameLine();
  const GanttRow* wrow = row_of_warp(mm, z.warp);
  ImGui::SetNextItemWidth(170);
  if (ImGui::BeginCombo("##warp", wrow ? wrow->label.c_str() : "warp")) {
    for (const GanttRow& r : mm.rows)
      if (ImGui::Selectable(r.label.c_str(), r.warp == z.warp)) z.warp = r.warp;
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The warp whose iteration \"one iteration\" zooms to");
  ImGui::SameLine();
  if (ImGui::Button("one iteration")) zoom_to_iteration(p, z, hi);
  ImGui::SameLine();
  if (ImGui::Button("whole run")) z.window = TimeWindow{0, hi}, z.sim_offset = 0, z.note.clear();
  const char* hint = "wheel: zoom, drag: pan, double click: whole run";
  ImGui::SameLine();
  if (ImGui::GetCursorScreenPos().x + text_size(f.small, hint).x < area.max.x - right) ImGui::TextDisabled("%s", hint);
  else ImGui::NewLine();
  ImGui::PopFont();
  const float controls_h = ImGui::GetFrameHeight() + 4;
  if (!z.note.empty()) text_at(dl, f.small, ImVec2(area.min.x, area.min.y + controls_h), colour::dim_text, z.note);

  // The measured timeline above the simulated one, one scale, each panel's title above its rows.
  TimelineStyle panel = st;
  panel.header = f.bold->FontSize + 8;
  const float top = area.min.y + controls_h + (z.note.empty() ? 0 : f.small->FontSize + 2);
  // Rows share the height by their number; the lower panel also holds the legend (about three lines).
  const auto rows_of = [](const PipelineModel& m) { return float(m.rows.size() + kSubPartitions + m.stages.size()); };
  const float legend_h = 3 * (f.small->FontSize + 5), rows_m = rows_of(mm), rows_s = p.simulated ? rows_of(*p.simulated) : rows_m;
  const float mid = top + (area.max.y - top - legend_h) * rows_m / (rows_m + rows_s);
  text_at(dl, f.bold, ImVec2(area.min.x, top), colour::measured, p.measured_title);
  const Rect mplot = draw_timeline_panel(mm, panel, {ImVec2(area.min.x, top), ImVec2(area.max.x, mid)}, right,
                                         mm.first + z.window.t0, mm.first + z.window.t1, mm.first, p.measured_clock, !p.simulated, true);
  Rect splot{};
  text_at(dl, f.bold, ImVec2(area.min.x, mid), colour::simulated, p.simulated_title);
  if (p.simulated) {
    const PipelineModel& sm = *p.simulated;
    splot = draw_timeline_panel(sm, panel, {ImVec2(area.min.x, mid), area.max}, right, sm.first + z.window.t0 + z.sim_offset,
                                sm.first + z.window.t1 + z.sim_offset, sm.first, p.simulated_clock, true, true);
  } else {
    text_at(dl, f.small, ImVec2(area.min.x, mid + panel.header), colour::dim_text, p.simulated_note);
  }
  handle_mouse("##measured-plot", mplot, z, hi);
  if (p.simulated) handle_mouse("##simulated-plot", splot, z, hi);
}

}  // namespace ts::viz
