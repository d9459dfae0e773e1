#pragma once
#include <cstdint>
// What the accuracy scene shows: every measured configuration that the filter keeps, beside the
// simulation of the same shape and configuration, with the error and a summary.
#include <memory>
#include <string>
#include <vector>

#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/measured.hpp"

namespace ts::viz {

struct AccuracyPoint {
  std::string sweep;
  GemmRun run;
  double measured = 0;                 // TFLOPS, or HBM bytes read (mean of the launches)
  double measured_lo = 0, measured_hi = 0;  // range over launches (HBM); equal to measured otherwise
  std::shared_ptr<const GemmSim> sim;  // nullptr: running, or not simulated (slow and big=off)
  bool skipped = false;                // slow and big=off
  double simulated() const;            // same unit as measured; 0 without a simulation
  double error_pct() const { return sim && measured > 0 ? 100 * (simulated() - measured) / measured : 0; }
  AccuracyMetric metric = AccuracyMetric::tflops;
};

struct AccuracyModel {
  std::vector<AccuracyPoint> points;
  std::string device, date, file;  // date: the file's, then "; N rows DATE" for rows measured again later
  size_t simulated = 0, running = 0, skipped = 0;
  double mape = 0;  // over the simulated points, percent
  double lo = 0, hi = 0;  // axis range over measured and simulated values
};

AccuracyModel accuracy_model(const AccuracyState& s, const MeasuredData& measured, SimCache& sims);

}  // namespace ts::viz
