// Scenes "attn-flow" (one CTA of the attention forward: Q resident, K/V streaming through the
// stages, S and P in registers, O accumulating; bytes and FLOPs per block against the roofline)
// and "attn-trust" (every measured attention row against the simulator's prediction).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/attention_models.hpp"

namespace ts::viz {

namespace {

constexpr ImU32 kQ = IM_COL32(255, 210, 60, 255);
constexpr ImU32 kK = IM_COL32(90, 170, 255, 255);
constexpr ImU32 kV = IM_COL32(170, 130, 255, 255);
constexpr ImU32 kS = IM_COL32(110, 220, 130, 255);
constexpr ImU32 kO = IM_COL32(235, 150, 70, 255);

std::string printf_text(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

void box(ImDrawList* dl, const Fonts& f, Rect r, ImU32 col, bool filled, const std::string& label) {
  if (filled) dl->AddRectFilled(r.min, r.max, (col & 0x00FFFFFF) | 0x60000000);
  dl->AddRect(r.min, r.max, col, 0, 0, 1.5f);
  text_at(dl, f.small, ImVec2(r.min.x + 4, r.min.y + 3), colour::text, ellipsize(f.small, label, r.width() - 8));
}

}  // namespace

void draw_attention(const AttnFlowState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const FlowModel m = flow_model(s.attn, c.machine);
  if (!m.error.empty()) {
    text_at(dl, f.bold, area.min, colour::error, m.error);
    return;
  }
  const int block = std::min<int>(int(s.block), std::max(0, m.kv_blocks - 1));
  text_at(dl, f.bold, area.min, colour::white,
          "One CTA of the forward: " + std::to_string(m.consumers) + " consumer warpgroups x " + std::to_string(m.block_q) +
              " query rows, D = " + std::to_string(m.dim) + ", " + std::to_string(m.stages) + " stages" +
              (m.overlap ? " (self-overlap on)" : ""));
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text,
          "at key block " + std::to_string(block) + " of the " + std::to_string(m.kv_blocks) +
              " this CTA loads; sizes from the kernel's own types");
  const float w = area.width() * 0.58f, x0 = area.min.x;
  float y = area.min.y + 44;

  // Shared memory: the Q tiles (loaded once) and the ring of K/V stages.
  const Rect smem{ImVec2(x0, y), ImVec2(x0 + w, y + 150)};
  dl->AddRect(smem.min, smem.max, colour::faint);
  text_at(dl, f.small, ImVec2(x0 + 4, y + 2), colour::dim_text, "shared memory: " + bytes_text(double(m.smem_bytes)) + " of the SM's " +
                                                                   bytes_text(c.machine.smem_per_sm.value * 1024));
  const float qw = (w - 16) / float(m.consumers);
  for (int i = 0; i < m.consumers; ++i)
    box(dl, f, {ImVec2(x0 + 6 + i * qw, y + 20), ImVec2(x0 + 2 + (i + 1) * qw, y + 52)}, kQ, true,
        "Q " + std::to_string(i) + ": 64 x " + std::to_string(m.dim) + ", " + bytes_text(double(m.q_tile_bytes)) +
            (m.tile_stages == 2 ? ", x2: the next tile's loads beside it" : ", resident"));
  if (c.lit("q")) draw_highlight_frame(dl, {ImVec2(x0 + 2, y + 18), ImVec2(x0 + w - 2, y + 54)});
  const float sw = (w - 16) / float(m.stages);
  for (int i = 0; i < m.stages; ++i) {
    // Block b sits in stage b mod stages; the next ones are on their way (as far as the ring allows).
    const int held = block % m.stages;
    const int ahead = (i - held + m.stages) % m.stages;
    // With the self-overlap (release lag 1) the previous block's stage is still held: its V feeds
    // the P V that runs during this block's softmax.
    const bool lagging = m.overlap && ahead == m.stages - 1 && block >= 1;
    const int b = lagging ? block - 1 : block + ahead;
    const bool exists = b < m.kv_blocks;
    const std::string what = !exists   ? "free"
                             : lagging ? "K, V block " + std::to_string(b) + ": V still read by its P V"
                             : ahead == 0 ? "K, V block " + std::to_string(b) + ": read by the MMAs"
                                          : "K, V block " + std::to_string(b) + ": loading (TMA)";
    const Rect st{ImVec2(x0 + 6 + i * sw, y + 62), ImVec2(x0 + 2 + (i + 1) * sw, y + 142)};
    box(dl, f, st, ahead == 0 ? kK : kV, exists, "stage " + std::to_string(i) + ": " + bytes_text(double(m.stage_bytes)));
    text_at(dl, f.small, ImVec2(st.min.x + 4, st.min.y + 22), exists ? colour::text : colour::dim_text, ellipsize(f.small, what, st.width() - 8));
  }
  if (c.lit("stages")) draw_highlight_frame(dl, {ImVec2(x0 + 2, y + 60), ImVec2(x0 + w - 2, y + 144)});
  y = smem.max.y + 10;

