#include "viz/lesson/grid_model.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "tiles/sched/block_order.hpp"

namespace ts::viz {

GridModel grid_model(const GridState& s, uint32_t sms, double l2_bytes) {
  GridModel m;
  const GemmKnobs& g = s.gemm;
  const kernels::GemmConfig cfg = gemm_config(g);
  const GemmTileOrder order = gemm_tile_order({g.m, g.n, g.k}, cfg, static_cast<int>(sms));
  m.sms = sms;
  m.l2_bytes = l2_bytes;
  m.cluster = g.cluster;
  m.stage = gemm_stage_bytes(cfg);
  kernels::GemmConfig plain = cfg;
  plain.cluster = 1;
  m.stage_plain = gemm_stage_bytes(plain);
  if (!order.error.empty()) {
    m.error = order.error;
    return m;
  }
  m.tiles_m = order.tiles_m;
  m.tiles_n = order.tiles_n;
  m.tiles = m.tiles_m * m.tiles_n;
  m.steps = static_cast<uint32_t>(order.steps.size());
  m.k_splits = order.k_splits;
  m.k_iters = order.k_iters;
  m.head_tiles = order.head_steps;
  m.slice_bytes = double(kernels::gemm_workspace_bytes(kernels::gemm_plan({g.m, g.n, g.k}, cfg, static_cast<int>(sms)), cfg));
  m.slots = std::max(m.cluster, sms / m.cluster * m.cluster);
  m.head_waves = m.head_tiles / m.slots;  // whole waves: gemm_plan's head
  m.grid = g.persistent ? std::min(m.head_tiles > 0 ? m.head_tiles : m.steps, m.slots) : m.steps;
  // Persistent: block b computes steps b, b + grid, ...; otherwise the blocks of step i come in
  // launch order as SMs free up. Either way step i runs in wave i / slots (one block per SM).
  m.waves = (m.steps + m.slots - 1) / m.slots;
  m.wave = std::min(s.wave, m.waves ? m.waves - 1 : 0);
  m.wave_of.assign(m.tiles, 0);
  m.order_of.assign(m.tiles, 0);
  m.range_wave.assign(size_t(m.tiles) * m.k_splits, 0);
  m.range_order.assign(size_t(m.tiles) * m.k_splits, 0);
  std::set<std::pair<uint32_t, uint32_t>> a_read, b_read;  // (tile row or column, K range) the wave reads
  m.wave_reads_a.assign(m.tiles_m, false);
  m.wave_reads_b.assign(m.tiles_n, false);
  m.sm_row.assign(sms, -1);
  for (uint32_t i = 0; i < m.steps; ++i) {
    const sched::TileIndex t = order.steps[i];
    if (!order.real(t)) continue;  // the idle CTA of a cluster that overhangs M
    const size_t at = size_t(t.m) * m.tiles_n + t.n;
    const uint32_t r = order.range[i];
    const bool head = i < m.head_tiles;  // over all of K: every range of the tile is this step
    for (uint32_t q = head ? 0 : r; q < (head ? m.k_splits : r + 1); ++q) {
      m.range_wave[at * m.k_splits + q] = i / m.slots;
      m.range_order[at * m.k_splits + q] = i;
    }
    if (r == 0) {
      m.wave_of[at] = i / m.slots;
      m.order_of[at] = i;
    }
    if (i / m.slots == m.wave) {
      ++m.wave_tiles;
      m.wave_reads_a[t.m] = true;
      m.wave_reads_b[t.n] = true;
      a_read.insert({static_cast<uint32_t>(t.m), r});
      b_read.insert({static_cast<uint32_t>(t.n), r});
      if (i % m.slots < sms) m.sm_row[i % m.slots] = t.m;
    }
  }
  m.busy_sms = static_cast<uint32_t>(std::count_if(m.sm_row.begin(), m.sm_row.end(), [](int row) { return row >= 0; }));
  // A cluster's CTAs are consecutive steps; its box spans the tile rows they really compute.
  if (m.cluster > 1)
    for (uint32_t first = 0; first < order.output_steps(); first += m.cluster) {  // range 0's: the others repeat them
      uint32_t lo = m.tiles_m, hi = 0, n = 0;
      for (uint32_t i = first; i < std::min(first + m.cluster, order.output_steps()); ++i)
        if (order.real(order.steps[i])) {
          lo = std::min(lo, static_cast<uint32_t>(order.steps[i].m));
          hi = std::max(hi, static_cast<uint32_t>(order.steps[i].m));
          n = static_cast<uint32_t>(order.steps[i].n);
        }
      if (lo <= hi) m.clusters.push_back({lo, n, hi - lo + 1});
    }
  m.wave_a_blocks = static_cast<uint32_t>(std::count(m.wave_reads_a.begin(), m.wave_reads_a.end(), true));
  m.wave_b_blocks = static_cast<uint32_t>(std::count(m.wave_reads_b.begin(), m.wave_reads_b.end(), true));
  // Blocks of bf16 (2 bytes) or fp8 (1 byte) over one K range's part of K (all of K unsplit); a
  // block counted once per range read.
  const bool whole_k = m.head_tiles > 0 && m.wave < m.head_waves;  // a wave of the head: all of K
  const double k_part = double(g.k) / (whole_k ? 1 : m.k_splits), bytes = g.in == InKnob::fp8 ? 1 : 2;
  const double a_block = 128.0 * k_part * bytes, b_block = double(g.block_n) * k_part * bytes;
  m.wave_bytes = double(a_read.size()) * a_block + double(b_read.size()) * b_block;
  m.wave_bytes_per_tile = m.wave_tiles * (a_block + b_block);
  return m;
}

GridMeasured grid_measured(const GemmKnobs& knobs, const MeasuredData& measured) {
  const GemmRun run = gemm_run(knobs);
  GridMeasured out{find_measured(measured, run.shape, run.cfg), find_measured_dram(measured, run.shape, run.cfg)};
  const auto at_shape = [&](const MeasuredGemm& row) { return same_shape(row.shape, run.shape); };
  const bool shape_measured = std::any_of(measured.gemm.begin(), measured.gemm.end(), at_shape) ||
                              std::any_of(measured.splitk.begin(), measured.splitk.end(), at_shape);
  if (out.tflops || out.dram || shape_measured) return out;
  // The H100 never ran this shape in any configuration (a scene's small stand-in): show the same
  // configuration where the block-order sweep measured it, at 16384^3, with that shape said.
  for (const auto& row : measured.gemm)
    if (row.sweep == "order" && same_config(row.cfg, run.cfg)) out.tflops = &row;
  for (const auto& row : measured.dram)
    if (same_config(row.cfg, run.cfg)) out.dram = &row;
  return out;
}

}  // namespace ts::viz
