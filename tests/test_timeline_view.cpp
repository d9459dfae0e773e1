// The timeline view's model (viz/lesson/timeline_view.hpp): the recorded blocks (the SM picker),
// one block's spans, one steady-state iteration of a warp ("one iteration"), the window under zoom
// and pan; and the attention timelines the overlap scene finds (measured_timeline.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "sim/timeline_compare.hpp"
#include "viz/lesson/measured_timeline.hpp"
#include "viz/lesson/timeline_view.hpp"

using namespace ts;
using viz::GanttBar;
using sim::OpKind;

namespace {

sim::Span span(uint32_t sm, uint32_t block, uint32_t warp, OpKind kind, double start, double end) {
  sim::Span s{};
  s.sm = sm, s.block = block, s.warp = warp, s.kind = kind, s.start = start, s.end = end;
  return s;
}

// A consumer warp: a prologue, `iterations` of (wait 30, wgmma group, its wait, math 20) every
// `period` cycles from `at`, and an epilogue.
std::vector<GanttBar> consumer_bars(int iterations, double period, double at = 500) {
  std::vector<GanttBar> bars = {{0, 100, OpKind::block_sync, 0}, {100, 400, OpKind::smem_load, 0}};
  for (int i = 0; i < iterations; ++i) {
    const double t = at + i * period;
    bars.push_back({t, t + 30, OpKind::wait, 0});
    bars.push_back({t + 30, t + period * 0.6, OpKind::mma, 0});
    bars.push_back({t + 31, t + period * 0.6, OpKind::mma_wait, 0});
    bars.push_back({t + period * 0.6, t + period * 0.6 + 20, OpKind::math, 0});
  }
  const double end = at + iterations * period;
  bars.push_back({end, end + 300, OpKind::smem_store, 0});
  bars.push_back({end + 300, end + 900, OpKind::tma_store, 0});
  return bars;
}

}  // namespace

TEST_CASE("the recorded blocks and one block's spans, from its own start") {
  const std::vector<sim::Span> spans = {span(124, 7, 0, OpKind::wait, 1000, 1100), span(125, 3, 4, OpKind::mma, 40, 90),
                                        span(124, 7, 4, OpKind::math, 1050, 1300), span(125, 3, 0, OpKind::wait, 10, 20)};
  const auto blocks = viz::recorded_blocks(spans);
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].block == 3);
  CHECK(blocks[0].sm == 125);
  CHECK(blocks[0].spans == 2);
  CHECK(blocks[1].block == 7);
  CHECK(blocks[1].sm == 124);
  const auto b7 = viz::block_spans(spans, 7, 0);
  REQUIRE(b7.size() == 2);
  CHECK(b7[0].start == 0);
  CHECK(b7[0].end == 100);
  CHECK(b7[1].start == 50);
  CHECK(b7[1].sm == 0);
  CHECK(viz::block_spans(spans, 5, 0).empty());
}

TEST_CASE("one steady-state iteration: from a wgmma group to the next, a typical one of the middle half") {
  const auto it = viz::steady_iteration(consumer_bars(40, 1000));
  REQUIRE(it);
  CHECK(it->length() == Approx(1000));
  // It starts at an iteration's wgmma commit, in the middle half of the run (not the prologue or the epilogue).
  CHECK(std::fmod(it->start - 530, 1000) == Approx(0).margin(1e-9));
  CHECK(it->start > 500 + 5 * 1000);
  CHECK(it->start < 500 + 35 * 1000);
  // The order of the bars does not matter.
  auto shuffled = consumer_bars(40, 1000);
  std::reverse(shuffled.begin(), shuffled.end());
  REQUIRE(viz::steady_iteration(shuffled));
  CHECK(viz::steady_iteration(shuffled)->length() == Approx(1000));
  // Of iterations of different lengths, a typical one: here every third one is twice as long.
  auto uneven = consumer_bars(40, 1000);
  for (GanttBar& b : uneven)
    if (b.start >= 500) {
      const double extra = std::floor(std::floor((b.start - 500) / 1000) / 3) * 1000;
      b.start += extra, b.end += extra;
    }
  REQUIRE(viz::steady_iteration(uneven));
  CHECK(viz::steady_iteration(uneven)->length() == Approx(1000));
  // A warp without wgmma (the producer) counts from its mbarrier waits.
  std::vector<GanttBar> waits;
  for (const GanttBar& b : consumer_bars(40, 700))
    if (b.kind != OpKind::mma) waits.push_back(b);
  REQUIRE(viz::steady_iteration(waits));
  CHECK(viz::steady_iteration(waits)->length() == Approx(700));
  CHECK(std::fmod(viz::steady_iteration(waits)->start - 500, 700) == Approx(0).margin(1e-9));
}

