// Scene "grid": the GEMM's output tiles in block order, coloured by the wave that computes them
// (or by the share of their loads' bytes the L2 served), the A and B blocks one wave reads against the L2's size,
// with split-K the K ranges each tile is cut into, and the simulated L2 and HBM figures beside the
// measured ones.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/grid_model.hpp"

namespace ts::viz {

namespace {

ImU32 wave_colour(uint32_t wave, bool marked) {
  // Neighbouring waves far apart in hue, as the bank colours do.
  const float hue = static_cast<float>((wave * 7) % 16) / 16.0f;
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(hue, marked ? 0.65f : 0.35f, marked ? 0.95f : 0.45f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}

ImU32 hit_colour(double hit) {
  // Red (every byte from HBM) to green (every byte from L2).
  const float t = static_cast<float>(std::clamp(hit, 0.0, 1.0));
  return IM_COL32(static_cast<int>(235 - 150 * t), static_cast<int>(80 + 140 * t), 90, 255);
}

// Each cluster's outline, 2 pixels wide (its top and left lines on the gap before the box, its
// bottom and right ones on the box's last pixels), with the edges that continue one another drawn
// as one rectangle: at 8192^3 with 128x128 tiles the 2,048 boxes share their edges with their
// neighbours, and about 200 long rectangles draw what 8,192 short ones did (each a quad to llvmpipe).
void draw_cluster_outlines(ImDrawList* dl, const std::vector<ClusterBox>& boxes, ImVec2 o, float cw, float ch, ImU32 colour) {
  struct Edge {
    float at, from, to;  // the line's coordinate across, and its extent along
  };
  std::vector<Edge> rows, columns;  // horizontal lines (at = their top y), vertical ones (at = their left x)
  rows.reserve(2 * boxes.size());
  columns.reserve(2 * boxes.size());
  for (const ClusterBox& b : boxes) {
    // The box's cells cover [x0, x1) x [y0, y1); the top and left lines lie on the gap before them.
    const float x0 = o.x + b.n * cw, x1 = o.x + (b.n + 1) * cw - 1, y0 = o.y + b.m * ch, y1 = o.y + (b.m + b.rows) * ch - 1;
    rows.push_back({y0 - 1, x0 - 1, x1});
    rows.push_back({y1 - 2, x0 - 1, x1});
    columns.push_back({x0 - 1, y0 - 1, y1});
    columns.push_back({x1 - 2, y0 - 1, y1});
  }
  // Sorted by line, then start; an edge joins the one before when it starts within the 1-pixel gap
  // between cells.
  const auto draw = [&](std::vector<Edge>& edges, bool horizontal) {
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.at != b.at ? a.at < b.at : a.from < b.from; });
    for (size_t i = 0; i < edges.size();) {
      Edge run = edges[i];
      for (++i; i < edges.size() && edges[i].at == run.at && edges[i].from <= run.to + 1; ++i) run.to = std::max(run.to, edges[i].to);
      if (horizontal)
        dl->AddRectFilled(ImVec2(run.from, run.at), ImVec2(run.to, run.at + 2), colour);
      else
        dl->AddRectFilled(ImVec2(run.at, run.from), ImVec2(run.at + 2, run.to), colour);
    }
  };
  draw(rows, true);
  draw(columns, false);
}

std::string pct(double fraction) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100 * fraction);
  return buf;
}

