// Lesson 07's split-K steps and the grid scene's split_k knob: the knob parses and refuses like the
// others, the grid shows the K ranges as the kernel numbers them (gemm::k_range) and the SMs they
// fill, the simulation adds the sum launch, the exercise's key is the kernel's own gemm_k_splits,
// the split-K sweep's measured rows are found, and the lesson's figures are those of
// data/measured/h100/gemm-splitk.*.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "kernels/gemm/gemm_api.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/gemm_tiles.hpp"
#include "viz/lesson/grid_model.hpp"
#include "tests/lesson_helpers.hpp"
#include "viz/lesson/lesson.hpp"
#include "viz/lesson/measured.hpp"
#include "viz/lesson/quiz.hpp"

using namespace ts::viz;
namespace fs = std::filesystem;
using testing::all_prose;
using testing::fixed;
using testing::read_text;

namespace {

constexpr int kSms = 132;  // data/machines/h100-sxm.json (checked below)

const Lesson& lesson07() { return testing::shipped_lesson("persistent-skinny"); }

int default_splits(int64_t m, int64_t n, int64_t k) {
  ts::kernels::GemmConfig cfg;
  cfg.split_k = 0;
  return ts::kernels::gemm_k_splits({m, n, k}, cfg, kSms);
}

GridState grid_at(uint32_t m, uint32_t n, uint32_t k, uint32_t split) {
  GridState s;
  s.gemm.m = m, s.gemm.n = n, s.gemm.k = k, s.gemm.split_k = split;
  return s;
}

}  // namespace

TEST_CASE("the split_k knob: auto or 1..16, on the grid scene, refused with a reason otherwise", "[viz][splitk]") {
  CHECK(machine_sms("h100-sxm") == kSms);
  SceneState grid = GridState{};
  CHECK(std::get<GridState>(grid).gemm.split_k == 0);  // auto by default: the scenes as before
  CHECK(set_knob(grid, "split_k", "4").empty());
  CHECK(std::get<GridState>(grid).gemm.split_k == 4);
  CHECK(gemm_config(std::get<GridState>(grid).gemm).split_k == 4);
  const auto values = knob_values(grid);
  CHECK(std::find(values.begin(), values.end(), std::pair<std::string, std::string>{"split_k", "4"}) != values.end());
  CHECK(set_knob(grid, "split_k", "auto").empty());
  CHECK(std::get<GridState>(grid).gemm.split_k == 0);
  CHECK(set_knob(grid, "split_k", "17").find("split_k") != std::string::npos);
  CHECK_FALSE(set_knob(grid, "split_k", "0").empty());
  CHECK_FALSE(set_knob(grid, "split_k", "four").empty());
  CHECK(std::get<GridState>(grid).gemm.split_k == 0);  // a refused value changes nothing
  SceneState pipeline = PipelineState{};
  CHECK_FALSE(set_knob(pipeline, "split_k", "2").empty());  // the grid's knob only

  const std::string head = "---\nid: s\ntitle: S\nscene: grid\n---\n\n## S\n";
  const auto bad = parse_lesson(head + "knobs: split_k=32\n\nText.\n", "s.md");
  REQUIRE(std::holds_alternative<LessonError>(bad));
  CHECK(std::get<LessonError>(bad).line == 8);
  CHECK(std::holds_alternative<Lesson>(parse_lesson(head + "knobs: split_k=auto\n\nText.\n", "s.md")));
}

TEST_CASE("gemm_run resolves auto to the kernel's ranges, so auto and the same number share a run", "[viz][splitk]") {
  GemmKnobs g{1024, 1024, 16384, 4};
  const GemmRun automatic = gemm_run(g);
  CHECK(automatic.cfg.split_k == default_splits(1024, 1024, 16384));
  g.split_k = static_cast<uint32_t>(default_splits(1024, 1024, 16384));
  CHECK(gemm_run(g).key() == automatic.key());
  g.split_k = 1;
  CHECK(gemm_run(g).key() != automatic.key());
  // The shapes of the other lessons do not split: their runs are as before.
  CHECK(gemm_run(GemmKnobs{4096, 4096, 512, 4}).cfg.split_k == 1);
  CHECK(gemm_run(GemmKnobs{2048, 2048, 2048, 4}).cfg.split_k == 1);
}