TEST_CASE("two wgmma groups per iteration (attention: S = Q K^T, then O += P V): the producer's stage fills say so") {
  // A consumer commits two groups per key block, 300 and 700 cycles apart; the producer fills one
  // stage per key block, waiting for it once.
  viz::PipelineModel m;
  viz::GanttRow producer, consumer;
  producer.producer = true;
  for (int i = 0; i < 40; ++i) {
    const double t = 1000.0 * i;
    producer.bars.push_back({t, t + 50, OpKind::wait, 0});
    producer.bars.push_back({t + 50, t + 600, OpKind::tma_load, 0});
    consumer.bars.push_back({t + 100, t + 380, OpKind::mma, 0});
    consumer.bars.push_back({t + 380, t + 400, OpKind::math, 0});
    consumer.bars.push_back({t + 400, t + 1000, OpKind::mma, 0});
  }
  m.rows = {producer, consumer};
  CHECK(viz::anchors_per_iteration(m, consumer) == 2);
  CHECK(viz::anchors_per_iteration(m, producer) == 1);
  const auto it = viz::steady_iteration(consumer.bars, 2);
  REQUIRE(it);
  CHECK(it->length() == Approx(1000));
  // Counted one group at a time it would be either half.
  REQUIRE(viz::steady_iteration(consumer.bars, 1));
  CHECK(viz::steady_iteration(consumer.bars, 1)->length() != Approx(1000));
  // Without a producer row (a recording of chosen warps), the other timeline of the same kernel
  // says, else one anchor per iteration.
  viz::PipelineModel consumer_only;
  consumer.warp = 4;
  consumer_only.rows = {consumer};
  CHECK(viz::anchors_per_iteration(consumer_only, consumer) == 1);
  m.rows[1].warp = 4;
  CHECK(viz::anchors_per_iteration(consumer_only, consumer, &m) == 2);
  m.rows[1].warp = 5;  // no such warp there
  CHECK(viz::anchors_per_iteration(consumer_only, consumer, &m) == 1);
}

TEST_CASE("no iteration without an op to count from, or with too few") {
  CHECK(!viz::steady_iteration({}));
  CHECK(!viz::steady_iteration(consumer_bars(3, 1000)));
  CHECK(!viz::steady_iteration(consumer_bars(40, 1000), 0));
  std::vector<GanttBar> math;
  for (int i = 0; i < 100; ++i) math.push_back({i * 10.0, i * 10.0 + 5, OpKind::math, 0});
  CHECK(!viz::steady_iteration(math));
}

TEST_CASE("zoom keeps the cycle under the mouse in place, pan stops at the ends, the window stays inside the run") {
  const viz::TimeWindow w{1000, 3000};
  const auto in = viz::zoom_window(w, 1500, 0.5, 0, 10000);
  CHECK(in.width() == Approx(1000));
  CHECK((1500 - in.t0) / in.width() == Approx((1500 - w.t0) / w.width()));  // the same place on the screen
  const auto out = viz::zoom_window(w, 1500, 100, 0, 10000);
  CHECK(out.t0 == 0);
  CHECK(out.t1 == 10000);
  const auto tiny = viz::zoom_window(w, 2000, 1e-9, 0, 10000);
  CHECK(tiny.width() == Approx(viz::kMinWindow));
  CHECK(tiny.t0 <= 2000);
  CHECK(tiny.t1 >= 2000);
  CHECK(viz::pan_window(w, 500, 0, 10000).t0 == Approx(1500));
  const auto left = viz::pan_window(w, -5000, 0, 10000);
  CHECK(left.t0 == 0);
  CHECK(left.width() == Approx(2000));
  const auto right = viz::pan_window(w, 50000, 0, 10000);
  CHECK(right.t1 == 10000);
  CHECK(right.width() == Approx(2000));
  // A run shorter than the smallest window is shown whole.
  const auto short_run = viz::clamp_window({2, 3}, 0, 10);
  CHECK(short_run.t0 == 0);
  CHECK(short_run.t1 == 10);
}

