#include "viz/lesson/accuracy_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace ts::viz {

double AccuracyPoint::simulated() const {
  if (!sim || !sim->error.empty()) return 0;
  return metric == AccuracyMetric::tflops ? sim->report.tflops : double(sim->report.hbm_read_bytes);
}

AccuracyModel accuracy_model(const AccuracyState& s, const MeasuredData& measured, SimCache& sims) {
  AccuracyModel m;
  const auto keep = [&](const std::string& sweep, const kernels::GemmConfig& cfg) {
    if (s.sweep != MeasuredSweep::all && sweep != name_of(s.sweep)) return false;
    return s.stages == 0 || cfg.stages == static_cast<int>(s.stages);
  };
  const auto add = [&](AccuracyPoint p) {
    p.metric = s.metric;
    p.skipped = !p.run.quick() && !s.big;
    if (!p.skipped) p.sim = sims.get(p.run);
    if (p.skipped) ++m.skipped;
    else if (!p.sim) ++m.running;
    else if (p.sim->error.empty()) ++m.simulated;
    m.points.push_back(std::move(p));
  };
  if (s.metric == AccuracyMetric::tflops) {
    m.device = measured.device, m.date = measured.date, m.file = measured.gemm_file;
    std::map<std::string, int> later;  // rows measured again after their file, by date
    for (const auto& row : measured.gemm) {
      if (!keep(row.sweep, row.cfg)) continue;
      if (!row.date.empty()) ++later[row.date];
      AccuracyPoint p;
      p.sweep = row.sweep;
      p.run.shape = row.shape;
      p.run.cfg = row.cfg;
      p.run.clock_mhz = row.sm_clock_mhz;
      p.measured = p.measured_lo = p.measured_hi = row.tflops;
      add(std::move(p));
    }
    for (const auto& [date, rows] : later) m.date += "; " + std::to_string(rows) + (rows > 1 ? " rows " : " row ") + date;
  } else {
    m.device = measured.dram_device, m.date = measured.dram_date, m.file = measured.dram_file;
    for (const auto& row : measured.dram) {
      if (!keep("order", row.cfg)) continue;  // the DRAM bytes were measured for the block-order sweep
      AccuracyPoint p;
      p.sweep = "order";
      p.run.shape = row.shape;
      p.run.cfg = row.cfg;
      // Bytes do not depend on the clock; the same run as the TFLOPS point shares its simulation.
      if (const MeasuredGemm* g = find_measured(measured, row.shape, row.cfg)) p.run.clock_mhz = g->sm_clock_mhz;
      p.measured = row.read_mean, p.measured_lo = row.read_min, p.measured_hi = row.read_max;
      add(std::move(p));
    }
  }
  double sum = 0;
  bool first = true;
  for (const auto& p : m.points) {
    for (double v : {p.measured_lo, p.measured_hi, p.simulated()}) {
      if (v <= 0) continue;
      m.lo = first ? v : std::min(m.lo, v);
      m.hi = first ? v : std::max(m.hi, v);
      first = false;
    }
    if (p.sim && p.sim->error.empty()) sum += std::fabs(p.error_pct());
  }
  m.mape = m.simulated ? sum / m.simulated : 0;
  return m;
}

}  // namespace ts::viz
