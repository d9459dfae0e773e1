// The discrete-event engine on hand-written op streams whose timelines are worked out by hand: the SM
// (wgmma, register math, barriers, shared memory), the pipeline, the event queue. The memory system:
// test_engine_memory.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <queue>

#include <catch2/catch.hpp>

#include "sim/banks.hpp"
#include "sim/engine.hpp"
#include "sim/event_queue.hpp"
#include "sim/smem_walk.hpp"
#include "sim/tensor_core.hpp"
#include "tests/engine_test_grid.hpp"
#include "tiles/layout/fragments.hpp"

using namespace ts::sim;
using namespace ts::sim::engine_test;

TEST_CASE("one wgmma: pipe time plus latency", "[engine]") {
  // m64n256k16 = 64*256*16*2 = 524288 FLOP; each of the warpgroup's four warps issues its quarter
  // onto its own sub-partition's tensor core (1024 FLOP/cycle): 128 cycles, + 10 latency.
  const std::vector<TraceOp> warp = {op(OpKind::mma, 0, 256, 0, 524288 / 4), op(OpKind::mma_commit), op(OpKind::mma_wait, 0, 0)};
  HandGrid grid({warp, warp, warp, warp});
  const SimReport r = simulate(grid, simple_params());
  CHECK(r.cycles == Approx(138));
  CHECK(r.flops == 524288);
  CHECK(r.tensor_busy == Approx(128.0 / 138.0));
  // A lone warp has one tensor core: its quarter takes as long, and the SM's pipes are a quarter busy.
  HandGrid lone({warp});
  const SimReport one = simulate(lone, simple_params());
  CHECK(one.cycles == Approx(138));
  CHECK(one.tensor_busy == Approx(0.25 * 128.0 / 138.0));
}

TEST_CASE("register math: an FMA chain waits for each op's results", "[engine]") {
  // 10 FFMAs issue in 10 cycles, the last result 4 cycles later; the next op needs it: 14 + 14.
  HandGrid grid({{math({{Pipe::fma, 10}}), math({{Pipe::fma, 10}})}});
  const SimReport r = simulate(grid, pipe_params());
  CHECK(r.cycles == Approx(28));
  CHECK(r.pipe_instructions[static_cast<int>(Pipe::fma)] == 20);
  // One of four sub-partitions issued 20 of 28 cycles.
  CHECK(r.issue_busy[0] == Approx(20.0 / 28.0));
  CHECK(r.issue_busy[1] == 0);
}

TEST_CASE("register math: a reduction waits for its fold's chain of dependent steps, not only its issue", "[engine]") {
  // A row sum of 64 elements a lane into 2 values, 2 butterfly rounds: 64 + 4 FADD and 4 SHFL issue in
  // 72 cycles, and the pipes are done by then (the FMA's 68 and its latency; the shuffles' 16 and
  // theirs: 40). But each value's fold is 32 dependent FADDs, then 2 rounds of a shuffle and an
  // FADD: 34 x 4 + 2 x 24 = 184 cycles.
  TraceOp sum = math({{Pipe::fma, 68}, {Pipe::shuffle, 4}});
  sum.pipes.chain[static_cast<int>(Pipe::fma)] = 34;
  sum.pipes.chain[static_cast<int>(Pipe::shuffle)] = 2;
  HandGrid grid({{sum}});
  CHECK(simulate(grid, pipe_params()).cycles == Approx(184));
  // Without the chain the same instructions are independent: the issue and the last latency.
  sum.pipes.chain[static_cast<int>(Pipe::fma)] = 0;
  sum.pipes.chain[static_cast<int>(Pipe::shuffle)] = 0;
  HandGrid flat({{sum}});
  CHECK(simulate(flat, pipe_params()).cycles == Approx(72));
}

