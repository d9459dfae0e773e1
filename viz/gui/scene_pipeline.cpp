// Scene "pipeline": a Gantt chart of one SM's warps as the simulator ran the real GEMM (TMA
// loads, waits, wgmma slices, epilogue), the tensor pipe's idle time marked, and simulated beside
// measured TFLOPS for each stage count.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/pipeline_model.hpp"

namespace ts::viz {

namespace {

ImU32 kind_colour(sim::OpKind k) {
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
  if (c.lit("measured") || c.lit("stages")) draw_highlight_frame(c.dl, {area.min, ImVec2(area.max.x, y + 36)});
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
  const float label_w = 140, top = area.min.y + 50, bottom = area.max.y - 44;
  const float plot_x1 = area.max.x - table_w - 24;
  // from/to are percent of the SM's own run: from its first span to its last.
  const double span = m.last - m.first;
  const TimeAxis ax{area.min.x + label_w, plot_x1, m.first + span * s.from / 100.0,
                    m.first + span * std::max(s.to, s.from + 1) / 100.0};
  const size_t n_rows = m.rows.size() + 1;  // + the tensor pipe
  const float row_h = std::min(30.0f, (bottom - top) / n_rows), bar_h = row_h - 6;

  dl->PushClipRect(ImVec2(ax.x0, top - 2), ImVec2(ax.x1, bottom + 2), true);
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const GanttRow& row = m.rows[i];
    const float y = top + i * row_h;
    for (const GanttBar& b : row.bars) {
      if (b.end < ax.t0 || b.start > ax.t1) continue;
      const float x0 = ax.x(b.start), x1 = std::max(ax.x(b.end), x0 + 1);
      if (b.kind == sim::OpKind::tma_load) {
        // Loads overlap (several in flight): thin translucent bars, issue to landing.
        dl->AddRectFilled(ImVec2(x0, y + 2), ImVec2(x1, y + 2 + bar_h / 2), IM_COL32(90, 170, 255, 90));
        dl->AddLine(ImVec2(x0, y + 1), ImVec2(x0, y + bar_h), colour::tma, 1.5f);
      } else {
        const float inset = b.kind == sim::OpKind::mma ? 0 : bar_h * 0.25f;
        dl->AddRectFilled(ImVec2(x0, y + 2 + inset), ImVec2(x1, y + 2 + bar_h - inset), kind_colour(b.kind));
      }
    }
  }
  // The tensor pipe: busy (merged over the warps) and, in red, idle.
  const float ty = top + m.rows.size() * row_h;
  for (const Interval& b : m.tensor_busy)
    if (b.end >= ax.t0 && b.start <= ax.t1)
      dl->AddRectFilled(ImVec2(ax.x(b.start), ty + 2), ImVec2(std::max(ax.x(b.end), ax.x(b.start) + 1), ty + 2 + bar_h), colour::mma);
  for (const Interval& g : m.tensor_idle)
    if (g.end >= ax.t0 && g.start <= ax.t1)
      dl->AddRectFilled(ImVec2(ax.x(g.start), ty + 2), ImVec2(std::max(ax.x(g.end), ax.x(g.start) + 1), ty + 2 + bar_h),
                        c.lit("idle") ? colour::highlight : colour::idle);
  dl->PopClipRect();

  for (size_t i = 0; i < n_rows; ++i) {
    const float y = top + i * row_h;
    const std::string label = i < m.rows.size() ? m.rows[i].label : "tensor pipe";
    text_at(dl, f.small, ImVec2(area.min.x, y + (row_h - 14) / 2), i < m.rows.size() ? colour::text : colour::white, label);
    dl->AddLine(ImVec2(ax.x0, y + row_h - 1), ImVec2(ax.x1, y + row_h - 1), colour::faint);
  }
  draw_time_axis(ax, sim->clock_mhz, top + n_rows * row_h + 2, f, dl);
  const auto frame_rows = [&](size_t first, size_t count) {
    draw_highlight_frame(dl, {ImVec2(area.min.x, top + first * row_h), ImVec2(ax.x1, top + (first + count) * row_h)});
  };
  const size_t producers = std::count_if(m.rows.begin(), m.rows.end(), [](const GanttRow& r) { return r.producer; });
  if (c.lit("producer")) frame_rows(0, producers);
  if (c.lit("consumers")) frame_rows(producers, m.rows.size() - producers);
  if (c.lit("tensor") || c.lit("idle")) frame_rows(m.rows.size(), 1);

  char idle[96];
  std::snprintf(idle, sizeof idle, "tensor pipe idle %.1f %% of SM %u's time (red)", 100 * m.idle_fraction(), s.sm);
  float x = area.min.x;
  const float ly = area.max.y - 18;
  x = legend_item(dl, f, ImVec2(x, ly), colour::tma, "TMA load in flight");
  x = legend_item(dl, f, ImVec2(x, ly), colour::mma, "wgmma");
  x = legend_item(dl, f, ImVec2(x, ly), IM_COL32(80, 110, 90, 255), "wait for wgmma");
  x = legend_item(dl, f, ImVec2(x, ly), colour::waiting, "wait on mbarrier");
  x = legend_item(dl, f, ImVec2(x, ly), colour::epilogue, "epilogue store");
  text_at(dl, c.lit("idle") ? f.bold : f.small, ImVec2(x, ly), c.lit("idle") ? colour::highlight : colour::idle, idle);
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

}  // namespace ts::viz