TEST_CASE("grid: with split-K each (tile, range) is a step as gemm::k_range numbers them, filling the SMs", "[viz][grid][splitk]") {
  const GridModel plain = grid_model(grid_at(1024, 1024, 16384, 1), kSms, 50.0 * 1024 * 1024);
  REQUIRE(plain.error.empty());
  CHECK(plain.tiles == 32);
  CHECK(plain.k_splits == 1);
  CHECK(plain.steps == 32);
  CHECK(plain.busy_sms == 32);  // "32 busy and 100 idle"
  CHECK(plain.sms - plain.busy_sms == 100);
  CHECK(plain.slice_bytes == 0);

  const GridModel split = grid_model(grid_at(1024, 1024, 16384, 4), kSms, 50.0 * 1024 * 1024);
  REQUIRE(split.error.empty());
  CHECK(split.k_splits == 4);
  CHECK(split.k_iters == 16384 / 64 / 4);
  CHECK(split.steps == 128);  // "32 tiles x 4 ranges = 128 blocks of work"
  CHECK(split.busy_sms == 128);
  CHECK(split.waves == 1);
  CHECK(split.slice_bytes == 4.0 * 1024 * 1024 * 4);  // 16 MiB
  // Range by range: range r of a tile is step (range 0's step) + r x tiles, all in wave 0.
  for (uint32_t t = 0; t < split.tiles; ++t)
    for (uint32_t r = 0; r < 4; ++r) {
      CHECK(split.range_order[t * 4 + r] == split.order_of[t] + r * split.tiles);
      CHECK(split.range_wave[t * 4 + r] == 0);
    }
  // The kernel's own numbering, asked of the instance the simulator runs.
  ts::kernels::GemmConfig cfg = gemm_config(grid_at(1024, 1024, 16384, 4).gemm);
  const GemmTileOrder order = gemm_tile_order({1024, 1024, 16384}, cfg, kSms);
  REQUIRE(order.error.empty());
  CHECK(order.k_splits == 4);
  CHECK(order.steps.size() == 128);
  for (size_t i = 0; i < order.steps.size(); ++i) CHECK(order.range[i] == i / 32);

  // auto is the kernel's choice; without ranges to fill, as before.
  CHECK(grid_model(grid_at(1024, 1024, 16384, 0), kSms, 1).k_splits == uint32_t(default_splits(1024, 1024, 16384)));
  const GridModel big = grid_model(grid_at(4096, 4096, 1024, 0), kSms, 1);
  CHECK(big.k_splits == 1);
  CHECK(big.steps == big.tiles);
  CHECK(grid_model(grid_at(4096, 4096, 1024, 2), kSms, 1).slice_bytes == 2.0 * 4096 * 4096 * 4);  // 128 MiB
}

TEST_CASE("the simulation of a split GEMM runs both launches: the GEMM and the sum of its slices", "[viz][splitk]") {
  GemmKnobs g{1024, 1024, 4096, 4};  // 32 tiles, K split into 4 ranges of 16 slices: a quick run
  g.split_k = 4;
  const auto split = simulate_gemm_run(gemm_run(g));
  REQUIRE(split->error.empty());
  CHECK(split->k_splits == 4);
  CHECK(split->sum_cycles > 0);
  CHECK(split->gemm_cycles + split->sum_cycles == Approx(split->report.cycles));
  CHECK(split->report.flops == Approx(2.0 * 1024 * 1024 * 4096));
  // The sum reads the slices: the HBM and L2 bytes are more than the GEMM's inputs alone.
  g.split_k = 1;
  GemmRun unsplit_run = gemm_run(g);
  unsplit_run.clock_mhz = split->clock_mhz;
  const auto unsplit = simulate_gemm_run(unsplit_run);
  REQUIRE(unsplit->error.empty());
  CHECK(unsplit->k_splits == 1);
  CHECK(unsplit->sum_cycles == 0);
  CHECK(split->report.global_write_bytes > unsplit->report.global_write_bytes);
  // 32 tiles on 132 SMs: splitting K in 4 is faster, sum and all.
  CHECK(split->report.cycles < unsplit->report.cycles);
}

