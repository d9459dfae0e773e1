// Lesson 18 (thread-block clusters and TMA multicast) and the GEMM scenes' cluster knob: the knob
// parses and refuses like the others, the grid scene numbers tiles as the kernel's own
// gemm::tile_index does and outlines its clusters, the per-slice L2 bytes come from the kernel's
// tile types, the exercise accepts its key and refuses the others, the cluster sweep's measured
// rows are found, and the lesson's figures are those of data/measured/h100/gemm-cluster.*.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "kernels/gemm/gemm.cuh"
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

const Lesson& lesson18() { return testing::shipped_lesson("clusters-multicast"); }

// The kernel's own numbering: step -> tile, for a grid of tiles_m x tiles_n in clusters of C.
template <int C>
ts::sched::TileIndex kernel_tile(int tiles_m, int tiles_n, ts::sched::OrderSpec order, int step) {
  using K = ts::kernels::gemm<256, 4, true, ts::bf16, 2, C>;
  typename K::globals g{};
  g.tiles_m = tiles_m, g.tiles_n = tiles_n, g.order = order;
  return K::tile_index(g, step);
}

template <int C>
int kernel_steps(int tiles_m, int tiles_n) {
  using K = ts::kernels::gemm<256, 4, true, ts::bf16, 2, C>;
  typename K::globals g{};
  g.tiles_m = tiles_m, g.tiles_n = tiles_n;
  return K::num_tiles(g);
}

}  // namespace

TEST_CASE("the cluster knob: 1 or 2, on the grid and pipeline scenes, refused with a reason otherwise", "[viz][clusters]") {
  SceneState grid = GridState{};
  CHECK(set_knob(grid, "cluster", "2").empty());
  CHECK(std::get<GridState>(grid).gemm.cluster == 2);
  CHECK(validate(grid).empty());
  const auto values = knob_values(grid);
  CHECK(std::find(values.begin(), values.end(), std::pair<std::string, std::string>{"cluster", "2"}) != values.end());
  CHECK(set_knob(grid, "cluster", "3").find("cluster") != std::string::npos);
  CHECK_FALSE(set_knob(grid, "cluster", "two").empty());
  CHECK_FALSE(set_knob(grid, "cluster", "0").empty());
  CHECK(std::get<GridState>(grid).gemm.cluster == 2);  // a refused value changes nothing
  // The kernel has no one-stage cluster: the knobs together are refused, saying why.
  CHECK(set_knob(grid, "stages", "1").empty());
  CHECK(validate(grid).find("cluster=2 needs stages=2") != std::string::npos);

  SceneState pipeline = PipelineState{};
  CHECK(set_knob(pipeline, "cluster", "2").empty());
  CHECK(gemm_config(std::get<PipelineState>(pipeline).gemm).cluster == 2);
  CHECK(scene_run(pipeline)->cfg.cluster == 2);
  CHECK(scene_run(grid)->cfg.cluster == 2);

  // In a lesson file: file:line: reason, as for every knob.
  const std::string head = "---\nid: c\ntitle: C\nscene: grid\n---\n\n## S\n";
  const auto bad = parse_lesson(head + "knobs: cluster=4\n\nText.\n", "c.md");
  REQUIRE(std::holds_alternative<LessonError>(bad));
  CHECK(std::get<LessonError>(bad).line == 8);
  CHECK(std::get<LessonError>(bad).reason.find("cluster") != std::string::npos);
  const auto together = parse_lesson(head + "knobs: cluster=2 stages=1\n\nText.\n", "c.md");
  REQUIRE(std::holds_alternative<LessonError>(together));
  CHECK(std::get<LessonError>(together).reason.find("needs stages") != std::string::npos);
  CHECK(std::holds_alternative<Lesson>(parse_lesson(head + "knobs: cluster=2\n\nText.\n", "c.md")));
}

