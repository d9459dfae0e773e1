#pragma once
// What `tilescope sim` and `tilescope compare` share: the machine and clock options, running a
// kernel's traced launches through the engine, and the report as text or JSON.
#include <string>
#include <vector>

#include "kernels/attention/attention_api.hpp"
#include "kernels/gemm/gemm_api.hpp"
#include "sim/engine.hpp"
#include "sim/machine.hpp"

namespace ts::app {

// data/machines/h100-sxm.json unless `file` names another; a bad file is a UsageError.
sim::MachineSpec machine_from(const std::string& file);
// --clock: sustained, boost or a number of MHz.
double clock_mhz(const std::string& clock, const sim::MachineSpec& m);

sim::SimReport simulate_gemm(const kernels::GemmShape& shape, const kernels::GemmConfig& cfg, const sim::EngineParams& p,
                             const sim::SimOptions& opt);

// A pass of attention: every kernel it launches, simulated one after another (each pays its
// launch), combined into one report (cycles add up; busy fractions are weighted by cycles; spans
// shift to where their launch started). `flops` and `tflops` count 4 B H N^2 D (halved when
// causal, 2.5 times that for the backward), as the measured rows do.
sim::SimReport simulate_attention(const kernels::AttentionShape& shape, bool backward, const kernels::AttentionConfig& cfg,
                                  const sim::EngineParams& p, const sim::SimOptions& opt);

std::string report_json(const sim::SimReport& r, double clock_mhz);
// Pipe and issue-slot utilisations, shared-memory traffic by instruction kind: `--stats`.
void print_unit_stats(const sim::SimReport& r);

// Spearman rank correlation (average ranks for ties).
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace ts::app
