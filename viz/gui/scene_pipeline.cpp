// Scene "pipeline": a Gantt chart of one SM's warps as the simulator ran the real GEMM (TMA
// loads, waits, wgmma slices, epilogue), the tensor pipe's idle time marked, and simulated beside
// measured TFLOPS for each stage count.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/measured_timeline.hpp"
#include "viz/lesson/pipeline_model.hpp"

namespace ts::viz {

namespace {

// The producer's mbarrier waits are for a stage to be handed back, not for data: their own colour.
constexpr ImU32 kFreeStage = IM_COL32(95, 105, 150, 255);

ImU32 kind_colour(sim::OpKind k, bool producer = false) {
  if (producer && k == sim::OpKind::wait) return kFreeStage;
  switch (k) {
    case sim::OpKind::tma_load: return colour::tma;
    case sim::OpKind::mma: return colour::mma;
    case sim::OpKind::smem_store:
    case sim::OpKind::tma_store: return colour::epilogue;
    case sim::OpKind::warpgroup_sync: return IM_COL32(170, 120, 70, 255);  // the epilogue's syncs
    case sim::OpKind::mma_wait: return IM_COL32(80, 110, 90, 255);
    default: return colour::waiting;
  }
}

// Draws a row's bars left to right with at most about one rectangle per pixel column: bars that
// touch and share a colour merge, a bar inside what is already painted is left out, and every bar
// is at least a pixel wide, so a row never needs many more rectangles than it has pixels. A long run has thousands of bars, and a software renderer pays
// for every rectangle.
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

// A stage the consumers hold: landed, read by a wgmma, or kept for the wgmma still in flight.
constexpr ImU32 kHeld = IM_COL32(60, 150, 110, 255);

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

void draw_time_axis(const TimeAxis& ax, double clock_mhz, float y, const Fonts& f, ImDrawList* dl) {
  const double us0 = ax.t0 / clock_mhz, us1 = ax.t1 / clock_mhz;
  const double step = nice_step(us1 - us0, 7);
  for (double us = std::ceil(us0 / step) * step; us <= us1 + step * 1e-6; us += step) {
    const float x = ax.x(us * clock_mhz);
    dl->AddLine(ImVec2(x, y), ImVec2(x, y + 4), colour::dim_text);
    text_at(dl, f.small, ImVec2(x - 10, y + 5), colour::dim_text, short_number(us) + " us");
  }
}

void draw_stage_table(const PipelineState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  const auto rows = stage_table(s.gemm, c.sims, c.measured);
  text_at(c.dl, f.bold, area.min, colour::white, "TFLOPS by stage count");
  text_at(c.dl, f.small, ImVec2(area.min.x, area.min.y + 19), colour::dim_text,
          std::to_string(s.gemm.m) + "x" + std::to_string(s.gemm.n) + "x" + std::to_string(s.gemm.k));
  const float line = f.body->FontSize + 6;
  const float cx[] = {area.min.x, area.min.x + 52, area.min.x + 150};
  float y = area.min.y + 42;
  text_at(c.dl, f.small, ImVec2(cx[0], y), colour::dim_text, "stages");
  text_at(c.dl, f.small, ImVec2(cx[1], y), colour::measured, "measured");
  text_at(c.dl, f.small, ImVec2(cx[2], y), colour::simulated, "simulated");
  y += line;
  for (const StageRow& r : rows) {
    if (r.stages == s.gemm.stages)
      c.dl->AddRectFilled(ImVec2(area.min.x - 4, y - 2), ImVec2(area.max.x, y + line - 4), IM_COL32(60, 64, 76, 255));
    text_at(c.dl, f.body, ImVec2(cx[0] + 14, y), colour::text, std::to_string(r.stages));
    if (r.measured) text_at(c.dl, f.body, ImVec2(cx[1], y), colour::measured, short_number(r.measured->tflops));
    else text_at(c.dl, f.small, ImVec2(cx[1], y + 2), colour::dim_text, "not measured");
    std::string simulated = "...";
    if (c.sims.refused(gemm_run([&] { GemmKnobs g = s.gemm; g.stages = r.stages; return g; }()))) simulated = "slow";
    if (r.sim) simulated = r.sim->error.empty() ? short_number(r.sim->report.tflops) : "refused";
    text_at(c.dl, f.body, ImVec2(cx[2], y), colour::simulated, simulated);
    y += line;
  }
  const MeasuredData& md = c.measured;
  text_at(c.dl, f.small, ImVec2(area.min.x, y + 4), colour::dim_text,
          md.gemm.empty() ? "no measurements found" : "measured: " + md.device);
  if (!md.gemm.empty()) text_at(c.dl, f.small, ImVec2(area.min.x, y + 20), colour::dim_text, md.date + ", tilescope bench");
  if (!md.gemm.empty())
    text_at(c.dl, f.small, ImVec2(area.min.x, y + 36), colour::dim_text, "simulated at each row's measured SM clock");
  if (c.lit("measured") || c.lit("stages")) draw_highlight_frame(c.dl, {area.min, ImVec2(area.max.x, y + 52)});
}

// "+43 % over the plain build's 0.197 ms": what recording cost the measured launch.
std::string measured_cost(const sim::Timeline& t) {
  if (!(t.plain_ms > 0)) return "its cost not measured";
  char text[96];
  std::snprintf(text, sizeof text, "%+.0f %% over the plain build's %.3f ms", 100 * (t.kernel_ms / t.plain_ms - 1), t.plain_ms);
  return text;
}

// One timeline (the simulated, or the H100's measured) in `area`, over cycles [t0, t1].
void draw_model(const PipelineModel& m, const SceneContext& c, Rect area, float table_w, double t0, double t1, double clock_mhz,
                bool legend) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const float label_w = 140, waits_w = 120, top = area.min.y + 50, bottom = area.max.y - (legend ? 44 : 28);
  const float plot_x1 = area.max.x - table_w - 24 - waits_w;
  const TimeAxis ax{area.min.x + label_w, plot_x1, t0, t1};
  const size_t core_row0 = m.rows.size(), stage_row0 = core_row0 + kSubPartitions;
  const size_t n_rows = stage_row0 + m.stages.size();
  const float row_h = std::min(30.0f, (bottom - top) / n_rows), bar_h = row_h - 4;

