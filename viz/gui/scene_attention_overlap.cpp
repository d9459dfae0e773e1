// Scenes "overlap" (the consumer warpgroups of one SM over time, simulated from the forward's own
// op streams, with the self-overlap on or off and what turning it off costs) and "attn-backward"
// (the backward's three launches, what the main kernel recomputes and accumulates, and where its
// extra work goes).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/attention_models.hpp"
#include "viz/lesson/measured_timeline.hpp"

namespace ts::viz {

namespace {

constexpr ImU32 kMma = IM_COL32(110, 220, 130, 255);
constexpr ImU32 kSoftmax = IM_COL32(90, 170, 255, 255);
constexpr ImU32 kWaitMma = IM_COL32(120, 124, 136, 255);
constexpr ImU32 kWaitData = IM_COL32(255, 95, 95, 255);
constexpr ImU32 kOther = IM_COL32(70, 75, 86, 255);

ImU32 colour_of(WarpActivity a) {
  switch (a) {
    case WarpActivity::mma: return kMma;
    case WarpActivity::softmax: return kSoftmax;
    case WarpActivity::wait_mma: return kWaitMma;
    case WarpActivity::wait_data: return kWaitData;
    case WarpActivity::other: return kOther;
  }
  return kOther;
}

std::string fmt(const char* f, double a, double b = 0, double c = 0) {
  char buf[200];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

// A row of bars in [t0, t1] drawn into [x0, x1]: at most one rectangle per pixel column (a
// software renderer pays per rectangle), the later bar of a column winning.
template <class Bars, class Colour>
void draw_bars(ImDrawList* dl, const Bars& bars, double t0, double t1, float x0, float x1, float y0, float y1, Colour colour) {
  const double sx = (x1 - x0) / std::max(1.0, t1 - t0);
  float last_col = -1;
  for (const auto& b : bars) {
    const double s = std::max(b.first_t(), t0), e = std::min(b.last_t(), t1);
    if (e <= s) continue;
    float a = x0 + float((s - t0) * sx), z = x0 + float((e - t0) * sx);
    if (z - a < 1) {
      if (std::floor(a) == last_col) continue;
      z = a + 1;
    }
    last_col = std::floor(z - 1);
    dl->AddRectFilled(ImVec2(a, y0), ImVec2(z, y1), colour(b));
  }
}

struct BarView {
  const ActivityBar* b;
  double first_t() const { return b->start; }
  double last_t() const { return b->end; }
};
struct BusyView {
  const std::pair<double, double>* b;
  double first_t() const { return b->first; }
  double last_t() const { return b->second; }
};

}  // namespace

void draw_attention(const OverlapState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const int consumers = int(s.consumers);
  const OverlapRuns runs = overlap_runs(s);
  const AttentionRun& run = runs.shown;
  const bool other_ok = runs.other.has_value();  // the other setting must run too
  text_at(dl, f.bold, area.min, colour::white,
          "One SM's consumer warpgroups, simulated: N = " + std::to_string(s.attn.n) + ", D = " + std::to_string(s.attn.d) +
              ", " + std::to_string(s.attn.heads) + " heads, " + std::to_string(consumers) + " consumers, overlap " +
              (s.overlap ? "on" : "off"));
  const auto sim = get_attention(c.sims, run);
  const auto sim_other = other_ok ? get_attention(c.sims, *runs.other) : nullptr;
  if (!sim) {
    text_at(dl, f.body, ImVec2(area.min.x, area.min.y + 24), colour::dim_text,
            !c.sims.slow_allowed && !run.quick() ? "not simulated here: this size takes seconds (slow simulations are off)"
                                                 : "simulating...");
    return;
  }
  if (!sim->error.empty()) {
    text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 24), colour::error, "the simulator refused it: " + sim->error);
    return;
  }
  OverlapModel m = overlap_model(*sim);
  m.measured = measured_overlap_track(run);
  if (m.rows.empty()) {
    text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 24), colour::dim_text, "no SM ran a block of this launch");
    return;
  }
  const double span = m.last - m.first;
  const double t0 = m.first + span * s.from / 100.0, t1 = m.first + span * s.to / 100.0;
  const float left = area.min.x + 150, right = area.max.x - 8;
  float y = area.min.y + 26;
  text_at(dl, f.small, ImVec2(area.min.x, y), colour::dim_text,
          "SM " + std::to_string(m.sm) + fmt(", cycles %.0f to %.0f of its %.0f", t0 - m.first, t1 - m.first, span) +
              "; one row per warpgroup (its first warp)");
  y += 20;
  const float row_h = 22;
  if (m.measured) {
    // The H100's first recorded block above, at the same scale, from its own start.
    text_at(dl, f.small, ImVec2(area.min.x, y), colour::measured,
            "measured on the H100, block 0 of " + m.measured->title + fmt(" (%.0f cycles; a block's work depends on N, D, mask, consumers and overlap only):", m.measured->cycles));
    y += 18;
    for (const OverlapRow& r : m.measured->rows) {
      text_at(dl, f.small, ImVec2(area.min.x, y + 3), colour::measured, "H100 " + r.label);
      std::vector<BarView> v;
      v.reserve(r.bars.size());
      for (const auto& b : r.bars) v.push_back({&b});
      draw_bars(dl, v, t0 - m.first, t1 - m.first, left, right, y, y + row_h - 4, [](const BarView& b) { return colour_of(b.b->what); });
      y += row_h;
    }
    text_at(dl, f.small, ImVec2(area.min.x, y), colour::simulated, "simulated:");
    y += 18;
  }
  const float rows_top = y;
  for (const OverlapRow& r : m.rows) {
    text_at(dl, f.small, ImVec2(area.min.x, y + 3), colour::text, r.label);
    std::vector<BarView> v;
    v.reserve(r.bars.size());
    for (const auto& b : r.bars) v.push_back({&b});
    draw_bars(dl, v, t0, t1, left, right, y, y + row_h - 4, [](const BarView& b) { return colour_of(b.b->what); });
    y += row_h;
  }
  const float rows_bottom = y;
  if (c.lit("consumers")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, rows_top - 2), ImVec2(right + 2, rows_bottom)});
  text_at(dl, f.small, ImVec2(area.min.x, y + 3), colour::text, "tensor cores (SM)");
  std::vector<BusyView> busy;
  for (const auto& b : m.tensor_busy) busy.push_back({&b});
  dl->AddRectFilled(ImVec2(left, y), ImVec2(right, y + row_h - 4), IM_COL32(255, 95, 95, 90));  // idle unless busy
  draw_bars(dl, busy, t0, t1, left, right, y, y + row_h - 4, [](const BusyView&) { return kMma; });
  if (c.lit("tensor")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, y - 2), ImVec2(right + 2, y + row_h - 2)});
  y += row_h + 4;
  float lx = area.min.x;
  lx = legend_item(dl, f, ImVec2(lx, y), kMma, "wgmma issue / tensor busy");
  lx = legend_item(dl, f, ImVec2(lx, y), kSoftmax, "softmax math");
  lx = legend_item(dl, f, ImVec2(lx, y), kWaitMma, "waits for own MMA");
  lx = legend_item(dl, f, ImVec2(lx, y), kWaitData, "waits for K/V");
  legend_item(dl, f, ImVec2(lx, y), kOther, "other");
  y += 24;

  // Where each warpgroup's time went, over the SM's whole run.
  const float table_top = y;
  for (const OverlapRow& r : m.rows) {
    text_at(dl, f.small, ImVec2(area.min.x, y), colour::text,
            r.label + fmt(": softmax %.0f %%, waiting for its own MMA %.0f %%, for K/V %.0f %%", 100 * r.softmax / span,
                          100 * r.wait_mma / span, 100 * r.wait_data / span));
    y += 16;
  }
  text_at(dl, f.small, ImVec2(area.min.x, y), colour::text, fmt("tensor cores idle %.0f %% of SM ", 100 * m.tensor_idle / span) + std::to_string(m.sm) + "'s run");
  y += 16;
  if (c.lit("softmax") || c.lit("waiting")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, table_top - 2), ImVec2(area.max.x, y)});
  y += 6;

  // The cost of the other setting, both simulated.
  const float cost_top = y;
  text_at(dl, f.small, ImVec2(area.min.x, y), colour::text,
          fmt("this run: %.0f cycles, %.1f TFLOPS at %.0f MHz", sim->cycles, sim->tflops, sim->clock_mhz));
  y += 16;
  if (!other_ok) {
    text_at(dl, f.small, ImVec2(area.min.x, y), colour::dim_text, "with 3 consumers at D = 128 the kernel cannot overlap: no comparison");
  } else if (!sim_other) {
    text_at(dl, f.small, ImVec2(area.min.x, y), colour::dim_text, std::string("overlap ") + (s.overlap ? "off" : "on") + ": simulating...");
  } else if (!sim_other->error.empty()) {
    text_at(dl, f.small, ImVec2(area.min.x, y), colour::error, sim_other->error);
  } else {
    const double on = s.overlap ? sim->cycles : sim_other->cycles, off = s.overlap ? sim_other->cycles : sim->cycles;
    text_at(dl, f.small, ImVec2(area.min.x, y), off > on ? colour::memory_bound : colour::good,
            fmt("overlap off: %.0f cycles, overlap on: %.0f: turning it off costs %+.1f %%", off, on, 100 * (off - on) / on));
  }
  y += 16;
  if (c.lit("cost")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, cost_top - 2), ImVec2(area.max.x, y)});
  const float measured_top = y;
  text_at(dl, f.small, ImVec2(area.min.x, y), colour::dim_text,
          m.measured ? "measured timeline (above): " + m.measured->source
                     : "measured per-warp timeline: none recorded for this configuration (N, D, mask, consumers, overlap; simulated only)");
  y += 16;
  // The H100's own figure for the overlap, where the bench ran this N and D (batch and heads differ).
  const auto& am = attention_measurements();
  for (const auto& r : am.rows)
    if (r.pass == "fwd" && r.n == s.attn.n && r.d == s.attn.d && r.causal == s.attn.causal) {
      text_at(dl, f.small, ImVec2(area.min.x, y), colour::measured,
              fmt("measured, B%.0f H%.0f with the default configuration: %.0f TFLOPS", double(r.b), double(r.h_q), r.tflops));
      y += 16;
    }
  if (c.lit("measured")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, measured_top - 2), ImVec2(area.max.x, y)});
}

