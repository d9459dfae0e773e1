// EngineParams from a machine file: the one place where the machine's figures become the engine's
// cycles and bytes per cycle.
#include <algorithm>
#include <stdexcept>

#include "sim/engine.hpp"

namespace ts::sim {

// The HBM port of each SM; engine.hpp says how they are laid out.
std::vector<uint32_t> hbm_port_of_sm(uint32_t sms, uint32_t gpcs, uint32_t port_tpcs) {
  if (gpcs == 0 || port_tpcs == 0) throw std::invalid_argument("hbm_port_of_sm: gpcs and port_tpcs must be positive");
  const uint32_t tpcs = (sms + 1) / 2;
  const uint32_t whole = (tpcs + gpcs - 1) / gpcs;  // TPCs of a GPC that lacks none
  const uint32_t missing = whole * gpcs - tpcs;      // fewer than gpcs: at most one from each
  std::vector<uint32_t> port(sms);
  uint32_t sm = 0, first_port = 0;
  for (uint32_t g = 0; g < gpcs; ++g) {
    const uint32_t gpc_tpcs = whole - (g < missing ? 1 : 0);
    for (uint32_t t = 0; t < gpc_tpcs; ++t)
      for (uint32_t k = 0; k < 2 && sm < sms; ++k) port[sm++] = first_port + t / port_tpcs;
    first_port += (gpc_tpcs + port_tpcs - 1) / port_tpcs;
  }
  return port;
}

// Every engine figure comes from the machine file; latencies there are measured end to end, so
// the parts the engine models separately (pipe time, transfer time) are taken out of them.
EngineParams engine_params(const MachineSpec& m, double clock_mhz) {
  EngineParams p;
  // By default the clock the GEMM really runs at back to back (power-limited), not the wgmma-only
  // loop's; short bursts run faster (sm_clock_boost), and a measured row may say its own.
  p.clock_mhz = clock_mhz > 0 ? clock_mhz : m.sm_clock_gemm_sustained.value;
  p.sms = static_cast<uint32_t>(m.sm_count.value);
  const double n256_flops = 2.0 * 64 * 256 * 16;
  p.mma_flops_per_cycle = n256_flops / m.wgmma_m64n256k16_interval.value;
  p.mma_fp8_flops_per_cycle = 2 * n256_flops / m.wgmma_m64n256k32_fp8_interval.value;
  p.mma_issue_cycles = m.wgmma_issue_cycles.value;
  p.mma_share_age_weight = m.wgmma_share_age_weight.value;
  p.sfu_share_age_weight = m.sfu_share_age_weight.value;
  p.mma_queue_depth = static_cast<uint32_t>(m.wgmma_queue_depth.value);
  p.mma_issue_cycles_per_column = m.wgmma_issue_cycles_per_column.value;
  p.mma_latency = std::max(0.0, m.wgmma_m64n256k16_latency.value - m.wgmma_m64n256k16_interval.value);
  p.tma_bytes_per_cycle_per_sm = m.tma_bandwidth_per_sm.value;
  const double box_transfer = 16384.0 / p.tma_bytes_per_cycle_per_sm;  // the calibration box is 16 KB
  // Under load (every SM streaming tiles) a box waits far longer than alone: the GEMM sees that one.
  p.tma_latency_l2 = std::max(0.0, m.tma_load_latency_under_load.value - box_transfer);
  p.tma_latency_hbm = std::max(0.0, m.tma_load_latency_hbm.value - box_transfer);
  p.barrier_latency = m.mbarrier_round_trip.value / 2;
  p.gmem_latency_l2 = m.l2_hit_latency.value;
  p.gmem_latency_hbm = m.hbm_latency_measured.value;
  p.smem_latency = m.smem_latency.value;
  p.smem_port_bytes_per_cycle = m.smem_bandwidth_per_sm.value;
  p.lsu_load_bytes_under_mma = m.lsu_load_bytes_under_wgmma.value;
  p.lsu_store_bytes_under_mma = m.lsu_store_bytes_under_wgmma.value;
  p.tma_write_tensor_stall = m.tma_write_tensor_stall.value;
  p.sub_partitions = static_cast<uint32_t>(m.sub_partitions.value);
  p.issue_interval = 1.0 / m.issue_per_cycle.value;
  p.pipe_interval = {m.fma_interval.value, m.alu_interval.value, m.sfu_interval.value, m.convert_interval.value,
                     m.shuffle_interval.value};
  p.pipe_latency = {m.fma_latency.value, m.alu_latency.value, m.sfu_latency.value, m.convert_latency.value,
                    m.shuffle_latency.value};
  p.named_barrier_cycles = m.named_barrier_cycles.value;
  const double bytes_per_cycle_per_tbs = 1e12 / (p.clock_mhz * 1e6);
  p.l2_bytes_per_cycle = m.l2_tma_bandwidth.value * bytes_per_cycle_per_tbs;
  p.hbm_bytes_per_cycle = m.hbm_bandwidth_measured.value * bytes_per_cycle_per_tbs;
  p.hbm_scattered_bytes_per_cycle = m.hbm_bandwidth_scattered.value * bytes_per_cycle_per_tbs;
  p.tma_store_latency = m.tma_store_latency.value;
  p.tma_store_latency_under_load = m.tma_store_latency_under_load.value;
  p.store_bytes_per_cycle = m.tma_store_bandwidth.value * bytes_per_cycle_per_tbs;
  p.reduce_bytes_per_cycle = m.tma_reduce_bandwidth.value * bytes_per_cycle_per_tbs;
  // What the bench's CUDA events see besides the kernel's own run (not the back-to-back rate).
  p.kernel_launch_cycles = m.launch_latency_timed.value * p.clock_mhz;
  p.block_start_spread_cycles = m.block_start_spread.value * p.clock_mhz;
  p.l2_bytes = static_cast<uint64_t>(m.l2_capacity.value * 1024 * 1024);
  p.l2_partitions = static_cast<uint32_t>(m.l2_partitions.value);
  p.l2_merge_window = m.l2_merge_window.value;
  if (m.hbm_port_tpcs.value > 0 && m.gpc_count.value > 0)
    p.hbm_port_of_sm = hbm_port_of_sm(p.sms, static_cast<uint32_t>(m.gpc_count.value), static_cast<uint32_t>(m.hbm_port_tpcs.value));
  p.smem_per_sm = static_cast<uint32_t>(m.smem_per_sm.value * 1024);
  p.registers_per_sm = static_cast<uint32_t>(m.registers_per_sm.value);
  return p;
}

}  // namespace ts::sim
