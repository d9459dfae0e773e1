// Lesson 19 (FP8) and the GEMM scenes' `in` knob: the knob parses and refuses what the kernel
// refuses, the scenes simulate the kernel's fp8 instance (B N x K, 128-deep slices), the FP8 run's
// measured rows (gemm-fp8.json, rows with "in": "fp8") are found and kept apart from the bf16 ones,
// the exercise's key comes from the fp8 instance's own types and refuses the bf16 figure, and the
// lesson's figures are those of the data files (gemm-fp8.*, calibrate-fp8.txt, compare-sim-fp8.txt,
// gemm-epilogue-direct.txt, the machine file) and of the host e4m3 conversion.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernels/gemm/gemm.cuh"
#include "sim/machine.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/gemm_tiles.hpp"
#include "tests/lesson_helpers.hpp"
#include "viz/lesson/lesson.hpp"
#include "viz/lesson/measured.hpp"
#include "viz/lesson/pipeline_model.hpp"
#include "viz/lesson/quiz.hpp"

using namespace ts::viz;
namespace fs = std::filesystem;
using testing::all_prose;
using testing::fixed;
using testing::read_text;

namespace {

const Lesson& lesson19() { return testing::shipped_lesson("fp8"); }

using Fp8Kernel = ts::kernels::gemm<256, 4, false, ts::bf16, 2, 1, ts::fp8e4m3>;
using Bf16Kernel = ts::kernels::gemm<256, 4, true, ts::bf16, 2, 1>;

GemmKnobs fp8_knobs(uint32_t m, uint32_t n, uint32_t k) {
  GemmKnobs g{m, n, k, 4};
  g.in = InKnob::fp8;
  return g;
}

ts::kernels::GemmConfig fp8_config() {
  ts::kernels::GemmConfig cfg;
  cfg.in = ts::kernels::InType::fp8;
  cfg.b_row_major = false;
  return cfg;
}

}  // namespace

TEST_CASE("the in knob: bf16 or fp8 on the grid and pipeline scenes, refused as the kernel refuses", "[viz][fp8]") {
  for (SceneState s : {SceneState{PipelineState{}}, SceneState{GridState{}}}) {
    INFO(scene_info(kind_of(s)).name);
    const auto before = knob_values(s);
    CHECK(std::find(before.begin(), before.end(), std::pair<std::string, std::string>{"in", "bf16"}) != before.end());
    CHECK(set_knob(s, "in", "fp8").empty());
    CHECK(validate(s).empty());
    const auto run = scene_run(s);
    REQUIRE(run);
    CHECK(run->cfg.in == ts::kernels::InType::fp8);
    CHECK_FALSE(run->cfg.b_row_major);  // wgmma reads fp8 K-major only: B is N x K
    CHECK(set_knob(s, "in", "fp16").find("not one of: bf16 fp8") != std::string::npos);
    // What kernels::validate refuses, the scene refuses with the kernel's reason.
    CHECK(set_knob(s, "stages", "1").empty());
    CHECK(validate(s).find("2..4 stages") != std::string::npos);
    CHECK(set_knob(s, "stages", "3").empty());
    CHECK(set_knob(s, "block_n", "128").empty());
    CHECK(validate(s).find("block_n 256") != std::string::npos);
    CHECK(set_knob(s, "block_n", "256").empty());
    CHECK(set_knob(s, "k", "192").empty());  // a multiple of 64, not a whole fp8 slice
    CHECK(validate(s).find("multiple of 128") != std::string::npos);
    CHECK(set_knob(s, "k", "256").empty());
    CHECK(validate(s).empty());
    CHECK(set_knob(s, "in", "bf16").empty());
    CHECK(set_knob(s, "stages", "1").empty());
    CHECK(validate(s).empty());  // bf16 runs one stage
  }
  // The other GEMM scenes stay bf16: no such knob.
  SceneState barriers = BarriersState{};
  CHECK(set_knob(barriers, "in", "fp8").find("unknown knob") != std::string::npos);

  // In a lesson file: file:line: reason, as for every knob.
  const std::string head = "---\nid: f\ntitle: F\nscene: pipeline\n---\n\n## S\n";
  const auto bad = parse_lesson(head + "knobs: in=fp16\n\nText.\n", "f.md");
  REQUIRE(std::holds_alternative<LessonError>(bad));
  CHECK(std::get<LessonError>(bad).line == 8);
  CHECK(std::get<LessonError>(bad).reason.find("in") != std::string::npos);
  const auto together = parse_lesson(head + "knobs: in=fp8 stages=1\n\nText.\n", "f.md");
  REQUIRE(std::holds_alternative<LessonError>(together));
  CHECK(std::get<LessonError>(together).reason.find("in=fp8") != std::string::npos);
  CHECK(std::holds_alternative<Lesson>(parse_lesson(head + "knobs: in=fp8\n\nText.\n", "f.md")));
}

