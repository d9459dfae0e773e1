#include "viz/lesson/exercises.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/machine.hpp"
#include "viz/lesson/banks_model.hpp"
#include "viz/lesson/fragments_model.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/registers_model.hpp"

namespace ts::viz {

const std::vector<ExerciseInfo>& exercises() {
  static const std::vector<ExerciseInfo> all = {
      {"owner-lane", SceneKind::fragments, "lane", "set lane to the lane that holds the marked element"},
      {"zero-conflict-swizzle", SceneKind::banks, "swizzle",
       "pick a swizzle (no padding) under which this access has no bank conflicts"},
      {"stages-stop-paying", SceneKind::pipeline, "stages",
       "set stages to the count past which one more stage gains less than 5 % (simulated)"},
      {"least-hbm-order", SceneKind::grid, "order, group",
       "find a block order with the least simulated HBM traffic for this GEMM"},
      {"consumer-registers", SceneKind::registers, "consumer",
       "give each consumer thread the most registers that still fit beside the producer's"},
  };
  return all;
}

const ExerciseInfo* find_exercise(std::string_view id) {
  for (const auto& e : exercises())
    if (e.id == id) return &e;
  return nullptr;
}

namespace {

ExerciseResult right(std::string m) { return {Verdict::right, std::move(m)}; }
ExerciseResult wrong(std::string m) { return {Verdict::wrong, std::move(m)}; }
ExerciseResult pending(std::string m) { return {Verdict::pending, std::move(m)}; }

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// The knobs that pose the question must stay as the step set them.
bool same_gemm_question(const GemmKnobs& a, const GemmKnobs& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.stages == b.stages && a.block_n == b.block_n &&
         a.persistent == b.persistent;
}

}  // namespace

ExerciseResult check_owner_lane(const FragmentsState& q, const FragmentsState& a) {
  if (a.view != q.view || a.swapped != q.swapped || a.n != q.n || a.row != q.row || a.col != q.col)
    return wrong("keep the tile and the marked element as the step set them (view, swap, n, row, col); move only lane");
  const FragmentsModel m = fragments_model(a);
  const std::string element = "(" + std::to_string(q.row) + ", " + std::to_string(q.col) + ")";
  if (m.pointed.lane != a.lane)
    return wrong((m.lanes == 128 ? "thread " : "lane ") + std::to_string(a.lane) + " does not hold element " + element +
                 ": find the colour of the marked cell");
  return right((m.lanes == 128 ? "Right: thread " : "Right: lane ") + std::to_string(a.lane) + " holds " + element +
               " in its register " + std::to_string(m.pointed.reg) +
               (m.bf16 ? (m.pointed.half ? ", upper half" : ", lower half") : ""));
}

ExerciseResult check_zero_conflict_swizzle(const BanksState& q, const BanksState& a) {
  if (a.dtype != q.dtype || a.rows != q.rows || a.cols != q.cols || a.access != q.access || a.r != q.r || a.c != q.c)
    return wrong("keep the tile and the access as the step set them; change only the swizzle");
  const BanksAnalysis result = analyze_banks_scene(a);
  if (!result.error.empty() || !result.report) return wrong("this layout cannot make the access: " + result.error);
  const uint64_t conflicts = result.report->conflicts;
  if (a.pad != 0)
    return wrong(conflicts == 0 ? "padding removes the conflicts, but TMA and wgmma cannot use a padded tile: set pad=0 "
                                  "and find a swizzle"
                                : "set pad=0 and find a swizzle");
  if (conflicts != 0)
    return wrong("with swizzle=" + std::string(name_of(a.swizzle)) + " the access still has " +
                 std::to_string(conflicts) + " conflicts");
  return right("Right: with swizzle=" + std::string(name_of(a.swizzle)) + " the access takes " +
               std::to_string(result.report->wavefronts) + " wavefronts, the ideal, and no conflicts");
}

uint32_t stages_that_stop_paying(const std::vector<double>& tflops) {
  if (tflops.size() < 4 || std::any_of(tflops.begin(), tflops.end(), [](double t) { return t <= 0; })) return 0;
  for (uint32_t s = 1; s < 4; ++s)
    if (tflops[s] < 1.05 * tflops[s - 1]) return s;
  return 4;
}

ExerciseResult check_stages_stop_paying(const PipelineState& q, const PipelineState& a, SimCache& sims) {
  GemmKnobs g = q.gemm;
  if (!same_gemm_question({g.m, g.n, g.k, a.gemm.stages, g.block_n, g.order, g.group, g.persistent}, a.gemm))
    return wrong("keep the shape and tile as the step set them; change only stages");
  std::vector<double> tflops;
  std::string table;
  std::vector<std::shared_ptr<const GemmSim>> runs;
  for (uint32_t s = 1; s <= 4; ++s) {  // ask for all four first: they queue together
    g.stages = s;
    runs.push_back(sims.get(gemm_run(g)));
  }
  for (uint32_t s = 1; s <= 4; ++s) {
    const auto& sim = runs[s - 1];
    if (!sim) return pending("simulating 1 to 4 stages...");
    if (!sim->error.empty()) return wrong("the simulator refused this shape: " + sim->error);
    tflops.push_back(sim->report.tflops);
    table += (table.empty() ? "" : ", ") + std::to_string(s) + ": " + fixed(sim->report.tflops, 0);
  }
  const uint32_t answer = stages_that_stop_paying(tflops);
  if (a.gemm.stages != answer)
    return wrong(std::to_string(a.gemm.stages) + " stages is not it: compare each stage count's simulated TFLOPS with the next");
  return right("Right: simulated TFLOPS by stages (" + table + "); past " + std::to_string(answer) +
               (answer == 4 ? " (every stage paid here)" : " one more stage gains under 5 %"));
}

ExerciseResult check_least_hbm_order(const GridState& q, const GridState& a, SimCache& sims) {
  if (!same_gemm_question(q.gemm, a.gemm))
    return wrong("keep the shape, stages, tile and persistence as the step set them; change only order and group");
  std::vector<GemmKnobs> candidates;
  for (OrderKnob o : {OrderKnob::row, OrderKnob::col})
    candidates.push_back({q.gemm.m, q.gemm.n, q.gemm.k, q.gemm.stages, q.gemm.block_n, o, 1, q.gemm.persistent});
  for (uint32_t group : {2u, 4u, 8u, 16u})
    candidates.push_back({q.gemm.m, q.gemm.n, q.gemm.k, q.gemm.stages, q.gemm.block_n, OrderKnob::grouped, group,
                          q.gemm.persistent});
  candidates.push_back(a.gemm);
  std::vector<std::shared_ptr<const GemmSim>> runs;
  for (const auto& c : candidates) runs.push_back(sims.get(gemm_run(c)));  // all queue together
  double least = 0, mine = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const auto& sim = runs[i];
    if (!sim) return pending("simulating the block orders...");
    if (!sim->error.empty()) return wrong("the simulator refused this configuration: " + sim->error);
    const double bytes = double(sim->report.hbm_read_bytes);
    least = i == 0 ? bytes : std::min(least, bytes);
    if (i + 1 == candidates.size()) mine = bytes;
  }
  const std::string mb = fixed(mine / (1024.0 * 1024.0), 1) + " MiB";
  if (mine > least * 1.005)
    return wrong("this order reads " + mb + " from HBM (simulated); another order reads less");
  return right("Right: " + mb + " from HBM (simulated), no order reads less");
}

