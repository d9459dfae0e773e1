// How a sub-partition's SFU serves warps whose register math overlaps: hand-timed, and replayed
// against what kernels/probes/pipe_share_probe.cu measured on the H100 (data/measured/h100/pipe-share.txt).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/engine.hpp"
#include "sim/machine.hpp"
#include "tests/engine_test_grid.hpp"
#include "tiles/ops/pipe_cost.hpp"

using namespace ts;
using namespace ts::sim;
using namespace ts::sim::engine_test;

TEST_CASE("register math: a shared SFU serves two warps in turns, so a later one slows the first", "[engine]") {
  // test_engine.cpp's two warps of one sub-partition, 8 ex2 each (the pipe busy 64 cycles, the result
  // 18 later), but the SFU shared in equal turns (sfu_share_age_weight 1). Warp 0's 8 ex2 issue from 0,
  // warp 4's from 8 (the scheduler is warp 0's until then). Alone until 8, warp 0 has 56 cycles of SFU
  // work left; the two then share the pipe, each at half its rate: warp 0 is through at 8 + 112 = 120
  // (+ 18 latency: 138, not 82), warp 4 has 8 left then and is through at 128 (146, as before: the
  // pipe does the same work).
  const std::vector<TraceOp> ex2 = {engine_test::math({{Pipe::sfu, 8}}), engine_test::math({{Pipe::fma, 1}})};
  const std::vector<TraceOp> idle = {};
  HandGrid shared({ex2, idle, idle, idle, ex2});
  EngineParams p = pipe_params();
  SimOptions opt;
  opt.timeline_sms = 1;
  const auto sfu_ends = [](const SimReport& r) {  // when each warp's ex2 op was done, earliest first
    std::vector<double> ends;
    for (const Span& s : r.spans)
      if (s.kind == OpKind::math && s.pipe == Pipe::sfu) ends.push_back(s.end);
    std::sort(ends.begin(), ends.end());
    return ends;
  };
  p.sfu_share_age_weight = 1;
  const SimReport r = simulate(shared, p, opt);
  CHECK(r.cycles == Approx(146 + 5));  // each warp's FFMA after: issue 1, latency 4
  CHECK(sfu_ends(r) == std::vector<double>{138, 146});
  CHECK(r.pipe_instructions[static_cast<int>(Pipe::sfu)] == 16);
  // In order of arrival (weight 0) the first warp finishes as if alone.
  p.sfu_share_age_weight = 0;
  HandGrid fifo({ex2, idle, idle, idle, ex2});
  CHECK(sfu_ends(simulate(fifo, p, opt)) == std::vector<double>{82, 146});
  // Warps of two sub-partitions each have their own SFU: both alone.
  p.sfu_share_age_weight = 1;
  HandGrid apart({ex2, ex2});
  CHECK(simulate(apart, p).cycles == Approx(82 + 5));
}