std::string shape_text(const kernels::GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

// Lines of the figures panel, drawn top to bottom.
struct Panel {
  const SceneContext& c;
  float x, y, right;
  void heading(const std::string& t, ImU32 col = colour::white) {
    y += 6;
    text_at(c.dl, c.fonts.bold, ImVec2(x, y), col, t);
    y += c.fonts.bold->FontSize + 4;
  }
  void line(const std::string& t, ImU32 col = colour::text) {
    ImFont* font = c.fonts.small;
    const float wrap = right - x;
    c.dl->AddText(font, font->FontSize, ImVec2(x, y), col, t.data(), t.data() + t.size(), wrap);
    y += font->CalcTextSizeA(font->FontSize, FLT_MAX, wrap, t.data(), t.data() + t.size()).y + 4;
  }
};

// The split-tail sweep's rows of this configuration, off and split, each beside cuBLAS in the same run.
void draw_measured_tail(const GemmRun& run, const SceneContext& c, Panel& p) {
  kernels::GemmConfig split_or_not = run.cfg;
  split_or_not.tail_split = 0;  // matches any
  bool any = false;
  for (const MeasuredGemm& row : c.measured.tail) {
    if (!same_shape(row.shape, run.shape) || !same_config(row.cfg, split_or_not)) continue;
    any = true;
    p.line("H100, " + (row.cfg.tail_split > 1 ? "tail in " + std::to_string(row.cfg.tail_split) + " ranges" : std::string("no split")) + ": " +
               short_number(row.tflops) + " TFLOPS (cuBLAS " + short_number(row.cublas_tflops) + ")",
           row.cfg.tail_split == run.cfg.tail_split ? colour::measured : colour::text);
  }
  if (!any) {
    p.line("the H100's split-tail sweep did not run this configuration", colour::dim_text);
    return;
  }
  p.line(c.measured.tail_device + ", " + c.measured.tail_date + " (gemm-tail.json)", colour::dim_text);
}

// What the H100 measured for this configuration, and the simulation of that same shape when the
// measurement was taken at another one.
void draw_measured(const GridState& s, const GemmRun& run, const SceneContext& c, Panel& p) {
  const GridMeasured meas = grid_measured(s.gemm, c.measured);
  if (!meas.tflops && !meas.dram) {
    p.line("not measured: no run of this configuration in data/measured", colour::dim_text);
    return;
  }
  if (meas.tflops) {
    const bool here = same_shape(meas.tflops->shape, run.shape);
    p.line((here ? "" : "at " + shape_text(meas.tflops->shape) + ": ") + short_number(meas.tflops->tflops) + " TFLOPS (" +
           (meas.tflops->cfg.in == kernels::InType::fp8 ? "cuBLASLt fp8 " : "cuBLAS ") + short_number(meas.tflops->cublas_tflops) +
           "), " + measured_date(c.measured, *meas.tflops));
  } else {
    p.line("TFLOPS: not measured", colour::dim_text);
  }
  if (s.gemm.cluster > 1) {  // the plain kernel timed in the same run as the clustered one
    kernels::GemmConfig plain = run.cfg;
    plain.cluster = 1;
    if (const MeasuredGemm* twin = find_measured_cluster(c.measured, run.shape, plain))
      p.line("same run without clusters: " + short_number(twin->tflops) + " TFLOPS (cuBLAS " + short_number(twin->cublas_tflops) + ")");
  }
  if (!meas.dram) {
    p.line("HBM bytes: not measured", colour::dim_text);
    return;
  }
  const MeasuredDram& d = *meas.dram;
  const bool here = same_shape(d.shape, run.shape);
  p.line((here ? "" : "at " + shape_text(d.shape) + ": ") + "HBM read " + bytes_text(d.read_mean) + " (" +
         bytes_text(d.read_min) + " to " + bytes_text(d.read_max) + ", " + std::to_string(d.runs) + " launches)");
  if (d.time_ns > 0) p.line("HBM read bandwidth " + rate_text(d.read_mean / (d.time_ns * 1e-9)) + " under Nsight Compute");
  p.line(c.measured.dram_device + ", " + c.measured.dram_date + " (Nsight Compute)", colour::dim_text);
  if (here) return;
  // The measured shape simulated too, so that like is compared with like (seconds: in the background).
  GemmRun big = gemm_run(s.gemm);
  big.shape = d.shape;
  const auto big_sim = c.sims.get(big);
  if (big_sim && big_sim->error.empty())
    p.line("simulated at " + shape_text(big.shape) + ": HBM read " + bytes_text(double(big_sim->report.hbm_read_bytes)) +
               ", " + short_number(big_sim->report.tflops) + " TFLOPS",
           colour::simulated);
  else
    p.line(sim_status(big, big_sim.get(), c.sims), colour::dim_text);
}

// What a CTA asks L2 for per k-slice (the kernel's tile types), and the simulator's count of bytes
// the SMs asked L2 for, with this cluster setting and without clusters.
void draw_multicast(const GridModel& m, const GemmSim* sim, const GemmSim* twin, const SceneContext& c, Panel& p) {
  const float top = p.y;
  p.heading("L2 reads per k-slice" + (m.stage.block_k ? " (" + std::to_string(m.stage.block_k) + " deep)" : std::string()) +
            ", per CTA");
  if (!m.stage.error.empty()) {
    p.line(m.stage.error, colour::dim_text);
  } else if (m.cluster > 1) {
    p.line("A " + bytes_text(m.stage.a) + " + its 1/" + std::to_string(m.cluster) + " of B " + bytes_text(m.stage.b_share) + " = " +
           bytes_text(m.stage.read()) + " (without a cluster " + bytes_text(m.stage_plain.read()) + ")");
    p.line("each share is multicast: the whole B slice (" + bytes_text(m.stage.b_slice) + ") lands in all " +
           std::to_string(m.cluster) + " CTAs");
  } else {
    p.line("A " + bytes_text(m.stage.a) + " + B " + bytes_text(m.stage.b_slice) + " = " + bytes_text(m.stage.read()));
  }
  if (sim && sim->error.empty()) {
    std::string line = "simulated: the SMs read " + bytes_text(double(sim->report.l2_hit_bytes + sim->report.hbm_read_bytes)) + " from L2";
    if (twin && twin->error.empty())
      line += " (" + bytes_text(double(twin->report.l2_hit_bytes + twin->report.hbm_read_bytes)) + " without clusters)";
    p.line(line, colour::simulated);
  }
  if (c.lit("multicast")) draw_highlight_frame(c.dl, {ImVec2(p.x, top), ImVec2(p.right, p.y)});
}

// Split-K: the K ranges, the SMs they fill, the fp32 slices they store, the simulation with and
// without the split (same shape, same clock) and the H100's rows of the split-K sweep at this shape.
void draw_ranges(const GridState& s, const GridModel& m, const GemmRun& run, const GemmSim* sim, const GemmRun& other,
                 const GemmSim* other_sim, const SceneContext& c, Panel& p) {
  const float top = p.y;
  const uint32_t tail = m.tiles - m.head_tiles;
  if (m.head_tiles > 0 || s.gemm.tail_split != 1) {
    p.heading(m.head_tiles > 0 ? "The last wave: " + std::to_string(tail) + " tiles in " + std::to_string(m.k_splits) + " K ranges"
                               : std::string("The last wave: not split"));
    kernels::GemmConfig automatic = gemm_config(s.gemm);
    automatic.tail_split = 0;
    const kernels::GemmPlan rule = kernels::gemm_plan(run.shape, automatic, static_cast<int>(m.sms));
    p.line("the kernel's own choice here (tail_split=auto): " +
           (rule.head_tiles > 0 && rule.splits > 1 ? std::to_string(rule.splits) + " ranges" : std::string("no split")));
    if (m.head_tiles > 0) {
      p.line(std::to_string(m.head_tiles) + " tiles = " + std::to_string(m.head_waves) + " whole wave" + (m.head_waves > 1 ? "s" : "") +
             " over all of K, straight into C; then " + std::to_string(tail) + " x " + std::to_string(m.k_splits) + " = " +
             std::to_string(tail * m.k_splits) + " blocks of work, " + std::to_string(m.k_iters) + " slices (" +
             std::to_string(64 * m.k_iters) + " deep) each");
      p.line("fp32 slices: " + std::to_string(m.k_splits) + " ranges x " + std::to_string(tail) + " tiles of 128x" +
             std::to_string(s.gemm.block_n) + " x 4 bytes = " + bytes_text(m.slice_bytes) + ", then read back by the sum");
    } else {
      p.line("it splits only where the tiles past the last whole wave fill at most half of one and K is at least 128 slices deep (8192 bf16), "
             "on the persistent grid without clusters (kernels::gemm_plan)",
             colour::dim_text);
    }
  } else {
    p.heading("Split-K: " + std::to_string(m.k_splits) + (m.k_splits > 1 ? " K ranges" : " K range (no split)"));
    kernels::GemmConfig automatic = gemm_config(s.gemm);
    automatic.split_k = 0;
    const int picks = kernels::gemm_k_splits(run.shape, automatic, static_cast<int>(m.sms));
    p.line("the kernel's own choice here (split_k=auto): " + std::to_string(picks) + " range" + (picks > 1 ? "s" : ""));
  }
  if (m.k_splits > 1 && m.head_tiles == 0) {
    p.line("K = " + std::to_string(run.shape.k) + " in ranges of " + std::to_string(m.k_iters) + " slices (" +
           std::to_string(64 * m.k_iters) + " deep): " + std::to_string(m.tiles) + " tiles x " + std::to_string(m.k_splits) + " = " +
           std::to_string(m.steps) + " blocks of work");
    p.line("fp32 slices: " + std::to_string(m.k_splits) + " x " + std::to_string(run.shape.m) + " x " + std::to_string(run.shape.n) +
           " x 4 bytes = " + bytes_text(m.slice_bytes) + " stored, then read back by the sum");
  }
  p.line(std::to_string(m.busy_sms) + " of " + std::to_string(m.sms) + " SMs have work in wave " + std::to_string(m.wave),
         m.busy_sms * 2 <= m.sms ? colour::memory_bound : colour::text);
  const auto us = [](double cycles, double mhz) { return short_number(mhz > 0 ? cycles / mhz : 0) + " us"; };
  if (sim && sim->error.empty()) {
    if (sim->k_splits > 1)
      p.line(std::string("simulated: GEMM") + (sim->tail_tiles > 0 ? "s " : " ") + us(sim->gemm_cycles, sim->clock_mhz) + " + sum " + us(sim->sum_cycles, sim->clock_mhz) + " = " +
                 us(sim->report.cycles, sim->clock_mhz) + ", " + short_number(sim->report.tflops) + " TFLOPS",
             colour::simulated);
    else
      p.line("simulated: " + us(sim->report.cycles, sim->clock_mhz) + ", " + short_number(sim->report.tflops) + " TFLOPS",
             colour::simulated);
  }
  if (other.cfg.split_k != run.cfg.split_k || other.cfg.tail_split != run.cfg.tail_split) {
    const int ranges = std::max(other.cfg.split_k, other.cfg.tail_split);
    const std::string what = ranges > 1 ? "with " + std::to_string(ranges) + " ranges" : "without the split";
    if (other_sim && other_sim->error.empty())
      p.line(what + ": " + us(other_sim->report.cycles, other_sim->clock_mhz) + ", " + short_number(other_sim->report.tflops) +
                 " TFLOPS (same clock)",
             colour::simulated);
    else
      p.line(what + ": " + sim_status(other, other_sim, c.sims), colour::dim_text);
  }
  const auto rows = find_measured_splits(c.measured, run.shape, run.cfg);
  if (m.head_tiles > 0 || s.gemm.tail_split != 1) {
    draw_measured_tail(run, c, p);
  } else if (rows.empty()) {
    p.line("the H100's split-K sweep did not run this shape", colour::dim_text);
  } else {
    for (const MeasuredGemm* row : rows)
      p.line("H100, " + std::to_string(row->cfg.split_k) + " range" + (row->cfg.split_k > 1 ? "s" : "") + ": " +
                 short_number(row->tflops) + " TFLOPS (cuBLAS " + short_number(row->cublas_tflops) + ")",
             row->cfg.split_k == run.cfg.split_k ? colour::measured : colour::text);
    p.line(c.measured.splitk_device + ", " + c.measured.splitk_date + " (gemm-splitk.json)", colour::dim_text);
  }
  if (c.lit("ranges")) draw_highlight_frame(c.dl, {ImVec2(p.x, top), ImVec2(p.right, p.y)});
}

}  // namespace

