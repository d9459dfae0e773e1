#pragma once
// What `tilescope sim` and `tilescope compare` share: the machine and clock options, running a
// kernel's traced launches through the engine, and the report as text or JSON.
#include <string>
#include <vector>

#include "app/sim_job.hpp"
#include "app/sim_watch.hpp"
#include "sim/engine.hpp"
#include "sim/machine.hpp"

namespace ts::app {

// data/machines/h100-sxm.json unless `file` names another; a bad file is a UsageError.
sim::MachineSpec machine_from(const std::string& file);
// --clock: sustained, boost or a number of MHz.
double clock_mhz(const std::string& clock, const sim::MachineSpec& m);

// A job's launches (trace_job), simulated one after another and combined into one report (cycles
// add up; busy fractions are weighted by cycles; spans shift to where their launch started). For
// attention, `flops` and `tflops` count 4 B H N^2 D (halved when causal, 2.5 times that for the
// backward), as the measured rows do. With `progress`, the blocks done across the launches and
// the ops drawn go into it, and a Ctrl-C stops the run (sim::SimCancelled).
sim::SimReport simulate_launches(std::vector<kernels::TracedLaunch>& launches, const SimJob& job, const sim::EngineParams& p,
                                 uint32_t timeline_sms = 0, Progress* progress = nullptr);

// What `tilescope sim` does with a job: trace it, estimate its ops, refuse it when it would take
// longer than kRefuseSeconds (unless `force`), and simulate it with a progress line on stderr and
// Ctrl-C handled. A Ctrl-C is a sim::SimCancelled whose message is the line to print. With
// `only_launch` (a TracedLaunch name), that launch alone.
sim::SimReport run_job(const SimJob& job, const sim::EngineParams& p, bool force, uint32_t timeline_sms = 0,
                       const std::string& only_launch = "");

std::string report_json(const sim::SimReport& r, double clock_mhz);
// Pipe and issue-slot utilisations, shared-memory traffic by instruction kind: `--stats`.
void print_unit_stats(const sim::SimReport& r);

// Spearman rank correlation (average ranks for ties).
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace ts::app
