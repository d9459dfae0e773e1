// The H100's measured timelines as the pipeline scene finds and draws them: the committed files
// (data/measured/h100/timelines/) found by configuration, one block's spans, the same model the
// simulated timeline goes through.
#include <catch2/catch.hpp>

#include "viz/lesson/attention_sim.hpp"
#include "viz/lesson/measured_timeline.hpp"
#include "viz/lesson/pipeline_model.hpp"

using namespace ts;

TEST_CASE("the pipeline scene finds the H100's timeline of its configuration, and none for others") {
  viz::GemmRun run;
  run.shape = {4096, 4096, 4096};
  run.cfg.stages = 4;
  const auto t = viz::find_measured_timeline(run);
  REQUIRE(t != nullptr);
  CHECK(t->timeline.source == "measured");
  CHECK(viz::timeline_problems().empty());
  run.cfg.stages = 3;  // not recorded
  CHECK(viz::find_measured_timeline(run) == nullptr);
  run.cfg.stages = 2;
  REQUIRE(viz::find_measured_timeline(run) != nullptr);
  CHECK(viz::find_measured_timeline(run)->file != t->file);
  run.shape = {2048, 2048, 2048};
  CHECK(viz::find_measured_timeline(run) == nullptr);
  run.shape = {4096, 4096, 4096};
  run.cfg.stages = 4;
  run.cfg.cluster = 2;  // recorded without clusters: another kernel
  CHECK(viz::find_measured_timeline(run) == nullptr);
}

TEST_CASE("the overlap lesson's configurations have their H100 timelines: D 64 and D 128, overlap on and off") {
  viz::AttentionRun run;  // N 1024, D 64, B 1, H 4: the lesson's
  run.cfg = {3, 0};
  const auto off = viz::find_measured_timeline(run);
  REQUIRE(off != nullptr);
  run.cfg = {3, 1};
  const auto on = viz::find_measured_timeline(run);
  REQUIRE(on != nullptr);
  CHECK(on->file != off->file);
  REQUIRE(viz::measured_overlap_track(run).has_value());
  CHECK(!viz::measured_overlap_track(run)->rows.empty());
  run.shape.dim = 128;
  run.cfg = {2, 0};
  const auto d128_off = viz::find_measured_timeline(run);
  REQUIRE(d128_off != nullptr);
  run.cfg = {2, 1};  // fills the 227 KB: recorded since the recording build stopped asking for alignment slack
  const auto d128_on = viz::find_measured_timeline(run);
  REQUIRE(d128_on != nullptr);
  CHECK(d128_on->file != d128_off->file);
  REQUIRE(viz::measured_overlap_track(run).has_value());
  run.cfg = {3, 1};  // three consumers with overlap do not fit at D 128: nothing recorded
  CHECK(viz::find_measured_timeline(run) == nullptr);
}

TEST_CASE("a measured block becomes the scene's rows: the producer, eight consumer warps, wgmma on every tensor core") {
  viz::GemmRun run;
  run.shape = {4096, 4096, 4096};
  run.cfg.stages = 4;
  const auto t = viz::find_measured_timeline(run);
  REQUIRE(t != nullptr);
  const std::vector<sim::Span> spans = viz::first_block_spans(t->timeline, 0);
  REQUIRE(!spans.empty());
  double first = 1e300;
  for (const auto& s : spans) {
    first = std::min(first, s.start);
    CHECK(s.sm == 0);
    CHECK(s.block == spans.front().block);
  }
  CHECK(first == 0);
  const viz::PipelineModel m = viz::pipeline_model(spans, 0);
  REQUIRE(m.rows.size() == 9);
  CHECK(m.rows[0].producer);
  for (size_t i = 1; i < m.rows.size(); ++i) CHECK(!m.rows[i].producer);
  for (const auto& core : m.tensor) CHECK(!core.busy.empty());
  CHECK(m.stages.empty());  // measured timelines have no barrier events
  CHECK(m.idle_fraction() < 0.5);
}
