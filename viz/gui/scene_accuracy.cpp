// Scene "accuracy": every measured configuration as a point, measured across, simulated up, with
// the diagonal where they agree; the rows beside it with their errors.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/accuracy_model.hpp"

namespace ts::viz {

namespace {

ImU32 sweep_colour(const std::string& sweep) {
  static const char* names[] = {"size", "skinny", "stages", "order", "layout", "tile", "holdout"};
  for (unsigned i = 0; i < 7; ++i)
    if (sweep == names[i]) return bank_colour(i * 5 + 2);
  return colour::white;
}

std::string value_text(double v, AccuracyMetric metric) {
  return metric == AccuracyMetric::tflops ? short_number(v) : bytes_text(v);
}

std::string signed_pct(double v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%+.0f %%", v);
  return buf;
}

}  // namespace

void draw_accuracy(const AccuracyState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const AccuracyModel m = accuracy_model(s, c.measured, c.sims);
  const std::string unit = s.metric == AccuracyMetric::tflops ? "TFLOPS" : "HBM bytes read";
  text_at(dl, f.bold, area.min, colour::white, "Simulated against measured: " + unit + ", sweep " + std::string(name_of(s.sweep)));
  std::string status = m.file.empty() ? "no measurements found in data/measured"
                                      : std::to_string(m.points.size()) + " measured rows (" + m.device + ", " + m.date +
                                            "); " + std::to_string(m.simulated) + " simulated";
  if (m.running) status += ", " + std::to_string(m.running) + " simulating";
  if (m.skipped) status += ", " + std::to_string(m.skipped) + " large ones left out (big=off: seconds each)";
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text, status);

  const float table_w = std::clamp(area.width() * 0.56f, 320.0f, 600.0f);
  const float side = std::min(area.width() - table_w - 80, area.height() - 100);
  const Rect plot{ImVec2(area.min.x + 56, area.min.y + 50), ImVec2(area.min.x + 56 + side, area.min.y + 50 + side)};
  dl->AddRect(plot.min, plot.max, colour::faint);
  if (m.hi <= 0) {
    text_at(dl, f.body, ImVec2(plot.min.x + 10, plot.min.y + 10), colour::dim_text, "nothing to plot yet");
  } else {
    const double l0 = std::floor(std::log10(m.lo * 0.8) * 4) / 4, l1 = std::ceil(std::log10(m.hi * 1.25) * 4) / 4;
    const auto at = [&](double x, double y) {
      return ImVec2(plot.min.x + static_cast<float>((std::log10(x) - l0) / (l1 - l0)) * plot.width(),
                    plot.max.y - static_cast<float>((std::log10(y) - l0) / (l1 - l0)) * plot.height());
    };
    // Ticks at 1, 2, 5 times powers of ten.
    for (int e = static_cast<int>(std::floor(l0)); e <= static_cast<int>(std::ceil(l1)); ++e)
      for (double mant : {1.0, 2.0, 5.0}) {
        const double v = mant * std::pow(10.0, e);
        if (std::log10(v) < l0 || std::log10(v) > l1) continue;
        const ImVec2 p = at(v, v);
        dl->AddLine(ImVec2(p.x, plot.max.y), ImVec2(p.x, plot.max.y + 4), colour::dim_text);
        dl->AddLine(ImVec2(plot.min.x - 4, p.y), ImVec2(plot.min.x, p.y), colour::dim_text);
        const std::string label = value_text(v, s.metric);
        text_at(dl, f.small, ImVec2(p.x - text_size(f.small, label).x / 2, plot.max.y + 5), colour::dim_text, label);
        text_at(dl, f.small, ImVec2(plot.min.x - 6 - text_size(f.small, label).x, p.y - 7), colour::dim_text, label);
      }
    // Where simulated equals measured, and 20 % either side.
    const double v0 = std::pow(10.0, l0), v1 = std::pow(10.0, l1);
    dl->AddLine(at(v0, v0), at(v1, v1), c.lit("diagonal") ? colour::highlight : colour::dim_text, 1.5f);
    dl->AddLine(at(v0, v0 * 1.2), at(v1 / 1.2, v1), colour::faint);
    dl->AddLine(at(v0 * 1.2, v0), at(v1, v1 / 1.2), colour::faint);
    for (const AccuracyPoint& p : m.points) {
      const double y = p.simulated();
      if (y <= 0) continue;
      const ImVec2 q = at(p.measured, y);
      if (p.measured_hi > p.measured_lo)  // the spread over launches
        dl->AddLine(at(p.measured_lo, y), at(p.measured_hi, y), sweep_colour(p.sweep), 2.0f);
      dl->AddCircleFilled(q, 5.0f, sweep_colour(p.sweep));
      dl->AddCircle(q, 5.0f, colour::black);
    }
    text_at(dl, f.small, ImVec2(plot.min.x, plot.max.y + 22), colour::measured, "measured (H100) →");
    text_at(dl, f.small, ImVec2(plot.min.x, plot.min.y - 16), colour::simulated, "↑ simulated");
    if (c.lit("points")) draw_highlight_frame(dl, plot);
  }