TEST_CASE("register math: two warps of one sub-partition share its SFU, of two do not", "[engine]") {
  // 8 ex2 at one per 8 cycles: the pipe is busy 64 cycles, the result 18 later (82). Warps 0 and
  // 4 share sub-partition 0: warp 4's ex2 start when warp 0's are through, 64 -> 128, + 18.
  const std::vector<TraceOp> ex2 = {math({{Pipe::sfu, 8}})};
  const std::vector<TraceOp> idle = {};
  HandGrid shared({ex2, idle, idle, idle, ex2});
  SimOptions opt;
  opt.timeline_sms = 1;
  const SimReport r = simulate(shared, pipe_params(), opt);
  CHECK(r.cycles == Approx(146));
  CHECK(r.pipe_busy[static_cast<int>(Pipe::sfu)] == Approx(128.0 / (146.0 * 4)));
  REQUIRE(r.spans.size() == 2);
  CHECK(r.spans[0].pipe == Pipe::sfu);
  CHECK(timeline_json(r, pipe_params()).find("\"name\":\"math (sfu)\"") != std::string::npos);
  HandGrid apart({ex2, ex2});
  CHECK(simulate(apart, pipe_params()).cycles == Approx(82));
}

TEST_CASE("register math: the scheduler's issue slot is shared by the pipes", "[engine]") {
  // 40 instructions on four pipes: issue takes 40 cycles although no pipe is busy that long; the
  // slowest result is the ALU's (10 x 2 cycles from 0, + 5) or the issue end + FMA latency (44).
  HandGrid grid({{math({{Pipe::fma, 10}, {Pipe::alu, 10}, {Pipe::convert, 10}, {Pipe::shuffle, 10}})}});
  // Shuffles: 10 x 4 = 40 busy cycles + 24 latency = 64, the latest.
  CHECK(simulate(grid, pipe_params()).cycles == Approx(64));
}

TEST_CASE("a warpgroup barrier releases its warps together, after the last arrives", "[engine]") {
  // Warp 2 computes 100 FFMAs first (done at 104); the barrier opens 20 cycles after it arrives;
  // then every warp's one FFMA: 124 + 1 + 4.
  const std::vector<TraceOp> plain = {op(OpKind::warpgroup_sync, 0), math({{Pipe::fma, 1}})};
  const std::vector<TraceOp> late = {math({{Pipe::fma, 100}}), op(OpKind::warpgroup_sync, 0), math({{Pipe::fma, 1}})};
  HandGrid grid({plain, plain, late, plain});
  CHECK(simulate(grid, pipe_params()).cycles == Approx(129));
}

TEST_CASE("a 2-stage pipeline, 3 iterations, timeline worked out by hand", "[engine]") {
  // Loads take 400 cycles (HBM latency; bandwidth made irrelevant), each MMA 400 cycles.
  EngineParams p = simple_params();
  p.l2_bytes_per_cycle = 1e12;
  p.hbm_bytes_per_cycle = 1e12;
  p.mma_latency = 0;
  const uint64_t box = 128 * 128;
  const uint64_t mma_flops = 400 * 4096 / 4;  // one warp's quarter: 400 cycles on its tensor core
  enum : uint32_t { full0 = 0, full1 = 8, empty0 = 16, empty1 = 24 };
  std::vector<TraceOp> producer = {op(OpKind::barrier_init, full0, 1), op(OpKind::barrier_init, full1, 1),
                                   op(OpKind::barrier_init, empty0, 1), op(OpKind::barrier_init, empty1, 1),
                                   op(OpKind::block_sync)};
  std::vector<TraceOp> consumer = {op(OpKind::block_sync)};
  for (uint32_t it = 0; it < 3; ++it) {
    const uint32_t full = it % 2 ? full1 : full0, empty = it % 2 ? empty1 : empty0, parity = (it / 2) & 1;
    producer.push_back(op(OpKind::wait, empty, parity ^ 1));
    producer.push_back(op(OpKind::expect_bytes, full, 0, box));
    producer.push_back(load(full, it * box));  // distinct boxes: every load misses
    consumer.push_back(op(OpKind::wait, full, parity));
    consumer.push_back(op(OpKind::mma, 0, 256, 0, mma_flops));
    consumer.push_back(op(OpKind::mma_commit));
    consumer.push_back(op(OpKind::mma_wait, 0, 0));
    consumer.push_back(op(OpKind::arrive, empty));
  }
  // t=0 both loads issue (done at 400 and 401); the third waits for empty0.
  // MMA 0: 400-800, frees stage 0 -> load 2 issued at 800, lands at 1200.
  // MMA 1: 800-1200 (stage 1 landed at 401). MMA 2: 1200-1600. The block ends at 1600.
  HandGrid grid({producer, consumer});
  SimOptions opt;
  opt.timeline_sms = 1;
  const SimReport r = simulate(grid, p, opt);
  CHECK(r.cycles == Approx(1600));
  CHECK(r.tensor_busy == Approx(0.25 * 1200.0 / 1600.0));  // one of four tensor cores
  std::vector<double> mma_starts;
  for (const Span& s : r.spans)
    if (s.kind == OpKind::mma) mma_starts.push_back(s.start);
  REQUIRE(mma_starts.size() == 3);
  CHECK(mma_starts[0] == Approx(400));
  CHECK(mma_starts[1] == Approx(800));
  CHECK(mma_starts[2] == Approx(1200));
  CHECK(timeline_json(r, p).find("\"name\":\"mma\"") != std::string::npos);
}