TEST_CASE("fp8 scenes simulate the kernel's fp8 instance: same stage bytes, half the slices, fewer cycles", "[viz][fp8]") {
  const GemmKnobs f = fp8_knobs(2048, 2048, 2048);
  GemmKnobs b = f;
  b.in = InKnob::bf16;
  const GemmRun fr = gemm_run(f), br = gemm_run(b);
  CHECK(fr.key() != br.key());
  CHECK(fr.key().find("fp8") != std::string::npos);
  CHECK(fr.tile_iterations() * 2 == br.tile_iterations());  // 128-deep slices against 64-deep
  // Same clock for both, so the cycles compare.
  GemmRun fr_at = fr, br_at = br;
  fr_at.clock_mhz = br_at.clock_mhz = 1600;
  const auto fs8 = simulate_gemm_run(fr_at), fs16 = simulate_gemm_run(br_at);
  INFO(fs8->error << " / " << fs16->error);
  REQUIRE(fs8->error.empty());
  REQUIRE(fs16->error.empty());
  CHECK(fs8->report.flops == Approx(fs16->report.flops));
  CHECK(fs8->report.cycles < 0.8 * fs16->report.cycles);  // the tensor core at twice the rate
  CHECK(fs8->report.cycles > 0.45 * fs16->report.cycles);  // ... and not a free lunch
  // "The same 4 stages fit": the kernel's shared memory is the same in both types.
  CHECK(fs8->shared_bytes == fs16->shared_bytes);
  CHECK(fs8->threads == fs16->threads);

  // The pipeline scene's stage table: fp8 has no one-stage instance.
  SimCache sims;
  const auto rows = stage_table(f, sims, measured_data());
  REQUIRE(rows.size() == 3);
  CHECK(rows.front().stages == 2);
  CHECK(rows.back().stages == 4);
}