TEST_CASE("the split-K sweep's rows are found by configuration and ranges, with their own date", "[viz][measured][splitk]") {
  const MeasuredData& d = measured_data();
  REQUIRE_FALSE(d.splitk.empty());
  CHECK(d.splitk_date == "2026-11-26");
  GemmKnobs g{1024, 1024, 16384, 4};
  const GemmRun run = gemm_run(g);  // auto: 4 ranges
  const MeasuredGemm* row = find_measured(d, run.shape, run.cfg);
  REQUIRE(row);
  CHECK(row->cfg.split_k == 4);
  CHECK(row->sweep == "splitk");
  CHECK(measured_date(d, *row) == d.splitk_date);
  CHECK(run.clock_mhz == row->sm_clock_mhz);
  const auto rows = find_measured_splits(d, run.shape, run.cfg);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]->cfg.split_k == 1);
  CHECK(rows[1]->cfg.split_k == 2);
  CHECK(rows[2]->cfg.split_k == 4);
  // gemm.json's rows ran unsplit: a split configuration is not matched to them.
  GemmKnobs skinny{4096, 4096, 512, 4};
  const GemmRun s = gemm_run(skinny);
  const MeasuredGemm* main = find_measured(d, s.shape, s.cfg);
  REQUIRE(main);
  CHECK(main->cfg.split_k == 1);
  ts::kernels::GemmConfig two = s.cfg;
  two.split_k = 2;
  CHECK(find_measured(d, s.shape, two) == nullptr);
}

TEST_CASE("the exercise: its key is the kernel's gemm_k_splits, the figure without the rule's limits refused", "[quiz][splitk]") {
  const Question q = make_question("k-ranges", {{"m", 512}, {"n", 1024}, {"k", 8192}}, GridState{});
  REQUIRE(q.error.empty());
  CHECK(q.answer == default_splits(512, 1024, 8192));
  CHECK(q.answer == 8);  // 16 tiles: 132 / 16 = 8 ranges, and 128 slices / 16 = 8 allow it
  CHECK(accepts(q, 8));
  CHECK_FALSE(accepts(q, 9));
  CHECK_FALSE(accepts(q, 1));
  // The depth of K limits: 16 tiles, K = 2048 (32 slices) allows 2 ranges, not the 8 the SMs could take.
  const Question shallow = make_question("k-ranges", {{"m", 512}, {"n", 1024}, {"k", 2048}}, GridState{});
  CHECK(shallow.answer == default_splits(512, 1024, 2048));
  CHECK(accepts(shallow, 2));
  CHECK_FALSE(accepts(shallow, 8));
  // Enough tiles: no split.
  const Question wide = make_question("k-ranges", {{"m", 2048}, {"n", 2048}, {"k", 16384}}, GridState{});
  CHECK(wide.answer == 1);
  CHECK_FALSE(accepts(wide, 2));
  // Every draw's key is the kernel's, and the reveal shows that shape with auto.
  for (int64_t m = 128; m <= 2048; m += 640)
    for (int64_t n = 256; n <= 2048; n += 256)
      for (int64_t k = 1024; k <= 16384; k += 3072) {
        const Question d = make_question("k-ranges", {{"m", m}, {"n", n}, {"k", k}}, GridState{});
        if (!d.error.empty()) continue;
        CHECK(d.answer == default_splits(m, n, k));
        const auto& reveal = std::get<GridState>(d.reveal);
        CHECK(reveal.gemm.split_k == 0);
        CHECK(grid_model(reveal, kSms, 1).k_splits == uint32_t(d.answer));
      }
  // The lesson's own shape is never asked.
  CHECK_FALSE(make_question("k-ranges", {{"m", 1024}, {"n", 1024}, {"k", 16384}}, GridState{}).error.empty());
}