TEST_CASE("engine is deterministic and reports deadlocks and bad streams", "[engine]") {
  std::vector<TraceOp> w = {op(OpKind::barrier_init, 0, 1), op(OpKind::expect_bytes, 0, 0, 4096), load(0, 0, 32),
                            op(OpKind::wait, 0, 0), op(OpKind::mma, 0, 64, 0, 131072), op(OpKind::mma_commit),
                            op(OpKind::mma_wait, 0, 0)};
  HandGrid g1({w, w}, 5), g2({w, w}, 5);
  EngineParams p = simple_params();
  p.sms = 2;
  const SimReport a = simulate(g1, p), b = simulate(g2, p);
  CHECK(a.cycles == b.cycles);
  CHECK(a.l2_hits == b.l2_hits);
  CHECK(a.ops == b.ops);

  HandGrid stuck({{op(OpKind::barrier_init, 0, 2), op(OpKind::arrive, 0), op(OpKind::wait, 0, 0)}});
  CHECK_THROWS_WITH(simulate(stuck, p), Catch::Contains("deadlock") && Catch::Contains("warp 0 waits in wait"));
  HandGrid uninit({{op(OpKind::wait, 3, 0)}});
  CHECK_THROWS_WITH(simulate(uninit, p), Catch::Contains("before initialising"));
  HandGrid too_big({{op(OpKind::arrive, 0)}}, 1, 300 * 1024);
  CHECK_THROWS_WITH(simulate(too_big, p), Catch::Contains("does not fit"));
}

TEST_CASE("shared-memory walks: wavefronts and conflicts per instruction from the tile's layout", "[engine][banks]") {
  // ldmatrix.x4 over a 16 x 64 bf16 tile with no swizzle: each 8-lane phase reads 8 rows 128 bytes
  // apart, all in bank 0: 8 wavefronts a phase, 32 an instruction, 28 of them conflicts; 4 subtiles.
  SmemAccess plain{{2, 16, 64, ts::layout::Swizzle::none, 0}, 0, 0, 16, 64, SmemWalk::matrix_x4};
  const SmemCost c = smem_access_cost(plain, false);
  CHECK(c.instructions == 4);
  CHECK(c.wavefronts == 4 * 32);
  CHECK(c.conflicts == 4 * 28);
  // The 128-byte swizzle spreads the 8 rows over 8 chunks: 1 wavefront a phase.
  SmemAccess swizzled = plain;
  swizzled.tile.swizzle = ts::layout::Swizzle::b128;
  const SmemCost s = smem_access_cost(swizzled, false);
  CHECK(s.wavefronts == 4 * 4);
  CHECK(s.conflicts == 0);
  // A 16-float vector stored by group: lanes 0, 4, .., 28 write rows g and g + 8 (2 instructions,
  // 8 distinct banks each); loaded by thread: 4 slots in two 64-bit loads (adjacent pairs), the 8
  // groups reading the same words: one wavefront per half-warp.
  SmemAccess vec{{4, 1, 16, ts::layout::Swizzle::none, 0}, 0, 0, 1, 16, SmemWalk::vector_by_group};
  const SmemCost st = smem_access_cost(vec, true);
  CHECK(st.instructions == 2);
  CHECK(st.wavefronts == 2);
  vec.walk = SmemWalk::vector_by_thread;
  const SmemCost ld = smem_access_cost(vec, false);
  CHECK(ld.instructions == 2);
  CHECK(ld.wavefronts == 4);
  CHECK(ld.conflicts == 0);
}