TEST_CASE("gemm-fp8.json's rows are read as fp8 and found only for fp8 configurations", "[viz][measured][fp8]") {
  const MeasuredData& d = measured_data();
  REQUIRE(d.fp8.size() == 8);
  CHECK(d.fp8_date == "2026-11-26");
  CHECK(d.fp8_device == "NVIDIA H100 80GB HBM3");
  for (const MeasuredGemm& r : d.fp8) {
    CHECK(r.cfg.in == ts::kernels::InType::fp8);
    CHECK_FALSE(r.cfg.b_row_major);
  }
  for (const MeasuredGemm& r : d.gemm) CHECK(r.cfg.in == ts::kernels::InType::bf16);  // rows without "in"

  const GemmRun run = gemm_run(fp8_knobs(4096, 4096, 4096));
  const MeasuredGemm* row = find_measured(d, run.shape, run.cfg);
  REQUIRE(row);
  CHECK(row->cfg.in == ts::kernels::InType::fp8);
  CHECK(row->sweep == "fp8");
  CHECK(measured_date(d, *row) == d.fp8_date);
  CHECK(run.clock_mhz == row->sm_clock_mhz);
  CHECK(short_config(row->cfg).rfind("fp8, ", 0) == 0);
  // The bf16 configuration at the same shape finds gemm.json's row, never the fp8 one.
  const GemmRun plain = gemm_run(GemmKnobs{4096, 4096, 4096, 4});
  const MeasuredGemm* bf16_row = find_measured(d, plain.shape, plain.cfg);
  REQUIRE(bf16_row);
  CHECK(bf16_row->cfg.in == ts::kernels::InType::bf16);
  // A clustered fp8 configuration finds the clustered fp8 row; an unmeasured stage count none,
  // simulated at the clock of the fp8 run at that shape.
  GemmKnobs clustered = fp8_knobs(8192, 8192, 8192);
  clustered.cluster = 2, clustered.group = 4;
  const GemmRun cr = gemm_run(clustered);
  const MeasuredGemm* crow = find_measured(d, cr.shape, cr.cfg);
  REQUIRE(crow);
  CHECK(crow->cfg.cluster == 2);
  GemmKnobs two = fp8_knobs(4096, 4096, 4096);
  two.stages = 2;
  const GemmRun tr = gemm_run(two);
  CHECK_FALSE(find_measured(d, tr.shape, tr.cfg));
  CHECK(tr.clock_mhz == row->sm_clock_mhz);

  // A row whose "in" is neither is refused with the file named, the others of the file kept out.
  const fs::path file = fs::temp_directory_path() / "tilescope-fp8-bad-in.json";
  {
    std::ofstream out(file);
    out << R"({"device": "x", "date": "d", "rows": [{"m": 128, "n": 256, "k": 128, "tflops": 1, "in": "fp4"}]})";
  }
  const MeasuredData bad = load_measured("", "", "", "", "", file.string());
  CHECK(bad.fp8.empty());
  REQUIRE(bad.problems.size() == 1);
  CHECK(bad.problems[0].find("fp4") != std::string::npos);
  fs::remove(file);
}

TEST_CASE("the fp8 exercise: the key from the fp8 instance's own types, the bf16 figure refused", "[quiz][fp8]") {
  static_assert(Fp8Kernel::block_k == 128 && Bf16Kernel::block_k == 64);
  const GemmStageBytes stage = gemm_stage_bytes(fp8_config());
  REQUIRE(stage.error.empty());
  CHECK(stage.block_k == uint32_t(Fp8Kernel::block_k));
  CHECK(stage.read() == uint32_t(Fp8Kernel::consumers * Fp8Kernel::a_tile::bytes + Fp8Kernel::b_tile::bytes));

  const Question q = make_question("fp8-l2-bytes", {{"cluster", 1}, {"k", 1024}}, PipelineState{});
  REQUIRE(q.error.empty());
  CHECK(q.answer == 8 * 48);  // 8 slices of 128 x (16 KiB of A + 32 KiB of B)
  CHECK(accepts(q, 384));
  CHECK_FALSE(accepts(q, 16 * 48));  // the bf16 answer: 64-deep slices
  CHECK_FALSE(accepts(q, 385));
  const Question c = make_question("fp8-l2-bytes", {{"cluster", 2}, {"k", 2048}}, PipelineState{});
  REQUIRE(c.error.empty());
  CHECK(c.answer == 16 * 32);  // half of B multicast
  CHECK_FALSE(accepts(c, 32 * 32));  // bf16
  CHECK_FALSE(accepts(c, 16 * 48));  // as if nothing were shared
  const auto& reveal = std::get<PipelineState>(c.reveal);
  CHECK(reveal.gemm.in == InKnob::fp8);
  CHECK(reveal.gemm.cluster == 2);
  CHECK(reveal.gemm.k == 2048);
  CHECK(validate(c.reveal).empty());
  // The lesson's worked example (K = 4096, no cluster: 1536 KiB) is never asked.
  CHECK_FALSE(make_question("fp8-l2-bytes", {{"cluster", 1}, {"k", 4096}}, PipelineState{}).error.empty());
  // A wrong-typed base scene still gives a pipeline question.
  CHECK(kind_of(make_question("fp8-l2-bytes", {{"cluster", 1}, {"k", 512}}, GridState{}).reveal) == SceneKind::pipeline);
}