void draw_attention(const AttnBackwardState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const auto fwd = get_attention(c.sims, attention_run(s.attn, false));
  const auto bwd = get_attention(c.sims, attention_run(s.attn, true));
  const BackwardModel m = backward_model(s.attn, fwd.get(), bwd.get());
  text_at(dl, f.bold, area.min, colour::white,
          "The backward: N = " + std::to_string(s.attn.n) + ", D = " + std::to_string(s.attn.d) + ", " +
              std::to_string(s.attn.heads) + " heads" + (s.attn.causal ? ", causal" : ""));
  float y = area.min.y + 26;
  const float line = f.small->FontSize + 5;

  // What the main kernel recomputes and accumulates, per (key block, query block) pair.
  const float recompute_top = y;
  const auto say = [&](const std::string& t, ImU32 col = colour::text) {
    text_at(dl, f.small, ImVec2(area.min.x, y), col, ellipsize(f.small, t, area.width()));
    y += line;
  };
  say("each CTA: " + std::to_string(m.consumers) + " warpgroups, each holding " + std::to_string(m.block_kv) +
          " keys (K, V) for the whole CTA; query blocks of " + std::to_string(m.block_q) + " rows stream through (Q, dO, lse, delta)",
      colour::dim_text);
  say("  recomputed:  S^T = K Q^T,  P^T = exp2(S^T scale log2 e - lse)   (the forward's scores, rebuilt from the log-sum-exp)", kSoftmax);
  say("  new:         dP^T = V dO^T,  dS^T = P^T (dP^T - delta)", kSoftmax);
  const float acc_top = y;
  say("  in registers, per warpgroup:  dV += P^T dO,  dK += dS^T Q   (its own keys: no other CTA touches them)", kMma);
  say("  shared by all CTAs:  dQ += dS K, added into global memory in fp32 (TMA reducing stores), converted by a third launch", colour::memory_bound);
  if (c.lit("recompute")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, recompute_top + line - 2), ImVec2(area.max.x, acc_top)});
  if (c.lit("accumulate")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, acc_top - 2), ImVec2(area.max.x, y)});
  say(fmt("  5 matrix products per pair against the forward's 2; %.0f pairs in all, %.3g MiB of dQ shares added", double(m.pairs),
          double(m.dq_add_bytes) / (1024.0 * 1024.0)));
  y += 8;

  // The three launches against the forward, on one time scale.
  const float bars_top = y;
  if (!fwd || !bwd) {
    const bool refused = !c.sims.slow_allowed && !attention_run(s.attn, true).quick();
    text_at(dl, f.body, ImVec2(area.min.x, y), colour::dim_text,
            refused ? "not simulated here: this size takes seconds (slow simulations are off)"
                    : "simulating the forward and the backward...");
    return;
  }
  if (!bwd->error.empty() || !fwd->error.empty()) {
    text_at(dl, f.small, ImVec2(area.min.x, y), colour::error, "the simulator refused it: " + bwd->error + fwd->error);
    return;
  }
  const double most = std::max(m.forward_cycles, m.backward_cycles);
  const float left = area.min.x + 130, right = area.max.x - 10;
  const auto bar = [&](const std::string& label, double start, double cycles, ImU32 col) {
    text_at(dl, f.small, ImVec2(area.min.x, y + 2), colour::text, label);
    const float a = left + float(start / most) * (right - left), z = left + float((start + cycles) / most) * (right - left);
    dl->AddRectFilled(ImVec2(a, y), ImVec2(std::max(a + 1, z - 1), y + 18), col);
    const std::string t = fmt("%.0f cycles", cycles);
    if (text_size(f.small, t).x < z - a - 6) text_at(dl, f.small, ImVec2(a + 4, y + 2), colour::black, t);
  };
  bar("forward", 0, m.forward_cycles, kSoftmax);
  y += 24;
  const ImU32 launch_cols[] = {kWaitMma, kMma, colour::memory_bound};
  double at = 0;
  for (size_t i = 0; i < m.launches.size(); ++i) {
    bar(m.launches[i].name, at, m.launches[i].cycles, launch_cols[std::min<size_t>(i, 2)]);
    at += m.launches[i].cycles;
    y += 24;
  }
  if (c.lit("launches")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, bars_top - 2), ImVec2(area.max.x, y)});
  y += 4;
  const float work_top = y;
  say(fmt("backward / forward: %.2f x the cycles (the FLOP count, 2.5 x, is the usual convention)", m.backward_cycles / m.forward_cycles));
  for (const auto& l : m.launches)
    say("  " + l.name + fmt(": %.3g MMA FLOPs, %.3g MiB stored, %.0f blocks", l.mma_flops,
                            l.stored_bytes / (1024.0 * 1024.0), double(l.blocks)));
  say(fmt("  forward: %.3g MMA FLOPs", m.forward_mma_flops));
  say(fmt("simulated in %.0f ms (forward) and %.0f ms (backward) on this machine", fwd->wall_ms, bwd->wall_ms), colour::dim_text);
  if (c.lit("work")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, work_top - 2), ImVec2(area.max.x, y)});
  // The H100's figures at this N and D (the bench's batch and heads).
  y += 6;
  const float measured_top = y;
  const auto& am = attention_measurements();
  int shown = 0;
  for (const auto& r : am.rows)
    if (r.n == s.attn.n && r.d == s.attn.d && r.causal == s.attn.causal) {
      say("measured " + r.pass + fmt(" B%.0f H%.0f: %.0f TFLOPS", double(r.b), double(r.h_q), r.tflops) +
              fmt(", %.3f ms (cuDNN %.0f, FlashAttention-2 %.0f TFLOPS)", r.median_ms, r.cudnn_tflops, r.fa2_tflops),
          colour::measured);
      ++shown;
    }
  if (shown == 0) say("not measured at this N and D", colour::dim_text);
  if (c.lit("measured")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, measured_top - 2), ImVec2(area.max.x, y)});
}

}  // namespace ts::viz
