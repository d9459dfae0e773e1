// Scene "barriers": one producer and its consumers over a few k-iterations, from the simulator's
// barrier event log: the producer's expect_bytes and TMA loads, the bytes landing on the full
// barrier of one stage until its phase flips, the consumers waiting and waking, and their arrivals
// on the empty barrier that hand the stage back.
#include <algorithm>
#include <cmath>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/barriers_model.hpp"

namespace ts::viz {

namespace {

constexpr ImU32 kExpect = IM_COL32(255, 210, 60, 255);
constexpr ImU32 kWake = IM_COL32(110, 220, 130, 255);
constexpr ImU32 kArrive = IM_COL32(235, 150, 70, 255);

struct Axis {
  float x0, x1;
  double t0, t1;
  float x(double t) const { return x0 + static_cast<float>((t - t0) / (t1 - t0)) * (x1 - x0); }
  bool in(double t) const { return t >= t0 && t <= t1; }
};

}  // namespace

void draw_barriers(const BarriersState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  if (const std::string problem = validate(SceneState{s}); !problem.empty()) {
    text_at(dl, f.bold, area.min, colour::error, problem);
    return;
  }
  const GemmRun run = gemm_run(s.gemm);
  const auto sim = c.sims.get(run);
  text_at(dl, f.bold, area.min, colour::white,
          "Stage " + std::to_string(s.slot) + " of " + std::to_string(s.gemm.stages) + ": its full and empty mbarriers, SM 0, k-iterations " +
              std::to_string(s.first) + " to " + std::to_string(s.first + s.iters - 1) + " (simulated)");
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text, sim_status(run, sim.get(), c.sims));
  if (!sim || !sim->error.empty()) return;
  const BarriersModel m = barriers_model(*sim, s);
  if (!m.error.empty()) {
    text_at(dl, f.body, ImVec2(area.min.x, area.min.y + 50), colour::error, m.error);
    return;
  }
  const float label_w = 150, top = area.min.y + 52, bottom = area.max.y - 48;
  const Axis ax{area.min.x + label_w, area.max.x - 10, m.t0, m.t1};
  const size_t rows = 3 + m.consumers.size();  // producer, full bytes, consumers, empty
  const float row_h = std::min(40.0f, (bottom - top) / rows);
  const auto row_y = [&](size_t i) { return top + i * row_h; };
  const std::string slot = "[" + std::to_string(s.slot) + "]";

  dl->PushClipRect(ImVec2(ax.x0, top - 2), ImVec2(ax.x1, bottom + 2), true);
  // Row 0, the producer: its waits for an empty stage, its expect_bytes, its loads.
  const float y0 = row_y(0);
  for (const auto& w : m.producer_waits)
    if (w.end >= ax.t0 && w.time <= ax.t1)
      dl->AddRectFilled(ImVec2(ax.x(w.time), y0 + row_h * 0.55f), ImVec2(std::max(ax.x(w.end), ax.x(w.time) + 1), y0 + row_h - 4),
                        colour::waiting);
  // The followed stage's loads as bars from issue to landing; the other stages' as thin lines.
  for (const auto& l : m.loads) {
    if (l.end < ax.t0 || l.time > ax.t1) continue;
    const float x0 = ax.x(l.time), x1 = std::max(ax.x(l.end), x0 + 1);
    if (l.slot == s.slot) dl->AddRectFilled(ImVec2(x0, y0 + 4), ImVec2(x1, y0 + row_h * 0.5f), colour::tma);
    else dl->AddLine(ImVec2(x0, y0 + row_h * 0.5f - 2), ImVec2(x1, y0 + row_h * 0.5f - 2), IM_COL32(90, 170, 255, 90));
  }
  for (const auto& e : m.expects)
    if (ax.in(e.time)) dl->AddLine(ImVec2(ax.x(e.time), y0 + 2), ImVec2(ax.x(e.time), y0 + row_h - 2), e.slot == s.slot ? kExpect : colour::faint, 2.0f);

  // Row 1, full[slot]: the bytes of each of its phases landing, until the phase completes.
  const float y1 = row_y(1), h1 = row_h - 6;
  std::vector<const BarrierMark*> slot_loads;
  for (const auto& l : m.loads)
    if (l.slot == s.slot) slot_loads.push_back(&l);
  for (size_t i = 0; i < slot_loads.size();) {
    // The loads of one phase share an iteration.
    size_t j = i;
    std::vector<std::pair<double, uint64_t>> lands;
    while (j < slot_loads.size() && slot_loads[j]->iteration == slot_loads[i]->iteration)
      lands.emplace_back(slot_loads[j]->end, slot_loads[j]->bytes), ++j;
    std::sort(lands.begin(), lands.end());
    // The expected bytes as an outline from the first issue to the last landing, filled step by
    // step as each box lands.
    const float xs = ax.x(slot_loads[i]->time), xe = std::max(ax.x(lands.back().first), xs + 2);
    dl->AddRect(ImVec2(xs, y1 + 3), ImVec2(xe + 2, y1 + 3 + h1), IM_COL32(90, 170, 255, 150));
    uint64_t sum = 0;
    for (size_t k = 0; k < lands.size(); ++k) {
      sum += lands[k].second;
      const float h = m.stage_bytes ? h1 * static_cast<float>(std::min(1.0, double(sum) / m.stage_bytes)) : 0;
      const float x0 = ax.x(lands[k].first), x1 = k + 1 < lands.size() ? ax.x(lands[k + 1].first) : x0 + 2;
      dl->AddRectFilled(ImVec2(x0, y1 + 3 + h1 - h), ImVec2(std::max(x1, x0 + 2), y1 + 3 + h1), IM_COL32(90, 170, 255, 200));
    }
    i = j;
  }
  for (const auto& p : m.full_completes)
    if (p.slot == s.slot && ax.in(p.time)) {
      dl->AddLine(ImVec2(ax.x(p.time), y1), ImVec2(ax.x(p.time), bottom), c.lit("phase") ? colour::highlight : colour::white, 1.5f);
      text_at(dl, f.small, ImVec2(ax.x(p.time) + 3, y1 + 1), colour::white, "phase " + std::to_string(p.phase));
    }

