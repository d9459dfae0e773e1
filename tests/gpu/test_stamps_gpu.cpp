// The instrumented build on the GPU: a recorded GEMM has, for every warp, its ops in program
// order with monotone stamps, and the spans the simulator's timeline would have.
#include <catch2/catch.hpp>

#include <map>

#include "kernels/stamps/recorded.hpp"
#include "sim/stamps.hpp"
#include "tests/gpu/gpu_available.hpp"

using namespace ts;
using sim::OpKind;

TEST_CASE("a recorded GEMM: every warp's ops in program order, stamps monotone, one wgmma group per k-slice", "[gpu]") {
  if (!have_gpu()) return;
  const kernels::GemmShape shape{512, 512, 256};  // 8 tiles of 128 x 256, 4 k-slices each
  kernels::GemmConfig cfg;                        // persistent: 8 blocks, one tile each
  kernels::RecordOptions opt;
  opt.timing_reps = 3;
  const kernels::RecordedRun run = kernels::record_gemm(shape, cfg, opt);
  const stamp::Recording& r = run.recording;
  REQUIRE(run.grid_blocks == 8);
  REQUIRE(r.plan.blocks == 8);
  CHECK(run.plain_ms > 0);
  CHECK(run.recorded_ms > 0);
  uint32_t valid = 0;
  for (size_t slot = 0; slot < r.headers.size(); ++slot) {
    const stamp::WarpHeader& h = r.headers[slot];
    REQUIRE(h.valid == 1);
    ++valid;
    CHECK(h.dropped == 0);
    CHECK(h.clock_end > h.clock_start);
    const stamp::Record* rec = r.slot_records(slot);
    std::map<OpKind, int> count;
    // Whatever the build's set of stamped kinds (TILESCOPE_STAMP_KINDS), it holds what this test counts.
    CHECK((h.kinds & stamp::kWaitKinds) == stamp::kWaitKinds);
    for (uint32_t i = 0; i < h.count; ++i) {
      ++count[static_cast<OpKind>(rec[i].kind)];
      CHECK((h.kinds & stamp::kind_bit(static_cast<OpKind>(rec[i].kind))) != 0);  // only kinds the build stamps
      CHECK(rec[i].start >= h.clock_start);
      CHECK(rec[i].start + rec[i].cycles <= h.clock_end);
      if (i > 0) CHECK(rec[i].start >= rec[i - 1].start + rec[i - 1].cycles);  // one op after another
    }
    INFO("block " << h.block << " warp " << h.warp);
    if (h.warp < 8) {  // consumers: per k-slice a wait for data, a group, a wait for the group
      CHECK(count[OpKind::wait] == 4);
      CHECK(count[OpKind::mma_commit] == 4);
      CHECK(count[OpKind::mma_wait] >= 4);
      CHECK(count[OpKind::tma_load] == 0);
    } else if (h.warp == 8) {  // the producer: loads of every k-slice, after waiting for its stage
      CHECK(count[OpKind::tma_load] % 4 == 0);
      CHECK(count[OpKind::tma_load] >= 8);
      CHECK(count[OpKind::wait] == 4);  // for a free stage
      CHECK(count[OpKind::mma_commit] == 0);
    }
  }
  CHECK(valid == 8 * 12);
  const sim::MeasuredSpans m = sim::spans_from_stamps(r);
  CHECK(m.clock_mhz > 300);
  CHECK(m.clock_mhz < 2500);
  std::map<std::pair<uint32_t, uint32_t>, int> groups;  // (block, warp) -> wgmma group spans
  int landed = 0;
  for (const auto& s : m.spans) {
    CHECK(s.end >= s.start);
    if (s.kind == OpKind::mma) ++groups[{s.block, s.warp}];
    if (s.kind == OpKind::tma_load && s.end > s.start) ++landed;
  }
  CHECK(groups.size() == 8 * 8);
  for (const auto& [key, n] : groups) CHECK(n == 4);
  CHECK(landed > 0);
}