TEST_CASE("lesson 07 describes gemm_k_splits as it is: the default picks the fastest measured row", "[lessons][claims][splitk]") {
  const std::string text = all_prose(lesson07());
  // The lesson's examples, from the kernel's own rule.
  CHECK(default_splits(1024, 1024, 16384) == 4);
  CHECK(default_splits(4096, 4096, 1024) == 1);
  CHECK(text.find("picks 4 ranges (132 / 32 tiles)") != std::string::npos);
  // The rule's parts: half the SMs idle (2 x tiles <= SMs), SMs / tiles, 16 slices deep, at most 16.
  CHECK(default_splits(128 * 8, 256 * 8, 16384) == 2);       // 64 tiles: 2 x 64 = 128 <= 132 splits
  CHECK(default_splits(128 * 67, 256, 16384) == 1);          // 67 tiles: 134 > 132 does not
  CHECK(default_splits(128, 256, 16384) == 16);              // one tile: at most 16 ranges
  CHECK(default_splits(128, 256, 64 * 16 * 3) == 3);         // 48 slices: ranges of 16 slices or more
  for (const char* f : {"at least half the SMs idle", "SMs divided by tiles, rounded down", "16 slices (1024 of K)",
                        "never more than 16 ranges", "ranges of whole slices"})
    CHECK(text.find(f) != std::string::npos);
  // At every shape of the split-K sweep the default's ranges ran fastest.
  std::map<std::string, const MeasuredGemm*> best;
  for (const MeasuredGemm& r : measured_data().splitk) {
    const std::string key = std::to_string(r.shape.m) + "x" + std::to_string(r.shape.n) + "x" + std::to_string(r.shape.k);
    if (!best[key] || r.tflops > best[key]->tflops) best[key] = &r;
  }
  REQUIRE(best.size() == 4);
  for (const auto& [shape, row] : best) {
    INFO(shape);
    CHECK(row->cfg.split_k == default_splits(row->shape.m, row->shape.n, row->shape.k));
  }
  CHECK(text.find("the rule's choice is the fastest row") != std::string::npos);
}

TEST_CASE("lesson 07 quotes gemm-splitk.json and gemm-splitk.txt as the files have them", "[lessons][claims][splitk]") {
  const std::string text = all_prose(lesson07());
  const MeasuredData& d = measured_data();
  const auto row = [&](int64_t m, int64_t n, int64_t k, int split) -> const MeasuredGemm& {
    for (const MeasuredGemm& r : d.splitk)
      if (r.shape.m == m && r.shape.n == n && r.shape.k == k && r.cfg.split_k == split) return r;
    FAIL("no row " << m << "x" << n << "x" << k << " split " << split);
    throw;
  };
  const MeasuredGemm& one = row(1024, 1024, 16384, 1);
  const MeasuredGemm& four = row(1024, 1024, 16384, 4);
  CHECK(text.find("from " + fixed(one.tflops, 1) + " TFLOPS unsplit, " + fixed(one.tflops / one.cublas_tflops, 2) + "x cuBLAS") !=
        std::string::npos);
  CHECK(text.find(fixed(four.tflops, 1) + " TFLOPS, " + fixed(four.tflops / four.cublas_tflops, 2) + "x") != std::string::npos);
  CHECK(text.find(fixed(row(4096, 4096, 1024, 1).tflops, 1) + " TFLOPS unsplit and " + fixed(row(4096, 4096, 1024, 2).tflops, 1) +
                  " TFLOPS with two ranges") != std::string::npos);
  CHECK(row(2048, 1024, 8192, 4).tflops < row(2048, 1024, 8192, 2).tflops);  // "four ranges ran slower than two"
  CHECK(text.find("four ranges ran slower than two") != std::string::npos);
  // Nsight Compute's breakdown and the slices' sizes, in the text file and in the lesson.
  const std::string file = read_text("data/measured/h100/gemm-splitk.txt");
  for (const char* f : {"gemm 164.4 us", "gemm 52.5 us + sum 10.5 us", "DRAM read 16.8 MB", "the slices are 128 MB"})
    CHECK(file.find(f) != std::string::npos);
  for (const char* f : {"164.4 µs", "52.5 µs", "10.5 µs", "16.8 MB", "16 MiB", "128 MiB", "512 tiles, nearly four per SM"})
    CHECK(text.find(f) != std::string::npos);
  CHECK(4.0 * 1024 * 1024 * 4 == 16 * 1024 * 1024);         // 4 ranges of 1024 x 1024 fp32: 16 MiB (16.8 MB)
  CHECK(2.0 * 4096 * 4096 * 4 == 128.0 * 1024 * 1024);      // 2 ranges of 4096 x 4096 fp32: 128 MiB
  // 4096 x 4096 in 128x256 tiles is 512 tiles (gemm-splitk.txt's table says 128: not quoted).
  const GridModel big = grid_model(grid_at(4096, 4096, 1024, 0), kSms, 1);
  CHECK(big.tiles == 512);
  CHECK(big.tiles / double(kSms) == Approx(3.9).epsilon(0.01));
}