TEST_CASE("lesson 19: its steps load, the fp8 steps run fp8, and it ends with the exercise", "[lessons][fp8]") {
  const Lesson& l = lesson19();
  CHECK(l.scene == SceneKind::pipeline);
  CHECK(l.steps.size() >= 6);
  CHECK(l.steps.size() <= 10);
  CHECK(l.steps.back().exercise == "fp8-l2-bytes");
  CHECK(std::get<PipelineState>(l.steps.front().state).gemm.in == InKnob::bf16);
  int fp8_steps = 0;
  for (const LessonStep& s : l.steps) {
    CHECK(validate(s.state).empty());
    fp8_steps += std::get<PipelineState>(s.state).gemm.in == InKnob::fp8;
  }
  CHECK(fp8_steps >= 5);
}

TEST_CASE("lesson 19's e4m3 facts are those of the host conversion (as the GPU converts)", "[lessons][claims][fp8]") {
  using ts::fp8e4m3;
  const auto round = [](float v) { return float(fp8e4m3(v)); };
  CHECK(round(448.f) == 448.f);
  CHECK(448.f == 1.75f * 256.f);
  CHECK(round(1e6f) == 448.f);  // saturates, no infinity
  CHECK(round(-1e6f) == -448.f);
  CHECK(round(std::ldexp(1.f, -9)) == std::ldexp(1.f, -9));  // the smallest subnormal
  CHECK(round(std::ldexp(1.f, -11)) == 0.f);
  CHECK(round(1.125f) == 1.125f);  // the next number after 1
  CHECK(round(1.0625f) == 1.f);    // halfway: to even
  CHECK(round(1.1875f) == 1.25f);  // halfway: to even
  fp8e4m3 nan;
  nan.bits = 0x7f;  // every exponent and mantissa bit set
  CHECK(std::isnan(float(nan)));
  nan.bits = 0x78;  // every exponent bit, mantissa 0: a number, 256
  CHECK(float(nan) == 256.f);
  const std::string text = all_prose(lesson19());
  for (const char* f : {"4 exponent bits and 3 mantissa bits", "1.125", "448 (1.75 × 2^8)", "no infinity", "2^-9", "2^-6",
                        "**saturates**", "ties to even"})
    CHECK(text.find(f) != std::string::npos);
}

TEST_CASE("lesson 19's stage bytes and tensor-core rates are the kernel's and the calibration's", "[lessons][claims][fp8]") {
  // A stage: 16 KiB of A and 32 KiB of B in both types; per tile at K = 4096, 32 or 64 slices.
  ts::kernels::GemmConfig bf16_cfg;
  const GemmStageBytes f8 = gemm_stage_bytes(fp8_config()), b16 = gemm_stage_bytes(bf16_cfg);
  CHECK(f8.a == 16 * 1024);
  CHECK(f8.b_slice == 32 * 1024);
  CHECK(f8.read() == 48 * 1024);
  CHECK(b16.read() == f8.read());
  CHECK(4096 / f8.block_k == 32);
  CHECK(4096 / b16.block_k == 64);
  CHECK(32 * f8.read() / 1024 == 1536);
  CHECK(64 * b16.read() / 1024 == 3072);
  CHECK(sizeof(Fp8Kernel::b_tile) == sizeof(ts::st<ts::fp8e4m3, 256, 128>));
  static_assert(std::is_same_v<Fp8Kernel::b_tile, ts::st<ts::fp8e4m3, 256, 128>>);
  // C: 128 x 256 bf16.
  CHECK(128 * 256 * 2 == 64 * 1024);

  // 128 cycles per instruction for both, in the machine file and the calibration's output.
  const ts::sim::MachineSpec m = ts::sim::load_machine("h100-sxm");
  CHECK(m.wgmma_m64n256k32_fp8_interval.value == 128);
  CHECK(m.wgmma_m64n256k16_interval.value == 128);
  const double fp8_rate = 2.0 * 64 * 256 * 32 / m.wgmma_m64n256k32_fp8_interval.value;
  const double bf16_rate = 2.0 * 64 * 256 * 16 / m.wgmma_m64n256k16_interval.value;
  CHECK(fp8_rate == 8192);
  CHECK(bf16_rate == 4096);
  const std::string cal = read_text("data/measured/h100/calibrate-fp8.txt");
  CHECK(cal.find("wgmma_m64n256k32_fp8_interval 128 cycles/instruction") != std::string::npos);
  CHECK(cal.find("wgmma_m64n256k16_interval 128 cycles/instruction") != std::string::npos);
  CHECK(cal.find("2026-11-26") != std::string::npos);
  const std::string text = all_prose(lesson19());
  for (const char* f : {"16 KiB of A", "32 KiB of B, 48 KiB", "32 slices of 48 KiB, 1536 KiB", "64 slices, 3072 KiB",
                        "128 x 256 bf16, 64 KiB", "**128 cycles per instruction**", "8192 FLOP per cycle against 4096",
                        "wgmma_m64n256k32_fp8_interval", "`st<fp8e4m3, 256, 128>`", "2026-11-26", "four [stages]"})
    CHECK(text.find(f) != std::string::npos);
}

