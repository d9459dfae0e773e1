// Scene "softmax": the online softmax of kernels/attention/attention_fwd.cuh on 4 query rows and 8
// key blocks, stepped block by block: the scores, the running max and sum, the rescale factor, the
// probabilities as the state estimates them against the exact softmax, and the output row.
// Every number comes from softmax_model (the kernel's tile ops on the host backend).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/attention_softmax.hpp"

namespace ts::viz {

namespace {

std::string fixed(double v, int digits) {
  char buf[32];
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Blue for low scores, red for high, through a dark grey.
ImU32 score_colour(float v, float range, float alpha) {
  const float t = std::clamp(v / std::max(range, 1e-6f), -1.f, 1.f);
  const int a = static_cast<int>(255 * alpha);
  if (t >= 0) return IM_COL32(60 + int(195 * t), 60 + int(40 * t), 70 - int(20 * t), a);
  return IM_COL32(60 - int(20 * -t), 60 + int(80 * -t), 70 + int(185 * -t), a);
}

const SoftmaxModel& model_for(const SoftmaxState& s) {
  // The model is a few microseconds of tile ops, but it need not run every frame.
  static uint32_t seed = 0;
  static KeyTrend keys = KeyTrend::random;
  static SoftmaxModel m;
  if (seed != s.seed || keys != s.keys || seed == 0) m = softmax_model(s.seed, s.keys), seed = s.seed, keys = s.keys;
  return m;
}

}  // namespace

void draw_attention(const SoftmaxState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  const SoftmaxModel& m = model_for(s);
  if (!m.error.empty()) {
    text_at(dl, f.bold, area.min, colour::error, m.error);
    return;
  }
  const int done = static_cast<int>(std::min<uint32_t>(s.block, kSoftmaxBlocks));
  const int row = static_cast<int>(std::min<uint32_t>(s.row, kSoftmaxRows - 1));
  text_at(dl, f.bold, area.min, colour::white,
          "Online softmax: " + std::to_string(kSoftmaxRows) + " query rows, " + std::to_string(kSoftmaxBlocks) +
              " key blocks of " + std::to_string(kSoftmaxKeys) + " keys, head dimension " + std::to_string(kSoftmaxDim));
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text,
          done == 0 ? "before the first block: max = -inf, sum = 0, O = 0"
                    : "after block " + std::to_string(done - 1) + " (" + std::to_string(done) + " of " +
                          std::to_string(kSoftmaxBlocks) + " folded); scale 1/sqrt(16) = " + fixed(m.scale, 3) +
                          "; the kernel's own tile ops, run on the CPU");

  // The scores of every block: folded ones bright, the current one framed, later ones faint.
  float range = 0;
  for (const auto& st : m.steps)
    for (const auto& r : st.scores)
      for (float v : r) range = std::max(range, std::abs(v));
  const float left = area.min.x + 44, top = area.min.y + 46;
  const float cell_w = std::floor((area.width() - 50) / kSoftmaxAllKeys), cell_h = 14;
  text_at(dl, f.small, ImVec2(area.min.x, top - 2), colour::dim_text, "S");
  for (int b = 0; b < kSoftmaxBlocks; ++b) {
    const float alpha = b < done ? 1.f : 0.25f;
    for (int r = 0; r < kSoftmaxRows; ++r)
      for (int k = 0; k < kSoftmaxKeys; ++k) {
        const float x = left + (b * kSoftmaxKeys + k) * cell_w, y = top + r * cell_h;
        dl->AddRectFilled(ImVec2(x, y), ImVec2(x + cell_w - 1, y + cell_h - 1), score_colour(m.steps[b].scores[r][k], range, alpha));
      }
    const float x0 = left + b * kSoftmaxKeys * cell_w;
    text_at(dl, f.small, ImVec2(x0 + 2, top + kSoftmaxRows * cell_h + 1), b < done ? colour::text : colour::faint,
            "block " + std::to_string(b));
    if (b == done - 1)
      dl->AddRect(ImVec2(x0 - 1, top - 1), ImVec2(x0 + kSoftmaxKeys * cell_w, top + kSoftmaxRows * cell_h), colour::white, 0, 0, 2);
  }
  for (int r = 0; r < kSoftmaxRows; ++r)
    text_at(dl, f.small, ImVec2(area.min.x + 14, top + r * cell_h), r == row ? colour::highlight : colour::dim_text,
            "q" + std::to_string(r));
  const Rect strip{ImVec2(left - 2, top - 2), ImVec2(left + kSoftmaxAllKeys * cell_w + 1, top + kSoftmaxRows * cell_h + 16)};
  if (c.lit("scores")) draw_highlight_frame(dl, strip);

  // The current block's scores as numbers.
  float y = strip.max.y + 8;
  const float num_w = std::min(46.f, (area.width() - 44) / kSoftmaxKeys);
  if (done > 0) {
    const SoftmaxStep& st = m.steps[done - 1];
    text_at(dl, f.small, ImVec2(area.min.x, y), colour::dim_text, "block " + std::to_string(done - 1) + ": S = Q K^T");
    y += 16;
    for (int r = 0; r < kSoftmaxRows; ++r) {
      text_at(dl, f.small, ImVec2(area.min.x + 14, y), r == row ? colour::highlight : colour::dim_text, "q" + std::to_string(r));
      for (int k = 0; k < kSoftmaxKeys; ++k) {
        const float v = st.scores[r][k];
        text_at(dl, f.mono_small ? f.mono_small : f.small, ImVec2(left + k * num_w, y),
                v == st.block_max[r] ? colour::highlight : colour::text, fixed(v, 1));
      }
      y += 15;
    }
  }