TEST_CASE("fp32 pairs in a 128B swizzle: the row-pair walk swaps blocks and is conflict-free, the accumulator walk is not", "[engine][banks]") {
  // A warp's 16 rows of a 64 x 64 fp32 tile, 8-byte accesses served a half-warp at a time.
  // warp::load/store (row_pairs): the lanes of odd rows move the partner block
  // (ts::layout::fp32_pair_block), so each half-warp covers 8 chunk positions: 1 wavefront a phase.
  SmemAccess rows{{4, 64, 64, ts::layout::Swizzle::b128, 0}, 0, 0, 16, 64, SmemWalk::row_pairs};
  const SmemCost r = smem_access_cost(rows, false);
  CHECK(r.instructions == 16);
  CHECK(r.wavefronts == 16 * 2);
  CHECK(r.conflicts == 0);
  // warpgroup::store (accumulator_pairs) keeps every lane on its own block: rows g and g ^ 1 of a
  // half-warp share two chunk positions, 2 wavefronts a phase (as Nsight Compute counts on the
  // attention backward's dQ staging: 270 M conflicts in 848 M store wavefronts).
  SmemAccess acc = rows;
  acc.walk = SmemWalk::accumulator_pairs;
  const SmemCost a = smem_access_cost(acc, true);
  CHECK(a.instructions == 16);
  CHECK(a.wavefronts == 16 * 4);
  CHECK(a.conflicts == 16 * 2);
  // A width of 16 columns has no partner block: the row-pair walk leaves it as it is.
  SmemAccess narrow{{4, 64, 16, ts::layout::Swizzle::b64, 0}, 0, 0, 16, 16, SmemWalk::row_pairs};
  uint32_t unswapped = 0;
  for (uint32_t pair = 0; pair < 4; ++pair) {
    std::array<uint32_t, 32> own_block{};
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const ts::layout::RowCol e = ts::layout::rt_row_l_element(lane, pair, 0);
      own_block[lane] = narrow.tile.element_offset(e.row, e.col);
    }
    unswapped += analyze_banks(info(SmemOp::ld64), own_block).wavefronts;
  }
  CHECK(smem_access_cost(narrow, false).wavefronts == unswapped);
  // A 16-bit tile is stored by stmatrix (matrix_x4): an accumulator-pair walk of one is a mistake.
  SmemAccess bf16_pairs{{2, 64, 64, ts::layout::Swizzle::b128, 0}, 0, 0, 16, 64, SmemWalk::accumulator_pairs};
  CHECK_THROWS_WITH(smem_access_cost(bf16_pairs, true), Catch::Contains("stmatrix"));
}