  // The rows, with their errors.
  const float tx = area.max.x - table_w, line = f.small->FontSize + 4;
  float y = area.min.y + 46;
  const float cols[] = {tx, tx + 60, tx + 178, area.max.x - 168, area.max.x - 108, area.max.x - 44};
  const char* heads[] = {"sweep", "M x N x K", "config", "measured", "simulated", "error"};
  for (int i = 0; i < 6; ++i) text_at(dl, f.small, ImVec2(cols[i], y), colour::dim_text, heads[i]);
  y += line + 2;
  const float table_top = y;
  for (const AccuracyPoint& p : m.points) {
    // Room below the last row for the summary and its note (two lines, one in the body font).
    if (y + line > area.max.y - 3 * line - f.body->FontSize) {
      text_at(dl, f.small, ImVec2(tx, y), colour::dim_text, "... (filter with sweep= or stages=)");
      y += line;
      break;
    }
    dl->AddRectFilled(ImVec2(cols[0], y + 3), ImVec2(cols[0] + 8, y + 11), sweep_colour(p.sweep));
    text_at(dl, f.small, ImVec2(cols[0] + 12, y), colour::text, p.sweep);
    text_at(dl, f.small, ImVec2(cols[1], y), colour::text,
            std::to_string(p.run.shape.m) + "x" + std::to_string(p.run.shape.n) + "x" + std::to_string(p.run.shape.k));
    const std::string config = short_config(p.run.cfg);
    text_at(dl, f.small, ImVec2(cols[2], y), colour::dim_text, ellipsize(f.small, config, cols[3] - 6 - cols[2]));
    if (ImGui::IsMouseHoveringRect(ImVec2(cols[0], y), ImVec2(area.max.x, y + line))) ImGui::SetTooltip("%s", config.c_str());
    text_at(dl, f.small, ImVec2(cols[3], y), colour::measured, value_text(p.measured, s.metric));
    std::string simulated = p.skipped ? "big=off" : !p.sim ? "..." : !p.sim->error.empty() ? "refused" : value_text(p.simulated(), s.metric);
    text_at(dl, f.small, ImVec2(cols[4], y), colour::simulated, simulated);
    if (p.sim && p.sim->error.empty()) {
      const double e = p.error_pct();
      text_at(dl, f.small, ImVec2(cols[5], y), std::fabs(e) <= 20 ? colour::good : colour::error, signed_pct(e));
    }
    y += line;
  }
  if (c.lit("table")) draw_highlight_frame(dl, {ImVec2(tx, table_top), ImVec2(area.max.x, y)});
  if (m.simulated) {
    char summary[96];
    std::snprintf(summary, sizeof summary, "mean absolute error over %zu simulated rows: %.1f %%", m.simulated, m.mape);
    text_at(dl, f.body, ImVec2(tx, y + 6), colour::text, summary);
    if (c.lit("errors")) draw_highlight_frame(dl, {ImVec2(tx, y + 6), ImVec2(tx + text_size(f.body, summary).x, y + 24)});
    if (s.metric == AccuracyMetric::tflops)
      text_at(dl, f.small, ImVec2(tx, y + 26), colour::dim_text,
              "the simulator counts cycles; each row's are timed at the SM clock it ran at, read inside the kernel");
  }
}

}  // namespace ts::viz
