// Scene "registers": one SM's register file split between the GEMM's producer and consumer
// warpgroups, against an even split; and, from the simulator, how many blocks fit on an SM for
// each stage count beside the TFLOPS it predicts.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/registers_model.hpp"

namespace ts::viz {

namespace {

constexpr ImU32 kProducer = IM_COL32(90, 170, 255, 255);
constexpr ImU32 kConsumer = IM_COL32(110, 220, 130, 255);
constexpr ImU32 kAccumulator = IM_COL32(255, 210, 60, 255);

void draw_file(const RegistersState& s, const RegisterBudget& b, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  text_at(dl, f.bold, area.min, colour::white, "The register file of one SM: " + std::to_string(b.file) + " registers of 32 bits");
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text,
          s.split == RegisterSplit::setmaxnreg ? "setmaxnreg: the producer gives registers up, the consumers take them"
                                               : "even split: every one of the 384 threads gets the same count");
  // The whole file as one bar: producer warpgroup, two consumer warpgroups, what is left.
  const Rect bar{ImVec2(area.min.x, area.min.y + 44), ImVec2(area.max.x, area.min.y + 84)};
  const float scale = bar.width() / static_cast<float>(std::max(b.file, b.used));
  float x = bar.min.x;
  const auto part = [&](uint32_t regs, ImU32 col, const std::string& label) {
    const float w = regs * scale;
    dl->AddRectFilled(ImVec2(x, bar.min.y), ImVec2(x + w - 1, bar.max.y), col);
    if (text_size(f.small, label).x < w - 6) text_at(dl, f.small, ImVec2(x + 4, bar.min.y + 12), colour::black, label);
    x += w;
  };
  part(kWarpgroupThreads * b.producer, kProducer, "producer 128 x " + std::to_string(b.producer));
  for (uint32_t i = 0; i < kConsumerWarpgroups; ++i)
    part(kWarpgroupThreads * b.consumer, kConsumer, "consumer " + std::to_string(i) + ": 128 x " + std::to_string(b.consumer));
  dl->AddRect(bar.min, ImVec2(bar.min.x + b.file * scale, bar.max.y), colour::white);
  if (c.lit("file")) draw_highlight_frame(dl, bar);
  const std::string total = std::to_string(b.used) + " of " + std::to_string(b.file) + " registers" +
                            (b.fits ? " used by one block" : ": does not fit, the block cannot launch");
  text_at(dl, f.body, ImVec2(area.min.x, bar.max.y + 6), b.fits ? colour::good : colour::error, total);