TEST_CASE("a shared-memory load: its wavefronts on the SM's pipe, then the latency", "[engine]") {
  EngineParams p = simple_params();
  p.smem_latency = 30;
  TraceOp load_op = op(OpKind::smem_load, 0, 0, 2048);
  load_op.smem = SmemAccess{{2, 16, 64, ts::layout::Swizzle::none, 0}, 0, 0, 16, 64, SmemWalk::matrix_x4};
  HandGrid grid({{load_op}});
  const SimReport r = simulate(grid, p);
  CHECK(r.cycles == Approx(128 + 30));
  CHECK(r.bank_conflicts == 112);
  CHECK(r.smem[0][static_cast<int>(SmemWalk::matrix_x4)].instructions == 4);
}

TEST_CASE("a shared-memory load beside wgmma gets what the operand reads leave of the port", "[engine]") {
  // Warp 0: one m64n64 MMA 1024 deep, 2048 cycles on its core (2 x 16 x 64 x 1024 FLOP a warp, four
  // sub-partitions at 4096 FLOP a cycle). With A and B from shared memory it reads 256 KB in those
  // cycles, 128 bytes a cycle: the port's whole rate, so warp 1's load of 16 wavefronts waits for the
  // core, 2048 + 16 + 30. With A from registers it reads 64 bytes a cycle and the load gets a quarter
  // of a wavefront a cycle (lsu_load_bytes_under_mma 32 of 128): 64 + 30.
  EngineParams p = simple_params();
  p.smem_latency = 30;
  TraceOp load_op = op(OpKind::smem_load, 0, 0, 2048);
  load_op.smem = SmemAccess{{2, 16, 64, ts::layout::Swizzle::b128, 0}, 0, 0, 16, 64, SmemWalk::matrix_x4};
  const auto load_end = [&](uint32_t a_in_registers) {
    const TraceOp mma = op(OpKind::mma, a_in_registers, 64, 2, 2 * 16 * 64 * 1024);
    HandGrid grid({{mma, op(OpKind::mma_commit), op(OpKind::mma_wait, 0, 0)}, {load_op}});
    SimOptions opt;
    opt.timeline_sms = 1;
    const SimReport r = simulate(grid, p, opt);
    for (const Span& s : r.spans)
      if (s.warp == 1 && s.kind == OpKind::smem_load) return s.end;
    return -1.0;
  };
  CHECK(smem_access_cost(load_op.smem, false).wavefronts == 16);
  CHECK(load_end(0) == Approx(2048 + 16 + 30));
  CHECK(load_end(1) == Approx(64 + 30));
}

TEST_CASE("a wgmma takes its warp's scheduler before the tensor core: behind another warp's math", "[engine]") {
  // One m64n64 MMA 64 deep: 4 instructions, 128 cycles on the core, results 10 later. At 5 issue
  // cycles an instruction the core starts on the first at 5 (the warp issues the other three
  // meanwhile): 143. Warp 4 shares sub-partition 0 and issues 40 FMA first (40 cycles of its
  // scheduler): the MMA's issue waits for them, 40 + 5 + 128 + 10.
  EngineParams p = pipe_params();
  p.mma_latency = 10;
  p.mma_issue_cycles = 5;
  const std::vector<TraceOp> mma = {op(OpKind::mma, 0, 64, 2, 2 * 16 * 64 * 64), op(OpKind::mma_commit), op(OpKind::mma_wait, 0, 0)};
  HandGrid alone({mma});
  CHECK(simulate(alone, p).cycles == Approx(143));
  const std::vector<TraceOp> idle = {};
  const std::vector<TraceOp> fma = {math({{Pipe::fma, 40}})};
  HandGrid behind({fma, idle, idle, idle, mma});
  CHECK(simulate(behind, p).cycles == Approx(40 + 5 + 128 + 10));
  p.mma_issue_cycles = 0;
  HandGrid free_issue({mma});
  CHECK(simulate(free_issue, p).cycles == Approx(138));
}

