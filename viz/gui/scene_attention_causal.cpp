// Scene "causal": one head's (query block, key block) grid of kernels/attention/attention_fwd.cuh
// (which key blocks each CTA loads, which its warpgroups skip or mask), the order the CTAs are
// launched in, and from the simulator every SM's blocks over time: per-CTA work and the tail.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/attention_causal.hpp"

namespace ts::viz {

namespace {

constexpr ImU32 kFull = IM_COL32(110, 220, 130, 255);
constexpr ImU32 kMasked = IM_COL32(235, 150, 70, 255);
constexpr ImU32 kSkipped = IM_COL32(80, 84, 96, 255);

// Short blocks (few key blocks) light, long ones saturated.
ImU32 work_colour(int iterations, int most) {
  const float t = most > 0 ? float(iterations) / float(most) : 1.f;
  return IM_COL32(70 + int(30 * t), 110 + int(60 * t), 150 + int(105 * t), 255);
}

std::string cycles_text(double c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", c);
  return buf;
}

void draw_grid_part(const CausalGrid& g, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  text_at(dl, f.bold, area.min, colour::white,
          "One head: " + std::to_string(g.q_blocks) + " CTAs of " + std::to_string(g.block_q) + " query rows x " +
              std::to_string(g.kv_blocks) + " key blocks of " + std::to_string(g.block_kv));
  const float top = area.min.y + 22, label_w = 40, side_w = 150;
  const float cell = std::floor(std::min((area.width() - label_w - side_w) / std::max(1, g.kv_blocks),
                                         (area.height() - 64) / std::max(1, g.q_blocks)));
  const float sub = cell / float(g.consumers);
  int most = 1;
  for (int it : g.iterations) most = std::max(most, it);
  for (int q = 0; q < g.q_blocks; ++q) {
    const float y = top + q * cell;
    if (cell >= 10) text_at(dl, f.small, ImVec2(area.min.x, y + cell / 2 - 7), colour::dim_text, "q" + std::to_string(q));
    for (int kv = 0; kv < g.kv_blocks; ++kv) {
      const float x = area.min.x + label_w + kv * cell;
      if (kv >= g.iterations[q]) {
        dl->AddRect(ImVec2(x, y), ImVec2(x + cell - 1, y + cell - 1), colour::faint);
        continue;
      }
      for (int wg = 0; wg < g.consumers; ++wg) {
        const PairWork w = g.at(q, kv, wg);
        const ImU32 col = w == PairWork::full ? kFull : w == PairWork::masked ? kMasked : kSkipped;
        dl->AddRectFilled(ImVec2(x, y + wg * sub), ImVec2(x + cell - 1, y + (wg + 1) * sub - (wg + 1 == g.consumers ? 1 : 0)), col);
      }
    }
    // Per CTA: the key blocks it loads, and when it is launched (slot in the kernel's order).
    const int slot = static_cast<int>(std::find(g.launch_order.begin(), g.launch_order.end(), q) - g.launch_order.begin());
    const float bx = area.min.x + label_w + g.kv_blocks * cell + 8;
    const float bw = (side_w - 60) * g.iterations[q] / float(most);
    dl->AddRectFilled(ImVec2(bx, y + 2), ImVec2(bx + bw, y + std::max(4.f, cell - 3)), work_colour(g.iterations[q], most));
    if (cell >= 10)
      text_at(dl, f.small, ImVec2(bx + bw + 4, y + cell / 2 - 7), colour::text,
              std::to_string(g.iterations[q]) + "  #" + std::to_string(slot));
  }
  const float bottom = top + g.q_blocks * cell;
  const Rect grid_rect{ImVec2(area.min.x + label_w - 2, top - 2), ImVec2(area.min.x + label_w + g.kv_blocks * cell + 1, bottom + 1)};
  if (c.lit("grid")) draw_highlight_frame(dl, grid_rect);
  const Rect side{ImVec2(grid_rect.max.x + 4, top - 2), ImVec2(grid_rect.max.x + side_w, bottom + 1)};
  if (c.lit("order") || c.lit("work")) draw_highlight_frame(dl, side);
  float lx = area.min.x;
  const float ly = bottom + 6;
  lx = legend_item(dl, f, ImVec2(lx, ly), kFull, "computed");
  lx = legend_item(dl, f, ImVec2(lx, ly), kMasked, "masked in part");
  lx = legend_item(dl, f, ImVec2(lx, ly), kSkipped, "loaded, warpgroup skips");
  legend_item(dl, f, ImVec2(lx, ly), colour::faint, "not loaded");
  const uint64_t all = uint64_t(g.q_blocks) * g.kv_blocks;
  text_at(dl, f.small, ImVec2(area.min.x, ly + 18), colour::text,
          std::to_string(g.loaded) + " of " + std::to_string(all) + " key blocks loaded per head, " +
              std::to_string(g.not_loaded) + " not; " + std::to_string(g.warpgroup_skipped) + " warpgroup shares skipped");
  text_at(dl, f.small, ImVec2(area.min.x, ly + 34), colour::dim_text, "bars: key blocks per CTA; #: its launch slot in the head");
}

void draw_timeline_part(const CausalState& s, const CausalGrid& g, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const AttentionRun run = causal_run(int(s.attn.n), int(s.attn.d), int(s.attn.heads), s.attn.causal);
  const auto sim = get_attention(c.sims, run);
  const uint32_t sms = static_cast<uint32_t>(c.machine.sm_count.value);
  text_at(dl, f.bold, area.min, colour::white,
          "Simulated: " + std::to_string(s.attn.heads) + " heads x " + std::to_string(g.q_blocks) + " CTAs = " +
              std::to_string(s.attn.heads * g.q_blocks) + " CTAs on " + std::to_string(sms) + " SMs");
  if (!sim) {
    text_at(dl, f.body, ImVec2(area.min.x, area.min.y + 22), colour::dim_text,
            c.sims.slow_allowed || run.quick() ? "simulating..." : "not simulated here: slow simulations are off");
    return;
  }
  if (!sim->error.empty()) {
    text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 22), colour::error, "the simulator refused it: " + sim->error);
    return;
  }
  const CausalTimeline t = causal_timeline(*sim, sms);
  if (t.makespan <= 0 || t.sms.empty()) {
    text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 22), colour::dim_text,
            "no per-block times: this configuration is past the quick size, where only totals are kept");
    return;
  }
  int most = 1;
  for (int it : g.iterations) most = std::max(most, it);
  const float top = area.min.y + 22, left = area.min.x + 40, right = area.max.x - 4;
  const float h = std::max(1.f, std::floor((area.height() - 80) / float(t.sms.size())));
  const float sx = (right - left) / float(t.makespan);
  for (size_t sm = 0; sm < t.sms.size(); ++sm) {
    const float y = top + sm * h;
    for (const BlockSpan& b : t.sms[sm].blocks) {
      const int q = g.q_blocks > 0 ? g.launch_order[b.block % g.q_blocks] : 0;
      dl->AddRectFilled(ImVec2(left + float(b.start) * sx, y), ImVec2(std::max(left + float(b.end) * sx - 1, left + float(b.start) * sx + 1), y + std::max(1.f, h - (h > 3 ? 1 : 0))),
                        work_colour(g.iterations[q], most));
    }
  }
  const float bottom = top + t.sms.size() * h;
  text_at(dl, f.small, ImVec2(area.min.x, top), colour::dim_text, "SM 0");
  text_at(dl, f.small, ImVec2(area.min.x, bottom - 14), colour::dim_text, std::to_string(t.sms.size() - 1));
  const float idle_x = left + float(t.first_idle) * sx;
  dl->AddLine(ImVec2(idle_x, top), ImVec2(idle_x, bottom), colour::highlight, 1.5f);
  const Rect tail{ImVec2(idle_x, top - 2), ImVec2(right + 2, bottom + 2)};
  if (c.lit("tail")) draw_highlight_frame(dl, tail);
  if (c.lit("sms")) draw_highlight_frame(dl, {ImVec2(left - 2, top - 2), ImVec2(right + 2, bottom + 2)});
  double shortest = 1e300, longest = 0;
  for (double b : t.block_cycles) shortest = std::min(shortest, b), longest = std::max(longest, b);
  char line[256];
  std::snprintf(line, sizeof line, "%s cycles in all; the first SM runs out of work at %s (yellow):",
                cycles_text(t.makespan).c_str(), cycles_text(t.first_idle).c_str());
  text_at(dl, f.small, ImVec2(area.min.x, bottom + 6), colour::text, ellipsize(f.small, line, area.width()));
  std::snprintf(line, sizeof line, "a tail of %.0f %% of the run; SMs busy %.0f %% of the time; a CTA takes %s to %s cycles",
                100 * t.tail() / t.makespan, 100 * t.busy_fraction, cycles_text(shortest).c_str(), cycles_text(longest).c_str());
  text_at(dl, f.small, ImVec2(area.min.x, bottom + 22), colour::text, ellipsize(f.small, line, area.width()));
  std::snprintf(line, sizeof line, "%.1f TFLOPS at %.0f MHz (simulated in %.0f ms; colour: the CTA's key blocks, brighter = more)",
                sim->tflops, sim->clock_mhz, sim->wall_ms);
  text_at(dl, f.small, ImVec2(area.min.x, bottom + 38), colour::dim_text, ellipsize(f.small, line, area.width()));
}

}  // namespace

void draw_attention(const CausalState& s, const SceneContext& c, Rect area) {
  const CausalGrid g = causal_grid(int(s.attn.n), int(s.attn.d), s.attn.causal);
  if (!g.error.empty()) {
    text_at(c.dl, c.fonts.bold, area.min, colour::error, g.error);
    return;
  }
  const float split = std::floor(area.min.x + area.width() * 0.46f);
  draw_grid_part(g, c, {area.min, ImVec2(split - 12, area.max.y)});
  draw_timeline_part(s, g, c, {ImVec2(split, area.min.y), area.max});
}

}  // namespace ts::viz
