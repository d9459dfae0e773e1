// Measured timelines without a GPU: hand-made stamp records (the device build's format) turned into
// spans, timeline files written and read back, and the role profile both timelines go through.
#include <catch2/catch.hpp>

#include "sim/stamps.hpp"
#include "sim/timeline.hpp"
#include "sim/timeline_compare.hpp"

using namespace ts;
using sim::OpKind;

namespace {

// One block of one consumer warp (warp 0) and one producer warp (warp 4), at 1 GHz (1 cycle per ns).
struct RingBuilder {
  stamp::Recording r;
  explicit RingBuilder(uint32_t capacity) {
    r.plan.capacity = capacity;
    r.plan.warps_per_block = 5;
    r.plan.blocks = 1;
    r.headers.resize(5);
    r.records.resize(5 * capacity);
  }
  void header(uint32_t warp, uint64_t clock0, uint64_t ns0, uint64_t cycles, uint32_t sm = 7) {
    stamp::WarpHeader& h = r.headers[warp];
    h = {};
    h.clock_start = clock0, h.clock_end = clock0 + cycles, h.ns_start = ns0, h.ns_end = ns0 + cycles;
    h.block = 3, h.sm = sm, h.warp = warp, h.valid = 1;
  }
  void add(uint32_t warp, OpKind kind, uint64_t start, uint32_t cycles, uint16_t arg = 0) {
    stamp::WarpHeader& h = r.headers[warp];
    stamp::Record& x = r.records[size_t{warp} * r.plan.capacity + h.count++];
    x.start = start, x.cycles = cycles, x.kind = static_cast<uint8_t>(kind), x.arg = arg;
  }
};

const sim::Span* find(const std::vector<sim::Span>& spans, OpKind kind, uint32_t warp, int nth = 0) {
  for (const auto& s : spans)
    if (s.kind == kind && s.warp == warp && nth-- == 0) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("stamps become spans: waits as timed, math runs merged, wgmma groups from commit to the wait that retired them, TMA landed by a wait") {
  RingBuilder b(16);
  // The consumer's clock runs 1000 cycles ahead of the producer's, and it started 100 ns later:
  // both must land on one time axis through the global timer.
  b.header(0, 11000, 5100, 5000);
  b.header(4, 10000, 5000, 5000);
  b.add(4, OpKind::tma_load, 10050, 0, 0x40);                // issue at t = 50
  b.add(0, OpKind::wait, 11010, 200, 0x40);                  // t = 110 .. 310: the data landed by 310
  b.add(0, OpKind::mma_commit, 11320, 0);                    // a group committed at t = 420
  b.add(0, OpKind::math, 11350, 0);                          // a run of math from t = 450 ...
  b.add(0, OpKind::math, 11400, 0);
  b.add(0, OpKind::mma_wait, 11500, 300, 0);                 // ... to 600; the wait retires the group at 900
  const sim::MeasuredSpans m = sim::spans_from_stamps(b.r);
  REQUIRE(m.warps == 2);
  CHECK(m.clock_mhz == Approx(1000));
  const sim::Span* load = find(m.spans, OpKind::tma_load, 4);
  REQUIRE(load);
  CHECK(load->start == Approx(50));
  CHECK(load->end == Approx(310));
  CHECK(load->sm == 7);
  CHECK(load->block == 3);
  const sim::Span* wait = find(m.spans, OpKind::wait, 0);
  REQUIRE(wait);
  CHECK(wait->start == Approx(110));
  CHECK(wait->end == Approx(310));
  const sim::Span* math = find(m.spans, OpKind::math, 0);
  REQUIRE(math);
  CHECK(math->start == Approx(450));
  CHECK(math->end == Approx(600));
  CHECK(find(m.spans, OpKind::math, 0, 1) == nullptr);  // one run, not two spans
  const sim::Span* group = find(m.spans, OpKind::mma, 0);
  REQUIRE(group);
  CHECK(group->start == Approx(420));
  CHECK(group->end == Approx(900));
  CHECK(find(m.spans, OpKind::mma, 0, 1) == nullptr);
}

TEST_CASE("stamps: a TMA load of several boxes is one record and as many spans as trace mode has ops") {
  RingBuilder b(8);
  b.header(4, 0, 0, 1000);
  b.header(0, 0, 0, 1000);
  b.add(4, OpKind::tma_load, 10, 0, 0x48);
  b.r.records[4 * 8].repeat = 3;  // four boxes
  b.add(0, OpKind::wait, 5, 400, 0x48);
  const sim::MeasuredSpans m = sim::spans_from_stamps(b.r);
  int loads = 0;
  for (const auto& s : m.spans)
    if (s.kind == OpKind::tma_load) {
      ++loads;
      CHECK(s.end == Approx(405));
    }
  CHECK(loads == 4);
}

TEST_CASE("stamps: a wait that keeps groups in flight retires only the older ones; dropped records are counted") {
  RingBuilder b(4);
  b.header(0, 0, 0, 10000);
  b.r.headers[0].dropped = 9;
  b.add(0, OpKind::mma_commit, 110, 0);
  b.add(0, OpKind::mma_commit, 210, 0);
  // capacity 4: nothing more fits; a wait<1> would have come next
  sim::MeasuredSpans m = sim::spans_from_stamps(b.r);
  CHECK(m.dropped == 9);
  CHECK(find(m.spans, OpKind::mma, 0) == nullptr);  // no wait retired a group

  RingBuilder c(8);
  c.header(0, 0, 0, 10000);
  c.add(0, OpKind::mma_commit, 100, 0);
  c.add(0, OpKind::mma_commit, 200, 0);
  c.add(0, OpKind::mma_wait, 300, 50, 1);  // keeps one group: retires the first at 350
  m = sim::spans_from_stamps(c.r);
  const sim::Span* first = find(m.spans, OpKind::mma, 0);
  REQUIRE(first);
  CHECK(first->start == Approx(100));
  CHECK(first->end == Approx(350));
  CHECK(find(m.spans, OpKind::mma, 0, 1) == nullptr);
}

TEST_CASE("a timeline file reads back what it wrote, and a broken one names its problem") {
  sim::Timeline t;
  t.source = "measured";
  t.title = "gemm 256x256x64";
  t.job = {{"kernel", "gemm"}, {"m", 256}};
  t.clock_mhz = 1755;
  t.dropped = 3;
  t.kernel_ms = 1.5, t.plain_ms = 1.4;
  t.spans = {{2, 0, 8, OpKind::wait, 100, 400}, {2, 0, 0, OpKind::math, 10, 20.5}};
  t.spans[1].pipe = sim::Pipe::sfu;
  const sim::Timeline back = sim::read_timeline_json(sim::timeline_json(t), "t.json");
  CHECK(back.source == "measured");
  CHECK(back.title == t.title);
  CHECK(back.job["m"] == 256);
  CHECK(back.clock_mhz == 1755);
  CHECK(back.dropped == 3);
  CHECK(back.plain_ms == 1.4);
  REQUIRE(back.spans.size() == 2);
  CHECK(back.spans[0].kind == OpKind::wait);
  CHECK(back.spans[0].sm == 2);
  CHECK(back.spans[0].warp == 8);
  CHECK(back.spans[0].start == Approx(100).margin(0.5));  // within a cycle
  CHECK(back.spans[0].end == Approx(400).margin(0.5));
  CHECK(back.spans[1].kind == OpKind::math);  // measured math has no pipe: written as "math"

  t.source = "simulated";
  CHECK(sim::read_timeline_json(sim::timeline_json(t), "s.json").spans[1].pipe == sim::Pipe::sfu);

  CHECK_THROWS_WITH(sim::read_timeline_json("{", "bad.json"), Catch::StartsWith("bad.json: not JSON"));
  CHECK_THROWS_WITH(sim::read_timeline_json("{\"traceEvents\":[]}", "x.json"), Catch::Contains("clock_mhz"));
  CHECK_THROWS_WITH(sim::read_timeline_json(
                        R"({"traceEvents":[{"name":"teleport","ph":"X","pid":0,"tid":0,"ts":1,"dur":1}],"otherData":{"clock_mhz":1000}})",
                        "y.json"),
                    Catch::Contains("unknown op 'teleport'"));
  CHECK_THROWS_WITH(sim::read_timeline_json(
                        R"({"traceEvents":[{"name":"wait","ph":"X","pid":0,"tid":0,"ts":"soon","dur":1}],"otherData":{"clock_mhz":1000}})",
                        "z.json"),
                    Catch::Contains("numeric"));
}

TEST_CASE("the role profile: shares of each role's time and the steady-state intervals") {
  std::vector<sim::Span> spans;
  // Producer (warp 8): a TMA load every 100 cycles, landing 300 later; waits for stages half the time.
  for (int i = 0; i < 20; ++i) {
    spans.push_back({0, 0, 8, OpKind::tma_load, 100.0 * i, 100.0 * i + 300});
    spans.push_back({0, 0, 8, OpKind::wait, 100.0 * i + 10, 100.0 * i + 60});
  }
  // Consumer warpgroup 1 (warp 4): a wgmma group every 100 cycles, waiting 20 of each 100.
  for (int i = 0; i < 20; ++i) {
    spans.push_back({0, 0, 4, OpKind::mma, 100.0 * i, 100.0 * i + 90});
    spans.push_back({0, 0, 4, OpKind::mma_wait, 100.0 * i + 70, 100.0 * i + 90});
  }
  spans.push_back({0, 0, 0, OpKind::block_sync, 0, 10});  // a warp with neither role: left out
  const sim::TimelineProfile p = sim::profile(spans);
  REQUIRE(p.roles.size() == 2);
  CHECK(p.roles[0].role == "producer");
  CHECK(p.roles[1].role == "consumer 1");
  CHECK(p.roles[0].waiting == Approx(20 * 50.0 / 2200));  // from 0 to the last landing at 2200
  CHECK(p.roles[1].share(OpKind::mma_wait) == Approx(20 * 20.0 / 1990));
  CHECK(p.mma_interval == Approx(100));
  CHECK(p.tma_issue_interval == Approx(100));
  CHECK(p.tma_landing_interval == Approx(100));
}

TEST_CASE("stamps: a warp mask leaves the other warps without a slot, and the recorded ones packed in warp order") {
  stamp::Plan p;
  p.warps_per_block = 12;
  p.first = 2, p.stride = 3, p.blocks = 2;  // blocks 2 and 5
  CHECK(stamp::recorded_warps(p) == 12);
  CHECK(stamp::slot_of(p, 5, 11) == 23);
  p.warp_mask = 0x111;  // warps 0, 4, 8
  CHECK(stamp::recorded_warps(p) == 3);
  CHECK(stamp::slot_of(p, 2, 0) == 0);
  CHECK(stamp::slot_of(p, 2, 4) == 1);
  CHECK(stamp::slot_of(p, 5, 8) == 5);
  CHECK(stamp::slot_of(p, 5, 5) == -1);   // not in the mask
  CHECK(stamp::slot_of(p, 3, 0) == -1);   // not a recorded block
  CHECK(stamp::slot_of(p, 8, 0) == -1);   // past the recorded blocks
  p.warp_mask = 1u << 20;                 // a warp the kernel does not have
  CHECK(stamp::recorded_warps(p) == 0);
}

TEST_CASE("stamps: a lighter recording build says which op kinds it stamped, and its timeline file keeps that") {
  RingBuilder b(8);
  b.header(0, 1000, 0, 500);
  b.header(4, 1000, 0, 500);
  b.r.headers[0].kinds = stamp::kWaitKinds;
  b.r.headers[4].kinds = stamp::kWaitKinds | stamp::kind_bit(OpKind::math);  // the set is what every warp stamped
  b.add(0, OpKind::mma_commit, 1010, 0);
  b.add(0, OpKind::mma_wait, 1100, 40);
  const sim::MeasuredSpans m = sim::spans_from_stamps(b.r);
  CHECK(m.kinds == stamp::kWaitKinds);

  sim::Timeline t;
  t.source = "measured";
  t.clock_mhz = 1000;
  t.spans = m.spans;
  CHECK(sim::unrecorded_kinds(t).empty());  // every kind by default
  t.recorded_kinds = m.kinds;
  CHECK(sim::unrecorded_kinds(t) == "smem_store, smem_load, math");
  CHECK(t.recorded(OpKind::mma_wait));
  CHECK_FALSE(t.recorded(OpKind::math));
  const sim::Timeline back = sim::read_timeline_json(sim::timeline_json(t), "light.json");
  CHECK(back.recorded_kinds == stamp::kWaitKinds);
  CHECK(sim::read_timeline_json(sim::timeline_json(sim::Timeline{.source = "measured", .clock_mhz = 1000}), "all.json").recorded_kinds ==
        stamp::kAllKinds);
  CHECK_THROWS_WITH(
      sim::read_timeline_json(R"({"traceEvents":[],"otherData":{"clock_mhz":1000,"recorded_kinds":["wait","teleport"]}})", "k.json"),
      Catch::Contains("recorded_kinds: unknown op \"teleport\""));
}