  // Per thread: what a consumer thread gets against what its accumulator alone needs.
  const float top = bar.max.y + 40, row = 30, max_regs = 256;
  const float w = area.width() - 150;
  const auto thread_bar = [&](float y, const std::string& label, uint32_t regs, ImU32 col) {
    text_at(dl, f.small, ImVec2(area.min.x, y + 6), colour::text, label);
    dl->AddRectFilled(ImVec2(area.min.x + 150, y), ImVec2(area.min.x + 150 + w * regs / max_regs, y + row - 8), col);
    text_at(dl, f.small, ImVec2(area.min.x + 154 + w * regs / max_regs, y + 6), colour::text, std::to_string(regs));
  };
  thread_bar(top, "producer thread", b.producer, kProducer);
  thread_bar(top + row, "consumer thread", b.consumer, kConsumer);
  thread_bar(top + 2 * row, "even split", b.even, colour::waiting);
  const float acc_x = area.min.x + 150 + w * b.accumulator / max_regs;
  dl->AddLine(ImVec2(acc_x, top + row - 4), ImVec2(acc_x, top + 3 * row), kAccumulator, 2.0f);
  const std::string acc = "accumulator alone: " + std::to_string(b.accumulator) + " per consumer thread (64 x " +
                          std::to_string(s.gemm.block_n) + " fp32 over 128 threads)";
  text_at(dl, f.small, ImVec2(area.min.x + 150, top + 3 * row + 2), kAccumulator, acc);
  if (c.lit("accumulator")) draw_highlight_frame(dl, {ImVec2(area.min.x, top + row - 4), ImVec2(area.max.x, top + 3 * row + 18)});
  text_at(dl, f.small, ImVec2(area.min.x, top + 3 * row + 24), colour::dim_text,
          "setmaxnreg takes 24 to 256 in steps of 8; a thread never holds more than 255");
}

void draw_occupancy(const RegistersState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const auto rows = occupancy_rows(s.gemm, c.sims);
  text_at(dl, f.bold, area.min, colour::white, "Blocks per SM and TFLOPS (simulated)");
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text,
          std::to_string(s.gemm.m) + "x" + std::to_string(s.gemm.n) + "x" + std::to_string(s.gemm.k) + ", 128x" +
              std::to_string(s.gemm.block_n) + " tiles; limits from the kernel's own block");
  const float line = f.body->FontSize + 6;
  const float cx[] = {area.min.x, area.min.x + 56, area.min.x + 140, area.min.x + 214, area.min.x + 300};
  float y = area.min.y + 46;
  const char* heads[] = {"stages", "smem", "by smem", "by regs", "TFLOPS"};
  for (int i = 0; i < 5; ++i) text_at(dl, f.small, ImVec2(cx[i], y), colour::dim_text, heads[i]);
  y += line;
  const double smem_per_sm = c.machine.smem_per_sm.value * 1024, regs_per_sm = c.machine.registers_per_sm.value;
  double best = 1;
  for (const auto& r : rows)
    if (r.sim && r.sim->error.empty()) best = std::max(best, r.sim->report.tflops);
  const float table_top = y;
  for (const auto& r : rows) {
    if (r.stages == s.gemm.stages)
      dl->AddRectFilled(ImVec2(area.min.x - 4, y - 2), ImVec2(area.max.x, y + line - 4), IM_COL32(60, 64, 76, 255));
    text_at(dl, f.body, ImVec2(cx[0] + 14, y), colour::text, std::to_string(r.stages));
    if (!r.sim || !r.sim->error.empty()) {
      text_at(dl, f.body, ImVec2(cx[1], y), colour::dim_text, r.sim ? "refused" : "simulating...");
      y += line;
      continue;
    }
    const GemmSim& g = *r.sim;
    const uint32_t by_smem = static_cast<uint32_t>(smem_per_sm / std::max(1u, g.shared_bytes));
    const uint32_t by_regs = static_cast<uint32_t>(regs_per_sm / std::max(1u, g.registers_per_thread * g.threads));
    text_at(dl, f.body, ImVec2(cx[1], y), colour::text, short_number(g.shared_bytes / 1024.0) + " KiB");
    text_at(dl, f.body, ImVec2(cx[2], y), colour::text, std::to_string(by_smem));
    text_at(dl, f.body, ImVec2(cx[3], y), colour::text, std::to_string(by_regs));
    // Simulated TFLOPS as a bar, with the blocks per SM the simulator placed.
    const float bw = std::max(1.0f, (area.max.x - cx[4] - 110) * static_cast<float>(g.report.tflops / best));
    dl->AddRectFilled(ImVec2(cx[4], y + 2), ImVec2(cx[4] + bw, y + line - 6), colour::simulated);
    text_at(dl, f.small, ImVec2(cx[4] + bw + 4, y + 2), colour::text,
            short_number(g.report.tflops) + ", " + std::to_string(g.report.blocks_per_sm) + " block/SM");
    y += line;
  }
  if (c.lit("limits") || c.lit("occupancy")) draw_highlight_frame(dl, {ImVec2(area.min.x, table_top), ImVec2(area.max.x, y)});
  text_at(dl, f.small, ImVec2(area.min.x, y + 6), colour::dim_text,
          "by regs: the launch bound (384 threads, 1 block) gives each thread " +
              std::to_string(rows.front().sim ? rows.front().sim->registers_per_thread : 0) + " registers");
  text_at(dl, f.small, ImVec2(area.min.x, y + 22), colour::dim_text,
          "the simulator places as many blocks as smem, registers and threads allow");
}

}  // namespace

void draw_registers(const RegistersState& s, const SceneContext& c, Rect area) {
  if (const std::string problem = validate(SceneState{s}); !problem.empty()) {
    text_at(c.dl, c.fonts.bold, area.min, colour::error, problem);
    return;
  }
  const RegisterBudget b = register_budget(s, static_cast<uint32_t>(c.machine.registers_per_sm.value));
  const float split = std::floor(area.width() * 0.52f);
  draw_file(s, b, c, {area.min, ImVec2(area.min.x + split - 24, area.max.y)});
  draw_occupancy(s, c, {ImVec2(area.min.x + split, area.min.y), area.max});
}

}  // namespace ts::viz