// The split tail (kernels::gemm_plan) on the grid scene: lesson 07's last step.
TEST_CASE("the tail_split knob: off, auto or 2..16, on the grid scene, refused with a reason otherwise", "[viz][splitk][tail]") {
  SceneState grid = GridState{};
  CHECK(std::get<GridState>(grid).gemm.tail_split == 1);  // off by default: the sweeps' runs, the scenes as before
  CHECK(set_knob(grid, "tail_split", "auto").empty());
  CHECK(std::get<GridState>(grid).gemm.tail_split == 0);
  CHECK(set_knob(grid, "tail_split", "5").empty());
  CHECK(std::get<GridState>(grid).gemm.tail_split == 5);
  CHECK(gemm_config(std::get<GridState>(grid).gemm).tail_split == 5);
  const auto values = knob_values(grid);
  CHECK(std::find(values.begin(), values.end(), std::pair<std::string, std::string>{"tail_split", "5"}) != values.end());
  CHECK(set_knob(grid, "tail_split", "off").empty());
  CHECK(std::get<GridState>(grid).gemm.tail_split == 1);
  CHECK(set_knob(grid, "tail_split", "1").find("tail_split") != std::string::npos);  // "off" says it
  CHECK_FALSE(set_knob(grid, "tail_split", "17").empty());
  CHECK(std::get<GridState>(grid).gemm.tail_split == 1);
  SceneState pipeline = PipelineState{};
  CHECK_FALSE(set_knob(pipeline, "tail_split", "auto").empty());  // the grid's knob only
}