TEST_CASE("recording a sample of blocks and warps: only those record, and a bad sample is refused", "[gpu]") {
  if (!have_gpu()) return;
  kernels::GemmConfig cfg;
  cfg.persistent = false;  // 64 blocks
  kernels::RecordOptions opt;
  opt.first = 1, opt.stride = 16, opt.blocks = 4;
  opt.timing_reps = 0;
  const kernels::RecordedRun run = kernels::record_gemm({1024, 2048, 128}, cfg, opt);
  REQUIRE(run.recording.plan.blocks == 4);
  for (const auto& h : run.recording.headers) {
    CHECK(h.valid == 1);
    CHECK((h.block == 1 || h.block == 17 || h.block == 33 || h.block == 49));
  }
  // The first warp of each warpgroup only: three slots per block, in warp order.
  opt.warp_mask = 0x111;
  const kernels::RecordedRun leaders = kernels::record_gemm({1024, 2048, 128}, cfg, opt);
  REQUIRE(leaders.recording.headers.size() == 4 * 3);
  for (size_t slot = 0; slot < leaders.recording.headers.size(); ++slot) {
    const stamp::WarpHeader& h = leaders.recording.headers[slot];
    CHECK(h.valid == 1);
    CHECK(h.warp == 4 * (slot % 3));
    CHECK(h.count > 0);
    CHECK(h.dropped == 0);
  }
  opt.warp_mask = 1u << 20;  // no such warp
  CHECK_THROWS_AS(kernels::record_gemm({1024, 2048, 128}, cfg, opt), std::invalid_argument);
  opt.warp_mask = ~0u;
  opt.blocks = 1000;
  opt.capacity = 1u << 24;  // 1000 blocks x 12 warps x 256 MiB: far past the budget
  CHECK_THROWS_AS(kernels::record_gemm({1024, 2048, 128}, cfg, opt), std::invalid_argument);
}

TEST_CASE("a recorded attention forward: a run of register math is one record, and the spans keep the math", "[gpu]") {
  // (A build that stamps no math, TILESCOPE_STAMP_KINDS=waits, must have none in its records.)
  if (!have_gpu()) return;
  const kernels::AttentionShape shape{1, 2, 2, 1000, 64, false, 0.f};  // a tail: the last key block is masked
  kernels::RecordOptions opt;
  opt.timing_reps = 0;
  const kernels::RecordedRun run = kernels::record_attention(shape, {}, false, opt);
  const stamp::Recording& r = run.recording;
  REQUIRE(!r.headers.empty());
  int consumer_warps = 0;
  const bool math_stamped = (r.headers.front().kinds & stamp::kind_bit(OpKind::math)) != 0;
  for (size_t slot = 0; slot < r.headers.size(); ++slot) {
    const stamp::WarpHeader& h = r.headers[slot];
    REQUIRE(h.valid == 1);
    CHECK(h.dropped == 0);
    const stamp::Record* rec = r.slot_records(slot);
    std::map<OpKind, int> count;
    int math_after_math = 0;
    for (uint32_t i = 0; i < h.count; ++i) {
      const auto kind = static_cast<OpKind>(rec[i].kind);
      ++count[kind];
      if (i > 0 && kind == OpKind::math && static_cast<OpKind>(rec[i - 1].kind) == OpKind::math) ++math_after_math;
      if (i > 0) CHECK(rec[i].start >= rec[i - 1].start + rec[i - 1].cycles);
    }
    INFO("block " << h.block << " warp " << h.warp);
    CHECK(math_after_math == 0);
    if (count[OpKind::mma_commit] > 0) {  // a consumer: softmax math between its waits in every key block
      ++consumer_warps;
      if (math_stamped) CHECK(count[OpKind::math] >= count[OpKind::mma_commit] / 2);
      else CHECK(count[OpKind::math] == 0);
    }
  }
  CHECK(consumer_warps > 0);
  int math_spans = 0;
  for (const auto& s : sim::spans_from_stamps(r).spans) math_spans += s.kind == OpKind::math && s.end > s.start;
  CHECK((math_spans > 0) == math_stamped);
}