  // Registers of each consumer warpgroup: S, P and O.
  const Rect regs{ImVec2(x0, y), ImVec2(x0 + w, y + 84)};
  dl->AddRect(regs.min, regs.max, colour::faint);
  text_at(dl, f.small, ImVec2(x0 + 4, y + 2), colour::dim_text, "registers of each consumer warpgroup (never in memory)");
  const float rw = (w - 24) / 3;
  box(dl, f, {ImVec2(x0 + 6, y + 20), ImVec2(x0 + 6 + rw, y + 76)}, kS, true,
      "S = Q K^T: 64 x 128 fp32, " + bytes_text(double(m.score_bytes)));
  box(dl, f, {ImVec2(x0 + 12 + rw, y + 20), ImVec2(x0 + 12 + 2 * rw, y + 76)}, kS, false,
      "P = exp2(S - max), bf16: " + bytes_text(double(m.prob_bytes)));
  box(dl, f, {ImVec2(x0 + 18 + 2 * rw, y + 20), ImVec2(x0 + 18 + 3 * rw, y + 76)}, kO, true,
      "O += P V: 64 x " + std::to_string(m.dim) + " fp32, " + bytes_text(double(m.out_bytes)));
  text_at(dl, f.small, ImVec2(x0 + 22 + 2 * rw, y + 40), colour::text, "sums blocks 0.." + std::to_string(block));
  if (c.lit("registers")) draw_highlight_frame(dl, {ImVec2(x0 + 2, y + 18), ImVec2(x0 + 14 + 2 * rw, y + 78)});
  if (c.lit("output")) draw_highlight_frame(dl, {ImVec2(x0 + 16 + 2 * rw, y + 18), ImVec2(x0 + 20 + 3 * rw, y + 78)});
  y = regs.max.y + 10;

  // The key blocks of the CTA: done, current, to come.
  const float cw = std::min(24.f, (w - 8) / std::max(1, m.kv_blocks));
  for (int b = 0; b < m.kv_blocks; ++b) {
    const ImU32 col = b < block ? kK : b == block ? colour::white : colour::faint;
    dl->AddRectFilled(ImVec2(x0 + b * cw, y), ImVec2(x0 + (b + 1) * cw - 2, y + 12), col);
  }
  text_at(dl, f.small, ImVec2(x0, y + 16), colour::dim_text, "key blocks of this CTA: done, current (white), to come");