namespace {

// The probe's ops, as the DSL ops record them (tiles/ops/pipe_cost.hpp) on its 16 x 128 fp32 tile.
using tile = rt_fl<16, 128>;
using rows = row_vec<tile>;
enum class ProbeOp { exp2_row, add, row_max, softmax, exp2 };
std::vector<TraceOp> probe_op(ProbeOp op) {
  const TraceOp exp2_row = engine_test::math(pipe_cost::elementwise<math::exp2_scaled, tile, tile, rows>());
  const TraceOp row_max = engine_test::math(pipe_cost::reduction<true, math::max, rows, tile, true>());
  const TraceOp add = engine_test::math(pipe_cost::elementwise<math::add, tile, tile, float>());
  switch (op) {
    case ProbeOp::exp2_row: return {exp2_row};
    case ProbeOp::add: return {add};
    case ProbeOp::exp2: return {engine_test::math(pipe_cost::elementwise<math::exp2, tile, tile>())};
    case ProbeOp::row_max: return {row_max, add};
    case ProbeOp::softmax:
      return {row_max, exp2_row, engine_test::math(pipe_cost::reduction<true, math::add, rows, tile, true>()),
              engine_test::math(pipe_cost::elementwise<math::mul, tile, tile, float>())};
  }
  return {};
}

// One row of pipe-share.txt: each warp's end, cycles after the common start (median over SMs).
struct ProbeRow {
  ProbeOp op;
  int warps, reps, delay;
  std::vector<double> end;
};
const std::vector<ProbeRow> kProbeRows = {
    {ProbeOp::exp2_row, 1, 1, 0, {1103}},
    {ProbeOp::exp2_row, 2, 1, 0, {1727, 1629}},
    {ProbeOp::exp2_row, 2, 1, 100, {1721, 1647}},
    {ProbeOp::exp2_row, 3, 1, 100, {2351, 2329, 2254}},
    {ProbeOp::exp2_row, 1, 16, 0, {10897}},
    {ProbeOp::exp2_row, 2, 16, 0, {18878, 18444}},
    {ProbeOp::exp2_row, 3, 16, 0, {28104, 27819, 27048}},
    {ProbeOp::exp2_row, 2, 16, 1000, {18243, 19166}},
    {ProbeOp::exp2_row, 3, 16, 1000, {26735, 28314, 28245}},
    {ProbeOp::softmax, 1, 1, 0, {1328}},
    {ProbeOp::softmax, 2, 1, 0, {1892, 1921}},
    {ProbeOp::softmax, 2, 1, 100, {1885, 1913}},
    {ProbeOp::softmax, 3, 1, 100, {2421, 2596, 2601}},
    {ProbeOp::softmax, 1, 16, 0, {14744}},
    {ProbeOp::softmax, 2, 16, 0, {21595, 21523}},
    {ProbeOp::softmax, 3, 16, 0, {29450, 29477, 28046}},
    {ProbeOp::softmax, 2, 16, 1000, {20487, 21335}},
    {ProbeOp::softmax, 3, 16, 1000, {25781, 26429, 27347}},
    {ProbeOp::add, 1, 1, 0, {643}},
    {ProbeOp::add, 2, 1, 0, {747, 840}},
    {ProbeOp::add, 2, 1, 100, {747, 839}},
    {ProbeOp::add, 3, 1, 100, {870, 963, 1086}},
    {ProbeOp::add, 1, 16, 0, {3420}},
    {ProbeOp::add, 2, 16, 0, {4439, 4532}},
    {ProbeOp::add, 3, 16, 0, {5446, 5528, 5657}},
    {ProbeOp::add, 2, 16, 1000, {4181, 5083}},
    {ProbeOp::add, 3, 16, 1000, {4714, 5828, 6773}},
    {ProbeOp::row_max, 1, 1, 0, {820}},
    {ProbeOp::row_max, 2, 1, 0, {1054, 1140}},
    {ProbeOp::row_max, 2, 1, 100, {1056, 1142}},
    {ProbeOp::row_max, 3, 1, 100, {1304, 1396, 1503}},
    {ProbeOp::row_max, 1, 16, 0, {6462}},
    {ProbeOp::row_max, 2, 16, 0, {8941, 8995}},
    {ProbeOp::row_max, 3, 16, 0, {11701, 11615, 11472}},
    {ProbeOp::row_max, 2, 16, 1000, {8704, 9573}},
    {ProbeOp::row_max, 3, 16, 1000, {10713, 11892, 12572}},
};

// Each warp's end in the engine, on sub-partition 0 of one SM with the machine file's figures: the
// first warp runs `first`, the others `others` (the probe's second table; its first, the same op),
// `reps` times each, warp i after i x delay cycles.
std::vector<double> replay(ProbeOp first, ProbeOp others, int warp_count, int reps, int delay, double sfu_weight) {
  EngineParams p = engine_params(load_machine_file(find_data_path("machines/h100-sxm.json")));
  p.sms = 1;
  p.sfu_share_age_weight = sfu_weight;
  std::vector<std::vector<TraceOp>> warps(4 * static_cast<size_t>(warp_count));
  for (int i = 0; i < warp_count; ++i) {
    const std::vector<TraceOp> one = probe_op(i == 0 ? first : others);
    auto& w = warps[4 * static_cast<size_t>(i)];
    if (i * delay > 0) {  // the probe's spin: time without instructions
      TraceOp wait = engine_test::math(PipeCounts{});
      wait.pipes.chain[static_cast<int>(Pipe::fma)] = static_cast<uint16_t>(i * delay / p.pipe_latency[0]);
      w.push_back(wait);
    }
    for (int r = 0; r < reps; ++r) w.insert(w.end(), one.begin(), one.end());
  }
  HandGrid grid(warps);
  SimOptions opt;
  opt.timeline_sms = 1;
  const SimReport r = simulate(grid, p, opt);
  double start = 1e300;
  for (const Span& s : r.spans) start = std::min(start, s.start);
  std::vector<double> end(static_cast<size_t>(warp_count), 0);
  for (const Span& s : r.spans) {
    auto& e = end[s.warp / 4];
    e = std::max(e, s.end - start);
  }
  return end;
}
std::vector<double> replay(const ProbeRow& row, double sfu_weight) {
  return replay(row.op, row.op, row.warps, row.reps, row.delay, sfu_weight);
}

// What a second and third warp add to each warp's end, against the op alone (which takes out what
// the probe's loop costs beside the op: a jump-table dispatch each repetition): measured and
// simulated, for every row of the given ops with more than one warp.
struct Added {
  double measured, simulated, end;  // end: the measured end, the scale of the error
};
std::vector<Added> added(std::initializer_list<ProbeOp> ops, double sfu_weight) {
  std::vector<Added> out;
  for (const ProbeRow& row : kProbeRows) {
    if (row.warps == 1 || std::find(ops.begin(), ops.end(), row.op) == ops.end()) continue;
    const auto alone = std::find_if(kProbeRows.begin(), kProbeRows.end(), [&](const ProbeRow& a) {
      return a.op == row.op && a.warps == 1 && a.reps == row.reps;
    });
    const double sim_alone = replay(*alone, sfu_weight)[0];
    const std::vector<double> sim = replay(row, sfu_weight);
    for (size_t i = 0; i < sim.size(); ++i) out.push_back({row.end[i] - alone->end[0], sim[i] - sim_alone, row.end[i]});
  }
  return out;
}
double mean_error(std::initializer_list<ProbeOp> ops, double sfu_weight) {
  const std::vector<Added> a = added(ops, sfu_weight);
  double sum = 0;
  for (const Added& x : a) sum += std::abs(x.simulated - x.measured) / x.end;
  return sum / static_cast<double>(a.size());
}

}  // namespace

