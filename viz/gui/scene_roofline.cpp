// Scene "roofline": the memory hierarchy of the machine file, and a log-log roofline with a GEMM
// and the attention inner loop placed on it.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/roofline_model.hpp"

namespace ts::viz {

std::string short_number(double v) {
  char buf[32];
  if (std::fabs(v) >= 100 || v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (std::fabs(v) >= 10)
    std::snprintf(buf, sizeof buf, "%.1f", v);
  else
    std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string text = buf;
  if (text.find('.') != std::string::npos) {  // "4.80" -> "4.8"
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

namespace {

std::string latency_text(const sim::Quantity& cycles, const sim::MachineSpec& m) {
  const double ns = cycles.value / m.sm_clock.value * 1000.0;
  return "~" + short_number(cycles.value) + (cycles.value == 1 ? " cycle (" : " cycles (") + short_number(ns) + " ns)";
}

struct Level {
  const char* key;  // highlight name
  const char* name;
  std::string capacity;
  const sim::Quantity* bandwidth;
  const sim::Quantity* latency;
  std::string sources;
  ImU32 fill;
  // Our own calibration's figures beside the seed's, where the machine file has them (0: none).
  const sim::Quantity* measured_bandwidth = nullptr;
  const sim::Quantity* measured_latency = nullptr;
};

void dashed_line(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float thickness) {
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  const int dashes = std::max(1, static_cast<int>(len / 8));
  for (int i = 0; i < dashes; i += 2) {
    const float t0 = static_cast<float>(i) / dashes, t1 = static_cast<float>(i + 1) / dashes;
    dl->AddLine(ImVec2(a.x + (b.x - a.x) * t0, a.y + (b.y - a.y) * t0),
                ImVec2(a.x + (b.x - a.x) * t1, a.y + (b.y - a.y) * t1), col, thickness);
  }
}

void draw_hierarchy(const sim::MachineSpec& m, const std::vector<std::string>& hl, const Fonts& f, ImDrawList* dl,
                    Rect area) {
  text_at(dl, f.bold, area.min, colour::white, "Memory hierarchy");
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text, m.name + " (" + m.id + ".json)");
  const auto src = [](const char* what, const sim::Quantity& q) { return std::string(what) + ": " + q.source + "\n"; };
  const Level levels[] = {
      {"registers", "Registers", short_number(m.register_file_per_sm.value) + " KiB per SM, " +
                                     short_number(m.max_registers_per_thread.value) + " per thread",
       &m.register_bandwidth, &m.register_latency,
       src("capacity", m.register_file_per_sm) + src("bandwidth", m.register_bandwidth) + src("latency", m.register_latency),
       IM_COL32(70, 130, 90, 255)},
      {"smem", "Shared memory", short_number(m.smem_per_sm.value) + " KiB per SM, " + short_number(m.smem_banks.value) +
                                    " banks x " + short_number(m.smem_bank_width.value) + " B",
       &m.smem_bandwidth, &m.smem_latency,
       src("capacity", m.smem_per_sm) + src("bandwidth", m.smem_bandwidth) + src("latency", m.smem_latency),
       IM_COL32(60, 110, 150, 255)},
      {"l2", "L2 cache", short_number(m.l2_capacity.value) + " MiB, shared by all " + short_number(m.sm_count.value) + " SMs",
       &m.l2_bandwidth, &m.l2_latency,
       src("capacity", m.l2_capacity) + src("bandwidth", m.l2_bandwidth) + src("latency", m.l2_latency) +
           src("measured bandwidth", m.l2_hit_bandwidth) + src("measured latency", m.l2_hit_latency),
       IM_COL32(110, 90, 150, 255), &m.l2_hit_bandwidth, &m.l2_hit_latency},
      {"hbm", "HBM", short_number(m.hbm_capacity.value) + " GB (datasheet)", &m.hbm_bandwidth, &m.hbm_latency,
       src("capacity", m.hbm_capacity) + src("bandwidth", m.hbm_bandwidth) + src("latency", m.hbm_latency) +
           src("measured bandwidth", m.hbm_bandwidth_measured) + src("measured latency", m.hbm_latency_measured),
       IM_COL32(150, 90, 80, 255), &m.hbm_bandwidth_measured, &m.hbm_latency_measured},
  };
  const float top = area.min.y + 44, gap = 10;
  const float box_h = std::min(92.0f, (area.max.y - top - 3 * gap) / 4);
  for (int i = 0; i < 4; ++i) {
    const Level& lv = levels[i];
    // Wider boxes further down: bigger, slower, farther from the tensor cores.
    float w = area.width() * (0.76f + 0.08f * i);
    w = std::min(area.width(), std::max(w, text_size(f.body, lv.capacity).x + 20));
    const float x0 = area.min.x + (area.width() - w) / 2;
    const Rect box{ImVec2(x0, top + i * (box_h + gap)), ImVec2(x0 + w, top + i * (box_h + gap) + box_h)};
    dl->AddRectFilled(box.min, box.max, lv.fill, 6.0f);
    const float line = f.body->FontSize + 3;
    float y = box.min.y + 6;
    text_at(dl, f.bold, ImVec2(box.min.x + 8, y), colour::white, lv.name);
    y += line;
    if (y + line <= box.max.y) text_at(dl, f.body, ImVec2(box.min.x + 8, y), colour::text, lv.capacity);
    y += line;
    const bool both = lv.measured_bandwidth && lv.measured_bandwidth->value > 0 && lv.measured_latency->value > 0;
    // The figures' origin is named when a level has two sets (the seed's table, the datasheet, and
    // our calibration), from the first word of each figure's source in the machine file.
    const auto origin = [](const sim::Quantity& q) { return q.source.substr(0, q.source.find_first_of(" :")); };
    std::string table = short_number(lv.bandwidth->value) + " TB/s, " + latency_text(*lv.latency, m);
    if (both)
      table = origin(*lv.bandwidth) == origin(*lv.latency)
                  ? origin(*lv.bandwidth) + ": " + table
                  : origin(*lv.bandwidth) + " " + short_number(lv.bandwidth->value) + " TB/s, " + origin(*lv.latency) + " ~" +
                        short_number(lv.latency->value) + " cycles";
    if (y + line <= box.max.y) text_at(dl, f.body, ImVec2(box.min.x + 8, y), colour::text, table);
    y += line;
    if (both && y + line <= box.max.y)
      text_at(dl, f.body, ImVec2(box.min.x + 8, y), colour::white,
              "measured: " + short_number(lv.measured_bandwidth->value) + " TB/s, " + latency_text(*lv.measured_latency, m));
    if (has(hl, lv.key)) draw_highlight_frame(dl, box);
    if (ImGui::IsMouseHoveringRect(box.min, box.max)) ImGui::SetTooltip("%s", lv.sources.c_str());
  }
}

struct Axes {
  Rect plot;
  double lx0, lx1, ly0, ly1;  // log10 ranges
  ImVec2 at(double x, double y) const {
    return ImVec2(plot.min.x + static_cast<float>((std::log10(x) - lx0) / (lx1 - lx0)) * plot.width(),
                  plot.max.y - static_cast<float>((std::log10(y) - ly0) / (ly1 - ly0)) * plot.height());
  }
};

std::string decade_label(int e) {
  if (e >= 0 && e <= 5) return short_number(std::pow(10.0, e));
  return "1e" + std::to_string(e);
}

// Point labels stack in the plot's lower-right corner, which always lies under the roof and so
// stays empty whatever the knobs; a leader line joins each label to its point.
void draw_point(const RooflinePoint& p, int index, int count, const std::string& key, const Axes& ax,
                const std::vector<std::string>& hl, const Fonts& f, ImDrawList* dl) {
  const ImVec2 at = ax.at(p.intensity, p.attainable_tflops);
  const ImU32 col = p.memory_bound ? colour::memory_bound : colour::compute_bound;
  const std::string lines[] = {
      p.name,
      short_number(p.intensity) + " FLOP/byte: " + (p.memory_bound ? "memory-bound" : "compute-bound"),
      short_number(p.attainable_tflops) + " TFLOPS attainable",
  };
  float w = 0;
  for (int i = 0; i < 3; ++i) w = std::max(w, text_size(i == 0 ? f.bold : f.body, lines[i]).x);
  const float line = f.body->FontSize + 2, h = 3 * line + 8;
  const float x = ax.plot.max.x - w - 22, y = ax.plot.max.y - (count - index) * (h + 8) - 2;
  const Rect box{ImVec2(x, y), ImVec2(x + w + 12, y + h)};
  dl->AddLine(at, ImVec2(box.min.x, box.min.y + line / 2 + 4), col, 1.0f);
  dl->AddRectFilled(box.min, box.max, IM_COL32(20, 22, 28, 235), 4.0f);
  dl->AddRect(box.min, box.max, col, 4.0f);
  for (int i = 0; i < 3; ++i)
    text_at(dl, i == 0 ? f.bold : f.body, ImVec2(x + 6, y + 4 + i * line), i == 0 ? col : colour::text, lines[i]);
  dl->AddCircleFilled(at, 7.0f, col);
  dl->AddCircle(at, 7.0f, colour::white, 0, 1.5f);
  if (has(hl, key)) {
    draw_highlight_frame(dl, box);
    dl->AddCircle(at, 12.0f, colour::highlight, 0, 2.5f);
  }
}

void draw_chart(const RooflineState& s, const sim::MachineSpec& m, const std::vector<std::string>& hl, const Fonts& f,
                ImDrawList* dl, Rect area) {
  const RooflinePoint gemm = gemm_point(m, s.gemm);
  const RooflinePoint attn = attention_point(m, s.attn_rows, s.kv_rows, s.head_dim);
  const double peak = m.bf16_dense_tflops.value, bw = m.hbm_bandwidth.value, ridge = m.ridge_flop_per_byte();

  text_at(dl, f.bold, area.min, colour::white, "Roofline: bf16 tensor cores and HBM");
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text,
          "attainable TFLOPS = min(" + short_number(peak) + " TFLOPS, " + short_number(bw) +
              " TB/s x FLOP per byte)");

  const double lo_x = std::min({1.0, gemm.intensity / 2, attn.intensity / 2});
  const double hi_x = std::max({1e4, gemm.intensity * 2, attn.intensity * 2});
  const double lo_y = std::min({1.0, gemm.attainable_tflops / 2, attn.attainable_tflops / 2});
  Axes ax{{ImVec2(area.min.x + 58, area.min.y + 60), ImVec2(area.max.x - 12, area.max.y - 42)},
          std::floor(std::log10(lo_x)), std::ceil(std::log10(hi_x)), std::floor(std::log10(lo_y)),
          std::log10(peak * 2.5)};
  const Rect& pl = ax.plot;
  // A frame, not a fill: on a software renderer every filled pixel counts against the frame time.
  dl->AddRect(pl.min, pl.max, colour::faint);

  for (int e = static_cast<int>(ax.lx0); e <= static_cast<int>(ax.lx1); ++e) {
    const ImVec2 p = ax.at(std::pow(10.0, e), std::pow(10.0, ax.ly0));
    dl->AddLine(ImVec2(p.x, pl.min.y), ImVec2(p.x, pl.max.y), colour::faint);
    const std::string label = decade_label(e);
    text_at(dl, f.small, ImVec2(p.x - text_size(f.small, label).x / 2, pl.max.y + 4), colour::dim_text, label);
  }
  for (int e = static_cast<int>(ax.ly0); e <= static_cast<int>(std::floor(ax.ly1)); ++e) {
    const ImVec2 p = ax.at(std::pow(10.0, ax.lx0), std::pow(10.0, e));
    dl->AddLine(ImVec2(pl.min.x, p.y), ImVec2(pl.max.x, p.y), colour::faint);
    const std::string label = decade_label(e);
    text_at(dl, f.small, ImVec2(pl.min.x - 6 - text_size(f.small, label).x, p.y - 7), colour::dim_text, label);
  }
  const std::string x_title = "arithmetic intensity, FLOP per byte of HBM traffic (log)";
  text_at(dl, f.small, ImVec2(pl.min.x + (pl.width() - text_size(f.small, x_title).x) / 2, pl.max.y + 22),
          colour::dim_text, x_title);
  text_at(dl, f.small, ImVec2(area.min.x, pl.min.y - 17), colour::dim_text, "TFLOPS (log)");

  // The roof: the bandwidth slope up to the ridge, then the flat compute peak.
  const double x0 = std::max(std::pow(10.0, ax.lx0), std::pow(10.0, ax.ly0) / bw);
  const double x1 = std::pow(10.0, ax.lx1);
  const ImVec2 a = ax.at(x0, bw * x0), r = ax.at(ridge, peak), b = ax.at(x1, peak);
  const float roof_w = has(hl, "roofline") ? 4.0f : 3.0f;
  dl->AddLine(a, r, colour::memory_bound, roof_w);
  dl->AddLine(r, b, colour::compute_bound, roof_w);
  // Roof labels sit above the roof and left of the ridge, where no point or point label goes.
  const std::string peak_label = "tensor-core peak " + short_number(peak) + " TFLOPS";
  text_at(dl, f.small, ImVec2(r.x - 12 - text_size(f.small, peak_label).x, r.y - 8), colour::compute_bound, peak_label);
  const std::string bw_label = "HBM " + short_number(bw) + " TB/s";
  const double slope_x = std::pow(10.0, (std::log10(x0) + std::log10(ridge)) / 2);
  const ImVec2 slope_at = ax.at(slope_x, bw * slope_x);
  text_at(dl, f.small, ImVec2(slope_at.x - 10 - text_size(f.small, bw_label).x, slope_at.y - 16), colour::memory_bound,
          bw_label);
  if (has(hl, "roofline")) draw_highlight_frame(dl, pl);

  // The ridge: below it a kernel waits on HBM, above it on the tensor cores.
  dashed_line(dl, ImVec2(r.x, r.y), ImVec2(r.x, pl.max.y), colour::highlight, has(hl, "ridge") ? 2.5f : 1.2f);
  dl->AddCircleFilled(r, 4.0f, colour::highlight);
  const std::string ridge_label = "ridge " + short_number(ridge) + " FLOP/byte";
  const ImVec2 rl(r.x - text_size(f.body, ridge_label).x / 2, r.y - 40);
  text_at(dl, f.body, rl, colour::highlight, ridge_label);
  if (has(hl, "ridge"))
    draw_highlight_frame(dl, {rl, ImVec2(rl.x + text_size(f.body, ridge_label).x, rl.y + f.body->FontSize)});

  draw_point(attn, 0, 2, "attention", ax, hl, f, dl);
  draw_point(gemm, 1, 2, "gemm", ax, hl, f, dl);
}

}  // namespace

void draw_roofline(const RooflineState& s, const sim::MachineSpec& m, const std::vector<std::string>& hl,
                   const Fonts& f, ImDrawList* dl, Rect area) {
  const float split = std::clamp(area.width() * 0.36f, 240.0f, 400.0f);
  draw_hierarchy(m, hl, f, dl, {area.min, ImVec2(area.min.x + split - 20, area.max.y)});
  draw_chart(s, m, hl, f, dl, {ImVec2(area.min.x + split, area.min.y), area.max});
}

bool edit_roofline_knobs(RooflineState& s) {
  bool changed = false;
  static const std::vector<std::string> ids = sim::machine_ids();
  if (ImGui::BeginCombo("machine", s.machine.c_str())) {
    for (const auto& id : ids)
      if (ImGui::Selectable(id.c_str(), id == s.machine)) {
        s.machine = id;
        changed = true;
      }
    ImGui::EndCombo();
  }
  const auto slider = [&](const char* label, uint32_t& value, int lo, int hi) {
    int v = static_cast<int>(value);
    if (ImGui::SliderInt(label, &v, lo, hi, "%d", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp)) {
      value = static_cast<uint32_t>(v);
      changed = true;
    }
  };
  ImGui::TextDisabled("GEMM, M = N = K");
  slider("gemm", s.gemm, 16, kMaxGemm);
  ImGui::TextDisabled("attention inner loop, Q Kᵀ");
  slider("attn_rows", s.attn_rows, 1, kMaxAttnRows);
  slider("kv_rows", s.kv_rows, 1, kMaxKvRows);
  slider("head_dim", s.head_dim, 16, kMaxHeadDim);
  return changed;
}

}  // namespace ts::viz