TEST_CASE("grid: a split tail runs whole waves over all of K, then the last wave's tiles in K ranges", "[viz][grid][splitk][tail]") {
  GridState s = grid_at(3072, 3072, 8192, 0);
  s.gemm.tail_split = 0;  // the kernel's rule: 24 tiles past two waves, in 5 ranges
  s.wave = 2;
  const GridModel m = grid_model(s, kSms, 50.0 * 1024 * 1024);
  REQUIRE(m.error.empty());
  const ts::kernels::GemmPlan plan = ts::kernels::gemm_plan({3072, 3072, 8192}, gemm_config(s.gemm), kSms);
  REQUIRE(plan.splits == 5);
  CHECK(m.tiles == 288);
  CHECK(m.head_tiles == uint32_t(plan.head_tiles));
  CHECK(m.head_tiles == 264);
  CHECK(m.head_waves == 2);
  CHECK(m.k_splits == 5);
  CHECK(m.k_iters == 26);  // 128 slices in ranges of 26 (the last 24)
  CHECK(m.steps == 264 + 24 * 5);
  CHECK(m.waves == 3);
  CHECK(m.busy_sms == 120);  // the last wave: 24 tiles x 5 ranges
  CHECK(m.grid == 132);      // the first launch's blocks
  CHECK(m.slice_bytes == 24.0 * 128 * 256 * 5 * 4);
  std::vector<bool> seen(m.steps, false);
  for (uint32_t t = 0; t < m.tiles; ++t) {
    const bool head = m.order_of[t] < m.head_tiles;
    for (uint32_t r = 0; r < m.k_splits; ++r) {
      const uint32_t step = m.range_order[t * 5 + r], wave = m.range_wave[t * 5 + r];
      if (head) {  // one block over all of K: every band is that block
        CHECK(step == m.order_of[t]);
        CHECK(wave == m.wave_of[t]);
        CHECK(wave < 2);
      } else {
        CHECK(step >= 264);
        CHECK(wave == 2);
      }
      seen[step] = true;
    }
  }
  CHECK(std::count(seen.begin(), seen.end(), true) == int(m.steps));  // every step is a tile's range
  // The tail's numbering is the second launch's own (first_tile 264): its tiles are the block
  // order's last 24, range by range.
  const GemmTileOrder order = gemm_tile_order({3072, 3072, 8192}, gemm_config(s.gemm), kSms);
  REQUIRE(order.error.empty());
  CHECK(order.head_steps == 264);
  CHECK(order.output_steps() == 288);
  for (size_t i = 264; i < order.steps.size(); ++i) CHECK(order.range[i] == (i - 264) / 24);
  // A head wave reads its blocks over all of K; the tail's wave over one range's part of K.
  s.wave = 0;
  const GridModel head_wave = grid_model(s, kSms, 50.0 * 1024 * 1024);
  GridState off = s;
  off.gemm.tail_split = 1;
  const GridModel unsplit = grid_model(off, kSms, 50.0 * 1024 * 1024);
  CHECK(head_wave.wave_bytes == unsplit.wave_bytes);
  CHECK(unsplit.head_tiles == 0);
  CHECK(unsplit.k_splits == 1);
  CHECK(unsplit.waves == 3);
  off.wave = 2;
  CHECK(grid_model(off, kSms, 1).busy_sms == 24);  // unsplit, the last wave leaves 108 SMs idle
}

TEST_CASE("the simulation of a split tail runs three launches: the head, the tail's ranges and their sum", "[viz][splitk][tail]") {
  GemmKnobs g{1536, 3072, 1024, 4};  // 144 tiles: a wave of 132 and 12 more, in 3 ranges: a quick run
  g.tail_split = 3;
  const GemmRun run = gemm_run(g);
  CHECK(run.cfg.tail_split == 3);
  CHECK(run.cfg.split_k == 1);
  const auto split = simulate_gemm_run(run);
  REQUIRE(split->error.empty());
  CHECK(split->k_splits == 3);
  CHECK(split->tail_tiles == 12);
  CHECK(split->sum_cycles > 0);
  CHECK(split->gemm_cycles + split->sum_cycles == Approx(split->report.cycles));
  CHECK(split->report.flops == Approx(2.0 * 1536 * 3072 * 1024));
  g.tail_split = 1;
  GemmRun off = gemm_run(g);
  CHECK(off.key() != run.key());
  off.clock_mhz = split->clock_mhz;
  const auto unsplit = simulate_gemm_run(off);
  REQUIRE(unsplit->error.empty());
  CHECK(unsplit->tail_tiles == 0);
  CHECK(unsplit->sum_cycles == 0);
  // The head alone is less than the whole unsplit run: its last wave is what the tail replaces.
  CHECK(split->gemm_cycles > 0);
  CHECK(split->report.global_write_bytes > unsplit->report.global_write_bytes);  // the fp32 slices
}

TEST_CASE("the split-tail sweep's rows are loaded with their device and date", "[viz][measured][tail]") {
  const MeasuredData& d = measured_data();
  REQUIRE_FALSE(d.tail.empty());
  CHECK(d.tail_date == "2026-12-06");
  CHECK(d.tail_device.find("H100") != std::string::npos);
  int at_3072 = 0;
  for (const MeasuredGemm& row : d.tail)
    if (row.shape.m == 3072 && row.shape.k == 8192) ++at_3072;
  CHECK(at_3072 == 3);  // off, 5 (the rule's) and 3
}