TEST_CASE("the SFU serves overlapping warps in equal turns, as the pipe share probe measured", "[engine]") {
  const auto sfu_bound = [](double weight) { return mean_error({ProbeOp::exp2_row, ProbeOp::softmax}, weight); };
  const double in_order = sfu_bound(0), equal = sfu_bound(1), older_first = sfu_bound(1.2), weighted = sfu_bound(2);
  INFO("mean error: in order of arrival " << in_order << ", equal turns " << equal << ", age weight 1.2 " << older_first
                                          << ", 2 " << weighted);
  CHECK(equal < 0.10);
  CHECK(equal < in_order - 0.03);
  CHECK(equal < older_first);
  CHECK(equal < weighted);
  // The machine files carry the weight that fits.
  CHECK(load_machine_file(find_data_path("machines/h100-sxm.json")).sfu_share_age_weight.value == 1);
  CHECK(load_machine_file(find_data_path("machines/h200.json")).sfu_share_age_weight.value == 1);
}

TEST_CASE("the issue slots and the FMA and ALU pipes, booked in order of arrival: one pipe's stream right, reductions side by side not",
          "[engine]") {
  // The probe's add (64 FADD a repetition) and row_max (a reduction's fold, its FMNMX chains on the
  // ALU, then 64 FADD) rows. In the engine a warp's op books its issue slots and each pipe in turn.
  // That gives what a second and third warp add to a stream of FADD (each the other's 64 issue
  // slots a repetition) within 15 % of the end on average.
  CHECK(mean_error({ProbeOp::add}, 1) < 0.15);
  // But two or three warps doing reductions side by side stay in step on the GPU: each repetition's
  // folds share the ALU, then their FADDs share the FMA pipe, so every warp adds the others' ALU
  // time (measured 2,479-5,239 cycles over 16 repetitions). The engine lets one warp's FADDs run
  // under the next one's folds: a second warp adds a fifth of what it adds on the GPU, a third about
  // half (over the 16-repetition rows, 43 % of the measured cycles). Serving the issue slots and
  // those pipes as one server in turns brought the row_max rows from 22 % to 8 % mean error, yet
  // the attention sweep not at all (9.7-10.3 % MAPE against 9.8 %) at twice the simulation time, so
  // it was not kept (commit e290946; data/measured/h100/pipe-share-v2-prediction.txt).
  double measured = 0, simulated = 0;
  for (const Added& x : added({ProbeOp::row_max}, 1))
    if (x.end > 5000) measured += x.measured, simulated += x.simulated;  // the 16-repetition rows
  CHECK(simulated < 0.5 * measured);
}

TEST_CASE("the pipe share probe's second table as the engine predicts it", "[.prediction]") {
  // Prints data/measured/h100/pipe-share-v2-prediction.txt's "in order of arrival" rows (run it by
  // name): the ops fixed at compile time, the first warp's beside the others', 16 repetitions.
  using O = ProbeOp;
  const char* names[] = {"exp2_row", "add", "row_max", "softmax", "exp2"};
  std::vector<std::tuple<O, O, int>> cases;
  for (int w = 1; w <= 3; ++w)
    for (O o : {O::add, O::row_max, O::exp2, O::softmax}) cases.emplace_back(o, o, w);
  for (int w = 2; w <= 3; ++w)
    for (auto [a, b] : {std::pair{O::row_max, O::add}, {O::add, O::row_max}, {O::exp2, O::add}, {O::add, O::exp2},
                        {O::exp2, O::row_max}, {O::softmax, O::add}})
      cases.emplace_back(a, b, w);
  for (auto [a, b, w] : cases) {
    std::printf("%-9s %-9s %-5d %-5d ", names[static_cast<int>(a)], names[static_cast<int>(b)], w, 16);
    for (double end : replay(a, b, w, 16, 0, 1)) std::printf("  %7.0f", end);
    std::printf("\n");
  }
}
