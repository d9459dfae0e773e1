// The lesson scenes' models, without drawing: what each scene shows
// comes from tiles/layout, the simulator and data/measured, and each checker accepts a right
// answer and rejects a wrong one. Needs the host backend (the GEMM scenes simulate gemm.cuh).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "kernels/gemm/gemm_trace.hpp"
#include "sim/engine.hpp"
#include "sim/machine.hpp"
#include "viz/lesson/barriers_model.hpp"
#include "viz/lesson/fragments_model.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/grid_model.hpp"
#include "viz/lesson/lesson.hpp"
#include "viz/lesson/measured.hpp"
#include "viz/lesson/pipeline_model.hpp"
#include "viz/lesson/registers_model.hpp"
#include "viz/lesson/source_view.hpp"

using namespace ts::viz;
namespace fs = std::filesystem;

namespace {

const fs::path kLessons = fs::path(TILESCOPE_TEST_LESSONS);

// One cache for the whole run: the checkers share their simulations.
SimCache& sims() {
  static SimCache cache;
  return cache;
}

}  // namespace

TEST_CASE("fragments: every element has one owner, as tiles/layout/fragments.hpp says", "[viz][fragments]") {
  for (FragmentView view : {FragmentView::a, FragmentView::b, FragmentView::acc, FragmentView::wide, FragmentView::wgmma}) {
    FragmentsState s;
    s.view = view;
    s.n = 64;
    const FragmentsModel m = fragments_model(s);
    INFO(name_of(view));
    // Each lane holds the same number of elements, and each of its registers 2 (bf16) or 1 (fp32).
    std::vector<uint32_t> per_lane(m.lanes, 0);
    for (const auto& o : m.owners) ++per_lane.at(o.lane);
    CHECK(std::all_of(per_lane.begin(), per_lane.end(), [&](uint32_t n) { return n == per_lane[0]; }));
    CHECK(m.registers_per_lane == m.rows * m.cols / m.lanes / (m.bf16 ? 2 : 1));
    for (const auto& r : m.lane_registers) CHECK(r.elements.size() == (m.bf16 ? 2u : 1u));
  }
  FragmentsState acc;
  acc.view = FragmentView::acc;
  acc.row = 9, acc.col = 5;
  CHECK(fragments_model(acc).pointed == ts::layout::mma_c_owner(9, 5));
  FragmentsState wg;
  wg.view = FragmentView::wgmma;
  wg.n = 256;
  CHECK(fragments_model(wg).registers_per_lane == 128);  // the lesson's "128 fp32 values per thread"
}

TEST_CASE("fragments: swap_layout moves all but one element in eight to another lane", "[viz][fragments]") {
  FragmentsState row, col;
  col.swapped = true;
  const FragmentsModel a = fragments_model(row), b = fragments_model(col);
  size_t kept = 0;
  for (size_t i = 0; i < a.owners.size(); ++i) kept += a.owners[i].lane == b.owners[i].lane;
  CHECK(kept == a.owners.size() / 8);
  // b with swap on is a with swap off, and the other way round.
  FragmentsState b_swapped;
  b_swapped.view = FragmentView::b;
  b_swapped.swapped = true;
  CHECK(fragments_model(b_swapped).owners == a.owners);
}

TEST_CASE("grid: the waves and working sets of row-major and grouped orders", "[viz][grid]") {
  GridState s;  // 1024 x 16384 x 2048: 8 x 64 tiles
  s.gemm.order = OrderKnob::row;
  GridModel m = grid_model(s, 132, 50.0 * 1024 * 1024);
  CHECK(m.tiles == 512);
  CHECK(m.waves == 4);
  CHECK(m.wave_tiles == 132);
  CHECK(m.wave_a_blocks == 3);
  CHECK(m.wave_b_blocks == 64);
  s.gemm.order = OrderKnob::grouped;
  s.gemm.group = 8;
  m = grid_model(s, 132, 50.0 * 1024 * 1024);
  CHECK(m.wave_a_blocks == 8);
  CHECK(m.wave_b_blocks == 17);
  CHECK(m.wave_bytes < m.l2_bytes);
  s.wave = 3;  // the last wave holds what is left: 512 - 3 x 132
  CHECK(grid_model(s, 132, 1).wave_tiles == 116);
}

TEST_CASE("measured: gemm.json rows are found by shape and configuration, others are not measured", "[viz][measured]") {
  const MeasuredData& d = measured_data();
  REQUIRE_FALSE(d.gemm.empty());
  CHECK_FALSE(d.device.empty());
  CHECK_FALSE(d.date.empty());
  GemmKnobs g{4096, 4096, 4096, 3};
  const GemmRun run = gemm_run(g);
  const MeasuredGemm* row = find_measured(d, run.shape, run.cfg);
  REQUIRE(row != nullptr);
  CHECK(row->sweep == "stages");
  CHECK(row->tflops > 0);
  g = {2048, 2048, 2048, 1};  // never run with one stage at 2048^3
  const GemmRun other = gemm_run(g);
  CHECK(find_measured(d, other.shape, other.cfg) == nullptr);
  // The consumers knob tells rows apart: a 64-row tile is not the 128-row one.
  GemmRun one = gemm_run({4096, 4096, 4096, 4});
  CHECK(find_measured(d, one.shape, one.cfg)->cfg.consumers == 2);
  one.cfg.consumers = 1;
  if (const MeasuredGemm* row = find_measured(d, one.shape, one.cfg)) CHECK(row->cfg.consumers == 1);
}