  // Per block and per kernel, against the machine.
  const float rx = x0 + w + 20;
  float ry = area.min.y + 44;
  const float line = f.small->FontSize + 5;
  const auto row = [&](const std::string& t, ImU32 col = colour::text) {
    text_at(dl, f.small, ImVec2(rx, ry), col, ellipsize(f.small, t, area.max.x - rx));
    ry += line;
  };
  const float bytes_top = ry;
  row("per key block, one CTA:", colour::dim_text);
  row("  K and V in: " + bytes_text(m.bytes_per_block));
  row("  FLOPs: " + printf_text("%.3g", m.flops_per_block) + " (Q K^T and P V)");
  row("  " + printf_text("%.0f FLOP per byte from L2", m.block_intensity()));
  row("whole forward at N = " + std::to_string(s.attn.n) + ":", colour::dim_text);
  row("  " + printf_text("%.3g FLOPs, %.3g bytes of HBM", m.kernel_flops, m.kernel_hbm_bytes));
  row("  " + printf_text("%.0f FLOP per byte of HBM (N / 2)", m.kernel_intensity()));
  if (c.lit("bytes")) draw_highlight_frame(dl, {ImVec2(rx - 4, bytes_top - 2), ImVec2(area.max.x, ry)});
  ry += 6;
  const float roof_top = ry;
  row(c.machine.name + " (machine file):", colour::dim_text);
  row("  " + printf_text("peak %.0f TFLOPS", m.peak_flops / 1e12));
  row("  " + printf_text("HBM %.2f TB/s: ridge %.0f FLOP/B", m.hbm_bytes_per_s / 1e12, m.hbm_ridge()));
  row("  " + printf_text("L2 %.2f TB/s: ridge %.0f FLOP/B", m.l2_bytes_per_s / 1e12, m.l2_ridge()));
  const bool block_ok = m.block_intensity() >= m.l2_ridge(), kernel_ok = m.kernel_intensity() >= m.hbm_ridge();
  row(std::string("  a block is ") + (block_ok ? "right of the L2 ridge: compute-bound" : "left of the L2 ridge: L2-bound"),
      block_ok ? colour::compute_bound : colour::memory_bound);
  row(std::string("  the kernel is ") + (kernel_ok ? "right of the HBM ridge" : "left of the HBM ridge"),
      kernel_ok ? colour::compute_bound : colour::memory_bound);
  if (c.lit("roofline")) draw_highlight_frame(dl, {ImVec2(rx - 4, roof_top - 2), ImVec2(area.max.x, ry)});
  ry += 6;
  // What the H100 measured at this N and D, any batch (data/measured/h100/attention.json).
  const auto& am = attention_measurements();
  row("measured (" + std::string(am.date.empty() ? "attention.json" : am.date) + "):", colour::dim_text);
  int shown = 0;
  for (const auto& r : am.rows)
    if (r.pass == "fwd" && r.n == s.attn.n && r.d == s.attn.d && r.causal == s.attn.causal) {
      row(printf_text("  B%.0f H%.0f: %.0f TFLOPS", double(r.b), double(r.h_q), r.tflops), colour::measured);
      ++shown;
    }
  if (shown == 0) row("  not measured at this N and D", colour::dim_text);
}

void draw_attention(const AttnTrustState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const auto& am = attention_measurements();
  const TrustModel t = trust_model(s, am);
  text_at(dl, f.bold, area.min, colour::white, "Attention: simulated against measured TFLOPS");
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text,
          ellipsize(f.small, t.header.empty() ? "compare-attention.txt not found" : t.header, area.width()));
  if (t.rows.empty()) {
    for (const auto& p : am.problems) text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 44), colour::error, p);
    return;
  }
  // Scatter: measured (x) against simulated (y), with the diagonal.
  const float size = std::min(area.width() * 0.45f, area.height() - 120);
  const Rect plot{ImVec2(area.min.x + 40, area.min.y + 44), ImVec2(area.min.x + 40 + size, area.min.y + 44 + size)};
  double hi = 0;
  for (const auto* r : t.rows) hi = std::max({hi, r->measured, r->simulated});
  hi = std::ceil(hi / 100) * 100;
  const auto px = [&](double v) { return plot.min.x + float(v / hi) * plot.width(); };
  const auto py = [&](double v) { return plot.max.y - float(v / hi) * plot.height(); };
  dl->AddRect(plot.min, plot.max, colour::faint);
  dl->AddLine(ImVec2(px(0), py(0)), ImVec2(px(hi), py(hi)), colour::dim_text);
  for (double v = 0; v <= hi; v += 100) {
    text_at(dl, f.small, ImVec2(px(v) - 8, plot.max.y + 2), colour::dim_text, printf_text("%.0f", v));
    text_at(dl, f.small, ImVec2(plot.min.x - 34, py(v) - 7), colour::dim_text, printf_text("%.0f", v));
  }
  text_at(dl, f.small, ImVec2(plot.min.x, plot.max.y + 16), colour::dim_text, "measured TFLOPS (x), simulated (y)");
  for (const auto* r : t.rows)
    dl->AddCircleFilled(ImVec2(px(r->measured), py(r->simulated)), 4, r->backward ? colour::memory_bound : colour::simulated);
  if (c.lit("points")) draw_highlight_frame(dl, plot);
  if (c.lit("diagonal")) dl->AddLine(ImVec2(px(0), py(0)), ImVec2(px(hi), py(hi)), colour::highlight, 2);
  float lx = plot.min.x;
  lx = legend_item(dl, f, ImVec2(lx, plot.max.y + 32), colour::simulated, "forward");
  legend_item(dl, f, ImVec2(lx, plot.max.y + 32), colour::memory_bound, "backward");

  // The rows, as the file gives them.
  const float tx = plot.max.x + 24;
  float ty = plot.min.y;
  const float line = f.small->FontSize + 3;
  const float cols[] = {tx, tx + 130, tx + 260, tx + 320, tx + 380};
  const char* heads[] = {"shape", "pass", "meas.", "sim.", "error"};
  for (int i = 0; i < 5; ++i) text_at(dl, f.small, ImVec2(cols[i], ty), colour::dim_text, heads[i]);
  ty += line;
  const float table_top = ty;
  for (const auto* r : t.rows) {
    if (ty + line > area.max.y - 4) break;
    text_at(dl, f.small, ImVec2(cols[0], ty), colour::text, r->shape);
    text_at(dl, f.small, ImVec2(cols[1], ty), colour::text, ellipsize(f.small, r->config, 125));
    text_at(dl, f.small, ImVec2(cols[2], ty), colour::measured, printf_text("%.1f", r->measured));
    text_at(dl, f.small, ImVec2(cols[3], ty), colour::simulated, printf_text("%.1f", r->simulated));
    text_at(dl, f.small, ImVec2(cols[4], ty), r->error_percent > 25 ? colour::memory_bound : colour::text,
            printf_text("%.1f %%", r->error_percent));
    ty += line;
  }
  if (c.lit("table")) draw_highlight_frame(dl, {ImVec2(tx - 4, table_top - 2), ImVec2(area.max.x, ty)});
  const std::string summary = printf_text("%.0f rows shown: mean absolute error %.1f %%", double(t.rows.size()), t.mape) +
                              (t.summary.empty() ? "" : "; the file, all rows: " + t.summary);
  const float sy = plot.max.y + 52;
  text_at(dl, f.small, ImVec2(area.min.x, sy), colour::text, ellipsize(f.small, summary, area.width()));
  if (c.lit("errors")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, sy - 2), ImVec2(area.max.x, sy + 18)});
}

}  // namespace ts::viz