ExerciseResult check_consumer_registers(const RegistersState& q, const RegistersState& a) {
  if (a.split != RegisterSplit::setmaxnreg || a.producer != q.producer || a.gemm.block_n != q.gemm.block_n)
    return wrong("keep split=setmaxnreg and the producer's " + std::to_string(q.producer) +
                 " registers; change only consumer");
  static const uint32_t file = [] {
    try {
      return static_cast<uint32_t>(sim::load_machine("h100-sxm").registers_per_sm.value);
    } catch (const std::exception&) {
      return 65536u;
    }
  }();
  const RegisterBudget b = register_budget(a, file);
  if (!b.fits)
    return wrong(std::to_string(a.consumer) + " per consumer thread needs " + std::to_string(b.used) +
                 " registers per block, more than the SM's " + std::to_string(b.file));
  if (a.consumer != b.most_for_consumers)
    return wrong(std::to_string(a.consumer) + " fits, but the consumers could have more (setmaxnreg takes multiples of 8)");
  return right("Right: 128 x " + std::to_string(a.producer) + " + 256 x " + std::to_string(a.consumer) + " = " +
               std::to_string(b.used) + " of " + std::to_string(b.file) + " registers");
}

ExerciseResult check_exercise(std::string_view id, const SceneState& question, const SceneState& answer, SimCache& sims) {
  if (question.index() != answer.index()) return wrong("the scene changed");
  if (id == "owner-lane") return check_owner_lane(std::get<FragmentsState>(question), std::get<FragmentsState>(answer));
  if (id == "zero-conflict-swizzle")
    return check_zero_conflict_swizzle(std::get<BanksState>(question), std::get<BanksState>(answer));
  if (id == "stages-stop-paying")
    return check_stages_stop_paying(std::get<PipelineState>(question), std::get<PipelineState>(answer), sims);
  if (id == "least-hbm-order") return check_least_hbm_order(std::get<GridState>(question), std::get<GridState>(answer), sims);
  if (id == "consumer-registers")
    return check_consumer_registers(std::get<RegistersState>(question), std::get<RegistersState>(answer));
  return wrong("unknown exercise '" + std::string(id) + "'");
}

}  // namespace ts::viz