TEST_CASE("lesson 19's measured ratios are gemm-fp8.json's and gemm-epilogue-direct.txt's", "[lessons][claims][fp8]") {
  const MeasuredData& d = measured_data();
  double sq_lo = 9, sq_hi = 0, cl_lo = 9, cl_hi = 0, skinny = 0;
  const MeasuredGemm* fp8_4096 = nullptr;
  for (const MeasuredGemm& r : d.fp8) {
    const double ratio = r.tflops / r.cublas_tflops;
    if (r.cfg.cluster > 1) cl_lo = std::min(cl_lo, ratio), cl_hi = std::max(cl_hi, ratio);
    else if (r.shape.m == r.shape.k) sq_lo = std::min(sq_lo, ratio), sq_hi = std::max(sq_hi, ratio);
    if (r.cfg.cluster == 1 && r.shape.k == 256) skinny = ratio;
    if (r.cfg.cluster == 1 && r.shape.m == 4096 && r.shape.k == 4096) fp8_4096 = &r;
  }
  const std::string text = all_prose(lesson19());
  CHECK(text.find("**" + fixed(sq_lo, 2) + "-" + fixed(sq_hi, 2) + "x cuBLASLt**") != std::string::npos);
  CHECK(text.find(fixed(cl_lo, 2) + "-" + fixed(cl_hi, 2) + "x") != std::string::npos);
  CHECK(text.find("fell from " + fixed(skinny, 2) + "x cuBLASLt") != std::string::npos);
  // The bf16 kernel against cuBLAS in the staged rounds of the epilogue experiment, and the direct
  // stores at 4096x4096x256 in fp8.
  const std::string epi = read_text("data/measured/h100/gemm-epilogue-direct.txt");
  double lo = 9, hi = 0;
  std::istringstream lines(epi);
  std::string line;
  bool skinny_seen = false;
  while (std::getline(lines, line)) {
    std::smatch mt;
    if (std::regex_search(line, mt, std::regex(R"(^# bf16 +\d+\^3 +([0-9.]+) +([0-9.]+) +([0-9.]+) +([0-9.]+))"))) {
      for (int i : {1, 2}) lo = std::min(lo, std::stod(mt[i])), hi = std::max(hi, std::stod(mt[i]));
    }
    if (std::regex_search(line, mt, std::regex(R"(^# fp8 +4096x4096x256 +([0-9.]+) +([0-9.]+) +([0-9.]+) +([0-9.]+))"))) {
      skinny_seen = true;
      const double a = std::stod(mt[3]), b = std::stod(mt[4]);
      CHECK(text.find(fixed(std::min(a, b), 2) + "-" + fixed(std::max(a, b), 2) + "x") != std::string::npos);
      CHECK(fixed(std::stod(mt[1]), 2) == fixed(skinny, 2));  // the staged figure is the fp8 run's
    }
  }
  CHECK(skinny_seen);
  // "the largest loss of every shape it tried", "of the same day"
  {
    std::istringstream all(epi);
    std::string worst_row;
    double worst = 9;
    while (std::getline(all, line)) {
      std::smatch mt;
      if (!std::regex_search(line, mt, std::regex(R"(^# (bf16|fp8) +(\S+) +([0-9.]+) +([0-9.]+) +([0-9.]+) +([0-9.]+))"))) continue;
      const double kept = (std::stod(mt[5]) + std::stod(mt[6])) / (std::stod(mt[3]) + std::stod(mt[4]));
      if (kept < worst) worst = kept, worst_row = std::string(mt[1]) + " " + std::string(mt[2]);
    }
    CHECK(worst_row == "fp8 4096x4096x256");
    CHECK(epi.find("2026-11-26") != std::string::npos);
    CHECK(d.fp8_date == "2026-11-26");
  }
  CHECK(text.find("ran at " + fixed(lo, 2) + "-" + fixed(hi, 2) + "x cuBLAS") != std::string::npos);
  // About 1.7x the bf16 kernel's TFLOPS at 4096^3, near the same clock.
  REQUIRE(fp8_4096);
  const MeasuredGemm* bf16_4096 = find_measured(d, fp8_4096->shape, ts::kernels::GemmConfig{});
  REQUIRE(bf16_4096);
  CHECK(text.find("about " + fixed(fp8_4096->tflops / bf16_4096->tflops, 1) + "x the bf16 kernel's") != std::string::npos);
  CHECK(std::fabs(fp8_4096->sm_clock_mhz / bf16_4096->sm_clock_mhz - 1) < 0.02);
  // cuBLASLt's scales by pointer, as the run's reference says.
  CHECK(read_text("data/measured/h100/gemm-fp8.json").find("per-tensor scales by pointer") != std::string::npos);
  CHECK(text.find("by pointer") != std::string::npos);
  // The seed material's figure, cited as such.
  CHECK(text.find("0.93-1.10x cuBLASLt (seed material)") != std::string::npos);
}