TEST_CASE("measured: a float where an integer belongs is one problem line, not a cast out of range", "[viz][measured]") {
  // Found by fuzz/fuzz_measured under UBSan: nlohmann casts 1.6e82 to an integer without a check.
  const auto file = std::filesystem::temp_directory_path() / "tilescope-measured-float.json";
  {
    std::ofstream out(file);
    out << R"({"rows": [{"m": 1.6e82, "n": 64, "k": 64, "tflops": 1}], "summary": [{"m": 64, "n": 2.5, "k": 64,
              "dram_bytes_read_mean": 1, "dram_bytes_read_min": 1, "dram_bytes_read_max": 1, "dram_bytes_write_mean": 1}]})";
  }
  const MeasuredData d = load_measured(file.string(), file.string(), "");
  CHECK(d.gemm.empty());
  CHECK(d.dram.empty());
  REQUIRE(d.problems.size() == 2);
  CHECK(d.problems[0].find("'m' is not an integer") != std::string::npos);
  CHECK(d.problems[1].find("'n' is not an integer") != std::string::npos);
  std::filesystem::remove(file);
}

TEST_CASE("the barrier event log is off by default and changes nothing when on", "[viz][sim]") {
  GemmRun run;
  run.shape = {512, 512, 512};
  const auto logged = simulate_gemm_run(run);  // quick: logs and timelines on
  REQUIRE(logged->error.empty());
  CHECK_FALSE(logged->report.barrier_events.empty());
  CHECK_FALSE(logged->report.spans.empty());
  GemmRun big = run;
  big.shape = {16384, 16384, 16384};
  CHECK_FALSE(big.quick());
  // The same run with logs off: the same prediction.
  const ts::sim::EngineParams p = ts::sim::engine_params(ts::sim::load_machine("h100-sxm"));
  auto launches = ts::kernels::gemm_grid_traces(run.shape, run.cfg, static_cast<int>(p.sms));
  REQUIRE(launches.size() == 1);
  const ts::sim::SimReport plain = ts::sim::simulate(*launches.front().grid, p);
  CHECK(plain.barrier_events.empty());
  CHECK(plain.spans.empty());
  CHECK(plain.cycles == logged->report.cycles);
  CHECK(plain.hbm_read_bytes == logged->report.hbm_read_bytes);

  // Per-tile L2 figures (the grid scene's colours) add up to the run's totals.
  GemmRun per_tile = run;
  per_tile.tile_l2 = true;
  const auto tiles = simulate_gemm_run(per_tile);
  REQUIRE(tiles->tiles.size() == 4 * 2);  // 512 / 128 x 512 / 256
  uint64_t hit = 0, miss = 0;
  for (const TileL2& t : tiles->tiles) hit += t.hit_bytes, miss += t.miss_bytes;
  CHECK(hit == tiles->report.l2_hit_bytes);
  CHECK(miss == tiles->report.hbm_read_bytes);
  CHECK(tiles->report.cycles == plain.cycles);
}

TEST_CASE("pipeline and barrier scenes: what the simulator's spans and events show", "[viz][pipeline]") {
  PipelineState s;
  s.gemm = {2048, 2048, 2048, 4};
  const auto four = sims().get_now(gemm_run(s.gemm));
  REQUIRE(four->error.empty());
  const PipelineModel m = pipeline_model(*four, 0);
  REQUIRE(m.rows.size() == 9);  // the producer's warp and eight consumer warps
  CHECK(m.rows[0].producer);
  CHECK(m.last > m.first);
  double busy = 0;
  for (const auto& b : m.tensor_busy) busy += b.length();
  CHECK(busy + m.idle_cycles == Approx(m.last - m.first));
  s.gemm.stages = 1;
  const auto one = sims().get_now(gemm_run(s.gemm));
  CHECK(pipeline_model(*one, 0).idle_fraction() > m.idle_fraction());

  BarriersState b;
  b.gemm = {2048, 2048, 2048, 4};
  const BarriersModel bm = barriers_model(*four, b);
  REQUIRE(bm.error.empty());
  CHECK(bm.stage_bytes == 2 * 64 * 64 * 2 + 64 * 256 * 2);  // two A slices and one B slice of bf16
  CHECK(bm.consumers.size() == 8);
  CHECK(bm.expects.size() == 2048 / 64);  // one per k-iteration of the block's one tile
  // The loads of each k-iteration bring exactly the bytes the producer announced.
  std::vector<uint64_t> landed(bm.expects.size(), 0);
  for (const auto& l : bm.loads) landed.at(l.iteration) += l.bytes;
  CHECK(std::all_of(landed.begin(), landed.end(), [&](uint64_t b) { return b == bm.stage_bytes; }));
  CHECK(std::count_if(bm.full_completes.begin(), bm.full_completes.end(), [](const BarrierMark& p) { return p.slot == 0; }) ==
        2048 / 64 / 4);
}