void draw_grid(const GridState& s, const SceneContext& c, Rect area) {
  const Fonts& f = c.fonts;
  ImDrawList* dl = c.dl;
  if (const std::string problem = validate(SceneState{s}); !problem.empty()) {
    text_at(dl, f.bold, area.min, colour::error, problem);
    return;
  }
  const GridModel m = grid_model(s, static_cast<uint32_t>(c.machine.sm_count.value), c.machine.l2_capacity.value * 1024 * 1024);
  if (!m.error.empty()) {
    text_at(dl, f.bold, area.min, colour::error, m.error);
    return;
  }
  GemmRun run = gemm_run(s.gemm);
  run.tile_l2 = s.colour == TileColour::l2;
  const auto sim = c.sims.get(run);
  // With clusters, the plain kernel at the same shape and clock, asked now so that both run at once.
  GemmRun plain = run;
  plain.cfg.cluster = 1;
  plain.tile_l2 = false;
  const auto twin = m.cluster > 1 ? c.sims.get(plain) : nullptr;
  // With split-K, the same run unsplit; unsplit where the kernel would split, its own choice.
  GemmRun other = run;
  other.tile_l2 = false;
  if (s.gemm.tail_split != 1) {  // a split tail asked for: beside it the run without, or the kernel's own split
    kernels::GemmConfig alt = gemm_config(s.gemm);
    alt.tail_split = m.head_tiles > 0 ? 1 : 0;
    other.cfg = kernels::with_plan(alt, kernels::gemm_plan(run.shape, alt, static_cast<int>(m.sms)));
  } else {
    kernels::GemmConfig automatic = run.cfg;
    automatic.split_k = 0;
    const int picks = kernels::gemm_k_splits(run.shape, automatic, static_cast<int>(m.sms));
    other.cfg.split_k = m.k_splits > 1 ? 1 : picks;
  }
  const bool differs = other.cfg.split_k != run.cfg.split_k || other.cfg.tail_split != run.cfg.tail_split;
  const bool show_ranges = m.k_splits > 1 || s.gemm.split_k != 0 || s.gemm.tail_split != 1 || differs || c.lit("ranges");
  const auto other_sim = show_ranges && differs ? c.sims.get(other) : nullptr;
  const std::string order = s.gemm.order == OrderKnob::grouped ? "grouped, " + std::to_string(s.gemm.group) + " tile rows a group"
                                                               : std::string(name_of(s.gemm.order)) + "-major";
  text_at(dl, f.bold, area.min, colour::white,
          shape_text(run.shape) + ": " + std::to_string(m.tiles_m) + " x " + std::to_string(m.tiles_n) + " tiles of 128x" +
              std::to_string(s.gemm.block_n) + (s.gemm.in == InKnob::fp8 ? " (fp8)" : "") + ", " + order + (m.cluster > 1 ? ", clusters of " + std::to_string(m.cluster) : "") +
              (m.head_tiles > 0   ? ", the last " + std::to_string(m.tiles - m.head_tiles) + " tiles' K in " + std::to_string(m.k_splits) + " ranges"
               : m.k_splits > 1 ? ", K in " + std::to_string(m.k_splits) + " ranges"
                                : "") +
              ", " + std::to_string(m.steps) +
              (m.k_splits > 1 ? " blocks of work" : m.steps > m.tiles ? " CTAs" : " tiles") + " on " + std::to_string(m.slots) +
              " SMs = " + std::to_string(m.waves) + " wave" + (m.waves > 1 ? "s" : ""));
  text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 20), colour::dim_text, sim_status(run, sim.get(), c.sims));

  const float panel_w = std::clamp(area.width() * 0.36f, 260.0f, 380.0f);
  const Rect grid_area{ImVec2(area.min.x + 16, area.min.y + 66), ImVec2(area.max.x - panel_w - 16, area.max.y - 70)};
  // Whole pixels per cell and a pixel-aligned origin: fractional cells of 2.6 pixels would blend
  // into rows of uneven height, stripes that are not in the data.
  const float cw = std::max(1.0f, std::floor(std::min(grid_area.width() / m.tiles_n, 40.0f)));
  const float ch = std::max(1.0f, std::floor(std::min(grid_area.height() / m.tiles_m, 40.0f)));
  const ImVec2 o(std::floor(grid_area.min.x), std::floor(grid_area.min.y));
  const bool by_l2 = s.colour == TileColour::l2 && sim && sim->error.empty() && !sim->tiles.empty();
  const bool labels = cw >= 22 && ch >= 14;
  // A run of cells of one colour along a row is one rectangle, because a software renderer pays for
  // each (llvmpipe, 2560x1600: 4,096 cells at 8192^3 with 128x128 tiles cost more than all the rest
  // of the frame). Cells large enough for gaps get their column gaps back as one 1-pixel line per
  // column, in the background's colour; cells with a label each stay a rectangle of their own.
  const bool gaps = cw > 5 && ch > 5, runs = !labels;
  const auto fill_of = [&](size_t at) {
    return by_l2 ? hit_colour(sim->tiles[at].hit_rate()) : wave_colour(m.wave_of[at], m.wave_of[at] == m.wave);
  };
  // Split-K: each tile in k_splits bands, one per K range, each coloured by the wave of its own block.
  const bool bands = m.k_splits > 1 && !by_l2 && ch >= 2.0f * m.k_splits;
  if (bands)
    for (uint32_t tm = 0; tm < m.tiles_m; ++tm)
      for (uint32_t tn = 0; tn < m.tiles_n; ++tn) {
        const size_t at = size_t(tm) * m.tiles_n + tn;
        const ImVec2 p0(o.x + tn * cw, o.y + tm * ch);
        const float bh = (ch - (gaps ? 1 : 0)) / m.k_splits;
        if (m.order_of[at] < m.head_tiles) {  // a split tail's head: one block over all of K
          dl->AddRectFilled(p0, ImVec2(p0.x + cw - (gaps ? 1 : 0), p0.y + ch - (gaps ? 1 : 0)), fill_of(at));
          if (labels) text_at(dl, f.small, ImVec2(p0.x + 2, p0.y + (ch - 14) / 2), colour::black, std::to_string(m.order_of[at]));
          continue;
        }
        for (uint32_t r = 0; r < m.k_splits; ++r) {
          const uint32_t w = m.range_wave[at * m.k_splits + r];
          dl->AddRectFilled(ImVec2(p0.x, p0.y + r * bh), ImVec2(p0.x + cw - (gaps ? 1 : 0), p0.y + (r + 1) * bh - (bh >= 2.5f ? 1 : 0)),
                            wave_colour(w, w == m.wave));
        }
        if (labels) text_at(dl, f.small, ImVec2(p0.x + 2, p0.y + (ch - 14) / 2), colour::black, std::to_string(m.order_of[at]));
      }
  for (uint32_t tm = 0; tm < m.tiles_m && !bands; ++tm)
    for (uint32_t tn = 0; tn < m.tiles_n;) {
      const size_t at = size_t(tm) * m.tiles_n + tn;
      const ImU32 fill = fill_of(at);
      uint32_t end = tn + 1;
      while (runs && end < m.tiles_n && fill_of(size_t(tm) * m.tiles_n + end) == fill) ++end;
      const ImVec2 p0(o.x + tn * cw, o.y + tm * ch), p1(o.x + end * cw - (gaps ? 1 : 0), p0.y + ch - (gaps ? 1 : 0));
      dl->AddRectFilled(p0, p1, fill);
      if (labels) {
        const std::string t = std::to_string(m.order_of[at]);
        text_at(dl, f.small, ImVec2(p0.x + 2, p0.y + (ch - 14) / 2), colour::black, t);
      }
      tn = end;
    }
  if (gaps && runs && !bands) {
    const ImU32 background = ImGui::ColorConvertFloat4ToU32(ImVec4(kBackground.r, kBackground.g, kBackground.b, kBackground.a));
    for (uint32_t tn = 1; tn <= m.tiles_n; ++tn)  // (the rows' gaps the runs leave unpainted)
      dl->AddRectFilled(ImVec2(o.x + tn * cw - 1, o.y), ImVec2(o.x + tn * cw, o.y + m.tiles_m * ch), background);
  }
  const Rect tiles{o, ImVec2(o.x + m.tiles_n * cw, o.y + m.tiles_m * ch)};
  // Each cluster's tiles inside one outline (where cells are large enough to tell them apart), as
  // filled rectangles on whole pixels: an anti-aliased 2-pixel outline is many triangles a box, which
  // at 8192^3 (1,024 boxes) cost llvmpipe 11-16 ms a frame at 2560x1600.
  if (m.cluster > 1 && cw >= 4 && ch >= 4)
    draw_cluster_outlines(dl, m.clusters, o, cw, ch, c.lit("clusters") ? colour::highlight : colour::white);
  // Coloured by L2, the marked wave's tiles get a frame instead (few enough to draw each).
  if (by_l2 && cw >= 4 && ch >= 4)
    for (uint32_t tm = 0; tm < m.tiles_m; ++tm)
      for (uint32_t tn = 0; tn < m.tiles_n; ++tn)
        if (m.wave_of[size_t(tm) * m.tiles_n + tn] == m.wave)
          dl->AddRect(ImVec2(o.x + tn * cw, o.y + tm * ch), ImVec2(o.x + (tn + 1) * cw - 1, o.y + (tm + 1) * ch - 1),
                      colour::white);
  // The A row blocks (left) and B column blocks (top) the marked wave reads.
  const ImU32 wave_col = c.lit("wave") || c.lit("working-set") ? colour::highlight : colour::white;
  for (uint32_t tm = 0; tm < m.tiles_m; ++tm)
    if (m.wave_reads_a[tm]) dl->AddRectFilled(ImVec2(o.x - 10, o.y + tm * ch), ImVec2(o.x - 4, o.y + (tm + 1) * ch - 1), wave_col);
  for (uint32_t tn = 0; tn < m.tiles_n; ++tn)
    if (m.wave_reads_b[tn]) dl->AddRectFilled(ImVec2(o.x + tn * cw, o.y - 10), ImVec2(o.x + (tn + 1) * cw - 1, o.y - 4), wave_col);
  text_at(dl, f.small, ImVec2(o.x, o.y - 28), colour::dim_text,
          "marks: the A row blocks (left) and B column blocks (top) that wave " + std::to_string(m.wave) + " reads");
  if (c.lit("tiles")) draw_highlight_frame(dl, tiles);
  if (c.lit("ranges") && m.k_splits > 1) draw_highlight_frame(dl, tiles);

  // The SMs: which tile row each one works on in the marked wave.
  const float sm_y = tiles.max.y + 16, sm_w = std::max(2.0f, std::min(9.0f, tiles.width() / m.sms));
  for (uint32_t sm = 0; sm < m.sms; ++sm) {
    const ImU32 fill = m.sm_row[sm] < 0 ? colour::faint : bank_colour(static_cast<unsigned>(m.sm_row[sm]) % 32);
    dl->AddRectFilled(ImVec2(o.x + sm * sm_w, sm_y), ImVec2(o.x + (sm + 1) * sm_w - 1, sm_y + 14), fill);
  }
  text_at(dl, f.small, ImVec2(o.x, sm_y + 18), colour::dim_text,
          "the " + std::to_string(m.sms) + " SMs in wave " + std::to_string(m.wave) +
              ", coloured by the tile row (A block) each one computes" + (s.gemm.persistent ? "" : " (launch order)"));
  if (c.lit("sms")) draw_highlight_frame(dl, {ImVec2(o.x, sm_y), ImVec2(o.x + m.sms * sm_w, sm_y + 14)});
  if (by_l2) {
    float x = o.x;
    x = legend_item(dl, f, ImVec2(x, area.max.y - 18), hit_colour(0), "loads all from HBM");
    legend_item(dl, f, ImVec2(x, area.max.y - 18), hit_colour(1), "loads all from L2 (simulated, per tile)");
  } else if (s.colour == TileColour::l2) {
    text_at(dl, f.small, ImVec2(o.x, area.max.y - 18), colour::dim_text, "L2 colours appear when the simulation is done");
  } else {
    text_at(dl, f.small, ImVec2(o.x, area.max.y - 18), colour::dim_text,
            "colour: the wave (bright: wave " + std::to_string(m.wave) + "); numbers: the block-order step" +
                (m.cluster > 1 ? "; outlines: the CTAs of a cluster" : "") +
                (bands ? "; bands: the K ranges, top to bottom, each its own block (number: range 0's)" : ""));
  }

  // Figures.
  Panel p{c, area.max.x - panel_w, area.min.y + 46, area.max.x};
  const float set_top = p.y;
  p.heading("Wave " + std::to_string(m.wave) + " of " + std::to_string(m.waves));
  p.line(std::to_string(m.wave_tiles) + " tiles read " + std::to_string(m.wave_a_blocks) + " A blocks and " +
         std::to_string(m.wave_b_blocks) + " B blocks");
  p.line("= " + bytes_text(m.wave_bytes) + " over K, each read once (" + bytes_text(m.wave_bytes_per_tile) +
         " if no tiles shared)");
  p.line("L2 holds " + bytes_text(m.l2_bytes) + ": the wave's blocks " + (m.wave_bytes <= m.l2_bytes ? "fit" : "do not fit"),
         m.wave_bytes <= m.l2_bytes ? colour::good : colour::memory_bound);
  if (c.lit("working-set")) draw_highlight_frame(dl, {ImVec2(p.x, set_top), ImVec2(p.right, p.y)});

  const float sim_top = p.y;
  p.heading("Simulated, " + shape_text(run.shape), colour::simulated);
  if (sim && sim->error.empty()) {
    const auto& r = sim->report;
    p.line(short_number(r.tflops) + " TFLOPS at " + short_number(sim->clock_mhz) + " MHz");
    // Two rates: the bytes the L2 served, and its lookups that hit (requests merged into a lookup in
    // flight are not lookups): the second is what Nsight Compute's lts__t_sector_hit_rate counts.
    p.line("L2 served " + pct(r.l2_hit_rate()) + " of the bytes read; " + pct(r.l2_lookup_hit_rate()) + " of its lookups hit");
    p.line("HBM read " + bytes_text(double(r.hbm_read_bytes)) + ", written " + bytes_text(double(r.hbm_write_bytes)));
    p.line("HBM read bandwidth " + rate_text(r.seconds > 0 ? r.hbm_read_bytes / r.seconds : 0));
    if (m.cluster > 1) {  // the plain kernel beside it, same shape and clock
      if (twin && twin->error.empty())
        p.line("without clusters: " + short_number(twin->report.tflops) + " TFLOPS, L2 served " + pct(twin->report.l2_hit_rate()) +
               " of the bytes, HBM read " + bytes_text(double(twin->report.hbm_read_bytes)));
      else
        p.line("without clusters: " + sim_status(plain, twin.get(), c.sims), colour::dim_text);
    }
  } else {
    p.line(sim ? sim->error : "simulating...", colour::dim_text);
  }
  if (c.lit("simulated")) draw_highlight_frame(dl, {ImVec2(p.x, sim_top), ImVec2(p.right, p.y)});

  if (m.cluster > 1 || c.lit("multicast")) draw_multicast(m, sim.get(), twin.get(), c, p);
  if (show_ranges) draw_ranges(s, m, run, sim.get(), other, other_sim.get(), c, p);

  const float meas_top = p.y;
  p.heading("Measured on the H100", colour::measured);
  draw_measured(s, run, c, p);
  if (c.lit("measured")) draw_highlight_frame(dl, {ImVec2(p.x, meas_top), ImVec2(p.right, p.y)});
}

}  // namespace ts::viz