TEST_CASE("a wgmma waits at issue while its sub-partition's core has mma_queue_depth not through", "[engine]") {
  // The probe's case (kernels/probes/wgmma_queue_probe.cu): 16 m64n256k16 in one op, 128 cycles each
  // on a quarter core, then one FMA. With room for 7 the first 7 issue at once and each later one
  // when the core is through with the one 7 before it: the 16th at 9 x 128. The FMA starts there;
  // the core's time (16 x 128 + latency 10) is the same either way.
  EngineParams p = simple_params();
  const TraceOp mma16 = op(OpKind::mma, 0, 256, 2, 2 * 16 * 256 * 256);
  const std::vector<TraceOp> warp = {mma16, math({{Pipe::fma, 1}}), op(OpKind::mma_commit), op(OpKind::mma_wait, 0, 0)};
  auto fma_start = [](const SimReport& r, uint32_t warp_index) {
    for (const Span& s : r.spans)
      if (s.warp == warp_index && s.kind == OpKind::math) return s.start;
    return -1.0;
  };
  SimOptions opt;
  opt.timeline_sms = 1;
  p.mma_queue_depth = 7;
  HandGrid held({warp});
  const SimReport r = simulate(held, p, opt);
  CHECK(fma_start(r, 0) == Approx(9 * 128));
  CHECK(r.cycles == Approx(16 * 128 + 10));
  p.mma_queue_depth = 0;
  HandGrid unlimited({warp});
  const SimReport free_issue = simulate(unlimited, p, opt);
  CHECK(fma_start(free_issue, 0) == Approx(0));
  CHECK(free_issue.cycles == Approx(16 * 128 + 10));

  // Two warps of one sub-partition share its queue (the probe's two warpgroups are held after 3-4
  // instructions each, not 7): warp 0 takes the 7 places, warp 4 gets one each time the core is
  // through with an instruction, and both are held. Warps 1 and 5 on sub-partition 1 do the same
  // beside them, untouched. The core is busy 32 x 128 cycles either way.
  p.mma_queue_depth = 7;
  const std::vector<TraceOp> idle = {};
  HandGrid pair({warp, warp, idle, idle, warp, warp});
  const SimReport shared = simulate(pair, p, opt);
  CHECK(shared.cycles == Approx(32 * 128 + 10));
  CHECK(fma_start(shared, 0) > 9 * 128);
  CHECK(fma_start(shared, 4) > 9 * 128);
  CHECK(fma_start(shared, 1) == Approx(fma_start(shared, 0)));
  CHECK(fma_start(shared, 5) == Approx(fma_start(shared, 4)));

  // A wide wgmma holds its warp longer than its scheduler (the probe's six back-to-back
  // m64n256k16 left the warp 30.5 cycles apart): 5 + 0.1 x 256 = 30.6 cycles an instruction for the
  // warp, of which 5 are the scheduler's. No queue limit here: the FMA after 16 starts at 16 x 30.6,
  // while warp 4's FMA on the same sub-partition waits only for the 16 x 5 scheduler cycles. The
  // core starts on the first instruction once it is issued: 30.6 + 16 x 128 + 10.
  p.mma_queue_depth = 0;
  p.mma_issue_cycles = 5;
  p.mma_issue_cycles_per_column = 0.1;
  const std::vector<TraceOp> fma_only = {math({{Pipe::fma, 1}})};
  HandGrid wide({warp, idle, idle, idle, fma_only});
  const SimReport held_warp = simulate(wide, p, opt);
  CHECK(fma_start(held_warp, 0) == Approx(16 * 30.6));
  CHECK(fma_start(held_warp, 4) == Approx(16 * 5));
  CHECK(held_warp.cycles == Approx(30.6 + 16 * 128 + 10));
  p.mma_issue_cycles = 0;
  p.mma_issue_cycles_per_column = 0;

  p.mma_queue_depth = 17;
  HandGrid too_deep({warp});
  CHECK_THROWS_WITH(simulate(too_deep, p), Catch::Contains("wgmma_queue_depth must be 0 (no limit) to 16"));
}

