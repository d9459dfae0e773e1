// The exercises, one or more per lesson: each is a function from its drawn parameters to the
// question, the key, how the key follows, and the scene that shows the effect once the student
// has committed an answer. Keys come from the models the scenes draw and from the machine file,
// never typed in. quiz.hpp explains the scheme.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "sim/machine.hpp"
#include "viz/lesson/banks_model.hpp"
#include "viz/lesson/fragments_model.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/gemm_tiles.hpp"
#include "viz/lesson/grid_model.hpp"
#include "viz/lesson/quiz.hpp"
#include "viz/lesson/quiz_bank_attention.hpp"
#include "viz/lesson/registers_model.hpp"

namespace ts::viz {

const std::vector<QuizInfo>& quizzes() {
  static const std::vector<QuizInfo> all = [] {
    std::vector<QuizInfo> v = {
      {"gemm-intensity", SceneKind::roofline, "arithmetic intensity of a square bf16 GEMM",
       {{"n", "M = N = K", 128, 16384, 128, {}}}},
      {"bank-conflicts", SceneKind::banks, "wavefronts (and so conflicts) of one warp's shared-memory access",
       // Swizzles make most accesses conflict-free; drawn one time in four, so that the ideal is
       // not the answer to type without thinking.
       {{"access", "0 ldmatrix.x4, 1 a column of 16-byte reads, 2 a column of 4-byte reads", 0, 2, 1, {0, 1, 2, 2}},
        {"swizzle", "0 none, 1 32B, 2 64B, 3 128B", 0, 3, 1, {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}},
        {"pad", "bytes after each row (only without a swizzle)", 0, 64, 4, {0, 4, 8, 12, 16, 20, 24, 32, 48}},
        {"cols", "bf16 columns of the tile", 8, 128, 8, {16, 24, 32, 32, 40, 48, 64, 64, 96, 128, 128}}}},
      {"owner-lane", SceneKind::fragments, "which lane holds an element of a register fragment",
       {{"view", "0 the A fragment, 1 the B fragment, 2 the fp32 accumulator", 0, 2, 1, {}},
        {"row", "row of the element", 0, 15, 1, {}},
        {"col", "column of the element", 0, 15, 1, {}}}},
      {"ring-bytes", SceneKind::barriers, "shared memory of the input ring",
       {{"block_n", "output tile width", 128, 256, 128, {}}, {"stages", "stages of the ring", 1, 4, 1, {}}}},
      {"stages-needed", SceneKind::pipeline, "stages that hide a load, with the late release",
       {{"load", "cycles a TMA load of one slice takes", 100, 8000, 50, {}},
        {"block_n", "output tile width", 128, 256, 128, {}}}},
      {"consumer-registers", SceneKind::registers, "registers per consumer thread beside the producer's",
       {{"producer", "setmaxnreg of the producer", 24, 160, 8, {}}}},
      {"last-wave", SceneKind::grid, "tiles in the last wave",
       {{"m", "rows of C", 1024, 8192, 128, {}}, {"n", "columns of C", 1024, 8192, 256, {}},
        {"block_n", "output tile width", 128, 256, 128, {}}}},
      {"wave-blocks", SceneKind::grid, "A and B blocks that wave 0 reads",
       {{"m", "rows of C", 512, 4096, 512, {512, 1024, 2048, 4096}},
        {"n", "columns of C", 4096, 16384, 4096, {4096, 8192, 16384}},
        {"group", "tile rows per group (1: row-major)", 1, 32, 1, {1, 2, 4, 8, 16}}}},
      {"cluster-l2-bytes", SceneKind::grid, "bytes one CTA reads from L2 for its tile, with and without a cluster",
       {{"block_n", "output tile width", 128, 256, 128, {}}, {"cluster", "CTAs per cluster sharing B (1 or 2)", 1, 2, 1, {}},
        {"k", "the shared dimension", 256, 8192, 256, {256, 512, 768, 1024, 1536, 2048, 3072, 4096}}}},
      {"fp8-l2-bytes", SceneKind::pipeline, "bytes one CTA of the FP8 GEMM reads from L2 for its tile",
       {{"cluster", "CTAs per cluster sharing B (1 or 2)", 1, 2, 1, {}},
        {"k", "the shared dimension", 256, 8192, 256, {}}}},
      {"k-ranges", SceneKind::grid, "K ranges the GEMM's default split-K picks for a shape",
       {{"m", "rows of C", 128, 2048, 128, {}}, {"n", "columns of C", 256, 2048, 256, {}},
        {"k", "the shared dimension", 1024, 16384, 1024, {}}}},
      {"store-chunks", SceneKind::source, "staging-tile fills of the epilogue",
       {{"m", "rows of C", 256, 2048, 256, {}}, {"n", "columns of C", 512, 4096, 512, {}},
        {"block_n", "output tile width", 128, 256, 128, {}},
        {"consumers", "consumer warpgroups", 1, 2, 1, {}},
        {"stages", "pipeline stages", 1, 4, 1, {}},
        {"out_bytes", "bytes per element of C (2 bf16, 4 fp32)", 2, 4, 2, {}}}},
      {"clock-tflops", SceneKind::accuracy, "TFLOPS from simulated cycles and a clock",
       {{"n", "M = N = K", 1024, 8192, 1024, {2048, 4096, 8192}},
        {"kcycles", "simulated thousands of cycles", 10, 4000, 1, {}},
        {"mhz", "SM clock of the measured run", 1200, 1980, 10, {}}}},
    };
    // The attention lessons' exercises live in quiz_bank_attention.cpp.
    for (const auto& q : attention_quizzes()) v.push_back(q);
    return v;
  }();
  return all;
}

namespace {

std::string num(double v, int digits = 0) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

Question excluded(std::string why) {
  Question q;
  q.error = std::move(why);
  return q;
}

const sim::MachineSpec& h100() {
  static const sim::MachineSpec m = sim::load_machine("h100-sxm");
  return m;
}

template <class S> S base_or_default(const SceneState& base) {
  if (const auto* s = std::get_if<S>(&base)) return *s;
  return S{};
}

Question gemm_intensity(const QuizParams& p, const SceneState& base) {
  auto s = base_or_default<RooflineState>(base);
  const int64_t n = p.at("n");
  if (n == s.gemm) return excluded("the lesson's own example");
  Question q;
  q.text = "A bf16 GEMM with M = N = K = " + std::to_string(n) +
           " reads A and B and writes C, each crossing HBM exactly once. What is its arithmetic intensity, in FLOP per "
           "byte of HBM traffic?";
  q.unit = "FLOP per byte";
  q.answer = double(n) / 3.0;
  q.tolerance = 0.02;
  q.explanation = "2 x " + std::to_string(n) + "³ FLOPs over 3 x " + std::to_string(n) + "² elements x 2 bytes = n / 3 = " +
                  num(q.answer, 1) + " FLOP per byte";
  s.gemm = static_cast<uint32_t>(n);
  q.reveal = s;
  q.reveal_highlights = {"gemm", "ridge"};
  return q;
}

std::string access_text(Access a) {
  switch (a) {
    case Access::ldsm4: return "ldmatrix.x4 of the 16x16 sub-tile at (0, 0)";
    case Access::col128: return "each lane reads the first sixteen bytes of its own row (lane i, row i)";
    case Access::col32: return "each lane reads the first four bytes of its own row (lane i, row i)";
    case Access::row128: return "the warp reads 512 bytes in row order";
  }
  return "";
}

Question bank_conflicts(const QuizParams& p, const SceneState& base) {
  BanksState s = base_or_default<BanksState>(base);
  const Access accesses[] = {Access::ldsm4, Access::col128, Access::col32};
  const SwizzleKnob swizzles[] = {SwizzleKnob::none, SwizzleKnob::b32, SwizzleKnob::b64, SwizzleKnob::b128};
  s.dtype = Dtype::bf16;
  s.rows = 32;
  s.cols = static_cast<uint32_t>(p.at("cols"));
  s.access = accesses[p.at("access")];
  s.swizzle = swizzles[p.at("swizzle")];
  s.pad = s.swizzle == SwizzleKnob::none ? static_cast<uint32_t>(p.at("pad")) : 0;
  s.r = s.c = s.phase = 0;
  if (!validate(s).empty()) return excluded(validate(s));
  // A swizzle moves 16-byte chunks, so 4-byte column reads under one always cost the same: one
  // such question teaches it, a third of them would make its answer the one to guess.
  if (s.access == Access::col32 && s.swizzle != SwizzleKnob::none) return excluded("a swizzled 4-byte column read");
  // Likewise a swizzle takes every 16-byte access to the ideal whatever the width: asked of the
  // lesson's 128-byte rows only.
  if (s.swizzle != SwizzleKnob::none && s.cols != 64) return excluded("a swizzle on another width");
  const BanksAnalysis a = analyze_banks_scene(s);
  if (!a.error.empty() || !a.report) return excluded("the layout cannot make this access");
  Question q;
  const std::string layout = s.swizzle == SwizzleKnob::none
                                 ? (s.pad ? "no swizzle, " + std::to_string(s.pad) + " bytes of padding after each row" : "no swizzle, no padding")
                                 : "the " + std::string(name_of(s.swizzle)) + " swizzle, no padding";
  q.text = "A shared bf16 tile, a row per lane, " + std::to_string(s.cols) + " columns (rows of " + std::to_string(s.cols * 2) +
           " bytes), " + layout + ". One warp's access: " + access_text(s.access) +
           ". How many wavefronts does it take, counted as Nsight Compute counts them (the ideal plus the conflicts)?";
  q.unit = "wavefronts";
  q.answer = double(a.report->wavefronts);
  q.explanation = std::to_string(a.report->wavefronts) + " wavefronts: the ideal " +
                  std::to_string(a.report->wavefronts - a.report->conflicts) + " plus " +
                  std::to_string(a.report->conflicts) + " conflicts (the bank model, sim/banks)";
  q.reveal = s;
  q.reveal_highlights = {"lanes", "banks", "totals"};
  return q;
}

Question owner_lane(const QuizParams& p, const SceneState& base) {
  FragmentsState s = base_or_default<FragmentsState>(base);
  const FragmentView views[] = {FragmentView::a, FragmentView::b, FragmentView::acc};
  const FragmentsState asked = s;
  s.view = views[p.at("view")];
  s.swapped = false;
  s.row = static_cast<uint32_t>(p.at("row"));
  s.col = static_cast<uint32_t>(p.at("col"));
  if (s.view == asked.view && s.row == asked.row && s.col == asked.col) return excluded("the lesson's own example");
  const FragmentsModel m = fragments_model(s);
  const char* what[] = {"the 16x16 bf16 A fragment of mma.m16n8k16 (row layout)",
                        "the 16x16 bf16 B fragment of mma.m16n8k16 (column layout)",
                        "the 16x16 fp32 accumulator of mma.m16n8k16"};
  Question q;
  q.text = std::string("In ") + what[p.at("view")] + ", which lane holds element (row " + std::to_string(s.row) +
           ", column " + std::to_string(s.col) + ")?";
  q.unit = "";
  q.answer = m.pointed.lane;
  q.explanation = "lane " + std::to_string(m.pointed.lane) + ", its register " + std::to_string(m.pointed.reg) +
                  " (tiles/layout/fragments.hpp): the group lane / 4 picks the " + (m.row_layout ? "row" : "column") +
                  ", lane % 4 the pair";
  s.lane = m.pointed.lane;
  q.reveal = s;
  q.reveal_highlights = {"element", "lane"};
  return q;
}

// One stage of gemm.cuh: an A slice of 64 x 64 bf16 per consumer (two) and a B slice of 64 x block_n.
constexpr uint32_t stage_bytes(uint32_t block_n) { return (2 * 64 * 64 + 64 * block_n) * 2; }

Question ring_bytes(const QuizParams& p, const SceneState& base) {
  BarriersState s = base_or_default<BarriersState>(base);
  const auto bn = static_cast<uint32_t>(p.at("block_n")), stages = static_cast<uint32_t>(p.at("stages"));
  if (bn == s.gemm.block_n && stages == s.gemm.stages) return excluded("the lesson's own configuration");
  Question q;
  q.text = "The GEMM's block has two consumer warpgroups of 64 rows each and an output tile 128 x " + std::to_string(bn) +
           "; k advances 64 at a time. Each stage of the input ring holds what one k-step needs: an A slice per "
           "consumer and one B slice, all bf16. How many bytes of shared memory do " +
           std::to_string(stages) + " stage" + (stages > 1 ? "s" : "") + " take?";
  q.unit = "bytes";
  q.answer = double(stages) * stage_bytes(bn);
  q.explanation = std::to_string(stages) + " x (2 x 64 x 64 + 64 x " + std::to_string(bn) + ") x 2 bytes = " +
                  std::to_string(stages * stage_bytes(bn) / 1024) + " KiB; the producer's expect_bytes announces one stage";
  s.gemm.block_n = bn;
  s.gemm.stages = stages;
  s.slot = 0;
  q.reveal = s;
  q.reveal_highlights = {"producer", "bytes"};
  return q;
}

double wgmma_interval(uint32_t block_n) {
  return block_n == 256 ? h100().wgmma_m64n256k16_interval.value : h100().wgmma_m64n128k16_interval.value;
}

Question stages_needed(const QuizParams& p, const SceneState& base) {
  PipelineState s = base_or_default<PipelineState>(base);
  const auto bn = static_cast<uint32_t>(p.at("block_n"));
  const double load = double(p.at("load")), interval = wgmma_interval(bn);
  const double slice = 2 * 4 * interval;  // two consumers, four k16 wgmmas per 64-deep slice
  Question q;
  q.text = "Each 64-deep slice keeps the SM's tensor cores busy for two consumers x four m64n" + std::to_string(bn) +
           "k16 wgmmas of " + num(interval) + " cycles each (machine file). A TMA load of a slice takes " + num(load) +
           " cycles. A consumer hands a stage back one iteration late, once the next wgmma is issued. At least how many "
           "stages does the ring need so that no load is exposed?";
  q.unit = "stages";
  // The stage of slice k - 1 comes free as slice k's wgmma starts; slice k - 1 + S must land by
  // the start of its own wgmma, S - 1 slices later: (S - 1) x slice >= load.
  q.answer = std::ceil(load / slice) + 1;
  q.explanation = "a freed stage has S - 1 slices of " + num(slice) + " cycles to fill: (S - 1) x " + num(slice) + " >= " +
                  num(load) + " gives S = " + num(q.answer) + " (without the late release it would be one fewer)";
  s.gemm.block_n = bn;
  s.gemm.stages = static_cast<uint32_t>(std::clamp(q.answer, 1.0, 4.0));
  q.reveal = s;
  q.reveal_highlights = {"stages", "idle"};
  return q;
}

Question consumer_registers(const QuizParams& p, const SceneState& base) {
  RegistersState s = base_or_default<RegistersState>(base);
  const auto producer = static_cast<uint32_t>(p.at("producer"));
  const auto file = static_cast<uint32_t>(h100().registers_per_sm.value);
  RegistersState lesson = s;
  lesson.split = RegisterSplit::setmaxnreg;
  // The lesson's own answer (what sweeping the consumer knob at its producer budget finds).
  if (register_budget(s, file).most_for_consumers == register_budget([&] { auto t = lesson; t.producer = producer; return t; }(), file).most_for_consumers)
    return excluded("the lesson's own answer");
  s.split = RegisterSplit::setmaxnreg;
  s.producer = producer;
  const RegisterBudget b = register_budget(s, file);
  Question q;
  q.text = "A block of one producer and two consumer warpgroups (128 threads each) must fit one SM's " +
           std::to_string(file) + " registers. The producer keeps " + std::to_string(producer) +
           " registers per thread. What is the most registers per consumer thread that setmaxnreg can give (a "
           "multiple of 8, at most 256)?";
  q.unit = "registers";
  q.answer = b.most_for_consumers;
  q.explanation = "(" + std::to_string(file) + " - 128 x " + std::to_string(producer) + ") / 256 threads, rounded down to 8: " +
                  std::to_string(b.most_for_consumers);
  s.consumer = b.most_for_consumers;
  q.reveal = s;
  q.reveal_highlights = {"file"};
  return q;
}

Question last_wave(const QuizParams& p, const SceneState& base) {
  GridState s = base_or_default<GridState>(base);
  const auto m = static_cast<uint32_t>(p.at("m")), bn = static_cast<uint32_t>(p.at("block_n"));
  const auto n = static_cast<uint32_t>(p.at("n"));
  if (n % bn) return excluded("n not a multiple of the tile");
  if (m == s.gemm.m && n == s.gemm.n && bn == s.gemm.block_n) return excluded("the lesson's own shape");
  const auto sms = static_cast<uint32_t>(h100().sm_count.value);
  const uint32_t tiles = m / 128 * (n / bn), last = tiles % sms ? tiles % sms : sms;
  Question q;
  q.text = "C is " + std::to_string(m) + " x " + std::to_string(n) + ", cut into output tiles of 128 x " + std::to_string(bn) +
           ", one block per SM at a time on " + std::to_string(sms) + " SMs. How many tiles does the last wave compute?";
  q.unit = "tiles";
  q.answer = last;
  q.explanation = std::to_string(m / 128) + " x " + std::to_string(n / bn) + " = " + std::to_string(tiles) + " tiles = " +
                  std::to_string((tiles - 1) / sms) + " full waves of " + std::to_string(sms) + " and " + std::to_string(last);
  s.gemm.m = m, s.gemm.n = n, s.gemm.block_n = bn;
  s.wave = (tiles - 1) / sms;
  s.colour = TileColour::wave;
  q.reveal = s;
  q.reveal_highlights = {"tiles", "wave"};
  return q;
}

Question wave_blocks(const QuizParams& p, const SceneState& base) {
  GridState s = base_or_default<GridState>(base);
  const auto group = static_cast<uint32_t>(p.at("group"));
  s.gemm.m = static_cast<uint32_t>(p.at("m"));
  s.gemm.n = static_cast<uint32_t>(p.at("n"));
  s.gemm.block_n = 256;
  s.gemm.order = group == 1 ? OrderKnob::row : OrderKnob::grouped;
  s.gemm.group = group;
  s.wave = 0;
  s.colour = TileColour::wave;
  if (s.gemm.m / 128 < group) return excluded("a group taller than the GEMM is row-major again");
  const GridModel g = grid_model(s, static_cast<uint32_t>(h100().sm_count.value), 0);
  const std::string order = group == 1 ? "row-major order" : "grouped order with groups of " + std::to_string(group) + " tile rows";
  Question q;
  q.text = "C is " + std::to_string(s.gemm.m) + " x " + std::to_string(s.gemm.n) + " in 128 x 256 tiles, handed out in " + order +
           " to " + std::to_string(g.sms) + " SMs. How many distinct blocks (A row blocks plus B column blocks) do the tiles "
           "of wave 0 read?";
  q.unit = "blocks";
  q.answer = g.wave_a_blocks + g.wave_b_blocks;
  q.explanation = std::to_string(g.wave_tiles) + " tiles covering " + std::to_string(g.wave_a_blocks) + " tile rows and " +
                  std::to_string(g.wave_b_blocks) + " tile columns";
  q.reveal = s;
  q.reveal_highlights = {"tiles", "working-set"};
  return q;
}

Question cluster_l2_bytes(const QuizParams& p, const SceneState& base) {
  GridState s = base_or_default<GridState>(base);
  const auto bn = static_cast<uint32_t>(p.at("block_n")), cluster = static_cast<uint32_t>(p.at("cluster"));
  const auto k = static_cast<uint32_t>(p.at("k"));
  s.gemm.block_n = bn;
  s.gemm.cluster = cluster;
  s.gemm.k = k;
  if (cluster > 1) s.gemm.stages = std::max(s.gemm.stages, 2u);
  if (s.gemm.n % bn) s.gemm.n = (s.gemm.n / bn + 1) * bn;
  const GemmStageBytes b = gemm_stage_bytes(gemm_config(s.gemm));  // the kernel's own tile types
  if (!b.error.empty()) return excluded(b.error);
  const uint32_t slices = k / 64;
  Question q;
  q.text = "A CTA of the GEMM computes a 128 x " + std::to_string(bn) +
           " output tile with two consumer warpgroups of 64 rows, taking K in 64-deep slices of bf16 A and B. " +
           (cluster > 1 ? "Two CTAs computing vertically neighbouring tiles form a cluster: each loads half of every B slice "
                          "from L2 and multicasts it into both. "
                        : "There are no clusters: each CTA loads its own A and B slices. ") +
           "K = " + std::to_string(k) + ". How many KiB does one CTA read from L2 for its whole tile?";
  q.unit = "KiB";
  q.answer = double(slices) * b.read() / 1024;
  q.explanation = std::to_string(slices) + " slices x (A " + num(b.a / 1024.0) + " KiB + " +
                  (cluster > 1 ? "its half of B " : "B ") + num(b.b_share / 1024.0) + " KiB) = " + num(q.answer) + " KiB" +
                  (cluster > 1 ? "; without the cluster each slice would cost " + num(b.a / 1024.0 + b.b_slice / 1024.0) + " KiB" : "");
  s.colour = TileColour::wave;
  q.reveal = s;
  q.reveal_highlights = {"multicast", "clusters"};
  return q;
}

// What one CTA of the FP8 GEMM reads from L2 over its tile's K loop: K / block_k slices, each one
// stage of the ring (its A slices and all of B, or its share of B with a cluster), all from the
// kernel's fp8 instance (gemm<..., fp8e4m3>: block_k and the tile types). The bf16 figure, twice as
// many slices of the same bytes, is refused.
Question fp8_l2_bytes(const QuizParams& p, const SceneState& base) {
  PipelineState s = base_or_default<PipelineState>(base);
  const auto cluster = static_cast<uint32_t>(p.at("cluster")), k = static_cast<uint32_t>(p.at("k"));
  if (cluster == 1 && k == 4096) return excluded("the lesson's own example");
  s.gemm.in = InKnob::fp8;
  s.gemm.block_n = 256;
  s.gemm.cluster = cluster;
  s.gemm.k = k;
  s.gemm.stages = std::max(s.gemm.stages, 2u);
  s.from = 0, s.to = 100;
  const GemmStageBytes b = gemm_stage_bytes(gemm_config(s.gemm));  // the kernel's fp8 tile types
  if (!b.error.empty()) return excluded(b.error);
  if (b.block_k == 0 || k % b.block_k != 0) return excluded("K is not a whole number of fp8 k-slices");
  const uint32_t slices = k / b.block_k;
  Question q;
  q.text = "The FP8 GEMM (A and B in e4m3, B stored N x K) computes a 128 x 256 output tile per CTA with two consumer "
           "warpgroups of 64 rows each. " +
           std::string(cluster > 1 ? "Two CTAs computing vertically neighbouring tiles form a cluster: each loads half of every "
                                     "B slice from L2 and multicasts it into both. "
                                   : "There are no clusters: each CTA loads its own A and B slices. ") +
           "K = " + std::to_string(k) + ". How many KiB does one CTA read from L2 for its whole tile?";
  q.unit = "KiB";
  q.answer = double(slices) * b.read() / 1024;
  q.explanation = "a k-slice is 128 bytes of K, " + std::to_string(b.block_k) + " fp8 elements: " + std::to_string(k) + " / " +
                  std::to_string(b.block_k) + " = " + std::to_string(slices) + " slices x (A " + num(b.a / 1024.0) + " KiB + " +
                  (cluster > 1 ? "its half of B " : "B ") + num(b.b_share / 1024.0) + " KiB) = " + num(q.answer) +
                  " KiB; in bf16 the same stage bytes would be read " + std::to_string(k / 64) + " times: " +
                  num(2 * q.answer) + " KiB for the same FLOPs";
  q.reveal = s;
  q.reveal_highlights = {"stages", "measured"};
  return q;
}

// The K ranges kernels::gemm_k_splits picks with split_k 0 (the kernel's default) on the H100's SMs.
Question k_ranges(const QuizParams& p, const SceneState& base) {
  GridState s = base_or_default<GridState>(base);
  s.gemm.m = static_cast<uint32_t>(p.at("m"));
  s.gemm.n = static_cast<uint32_t>(p.at("n"));
  s.gemm.k = static_cast<uint32_t>(p.at("k"));
  s.gemm.block_n = 256;
  s.gemm.cluster = 1;
  s.gemm.split_k = 0;
  if (s.gemm.m == 1024 && s.gemm.n == 1024 && s.gemm.k == 16384) return excluded("the lesson's own shape");
  const int sms = static_cast<int>(h100().sm_count.value);
  kernels::GemmConfig cfg = gemm_config(s.gemm);
  const kernels::GemmShape shape{s.gemm.m, s.gemm.n, s.gemm.k};
  if (const std::string why = kernels::validate(shape, cfg); !why.empty()) return excluded(why);
  const int ranges = kernels::gemm_k_splits(shape, cfg, sms);  // the kernel's own rule
  const uint32_t tiles = s.gemm.m / 128 * (s.gemm.n / 256), slices = s.gemm.k / 64;
  Question q;
  q.text = "C is " + std::to_string(s.gemm.m) + " x " + std::to_string(s.gemm.n) + " in 128 x 256 tiles and K = " +
           std::to_string(s.gemm.k) + ", on " + std::to_string(sms) +
           " SMs. With split_k left to the kernel, how many K ranges does the launch run? (A launch that does not split runs one.)";
  q.unit = "ranges";
  q.answer = ranges;
  if (2 * tiles > uint32_t(sms))
    q.explanation = std::to_string(tiles) + " tiles keep more than half of the " + std::to_string(sms) + " SMs busy: no split, 1 range";
  else {
    const uint32_t wanted = std::clamp(std::min(uint32_t(sms) / tiles, slices / 16), 1u, 16u);
    q.explanation = std::to_string(tiles) + " tiles leave at least half the SMs idle: at most " + std::to_string(sms) + " / " +
                    std::to_string(tiles) + " = " + std::to_string(sms / tiles) + " ranges to fill them, at most " +
                    std::to_string(slices) + " / 16 = " + std::to_string(slices / 16) + " so that each is 1024 deep or more, at most 16: " +
                    std::to_string(wanted) +
                    (uint32_t(ranges) != wanted ? "; in ranges of whole slices (" + std::to_string((slices + wanted - 1) / wanted) +
                                                     " each) that is " + std::to_string(ranges)
                                               : std::string());
  }
  s.colour = TileColour::wave;
  s.wave = 0;
  q.reveal = s;
  q.reveal_highlights = {"ranges", "sms"};
  return q;
}

Question store_chunks(const QuizParams& p, const SceneState& base) {
  SourceState s = base_or_default<SourceState>(base);
  kernels::GemmConfig cfg;
  cfg.block_n = static_cast<int>(p.at("block_n"));
  cfg.consumers = static_cast<int>(p.at("consumers"));
  cfg.stages = static_cast<int>(p.at("stages"));
  const auto out = static_cast<uint32_t>(p.at("out_bytes"));
  cfg.out = out == 2 ? kernels::OutType::bf16 : kernels::OutType::fp32;
  const GemmStageBytes b = gemm_stage_bytes(cfg);  // the kernel's own store_cols for this instance
  if (!b.error.empty()) return excluded(b.error);
  const uint32_t bn = static_cast<uint32_t>(cfg.block_n), consumers = static_cast<uint32_t>(cfg.consumers);
  const auto m = static_cast<uint32_t>(p.at("m")), n = static_cast<uint32_t>(p.at("n"));
  const uint32_t ring = static_cast<uint32_t>(cfg.stages) * (b.a + b.b_slice), whole = consumers * 64 * bn * out;
  Question q;
  q.text = "Read `whole_tile_staging` and `store_cols` in gemm.cuh. C is " + std::to_string(m) + " x " + std::to_string(n) +
           " in " + (out == 2 ? "bf16" : "fp32") + ", computed in tiles of " + std::to_string(64 * consumers) + " x " +
           std::to_string(bn) + " (" + std::to_string(consumers) + " consumer warpgroup" + (consumers > 1 ? "s" : "") + ") with " +
           std::to_string(cfg.stages) + " stage" + (cfg.stages > 1 ? "s" : "") +
           ". How many times in all is a staging tile filled while C is written?";
  q.unit = "fills";
  // Every fill is 64 rows by store_cols columns of C.
  q.answer = double(m / 64) * (n / b.store_cols);
  q.explanation = "the ring takes " + std::to_string(cfg.stages) + " x " + std::to_string((b.a + b.b_slice) / 1024) +
                  " KiB and the whole of C's tile " + std::to_string(whole / 1024) + " KiB: " + std::to_string((ring + whole) / 1024) +
                  " KiB " + (b.whole_tile_staging ? "fits" : "does not fit") +
                  " in 227 KiB with 1 KiB of slack, so store_cols = " + std::to_string(b.store_cols) +
                  " columns, and each fill is 64 rows x " + std::to_string(b.store_cols) + " columns of C: " + std::to_string(m) +
                  " / 64 x " + std::to_string(n) + " / " + std::to_string(b.store_cols);
  q.reveal = s;
  q.reveal_highlights = {"code"};
  return q;
}

Question clock_tflops(const QuizParams& p, const SceneState& base) {
  AccuracyState s = base_or_default<AccuracyState>(base);
  const double n = double(p.at("n")), cycles = 1000.0 * double(p.at("kcycles")), mhz = double(p.at("mhz"));
  const double tflops = 2 * n * n * n / (cycles / (mhz * 1e6)) / 1e12;
  // Only runs a GEMM could take on an H100: between a tenth of the peak and the peak.
  if (tflops < 0.1 * h100().bf16_dense_tflops.value || tflops > h100().bf16_dense_tflops.value)
    return excluded("not a run an H100 could make");
  Question q;
  q.text = "The simulator counts " + num(cycles) + " cycles for a bf16 GEMM with M = N = K = " + num(n) +
           ". The H100's SM clock during the measured run was " + num(mhz) + " MHz. How many TFLOPS does the simulation "
           "predict at that clock?";
  q.unit = "TFLOPS";
  q.answer = tflops;
  q.tolerance = 0.01;
  q.explanation = "2 x " + num(n) + "³ FLOPs / (" + num(cycles) + " cycles / " + num(mhz) + " MHz) = " + num(tflops, 1) +
                  " TFLOPS; at another clock the same cycles give another figure";
  q.reveal = s;
  q.reveal_highlights = {"table"};
  return q;
}

}  // namespace

Question make_question(std::string_view id, const QuizParams& params, const SceneState& base) {
  Question q;
  try {
    if (id == "gemm-intensity") q = gemm_intensity(params, base);
    else if (id == "bank-conflicts") q = bank_conflicts(params, base);
    else if (id == "owner-lane") q = owner_lane(params, base);
    else if (id == "ring-bytes") q = ring_bytes(params, base);
    else if (id == "stages-needed") q = stages_needed(params, base);
    else if (id == "consumer-registers") q = consumer_registers(params, base);
    else if (id == "last-wave") q = last_wave(params, base);
    else if (id == "wave-blocks") q = wave_blocks(params, base);
    else if (id == "cluster-l2-bytes") q = cluster_l2_bytes(params, base);
    else if (id == "k-ranges") q = k_ranges(params, base);
    else if (id == "fp8-l2-bytes") q = fp8_l2_bytes(params, base);
    else if (id == "store-chunks") q = store_chunks(params, base);
    else if (id == "clock-tflops") q = clock_tflops(params, base);
    else if (is_attention_quiz(id)) q = make_attention_question(id, params, base);
    else q.error = "unknown exercise '" + std::string(id) + "'";
  } catch (const std::exception& e) {  // a parameter missing, or no machine file
    q.error = e.what();
  }
  q.exercise = std::string(id);
  q.params = params;
  return q;
}

}  // namespace ts::viz