  // The running statistics per row.
  y += 8;
  const Rect stats_top{ImVec2(area.min.x, y), ImVec2(area.max.x, y)};
  const char* heads[] = {"row", "max before", "block max", "max after", "rescale", "sum", "sum in double", "lse", "exact lse"};
  const float col_w = std::min(96.f, area.width() / 9);
  for (int i = 0; i < 9; ++i) text_at(dl, f.small, ImVec2(area.min.x + i * col_w, y), colour::dim_text, heads[i]);
  y += 16;
  for (int r = 0; r < kSoftmaxRows; ++r) {
    const ImU32 col = r == row ? colour::highlight : colour::text;
    std::string cells[9] = {"q" + std::to_string(r), "-inf", "", "-inf", "", "0", "", "", ""};
    // The same sum in double, over the keys seen so far and relative to the same max: what the
    // running sum must equal after every block (the invariant the rescale keeps).
    double exact_sum = 0;
    if (done > 0) {
      const SoftmaxStep& st = m.steps[done - 1];
      cells[1] = fixed(st.max_before[r], 3);
      cells[2] = fixed(st.block_max[r], 3);
      cells[3] = fixed(st.max_after[r], 3);
      cells[4] = fixed(st.rescale[r], 4);
      cells[5] = fixed(st.sum[r], 3);
      for (int b = 0; b < done; ++b)
        for (int k = 0; k < kSoftmaxKeys; ++k)
          exact_sum += std::exp(double(m.scale) * (double(m.steps[b].scores[r][k]) - st.max_after[r]));
      cells[6] = fixed(exact_sum, 3);
    }
    if (done == kSoftmaxBlocks) cells[7] = fixed(m.lse[r], 4);
    cells[8] = fixed(m.exact_lse[r], 4);
    for (int i = 0; i < 9; ++i) text_at(dl, f.small, ImVec2(area.min.x + i * col_w, y), i == 4 && done > 0 && m.steps[done - 1].rescale[r] < 1 ? colour::memory_bound : col, cells[i]);
    y += 15;
  }
  if (c.lit("max")) draw_highlight_frame(dl, {ImVec2(stats_top.min.x + col_w - 4, stats_top.min.y - 2), ImVec2(stats_top.min.x + 4 * col_w - 4, y)});
  if (c.lit("rescale")) draw_highlight_frame(dl, {ImVec2(stats_top.min.x + 4 * col_w - 4, stats_top.min.y - 2), ImVec2(stats_top.min.x + 5 * col_w - 4, y)});
  if (c.lit("sum")) draw_highlight_frame(dl, {ImVec2(stats_top.min.x + 5 * col_w - 4, stats_top.min.y - 2), ImVec2(stats_top.min.x + 9 * col_w - 4, y)});

  // The chosen row's probabilities: the state's estimate (filled) against the exact softmax (line).
  y += 10;
  const float bars_h = std::max(40.f, std::min(110.f, area.max.y - y - 90));
  text_at(dl, f.small, ImVec2(area.min.x, y), colour::dim_text,
          "row q" + std::to_string(row) + ": probability of each key as the state now estimates it (bars) and exact (white ticks)");
  y += 16;
  double pmax = 0;
  for (int j = 0; j < kSoftmaxAllKeys; ++j) pmax = std::max({pmax, m.exact_p[row][j], m.estimate(row, j, done)});
  const float base = y + bars_h;
  for (int j = 0; j < kSoftmaxAllKeys; ++j) {
    const float x = left + j * cell_w;
    const double est = m.estimate(row, j, done), ex = m.exact_p[row][j];
    if (est > 0) dl->AddRectFilled(ImVec2(x, base - float(est / pmax) * bars_h), ImVec2(x + cell_w - 1, base), colour::simulated);
    const float ey = base - float(ex / pmax) * bars_h;
    dl->AddLine(ImVec2(x, ey), ImVec2(x + cell_w - 1, ey), colour::white);
  }
  dl->AddLine(ImVec2(left, base), ImVec2(left + kSoftmaxAllKeys * cell_w, base), colour::faint);
  if (c.lit("probabilities")) draw_highlight_frame(dl, {ImVec2(left - 2, y - 2), ImVec2(left + kSoftmaxAllKeys * cell_w + 2, base + 2)});
  y = base + 8;

  // The chosen row's output: O / sum now, against the exact output.
  const float o_top = y;
  const int shown = std::min(kSoftmaxDim, static_cast<int>((area.width() - 110) / 52));
  text_at(dl, f.small, ImVec2(area.min.x, y), colour::dim_text, "O / sum");
  text_at(dl, f.small, ImVec2(area.min.x, y + 15), colour::dim_text, "exact O");
  for (int d = 0; d < shown; ++d) {
    const float x = area.min.x + 70 + d * 52;
    std::string now = "0";
    if (done > 0) now = fixed(m.steps[done - 1].o[row][d] / m.steps[done - 1].sum[row], 3);
    text_at(dl, f.small, ImVec2(x, y), done == kSoftmaxBlocks ? colour::good : colour::text, now);
    text_at(dl, f.small, ImVec2(x, y + 15), colour::dim_text, fixed(m.exact_out[row][d], 3));
  }
  text_at(dl, f.small, ImVec2(area.min.x, y + 32), colour::dim_text,
          "(first " + std::to_string(shown) + " of " + std::to_string(kSoftmaxDim) +
              " columns; P is rounded to bf16 before P V, as in the kernel)");
  if (c.lit("output")) draw_highlight_frame(dl, {ImVec2(area.min.x - 2, o_top - 2), ImVec2(area.max.x, o_top + 48)});
}

}  // namespace ts::viz