TEST_CASE("progress reports blocks done and a false return stops the simulation", "[engine]") {
  const std::vector<TraceOp> warp = {op(OpKind::mma, 0, 64, 0, 131072), op(OpKind::mma_commit), op(OpKind::mma_wait, 0, 0)};
  HandGrid grid({warp}, 10);
  SimOptions opt;
  std::vector<uint32_t> seen;
  opt.progress = [&](uint32_t done, uint32_t total) {
    CHECK(total == 10);
    seen.push_back(done);
    return true;
  };
  simulate(grid, simple_params(), opt);
  REQUIRE(seen.size() == 10);  // every block of a small grid, the last included
  CHECK(seen.back() == 10);
  HandGrid again({warp}, 10);
  opt.progress = [](uint32_t done, uint32_t) { return done < 3; };
  CHECK_THROWS_AS(simulate(again, simple_params(), opt), SimCancelled);
}

// The staggered rows of kernels/probes/wgmma_share_probe.cu (H100, 2026-11-26; median over SMs,
// data/measured/h100/sim-attention/wgmma-share.txt): warpgroups issuing `n` wgmma m64n128k16 each,
// started `delay` cycles apart; each one's start and the end of its wait, in cycles.
struct ShareRow {
  int n;
  std::vector<double> start, end;
};
const std::vector<ShareRow> kShareRows = {
    {8, {63, 150}, {1231, 1390}},
    {8, {68, 185, 291}, {1385, 1732, 1953}},
    {64, {63, 570}, {7668, 8666}},
    {64, {68, 598, 1113}, {10417, 12134, 12816}},
};

// Each row replayed on one sub-partition's core (the probe's warpgroups have a warp on each): the
// error of every warpgroup's end. An instruction's time on the core and the wait's latency come
// from the probe's rows for one warpgroup alone: 8 instructions end at 834, 64 at 4516, from 65.
std::vector<double> replay_share_rows(double age_weight) {
  const double per_instruction = (4516.0 - 834.0) / 56, latency = (834.0 - 65.0) - 8 * per_instruction;
  std::vector<double> errors;
  for (const ShareRow& row : kShareRows) {
    TensorCore core(age_weight);
    std::vector<WarpMma> warps(row.start.size());
    for (size_t i = 0; i < warps.size(); ++i) {
      core.issue(warps[i], row.start[i], row.n * per_instruction);
      warps[i].groups.push_back(warps[i].open);
    }
    for (size_t i = 0; i < warps.size(); ++i) {
      const double through = core.predict(warps[i], warps[i].groups[0].threshold);
      core.advance(through);
      REQUIRE(warps[i].groups[0].done == Approx(through));
      errors.push_back(std::abs(through + latency - row.end[i]) / row.end[i]);
    }
  }
  return errors;
}

TEST_CASE("the tensor core's turns favour the warp that came first, as the wgmma share probe measured", "[engine]") {
  const std::vector<double> weighted = replay_share_rows(1.2), equal = replay_share_rows(1.0);
  const auto mean = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); };
  INFO("mean error: weighted " << mean(weighted) << ", equal " << mean(equal));
  CHECK(*std::max_element(weighted.begin(), weighted.end()) < 0.05);
  CHECK(mean(weighted) < 0.025);
  // Equal turns miss the first warpgroup's lead: of three staggered by 500, the first ends some
  // 1,200 cycles late.
  CHECK(*std::max_element(equal.begin(), equal.end()) > 0.10);
  CHECK(mean(equal) > 0.04);
  // The machine files carry the weight that fits.
  CHECK(load_machine_file(find_data_path("machines/h100-sxm.json")).wgmma_share_age_weight.value == 1.2);
}