TEST_CASE("lesson 19's accuracy and simulator figures are gemm-fp8.txt's and compare-sim-fp8.txt's", "[lessons][claims][fp8]") {
  const std::string file = read_text("data/measured/h100/gemm-fp8.txt");
  std::istringstream lines(file);
  std::string line;
  int checked = 0, equal = 0, ours_fewer_split = 0;
  const std::regex counts(R"(^fp8 (\d+)x(\d+)x(\d+) .*beyond one bf16 ulp: ours (\d+), cuBLASLt (\d+);)");
  while (std::getline(lines, line)) {
    std::smatch mt;
    if (!std::regex_search(line, mt, counts)) continue;
    ++checked;
    const long ours = std::stol(mt[4]), lt = std::stol(mt[5]);
    if (ours == lt) {
      ++equal;
      continue;
    }
    // The unequal ones are split-K runs: split explicitly, or by the kernel's default rule.
    const ts::kernels::GemmShape shape{std::stol(mt[1]), std::stol(mt[2]), std::stol(mt[3])};
    const bool split = line.find("split-k") != std::string::npos || ts::kernels::gemm_k_splits(shape, [] {
                                                                       ts::kernels::GemmConfig c;
                                                                       c.in = ts::kernels::InType::fp8;
                                                                       c.b_row_major = false;
                                                                       c.split_k = 0;
                                                                       return c;
                                                                     }(), 132) > 1;
    CHECK(split);
    ours_fewer_split += split && ours < lt;
  }
  CHECK(checked == 10);
  CHECK(equal == 8);
  CHECK(ours_fewer_split == 2);
  const std::string text = all_prose(lesson19());
  CHECK(text.find("checked ten shapes") != std::string::npos);
  CHECK(text.find("In 8 of the 10 shapes") != std::string::npos);
  CHECK(text.find("The 2 other shapes are split-K runs") != std::string::npos);
  CHECK(text.find("**beyond one bf16 ulp**") != std::string::npos);

  const std::string cmp = read_text("data/measured/h100/compare-sim-fp8.txt");
  CHECK(cmp.find("8 rows (TFLOPS)") != std::string::npos);
  CHECK(cmp.find("MAPE 5.8 %   Spearman rank correlation 0.690") != std::string::npos);
  CHECK(cmp.find("338.9     288.9   -14.8%") != std::string::npos);
  // The worst row is that one; rows come in gemm-fp8.json's order, whose last two are the clusters
  // of 2 at the shapes of rows 2 and 3 (4096^3, 8192^3).
  std::istringstream rows(cmp);
  double worst = 0;
  std::vector<std::pair<double, double>> figures;  // measured, simulated
  while (std::getline(rows, line)) {
    std::smatch mt;
    if (!std::regex_search(line, mt, std::regex(R"(([0-9.]+) +([0-9.]+) +([-0-9.]+)%$)"))) continue;
    figures.emplace_back(std::stod(mt[1]), std::stod(mt[2]));
    worst = std::max(worst, std::fabs(std::stod(mt[3])));
  }
  CHECK(worst == Approx(14.8));
  REQUIRE(figures.size() == 8);
  const std::string json = read_text("data/measured/h100/gemm-fp8.json");
  const size_t first_clustered = json.find("\"cluster\": 2");
  REQUIRE(first_clustered != std::string::npos);
  CHECK(json.rfind("\"cluster\": 1") < first_clustered);  // the clustered rows come last
  auto percent = [](double a, double b) { return std::lround(100 * (a / b - 1)); };
  CHECK(percent(figures[6].first, figures[1].first) == -7);
  CHECK(percent(figures[7].first, figures[2].first) == -11);
  CHECK(percent(figures[6].second, figures[1].second) == 1);
  CHECK(percent(figures[7].second, figures[2].second) == 1);
  for (const char* f : {"the 8 fp8 rows", "5.8 %", "0.690", "14.8 % too little", "K = 256", "ran 7 and 11 % slower",
                        "about 1 % faster"})
    CHECK(text.find(f) != std::string::npos);
}

