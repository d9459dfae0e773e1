// Scene "pipeline": a Gantt chart of one SM's warps as the simulator ran the real GEMM (TMA
// loads, waits, wgmma slices, epilogue), the tensor pipe's idle time marked, and simulated beside
// measured TFLOPS for each stage count.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "viz/gui/scenes.hpp"
#include "viz/gui/timeline_draw.hpp"
#include "viz/lesson/measured_timeline.hpp"
#include "viz/lesson/pipeline_model.hpp"
#include "viz/lesson/timeline_view.hpp"

namespace ts::viz {

namespace {

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
  // fp8 rows come from the FP8 run (gemm-fp8.json), clustered bf16 rows from the cluster sweep:
  // runs of their own, each with its date.
  const bool fp8 = s.gemm.in == InKnob::fp8;
  if (!md.gemm.empty())
    text_at(c.dl, f.small, ImVec2(area.min.x, y + 20), colour::dim_text,
            (fp8 ? md.fp8_date + ", gemm-fp8.json" : s.gemm.cluster > 1 ? md.cluster_date + ", the cluster sweep" : md.date) +
                ", tilescope bench");
  if (!md.gemm.empty())
    text_at(c.dl, f.small, ImVec2(area.min.x, y + 36), colour::dim_text, "simulated at each row's measured SM clock");
  float bottom = y + 52;
  // The reference library of the same run, for the selected stage count: cuBLASLt's FP8 GEMM
  // beside the fp8 rows, cuBLAS beside the bf16 ones.
  for (const StageRow& r : rows)
    if (r.stages == s.gemm.stages && r.measured && r.measured->cublas_tflops > 0) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.3f", r.measured->tflops / r.measured->cublas_tflops);
      text_at(c.dl, f.small, ImVec2(area.min.x, y + 52), colour::measured,
              std::string(fp8 ? "cuBLASLt fp8: " : "cuBLAS: ") + short_number(r.measured->cublas_tflops) + " TFLOPS, ours " +
                  ratio + "x");
      bottom += 16;
    }
  if (c.lit("measured") || c.lit("stages")) draw_highlight_frame(c.dl, {area.min, ImVec2(area.max.x, bottom)});
}

// A model of the frame before, while its source (a simulation or a measured timeline, held here so
// that no other can take its address) and the SM or block stay: building one from the spans took
// 1-2 ms of each frame on the pipelining lesson's steps, the same result frame after frame.
struct ModelMemo {
  std::shared_ptr<const void> source;
  uint32_t key = ~0u;
  PipelineModel model;
  template <class Make>
  const PipelineModel& get(std::shared_ptr<const void> from, uint32_t k, Make make) {
    if (from != source || k != key) model = make(), source = std::move(from), key = k;
    return model;
  }
};

// "+43 % over 0.197 ms": what recording cost the measured launch, over the plain build's time.
std::string measured_cost(const sim::Timeline& t) {
  if (!(t.plain_ms > 0)) return "cost not measured";
  char text[96];
  std::snprintf(text, sizeof text, "%+.0f %% over %.3f ms", 100 * (t.kernel_ms / t.plain_ms - 1), t.plain_ms);
  return text;
}

}  // namespace