  // Consumers: waiting on full[slot] until woken, then handing the stage back on empty[].
  for (size_t i = 0; i < m.consumers.size(); ++i) {
    const float y = row_y(2 + i);
    for (const auto& w : m.consumers[i].waits) {
      if (w.slot != s.slot || w.end < ax.t0 || w.time > ax.t1) continue;
      dl->AddRectFilled(ImVec2(ax.x(w.time), y + row_h * 0.3f), ImVec2(std::max(ax.x(w.end), ax.x(w.time) + 1), y + row_h * 0.7f),
                        colour::waiting);
      dl->AddCircleFilled(ImVec2(ax.x(w.end), y + row_h * 0.5f), 3.5f, kWake);
    }
    for (const auto& a : m.consumers[i].arrives)
      if (a.slot == s.slot && ax.in(a.time))
        dl->AddTriangleFilled(ImVec2(ax.x(a.time), y + row_h * 0.5f - 5), ImVec2(ax.x(a.time) - 4, y + row_h * 0.5f + 4),
                              ImVec2(ax.x(a.time) + 4, y + row_h * 0.5f + 4), kArrive);
  }
  // Last row: empty[slot] completing (the producer may refill the stage).
  const float ye = row_y(2 + m.consumers.size());
  for (const auto& p : m.empty_completes)
    if (p.slot == s.slot && ax.in(p.time)) {
      dl->AddRectFilled(ImVec2(ax.x(p.time) - 2, ye + 4), ImVec2(ax.x(p.time) + 2, ye + row_h - 4), kArrive);
      text_at(dl, f.small, ImVec2(ax.x(p.time) + 4, ye + 2), colour::text, "phase " + std::to_string(p.phase));
    }
  dl->PopClipRect();

  // Row labels and lines.
  for (size_t i = 0; i < rows; ++i) {
    std::string label;
    if (i == 0) label = "producer, warp " + std::to_string(m.producer_warp);
    else if (i == 1) label = "full" + slot + " bytes";
    else if (i < rows - 1) label = "consumer warp " + std::to_string(m.consumers[i - 2].warp);
    else label = "empty" + slot + " phases";
    text_at(dl, f.small, ImVec2(area.min.x, row_y(i) + (row_h - 14) / 2), colour::text, label);
    dl->AddLine(ImVec2(ax.x0, row_y(i) + row_h - 1), ImVec2(ax.x1, row_y(i) + row_h - 1), colour::faint);
  }
  const auto frame = [&](size_t first, size_t count) {
    draw_highlight_frame(dl, {ImVec2(area.min.x, row_y(first)), ImVec2(ax.x1, row_y(first + count))});
  };
  if (c.lit("producer")) frame(0, 1);
  if (c.lit("bytes")) frame(1, 1);
  if (c.lit("consumers")) frame(2, m.consumers.size());
  if (c.lit("empty")) frame(rows - 1, 1);

  // Time axis in microseconds, and the legend.
  const double us0 = m.t0 / sim->clock_mhz, us1 = m.t1 / sim->clock_mhz, step = nice_step(us1 - us0, 6);
  for (double us = std::ceil(us0 / step) * step; us <= us1; us += step) {
    const float x = ax.x(us * sim->clock_mhz);
    dl->AddLine(ImVec2(x, bottom + 2), ImVec2(x, bottom + 6), colour::dim_text);
    text_at(dl, f.small, ImVec2(x - 12, bottom + 7), colour::dim_text, short_number(us) + " us");
  }
  float x = area.min.x;
  const float ly = area.max.y - 16;
  x = legend_item(dl, f, ImVec2(x, ly), kExpect, "expect_bytes " + bytes_text(double(m.stage_bytes)));
  x = legend_item(dl, f, ImVec2(x, ly), colour::tma, "TMA load, issue to landing");
  x = legend_item(dl, f, ImVec2(x, ly), colour::waiting, "wait");
  x = legend_item(dl, f, ImVec2(x, ly), kWake, "woken");
  legend_item(dl, f, ImVec2(x, ly), kArrive, "arrive on empty (stage handed back)");
}

}  // namespace ts::viz