TEST_CASE("grid: with clusters the tiles are numbered as gemm::tile_index numbers them, pairs outlined", "[viz][grid][clusters]") {
  for (const uint32_t m : {4096u, 1152u}) {  // 32 tile rows, and 9: the last cluster overhangs M
    GridState s;
    s.gemm.m = m, s.gemm.n = 4096, s.gemm.k = 1024, s.gemm.cluster = 2;
    const GridModel g = grid_model(s, 132, 50.0 * 1024 * 1024);
    INFO(g.error);
    REQUIRE(g.error.empty());
    const int tm = static_cast<int>(m / 128), tn = 16;
    CHECK(g.tiles == uint32_t(tm * tn));
    CHECK(g.steps == uint32_t(kernel_steps<2>(tm, tn)));
    const auto order = gemm_config(s.gemm).order;
    uint32_t seen = 0;
    for (int i = 0; i < kernel_steps<2>(tm, tn); ++i) {
      const auto t = kernel_tile<2>(tm, tn, order, i);
      if (t.m >= tm) continue;  // the overhanging CTA computes nothing
      ++seen;
      CHECK(g.order_of[size_t(t.m) * tn + t.n] == uint32_t(i));
      CHECK(g.wave_of[size_t(t.m) * tn + t.n] == uint32_t(i) / 132);
    }
    CHECK(seen == g.tiles);
    // One outline per cluster: a column of two tiles, or one where the last cluster overhangs M.
    CHECK(g.clusters.size() == size_t((tm + 1) / 2 * tn));
    for (const ClusterBox& b : g.clusters) {
      CHECK(b.rows == (b.m + 1 < uint32_t(tm) ? 2u : 1u));
      CHECK(g.order_of[size_t(b.m) * tn + b.n] % 2 == 0);  // rank 0 on top
      if (b.rows == 2) CHECK(g.order_of[size_t(b.m + 1) * tn + b.n] == g.order_of[size_t(b.m) * tn + b.n] + 1);
    }
  }
  // Without clusters the kernel's numbering is the block order itself, as before.
  GridState plain;
  const GridModel g = grid_model(plain, 132, 1);
  CHECK(g.clusters.empty());
  CHECK(g.steps == g.tiles);
  for (int i = 0; i < int(g.tiles); ++i) {
    const auto t = ts::sched::tile_of(gemm_config(plain.gemm).order, i, int(g.tiles_m), int(g.tiles_n));
    CHECK(g.order_of[size_t(t.m) * g.tiles_n + t.n] == uint32_t(i));
    CHECK(kernel_tile<1>(int(g.tiles_m), int(g.tiles_n), gemm_config(plain.gemm).order, i).m == t.m);
  }
}

TEST_CASE("per k-slice a CTA reads A and its share of B: the kernel's tile types", "[viz][clusters]") {
  ts::kernels::GemmConfig cfg;
  for (const int bn : {128, 256}) {
    cfg.block_n = bn;
    cfg.cluster = 1;
    const GemmStageBytes one = gemm_stage_bytes(cfg);
    cfg.cluster = 2;
    const GemmStageBytes two = gemm_stage_bytes(cfg);
    INFO(one.error << " / " << two.error);
    REQUIRE(one.error.empty());
    REQUIRE(two.error.empty());
    CHECK(one.a == 2 * 64 * 64 * 2);
    CHECK(one.b_slice == uint32_t(64 * bn * 2));
    CHECK(one.read() == one.a + one.b_slice);
    CHECK(two.a == one.a);  // A is not shared
    CHECK(two.b_slice == one.b_slice);  // every CTA still receives the whole slice
    CHECK(two.read() == one.a + one.b_slice / 2);
  }
  // The lesson's figures: 48 KiB becoming 32 KiB (a third less) with 256-wide tiles, a quarter less with 128.
  cfg.block_n = 256, cfg.cluster = 1;
  const uint32_t wide_plain = gemm_stage_bytes(cfg).read();
  cfg.cluster = 2;
  const uint32_t wide_cluster = gemm_stage_bytes(cfg).read();
  CHECK(wide_plain == 48 * 1024);
  CHECK(wide_cluster == 32 * 1024);
  cfg.block_n = 128;
  const uint32_t narrow_cluster = gemm_stage_bytes(cfg).read();
  cfg.cluster = 1;
  CHECK(double(narrow_cluster) / gemm_stage_bytes(cfg).read() == Approx(0.75));
  const std::string text = all_prose(lesson18());
  CHECK(text.find("48 KiB becoming 32 KiB, a third less") != std::string::npos);
  CHECK(text.find("saves a quarter") != std::string::npos);
}

TEST_CASE("the cluster exercise: its key is the kernel's bytes, the figure without a cluster is refused", "[quiz][clusters]") {
  const Question q = make_question("cluster-l2-bytes", {{"block_n", 256}, {"cluster", 2}, {"k", 1024}}, GridState{});
  REQUIRE(q.error.empty());
  CHECK(q.answer == 16 * 32);  // 16 slices x (16 KiB of A + 16 KiB of B)
  CHECK(accepts(q, 512));
  CHECK_FALSE(accepts(q, 16 * 48));  // as if nothing were shared
  CHECK_FALSE(accepts(q, 513));
  const Question plain = make_question("cluster-l2-bytes", {{"block_n", 128}, {"cluster", 1}, {"k", 512}}, GridState{});
  CHECK(plain.answer == 8 * 32);
  CHECK_FALSE(accepts(plain, 8 * 24));  // as if B were shared
  CHECK(std::get<GridState>(q.reveal).gemm.cluster == 2);
  CHECK(validate(q.reveal).empty());
}

