#include "app/compare_timeline.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include "app/sim_job.hpp"
#include "app/sim_runs.hpp"
#include "app/verbs.hpp"
#include "sim/timeline.hpp"
#include "sim/timeline_compare.hpp"

namespace ts::app {

namespace {

void print_interval(const char* what, double measured, double simulated) {
  if (measured <= 0 && simulated <= 0) return;
  std::printf("  %-34s %9.0f %9.0f", what, measured, simulated);
  if (measured > 0 && simulated > 0) std::printf("  %+6.1f %%", 100.0 * (simulated / measured - 1.0));
  std::printf("\n");
}

}  // namespace

// Both timelines as one Chrome trace: the measured SMs first ("measured: SM 124", their process ids
// moved past the simulated ones so that the GPU's SM ids and the simulator's cannot collide), then
// the simulated ("simulated: SM 0"); each keeps its own clock, both from their first span.
std::string side_by_side_json(const sim::Timeline& measured, const sim::Timeline& simulated) {
  constexpr int kMeasuredPid = 100000;
  nlohmann::json out = {{"traceEvents", nlohmann::json::array()}, {"displayTimeUnit", "ns"}};
  nlohmann::json other = {{"tilescope", 1}, {"source", "measured and simulated"}};
  for (const sim::Timeline* t : {&measured, &simulated}) {
    const bool is_measured = t == &measured;
    nlohmann::json one = nlohmann::json::parse(sim::timeline_json(*t));
    for (nlohmann::json& e : one["traceEvents"]) {
      const int pid = e.value("pid", 0);
      e["pid"] = is_measured ? kMeasuredPid + pid : pid;
      const std::string name = e.value("name", std::string());
      if (name == "process_name") e["args"]["name"] = std::string(is_measured ? "measured: SM " : "simulated: SM ") + std::to_string(pid);
      if (name == "process_sort_index") e["args"]["sort_index"] = is_measured ? pid : kMeasuredPid + pid;
      out["traceEvents"].push_back(std::move(e));
    }
    other[is_measured ? "measured" : "simulated"] = one["otherData"];
  }
  out["otherData"] = other;
  return out.dump();
}

sim::Timeline read_measured_timeline(const std::string& file) {
  sim::Timeline measured;
  try {
    measured = sim::read_timeline_file(file);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  if (measured.source != "measured") throw UsageError(file + ": not a measured timeline (its source is '" + measured.source + "')");
  return measured;
}

sim::Timeline simulate_recorded(const sim::Timeline& measured, const std::string& file, const sim::MachineSpec& machine,
                                unsigned sms, bool force) {
  JobArgs args;
  try {
    args = job_args_from_json(measured.job);
  } catch (const UsageError& e) {
    throw UsageError(file + ": " + e.what());
  }
  const SimJob job = job_from(args);
  const sim::EngineParams p = sim::engine_params(machine, measured.clock_mhz);
  sms = std::max(1u, std::min<unsigned>(sms, static_cast<unsigned>(machine.sm_count.value)));
  // The backward's timeline is its main launch's, as the recording's.
  const std::string launch = job.attention && job.backward ? "backward" : "";
  sim::SimReport r = run_job(job, p, force, sms, launch);
  sim::Timeline simulated;
  simulated.title = job.title();
  simulated.job = measured.job;
  simulated.clock_mhz = p.clock_mhz;
  simulated.spans = r.spans;
  return simulated;
}

int compare_timeline(const TimelineCompareArgs& a, const sim::MachineSpec& machine) {
  const sim::Timeline measured = read_measured_timeline(a.measured);
  const uint32_t sms = std::max(1u, std::min<uint32_t>(a.sms, static_cast<uint32_t>(machine.sm_count.value)));
  const sim::Timeline simulated = simulate_recorded(measured, a.measured, machine, sms, a.force);
  if (!a.simulated_out.empty()) {
    std::ofstream out(a.simulated_out);
    if (!out) throw UsageError("cannot write " + a.simulated_out);
    out << side_by_side_json(measured, simulated);
  }

  const sim::TimelineProfile m = sim::profile(measured.spans), s = sim::profile(simulated.spans);
  std::set<std::string> blocks_m, blocks_s;
  for (const auto& x : measured.spans) blocks_m.insert(std::to_string(x.block));
  for (const auto& x : simulated.spans) blocks_s.insert(std::to_string(x.block));
  std::printf("measured  %s: %s, %zu blocks, at %.0f MHz", a.measured.c_str(), measured.title.c_str(), blocks_m.size(), measured.clock_mhz);
  if (measured.plain_ms > 0)
    std::printf(" (recording added %+.1f %% to %.4f ms)", 100.0 * (measured.kernel_ms / measured.plain_ms - 1.0), measured.plain_ms);
  if (measured.dropped > 0) std::printf(", %llu records dropped", static_cast<unsigned long long>(measured.dropped));
  if (const std::string left_out = sim::unrecorded_kinds(measured); !left_out.empty())
    std::printf(";\n  its build stamped no %s: those rows say \"unstamped\"", left_out.c_str());
  std::printf("\nsimulated %s on %s at %.0f MHz: the %zu blocks SMs 0-%u ran%s\n\n", simulated.title.c_str(), machine.name.c_str(),
              simulated.clock_mhz, blocks_s.size(), sms - 1, a.simulated_out.empty() ? "" : (" (written to " + a.simulated_out + ")").c_str());

  // Every op kind either timeline has, per role, as a share of the role's time.
  std::printf("share of each role's time      measured simulated  difference (points)\n");
  for (const sim::RoleProfile& rm : m.roles) {
    const sim::RoleProfile* rs = nullptr;
    for (const auto& x : s.roles)
      if (x.role == rm.role) rs = &x;
    std::set<sim::OpKind> kinds;
    for (const auto& [k, c] : rm.busy) kinds.insert(k);
    if (rs)
      for (const auto& [k, c] : rs->busy) kinds.insert(k);
    std::printf("%s (%u warps measured, %u simulated)\n", rm.role.c_str(), rm.warps, rs ? rs->warps : 0);
    for (sim::OpKind k : kinds) {
      const double a_share = rm.share(k), b_share = rs ? rs->share(k) : 0;
      // Asynchronous work overlaps itself (several loads, a wgmma group behind its wait): its
      // summed time over the role's time is how many are in flight on average, not a share.
      const bool in_flight = k == sim::OpKind::tma_load || k == sim::OpKind::tma_store || k == sim::OpKind::mma;
      const bool seen = sim::measures(measured, k);
      if (!seen && in_flight)
        std::printf("  %-28s %10s %8.2f    in flight on average\n", std::string(sim::op_name(k)).c_str(), "unstamped", b_share);
      else if (!seen)
        std::printf("  %-28s %10s %8.1f %%\n", std::string(sim::op_name(k)).c_str(), "unstamped", 100 * b_share);
      else if (in_flight)
        std::printf("  %-28s %8.2f   %8.2f    in flight on average\n", std::string(sim::op_name(k)).c_str(), a_share, b_share);
      else
        std::printf("  %-28s %8.1f %% %8.1f %%  %+6.1f\n", std::string(sim::op_name(k)).c_str(), 100 * a_share, 100 * b_share,
                    100 * (b_share - a_share));
    }
    std::printf("  %-28s %8.1f %% %8.1f %%  %+6.1f\n", "waiting (all waits)", 100 * rm.waiting, rs ? 100 * rs->waiting : 0.0,
                rs ? 100 * (rs->waiting - rm.waiting) : 0.0);
  }
  std::printf("\nsteady state, cycles between       measured simulated\n");
  print_interval("consecutive wgmma groups (a warp)", m.mma_interval, s.mma_interval);
  print_interval("the producer's TMA issues", m.tma_issue_interval, s.tma_issue_interval);
  print_interval("TMA landings", m.tma_landing_interval, s.tma_landing_interval);
  std::printf("\nmeasured spans are bounds where the GPU does not say when a unit finished (sim/stamps.hpp): a wgmma group\n"
              "ends when a wait found it done, a TMA load when a wait on its barrier ended.\n");
  return 0;
}

}  // namespace ts::app