  dl->PushClipRect(ImVec2(ax.x0, top - 2), ImVec2(ax.x1, bottom + 2), true);
  const float plot_px = ax.x1 - ax.x0;
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const GanttRow& row = m.rows[i];
    const float y = top + i * row_h;
    const size_t shown = std::count_if(row.bars.begin(), row.bars.end(),
                                       [&](const GanttBar& b) { return b.end >= ax.t0 && b.start <= ax.t1; });
    if (shown > plot_px && !row.producer) {
      std::vector<ColouredSpan> spans;
      for (const GanttBar& b : row.bars)
        if (b.end >= ax.t0 && b.start <= ax.t1) spans.push_back({ax.x(b.start), ax.x(b.end), kind_colour(b.kind, row.producer)});
      paint_binned(dl, spans, ax.x0, ax.x1, y + 2, y + 2 + bar_h);
      continue;
    }
    // Two layers: what the warp itself is doing (thin), then its wgmma slices on the tensor core
    // (full height, on top): a slice runs asynchronously, while the warp already waits for the next.
    for (const bool mma_layer : {false, true}) {
      RowPainter loads(dl, y + 2, y + 2 + bar_h / 2), work(dl, y + 2, y + 2 + bar_h);
      float tick_x = -1e9f;
      for (const GanttBar& b : row.bars) {
        if (b.end < ax.t0 || b.start > ax.t1 || (b.kind == sim::OpKind::mma) != mma_layer) continue;
        const float x0 = ax.x(b.start), x1 = std::max(ax.x(b.end), x0 + 1);
        if (b.kind == sim::OpKind::tma_load) {
          // Loads overlap (several in flight): a band while any is in flight, a tick at each issue
          // (at most one per two pixels).
          loads.bar(x0, x1, IM_COL32(90, 170, 255, 90));
          if (x0 >= tick_x + 2) dl->AddLine(ImVec2(x0, y + 1), ImVec2(x0, y + bar_h), colour::tma, 1.5f), tick_x = x0;
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
    for (const StageSpan& st : m.stages[slot]) parts.push_back({{st.start, st.end}, st.loading ? colour::tma : kHeld});
    paint_intervals(top + (stage_row0 + slot) * row_h, parts);
  }
  dl->PopClipRect();

  for (size_t i = 0; i < n_rows; ++i) {
    const float y = top + i * row_h;
    std::string label;
    if (i < core_row0) label = m.rows[i].label;
    else if (i < stage_row0) label = "tensor core, SP " + std::to_string(i - core_row0);
    else label = "stage " + std::to_string(i - stage_row0);
    text_at(dl, f.small, ImVec2(area.min.x, y + (row_h - 14) / 2), i < core_row0 ? colour::text : colour::white, label);
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
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const WaitSummary& w = m.rows[i].waits;
    const auto pct = [&](double v) { return std::to_string(static_cast<int>(std::lround(w.run > 0 ? 100 * v / w.run : 0))) + "%"; };
    const std::string text = m.rows[i].producer ? "free stage " + pct(w.free_stage)
                                                : "data, core idle " + pct(w.starved);
    text_at(dl, f.small, ImVec2(wx, top + i * row_h + (row_h - 14) / 2), colour::text, text);
  }
  draw_time_axis(ax, clock_mhz, top + n_rows * row_h + 2, f, dl);
  const auto frame_rows = [&](size_t first, size_t count) {
    draw_highlight_frame(dl, {ImVec2(area.min.x, top + first * row_h), ImVec2(ax.x1, top + (first + count) * row_h)});
  };
  const size_t producers = std::count_if(m.rows.begin(), m.rows.end(), [](const GanttRow& r) { return r.producer; });
  if (c.lit("producer")) frame_rows(0, producers);
  if (c.lit("consumers")) frame_rows(producers, m.rows.size() - producers);
  if (c.lit("tensor") || c.lit("idle")) frame_rows(core_row0, kSubPartitions);
  if (c.lit("stages") && !m.stages.empty()) frame_rows(stage_row0, m.stages.size());

  if (!legend) return;
  char idle[96];
  std::snprintf(idle, sizeof idle, "red: all four idle, %.1f %% of the run", 100 * m.idle_fraction());
  float x = area.min.x;
  const float ly = area.max.y - 18;
  x = legend_item(dl, f, ImVec2(x, ly), colour::tma, "TMA load, loading");
  x = legend_item(dl, f, ImVec2(x, ly), colour::mma, "wgmma");
  x = legend_item(dl, f, ImVec2(x, ly), IM_COL32(80, 110, 90, 255), "waits: own wgmma");
  x = legend_item(dl, f, ImVec2(x, ly), colour::waiting, "data");
  x = legend_item(dl, f, ImVec2(x, ly), kFreeStage, "free stage");
  x = legend_item(dl, f, ImVec2(x, ly), kHeld, "held");
  x = legend_item(dl, f, ImVec2(x, ly), colour::epilogue, "epilogue");
  text_at(dl, c.lit("idle") ? f.bold : f.small, ImVec2(x, ly), colour::idle, idle);
  if (c.lit("epilogue")) {
    // Frame where the epilogue's stores sit in the shown window.
    double e0 = ax.t1, e1 = ax.t0;
    for (const GanttRow& row : m.rows)
      for (const GanttBar& b : row.bars)
        if ((b.kind == sim::OpKind::smem_store || b.kind == sim::OpKind::tma_store) && b.end >= ax.t0 && b.start <= ax.t1)
          e0 = std::min(e0, b.start), e1 = std::max(e1, b.end);
    if (e1 > e0)
      draw_highlight_frame(dl, {ImVec2(std::max(ax.x0, ax.x(e0)), top), ImVec2(std::min(ax.x1, ax.x(e1)), top + m.rows.size() * row_h)});
  }
}

}  // namespace

void draw_pipeline(const PipelineState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const GemmRun run = gemm_run(s.gemm);
  const auto sim = c.sims.get(run);
  text_at(dl, f.bold, area.min, colour::white,
          "SM " + std::to_string(s.sm) + " running the GEMM of gemm.cuh, " + std::to_string(s.gemm.stages) +
              " stage" + (s.gemm.stages > 1 ? "s" : "") + " (simulated)");
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text, sim_status(run, sim.get(), c.sims));