void draw_pipeline(const PipelineState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const GemmRun run = gemm_run(s.gemm);
  const auto sim = c.sims.get(run);
  text_at(dl, f.bold, area.min, colour::white,
          "SM " + std::to_string(s.sm) + " running the " + (s.gemm.in == InKnob::fp8 ? "fp8 " : "") + "GEMM of gemm.cuh, " + std::to_string(s.gemm.stages) +
              " stage" + (s.gemm.stages > 1 ? "s" : "") +
              (s.gemm.cluster > 1 ? ", clusters of " + std::to_string(s.gemm.cluster) + " (SMs 0 and 1 are one cluster)" : "") +
              " (simulated)");
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text, sim_status(run, sim.get(), c.sims));

  const float table_w = std::clamp(area.width() * 0.25f, 220.0f, 270.0f);
  draw_stage_table(s, c, {ImVec2(area.max.x - table_w, area.min.y + 46), area.max});
  if (!sim || !sim->error.empty()) return;

  static ModelMemo simulated_memo;
  const PipelineModel& m = simulated_memo.get(sim, s.sm, [&] { return pipeline_model(*sim, s.sm); });
  if (m.rows.empty()) {
    text_at(dl, f.body, ImVec2(area.min.x, area.min.y + 50), colour::text,
            sim->report.spans.empty() ? "no timeline: only runs quick enough to re-simulate record one"
                                      : "SM " + std::to_string(s.sm) + " ran no block");
    return;
  }
  // from/to are percent of the SM's own run: from its first span to its last.
  const TimelineStyle st{f, dl, c.highlights};
  const double span = m.last - m.first;
  const double from = s.from / 100.0, to = std::max(s.to, s.from + 1) / 100.0;
  const auto measured = s.measured ? find_measured_timeline(run) : nullptr;
  if (!measured) {
    if (s.measured)
      text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 34), colour::idle,
              "no measured timeline of this configuration in data/measured/h100/timelines (the lessons' are 4096^3, 2 and 4 stages)");
    draw_timeline_panel(m, st, area, table_w, m.first + span * from, m.first + span * to, 0, sim->clock_mhz, true);
    return;
  }
  // The H100's recorded block (block `sm` where it was recorded, else the first) above the
  // simulator's SM that ran the same block, each from its block's start; zoom and pan are the
  // view's own, kept while the configuration and the step's knobs stay.
  static TimelineZoom zoom;
  const std::string key = run.key() + " " + std::to_string(s.from) + " " + std::to_string(s.to) + " " + std::to_string(s.sm);
  static std::shared_ptr<const void> blocks_of;
  static std::vector<RecordedBlock> blocks;
  if (blocks_of != measured) blocks = recorded_blocks(measured->timeline.spans), blocks_of = measured;
  if (zoom.key != key) {
    zoom = {};
    zoom.key = key, zoom.from = from, zoom.to = to;
    zoom.block = blocks.empty() ? 0 : blocks.front().block;
    for (const RecordedBlock& b : blocks)
      if (b.block == s.sm) zoom.block = b.block;
  }
  static ModelMemo measured_memo;
  const PipelineModel& mm = measured_memo.get(measured, zoom.block, [&] { return pipeline_model(block_spans(measured->timeline.spans, zoom.block, 0), 0); });
  uint32_t sim_sm = ~0u;
  for (const sim::Span& x : sim->report.spans)
    if (x.block == zoom.block) {
      sim_sm = x.sm;
      break;
    }
  static ModelMemo pair_memo;
  const PipelineModel& ms = pair_memo.get(sim, sim_sm, [&] {
    PipelineModel p = sim_sm == ~0u ? PipelineModel{} : pipeline_model(*sim, sim_sm);
    p.stages.clear();  // the same rows as the measured block, which has no barrier events to draw stages from
    return p;
  });
  TimelinePair pair;
  pair.measured = &mm;
  pair.measured_clock = measured->timeline.clock_mhz;
  std::string sm_of_block;
  for (const RecordedBlock& b : blocks)
    if (b.block == zoom.block) sm_of_block = std::to_string(b.sm);
  pair.measured_title = "measured on the H100: block " + std::to_string(zoom.block) + ", SM " + sm_of_block + " (recording build " +
                        measured_cost(measured->timeline) + ")";
  pair.blocks = blocks;
  pair.simulated_title = "simulated";
  if (sim_sm != ~0u) {
    pair.simulated = &ms;
    pair.simulated_clock = sim->clock_mhz;
    pair.simulated_title = "simulated: SM " + std::to_string(sim_sm) + ", which ran block " + std::to_string(zoom.block);
  } else {
    pair.simulated_note = "the simulation records SMs 0-" + std::to_string(kTimelineSms - 1) + ", which did not run block " +
                          std::to_string(zoom.block);
  }
  draw_timeline_pair(pair, zoom, st, {ImVec2(area.min.x, area.min.y + 40), area.max}, table_w);
}

}  // namespace ts::viz