TEST_CASE("registers: the setmaxnreg split of gemm.cuh fits, and the even split is the file over 384", "[viz][registers]") {
  RegistersState s;  // 40 / 232
  RegisterBudget b = register_budget(s, 65536);
  CHECK(b.fits);
  CHECK(b.used == 128 * 40 + 256 * 232);
  CHECK(b.even == 168);
  CHECK(b.accumulator == 128);
  CHECK(b.most_for_consumers == 232);
  s.consumer = 240;
  CHECK_FALSE(register_budget(s, 65536).fits);
}

TEST_CASE("lesson steps point at kernel source lines that exist", "[viz][lessons]") {
  const auto gemm = source_file("kernels/gemm/gemm.cuh");
  REQUIRE(gemm->error.empty());
  const int line = find_source_line(*gemm, "warpgroup::mma_async_wait");
  CHECK(line > 0);
  const std::string head = "---\nid: t\ntitle: T\nscene: pipeline\n---\n## S\n";
  auto parsed = parse_lesson(head + "source: kernels/gemm/gemm.cuh +2 warpgroup::mma_async_wait\n\nText.\n", "t.md");
  REQUIRE(std::holds_alternative<Lesson>(parsed));
  const LessonStep& step = std::get<Lesson>(parsed).steps[0];
  CHECK(step.source_line == line);
  CHECK(step.source_lines == 3);
  const auto error = [&](const std::string& directive) {
    const auto r = parse_lesson(head + directive + "\nText.\n", "t.md");
    return std::holds_alternative<LessonError>(r) ? std::get<LessonError>(r).text() : "";
  };
  CHECK(error("source: kernels/gemm/gemm.cuh no such text anywhere") ==
        "t.md:7: no line of kernels/gemm/gemm.cuh contains 'no such text anywhere'");
  CHECK_THAT(error("source: kernels/gemm/nope.cuh x"), Catch::StartsWith("t.md:7: source file 'kernels/gemm/nope.cuh': cannot read"));
  CHECK(error("source: kernels/gemm/gemm.cuh +x load") == "t.md:7: 'source:' line count '+x' is not +0 to +60");
  CHECK(error("exercise: wave-blocks") == "t.md:7: exercise 'wave-blocks' belongs to scene 'grid', not 'pipeline'");
  CHECK_THAT(error("exercise: guess"), Catch::StartsWith("t.md:7: unknown exercise 'guess' (exercises: gemm-intensity"));
  CHECK(error("exercise: stages-needed load=5..10") ==
        "t.md:7: exercise parameter load='5..10' is not within 100..8000/50");
  // Every shipped step's source line still holds its text.
  for (const Lesson& l : load_lessons(kLessons).lessons)
    for (const LessonStep& s : l.steps)
      if (!s.source_text.empty()) {
        INFO(l.id << ": " << s.title);
        const auto file = source_file(s.source_file);
        REQUIRE(s.source_line >= 1);
        CHECK(file->lines.at(s.source_line - 1).find(s.source_text) != std::string::npos);
      }
}

TEST_CASE("a knob change re-simulates the pipeline scene's GEMM quickly (the figure is reported)", "[viz][timing]") {
  // The knob budget is 100 ms on an idle core (data/measured/viz-lessons-timing.txt); CI machines
  // vary and share their cores, so the test reports the figure and only catches gross regressions.
  GemmKnobs g{2048, 2048, 2048, 3};
  const auto sim = simulate_gemm_run(gemm_run(g));
  REQUIRE(sim->error.empty());
  WARN("re-simulating 2048^3 with 3 stages: " << sim->wall_ms << " ms wall, " << sim->cpu_ms << " ms CPU, "
                                                << sim->report.ops << " ops");
  CHECK(sim->wall_ms < 2000);
}

TEST_CASE("grid: measurements of another shape are shown only for shapes the H100 never ran", "[viz][grid]") {
  const MeasuredData& d = measured_data();
  // 4096 x 4096 x 64 was measured persistent only: one block per tile there is "not measured",
  // not the 16384^3 run of the block-order sweep.
  const GridMeasured skinny = grid_measured({4096, 4096, 64, 4, 256, OrderKnob::grouped, 8, false}, d);
  CHECK(skinny.tflops == nullptr);
  CHECK(skinny.dram == nullptr);
  // A small stand-in shape borrows the block-order sweep's figures, with their own shape.
  const GridMeasured stand_in = grid_measured({512, 16384, 2048, 4, 256, OrderKnob::row, 1, true}, d);
  REQUIRE(stand_in.tflops != nullptr);
  CHECK(stand_in.tflops->shape.m == 16384);
}