TEST_CASE("one iteration of the H100's GEMM consumer lasts what compare --timeline's steady-state interval says") {
  viz::GemmRun run;
  run.shape = {4096, 4096, 4096};
  run.cfg.stages = 4;
  const auto t = viz::find_measured_timeline(run);
  REQUIRE(t != nullptr);
  const auto spans = viz::first_block_spans(t->timeline, 0);
  const viz::PipelineModel m = viz::pipeline_model(spans, 0);
  // compare's interval is a median over every consumer warp's wgmma groups (one per k-iteration);
  // the typical iteration of each warp is one estimate of it, and so is the producer's.
  const double interval = sim::profile(spans).mma_interval;
  REQUIRE(interval > 0);
  int consumers = 0;
  for (const viz::GanttRow& row : m.rows) {
    INFO(row.label);
    CHECK(viz::anchors_per_iteration(m, row) == 1);
    const auto it = viz::steady_iteration(row.bars, 1);
    REQUIRE(it);
    CHECK(it->length() == Approx(interval).epsilon(0.25));
    consumers += !row.producer;
  }
  CHECK(consumers == 8);
}

TEST_CASE("one iteration of the H100's attention forward: a key block, two wgmma groups of each consumer") {
  viz::AttentionRun run;
  run.shape = {4, 16, 16, 4096, 128, false, 0.f};
  const auto t = viz::find_measured_timeline(run);
  REQUIRE(t != nullptr);
  const viz::PipelineModel m = viz::pipeline_model(viz::first_block_spans(t->timeline, 0), 0);
  REQUIRE(!m.rows.empty());
  REQUIRE(m.rows.front().producer);
  const auto producer = viz::steady_iteration(m.rows.front().bars, viz::anchors_per_iteration(m, m.rows.front()));
  REQUIRE(producer);
  int consumers = 0;
  for (const viz::GanttRow& row : m.rows) {
    if (row.producer) continue;
    INFO(row.label);
    CHECK(viz::anchors_per_iteration(m, row) == 2);
    const auto it = viz::steady_iteration(row.bars, viz::anchors_per_iteration(m, row));
    REQUIRE(it);
    // The consumers keep the producer's pace: one stage, one key block, per iteration.
    CHECK(it->length() == Approx(producer->length()).epsilon(0.15));
    ++consumers;
  }
  CHECK(consumers == 12);  // three consumer warpgroups
}

TEST_CASE("the overlap scene finds the H100's attention forward by what each block does, and nothing else") {
  viz::AttentionRun run;
  run.shape = {1, 4, 4, 4096, 128, false, 0.f};  // the lesson's batch and heads; the recording's were B4 H16
  const auto t = viz::find_measured_timeline(run);
  REQUIRE(t != nullptr);
  CHECK(t->timeline.job.value("kernel", "") == "attention");
  const auto track = viz::measured_overlap_track(run);
  REQUIRE(track);
  CHECK(track->source == t->file);
  CHECK(track->cycles > 0);
  REQUIRE(track->rows.size() == 3);  // the default at D = 128: three consumer warpgroups
  for (const auto& row : track->rows) {
    CHECK(!row.bars.empty());
    CHECK(row.bars.back().end <= track->cycles + 1e-6);
  }
  run.cfg.consumers = 3, run.cfg.overlap = 0;  // the defaults, named: the same blocks
  CHECK(viz::find_measured_timeline(run) == t);
  run.cfg.consumers = 2;  // another kernel instance
  CHECK(viz::find_measured_timeline(run) == nullptr);
  CHECK(!viz::measured_overlap_track(run));
  run.cfg = {};
  run.shape.seq = 1024;  // the lesson's N: not recorded
  CHECK(viz::find_measured_timeline(run) == nullptr);
  run.shape.seq = 4096, run.shape.causal = true;
  CHECK(viz::find_measured_timeline(run) == nullptr);
  run.shape.causal = false, run.backward = true;  // the backward is recorded, but it is not the forward
  const auto bwd = viz::find_measured_timeline(run);
  REQUIRE(bwd != nullptr);
  CHECK(bwd != t);
}