TEST_CASE("the cluster sweep's rows are found by configuration, with their own date", "[viz][measured][clusters]") {
  const MeasuredData& d = measured_data();
  REQUIRE_FALSE(d.cluster.empty());
  CHECK(d.cluster_date == "2026-11-25");
  GemmKnobs g{4096, 4096, 4096, 4};
  g.cluster = 2;
  const GemmRun run = gemm_run(g);
  const MeasuredGemm* row = find_measured(d, run.shape, run.cfg);
  REQUIRE(row);
  CHECK(row->cfg.cluster == 2);
  CHECK(row->sweep == "cluster");
  CHECK(measured_date(d, *row) == d.cluster_date);
  CHECK(run.clock_mhz == row->sm_clock_mhz);
  {
    ts::kernels::GemmConfig plain = run.cfg;
    plain.cluster = 1;
    const MeasuredGemm* twin = find_measured_cluster(d, run.shape, plain);
    REQUIRE(twin);
    CHECK(twin->cfg.cluster == 1);
    // gemm.json's rows come first for a plain configuration: the other scenes see what they saw.
    const MeasuredGemm* main = find_measured(d, run.shape, plain);
    REQUIRE(main);
    CHECK(measured_date(d, *main) == d.date);
  }
  // The lesson's range of each against cuBLAS in the same run.
  double lo[3] = {9, 9, 9}, hi[3] = {0, 0, 0};
  for (const MeasuredGemm& r : d.cluster) {
    const double ratio = r.tflops / r.cublas_tflops;
    lo[r.cfg.cluster] = std::min(lo[r.cfg.cluster], ratio);
    hi[r.cfg.cluster] = std::max(hi[r.cfg.cluster], ratio);
  }
  const std::string text = all_prose(lesson18());
  CHECK(text.find("clustered kernel ran at " + fixed(lo[2], 2) + "-" + fixed(hi[2], 2) + "x cuBLAS") != std::string::npos);
  CHECK(text.find("plain one at " + fixed(lo[1], 2) + "-" + fixed(hi[1], 2) + "x") != std::string::npos);
}

TEST_CASE("lesson 18 quotes gemm-cluster.txt's Nsight Compute and simulator figures as the file has them", "[lessons][claims][clusters]") {
  const std::string file = read_text("data/measured/h100/gemm-cluster.txt");
  const std::string text = all_prose(lesson18());
  // Each figure appears in the measurement file and in the lesson.
  for (const char* f : {"186.3 us", "454.5 us", "44.1 %", "329.3 M", "271.8 M", "-17.5 %", "1.49 GB", "1.22 GB",
                        "85.9 -> 73.7 %", "1.82 -> 2.26 GB", "18 % less from DRAM", "3-4 % slower", "(0.68-0.76x)", "2026-11-26"})
    CHECK(file.find(f) != std::string::npos);
  for (const char* f : {"454.5 µs", "186.3 µs", "44.1 %", "329.3 M", "271.8 M", "17.5 %", "1.49 GB", "1.22 GB", "85.9 %",
                        "73.7 %", "1.82 GB", "2.26 GB", "18 % less", "3-4 % slower", "0.68-0.76x", "2026-11-25", "2026-11-26"})
    CHECK(text.find(f) != std::string::npos);
  CHECK(454.5 / 186.3 == Approx(2.4).epsilon(0.02));
  CHECK(text.find("2.4x") != std::string::npos);
  CHECK((329.3 - 271.8) / 329.3 == Approx(0.175).epsilon(0.01));
}

TEST_CASE("the simulator makes the clustered GEMM slower at 4096^3, with fewer L2 reads and a lower hit rate", "[lessons][claims][clusters]") {
  GemmKnobs g{4096, 4096, 4096, 4};
  const auto plain = simulate_gemm_run(gemm_run(g));
  g.cluster = 2;
  const auto clustered = simulate_gemm_run(gemm_run(g));
  REQUIRE(plain->error.empty());
  REQUIRE(clustered->error.empty());
  // In cycles: each run is timed at the clock its own measured file gives (gemm.json, gemm-cluster.json).
  const double slower = plain->report.cycles > 0 ? clustered->report.cycles / plain->report.cycles - 1 : 0;
  CHECK(slower > 0.0);  // "slower (in cycles, about 1 %)"
  CHECK(slower < 0.03);
  CHECK(clustered->report.l2_hit_rate() < plain->report.l2_hit_rate());
  const auto l2_read = [](const GemmSim& s) { return double(s.report.l2_hit_bytes + s.report.hbm_read_bytes); };
  CHECK(l2_read(*clustered) < l2_read(*plain));
  CHECK(all_prose(lesson18()).find("**slower** (in cycles, about " + std::to_string(std::lround(slower * 100)) + " % at this shape)") != std::string::npos);
}

TEST_CASE("grid: per-tile L2 with clusters covers every tile, the overhanging CTA left out", "[viz][grid][clusters]") {
  GemmKnobs g{1152, 1024, 256, 4};  // 9 tile rows: the last cluster overhangs M
  g.cluster = 2;
  GemmRun run = gemm_run(g);
  run.tile_l2 = true;
  const auto sim = simulate_gemm_run(run);
  REQUIRE(sim->error.empty());
  REQUIRE(sim->tiles.size() == 9 * 4);
  for (const TileL2& t : sim->tiles) CHECK(t.hit_bytes + t.miss_bytes > 0);
}