TEST_CASE("a later warp slows the tensor core's earlier ones, and they still end in order of arrival", "[engine]") {
  TensorCore core(1.2);
  WarpMma a, b;
  core.issue(a, 0, 1000);
  a.groups.push_back(a.open);
  core.issue(b, 500, 1000);
  b.groups.push_back(b.open);
  // From 500 on, a runs at 1.2 / 2.2 of the core: its last 500 cycles take 500 * 2.2 / 1.2.
  const double a_through = core.predict(a, a.groups[0].threshold);
  CHECK(a_through == Approx(500 + 500 * 2.2 / 1.2));
  // Then b alone: 2000 cycles of work in all, done at 2000.
  CHECK(core.predict(b, b.groups[0].threshold) == Approx(2000));
  core.advance(2000);
  CHECK(a.groups[0].done == Approx(a_through));
  CHECK(b.groups[0].done == Approx(2000));
  CHECK(core.busy_cycles() == Approx(2000));
}

TEST_CASE("the tensor core finds a group done at the time it predicted, deep into a long run", "[engine]") {
  // Far into a run, a group's last sliver of work can be smaller than the rounding of real time:
  // predicted through at t, it must be found through when the core is moved to t, or its waiter is
  // woken at t again, forever (that hung `tilescope sim attention --n 16384 --d 128 --bwd` at
  // 1709 MHz). Three warps share the core, so the clock runs at a third of real time.
  TensorCore core;
  std::array<WarpMma, 3> warps;
  double t = 3e9;
  for (int round = 0; round < 20000; ++round) {
    for (int j = 0; j < 3; ++j) {
      WarpMma& w = warps[j];
      // Cycles of work that do not add up exactly, and now and then less than the clock's rounding.
      core.issue(w, t, round % 7 == 3 ? 2e-9 : 97.31 + 0.173 * ((round + j) % 11));
      w.groups.push_back(w.open);
      w.open = MmaGroup{-1};
    }
    for (WarpMma& w : warps) {
      const double at = core.predict(w, w.groups[0].threshold);
      REQUIRE(at >= t);
      core.advance(at);
      INFO("round " << round << ": predicted through at " << at);
      REQUIRE(w.groups[0].done >= 0);
      w.groups.pop_front();
      t = at;
    }
    t += round % 5 == 0 ? 13.7 : 0.0;
  }
}

TEST_CASE("the event queue gives events in the order a binary heap does", "[engine]") {
  // As the engine uses it: pops interleaved with pushes at or after the last popped time, most
  // within a few hundred cycles, some thousands of cycles off (beyond the bucket window), many
  // in the same cycle and some at exactly the same time (the tie goes by order); pushes also come
  // for an earlier cycle than the one the queue moved on to when asked for its first event.
  struct Ev {
    double time;
    uint64_t order;
    bool operator>(const Ev& o) const { return time != o.time ? time > o.time : order > o.order; }
  };
  EventQueue<Ev> queue;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> heap;
  uint64_t seq = 0, state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull, state >> 33; };
  auto push = [&](double t) {
    const Ev e{t, seq++};
    queue.push(e);
    heap.push(e);
  };
  for (int i = 0; i < 50; ++i) push(static_cast<double>(next() % 100));
  double now = 0;
  for (int step = 0; step < 200000; ++step) {
    if (!heap.empty() && next() % 3 != 0) {
      REQUIRE(queue.size() == heap.size());
      const Ev want = heap.top();
      if (next() % 5 == 0) {  // look first (the queue may move on), then push before the first event
        REQUIRE(queue.top().order == want.order);
        push(now + static_cast<double>(next() % 4) * 0.25);
        continue;
      }
      const Ev got = queue.top();
      REQUIRE(got.order == want.order);
      REQUIRE(got.time == want.time);
      queue.pop();
      heap.pop();
      now = got.time;
      continue;
    }
    const uint64_t r = next() % 100;
    const double ahead = r < 70 ? static_cast<double>(next() % 300) + static_cast<double>(next() % 8) / 8
                         : r < 80 ? 0.0
                         : r < 95 ? static_cast<double>(next() % 1024)
                                  : 1024.0 + static_cast<double>(next() % 20000);
    push(now + ahead);
  }
  while (!heap.empty()) {
    REQUIRE(queue.top().order == heap.top().order);
    queue.pop();
    heap.pop();
  }
  CHECK(queue.empty());
}