  const float table_w = std::clamp(area.width() * 0.25f, 220.0f, 270.0f);
  draw_stage_table(s, c, {ImVec2(area.max.x - table_w, area.min.y + 46), area.max});
  if (!sim || !sim->error.empty()) return;

  const PipelineModel m = pipeline_model(*sim, s.sm);
  if (m.rows.empty()) {
    text_at(dl, f.body, ImVec2(area.min.x, area.min.y + 50), colour::text,
            sim->report.spans.empty() ? "no timeline: only runs quick enough to re-simulate record one"
                                      : "SM " + std::to_string(s.sm) + " ran no block");
    return;
  }
  // from/to are percent of the SM's own run: from its first span to its last (with the measured
  // timeline, of the longer of the two, so that both share one scale).
  double first = m.first, last = m.last;
  if (!s.measured) {
    const double span = last - first;
    draw_model(m, c, area, table_w, first + span * s.from / 100.0, first + span * std::max(s.to, s.from + 1) / 100.0,
               sim->clock_mhz, true);
    return;
  }
  const auto measured = find_measured_timeline(run);
  if (!measured) {
    text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 34), colour::idle,
            "no measured timeline of this configuration in data/measured/h100/timelines (the lessons' are 4096^3, 2 and 4 stages)");
    const double span = last - first;
    draw_model(m, c, area, table_w, first + span * s.from / 100.0, first + span * std::max(s.to, s.from + 1) / 100.0,
               sim->clock_mhz, true);
    return;
  }
  // The H100's block 0 above the simulator's SM (which runs block 0 too), both from their block's start.
  const PipelineModel mm = pipeline_model(first_block_spans(measured->timeline, s.sm), s.sm);
  first = std::min(first, mm.first), last = std::max(last, mm.last);
  const double span = last - first, t0 = first + span * s.from / 100.0, t1 = first + span * std::max(s.to, s.from + 1) / 100.0;
  const float mid = area.min.y + (area.height() - 20) * 0.42f;
  text_at(dl, f.bold, ImVec2(area.min.x, area.min.y + 34), colour::white,
          "measured on the H100 (block 0, recording build: " + measured_cost(measured->timeline) + ")");
  draw_model(mm, c, {ImVec2(area.min.x, area.min.y + 4), ImVec2(area.max.x, mid)}, table_w, t0, t1, measured->timeline.clock_mhz, false);
  text_at(dl, f.bold, ImVec2(area.min.x, mid + 4), colour::white, "simulated");
  draw_model(m, c, {ImVec2(area.min.x, mid - 14), area.max}, table_w, t0, t1, sim->clock_mhz, true);
}

}  // namespace ts::viz