TEST_CASE("lesson 19's exercise draws varied keys that neither the lesson's numbers nor a classmate's key give away", "[quiz][fp8]") {
  // test_quiz.cpp checks this for every shipped lesson; here for this one alone, so that a broken
  // lesson elsewhere does not hide it.
  const Lesson& l = lesson19();
  const LessonStep& step = l.steps.back();
  const QuizInfo* info = find_quiz(step.exercise);
  REQUIRE(info);
  std::vector<Question> qs;
  for (uint64_t seed = 1; seed <= 200; ++seed) qs.push_back(draw_question(*info, step.exercise_ranges, step.state, seed));
  std::map<double, int> keys;
  for (const Question& q : qs) {
    REQUIRE(q.error.empty());
    CHECK(accepts(q, q.answer));
    CHECK_FALSE(gives_away(q));
    CHECK(knob_values(q.reveal) != knob_values(step.state));
    CHECK(validate(q.reveal).empty());
    CHECK_FALSE(accepts(q, 2 * q.answer));  // the bf16 key: twice the slices of the same bytes
    ++keys[q.answer];
  }
  CHECK(keys.size() >= 5);
  for (const auto& [k, n] : keys) CHECK(n <= 0.4 * qs.size());
  std::set<double> printed;
  for (const LessonStep& s : l.steps)
    for (double v : numbers_in_text(s.markdown)) printed.insert(v);
  for (double v : printed) {
    int n = 0;
    for (const Question& q : qs) n += accepts(q, v);
    INFO("the lesson prints " << v);
    CHECK(n <= 0.4 * qs.size());
  }
  int copied = 0;
  for (size_t i = 1; i < qs.size(); ++i) copied += accepts(qs[i], qs[i - 1].answer);
  CHECK(copied <= 0.4 * qs.size());
}
