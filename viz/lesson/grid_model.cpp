#include "viz/lesson/grid_model.hpp"

#include <algorithm>

#include "tiles/sched/block_order.hpp"

namespace ts::viz {

GridModel grid_model(const GridState& s, uint32_t sms, double l2_bytes) {
  GridModel m;
  const GemmKnobs& g = s.gemm;
  m.tiles_m = g.m / 128;
  m.tiles_n = g.n / g.block_n;
  m.tiles = m.tiles_m * m.tiles_n;
  m.sms = sms;
  m.l2_bytes = l2_bytes;
  m.grid = g.persistent ? std::min(m.tiles, sms) : m.tiles;
  // Persistent: block b computes steps b, b + grid, ...; otherwise the blocks of step i come in
  // launch order as SMs free up. Either way step i runs in wave i / sms (one block per SM).
  m.waves = (m.tiles + sms - 1) / sms;
  m.wave = std::min(s.wave, m.waves ? m.waves - 1 : 0);
  m.wave_of.assign(m.tiles, 0);
  m.order_of.assign(m.tiles, 0);
  m.wave_reads_a.assign(m.tiles_m, false);
  m.wave_reads_b.assign(m.tiles_n, false);
  const sched::OrderSpec order = gemm_config(g).order;
  for (uint32_t i = 0; i < m.tiles; ++i) {
    const auto t = sched::tile_of(order, static_cast<int>(i), static_cast<int>(m.tiles_m), static_cast<int>(m.tiles_n));
    const size_t at = size_t(t.m) * m.tiles_n + t.n;
    m.wave_of[at] = i / sms;
    m.order_of[at] = i;
    if (i / sms == m.wave) {
      ++m.wave_tiles;
      m.wave_reads_a[t.m] = true;
      m.wave_reads_b[t.n] = true;
    }
  }
  m.wave_a_blocks = static_cast<uint32_t>(std::count(m.wave_reads_a.begin(), m.wave_reads_a.end(), true));
  m.wave_b_blocks = static_cast<uint32_t>(std::count(m.wave_reads_b.begin(), m.wave_reads_b.end(), true));
  const double a_block = 128.0 * g.k * 2, b_block = double(g.block_n) * g.k * 2;  // bf16
  m.wave_bytes = m.wave_a_blocks * a_block + m.wave_b_blocks * b_block;
  m.wave_bytes_per_tile = m.wave_tiles * (a_block + b_block);
  return m;
}

GridMeasured grid_measured(const GemmKnobs& knobs, const MeasuredData& measured) {
  const GemmRun run = gemm_run(knobs);
  GridMeasured out{find_measured(measured, run.shape, run.cfg), find_measured_dram(measured, run.shape, run.cfg)};
  const bool shape_measured = std::any_of(measured.gemm.begin(), measured.gemm.end(),
                                          [&](const MeasuredGemm& row) { return same_shape(row.shape, run.shape); });
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
