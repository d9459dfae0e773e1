// The engine's memory system on hand-written op streams, timed by hand: TMA loads through the L2 and
// HBM (and a cluster's multicast), the SM's TMA port, TMA stores and reducing stores, plain global
// loads and stores.
#include <algorithm>

#include <catch2/catch.hpp>

#include "tests/engine_test_grid.hpp"

using namespace ts::sim;
using namespace ts::sim::engine_test;

TEST_CASE("one TMA load: HBM miss then L2 hit, timed by hand", "[engine]") {
  // 16 KB box. Miss: L2 server 16384/100 = 163.84 cycles, HBM server 16384/50 = 327.68, + 400
  // HBM latency -> the bytes land at 727.68. A second load of the same box hits: 163.84 cycles on
  // the L2 server and the 200-cycle L2 latency.
  const std::vector<TraceOp> warp = {op(OpKind::barrier_init, 1, 1), op(OpKind::expect_bytes, 1, 0, 16384), load(1, 0),
                                     op(OpKind::wait, 1, 0),
                                     op(OpKind::expect_bytes, 1, 0, 16384), load(1, 0), op(OpKind::wait, 1, 1)};
  HandGrid grid({warp});
  const SimReport r = simulate(grid, simple_params());
  CHECK(r.l2_misses == 1);
  CHECK(r.l2_hits == 1);
  CHECK(r.hbm_read_bytes == 16384);
  CHECK(r.l2_hit_bytes == 16384);
  // The second load is issued when the wait returns, at 727.68; the L2 server is free by then.
  CHECK(r.cycles == Approx(727.68 + 163.84 + 200));
}

TEST_CASE("a cluster of 2: a multicast load is read once and lands in both blocks", "[engine][cluster]") {
  // Each block of the cluster loads its own 16 KB box for both (CTA mask 0b11) and waits for
  // the two; both barriers take 32 KB. The L2 serves 2 boxes, not 4: 2 x 163.84 cycles on its
  // server, the second one's bytes land at 327.68 + 200 (HBM made as fast as L2 here).
  EngineParams p = simple_params();
  p.sms = 2;
  p.hbm_bytes_per_cycle = 1e12;
  p.tma_latency_hbm = 200;
  TraceOp shared = load(1, 0);
  shared.count = 0b11;
  const std::vector<TraceOp> warp = {op(OpKind::barrier_init, 1, 1), op(OpKind::block_sync, 1), op(OpKind::expect_bytes, 1, 0, 32768),
                                     shared, op(OpKind::wait, 1, 0), op(OpKind::block_sync, 1)};
  HandGrid grid({warp}, 2, 1024, 2);
  const SimReport r = simulate(grid, p);
  CHECK(r.l2_hits + r.l2_misses == 2);
  CHECK(r.l2_hit_bytes + r.hbm_read_bytes == 32768);
  CHECK(r.cycles == Approx(2 * 163.84 + 200));

  // Arrivals on both blocks' barriers (count c: cluster rank c - 1), as the pipeline's consumers
  // hand a stage back: each barrier has its two.
  const std::vector<TraceOp> handoff = {op(OpKind::barrier_init, 2, 2), op(OpKind::block_sync, 1), op(OpKind::arrive, 2, 1),
                                        op(OpKind::arrive, 2, 2), op(OpKind::wait, 2, 0), op(OpKind::block_sync, 1)};
  HandGrid pair({handoff}, 2, 1024, 2);
  CHECK_NOTHROW(simulate(pair, p));
  // Without the peer's arrival (each block arrives on its own barrier once of two): a deadlock.
  const std::vector<TraceOp> alone = {op(OpKind::barrier_init, 2, 2), op(OpKind::block_sync, 1), op(OpKind::arrive, 2, 0),
                                      op(OpKind::wait, 2, 0), op(OpKind::block_sync, 1)};
  HandGrid lonely({alone}, 2, 1024, 2);
  CHECK_THROWS_WITH(simulate(lonely, p), Catch::Contains("deadlock") && Catch::Contains("1 of 2 arrivals"));
  // A grid that is not whole clusters is refused.
  HandGrid odd({warp}, 3, 1024, 2);
  CHECK_THROWS_WITH(simulate(odd, p), Catch::Contains("not whole clusters"));
}

TEST_CASE("the SM's TMA port paces one SM's loads", "[engine]") {
  // Two 16 KB boxes through a 32 B/cycle port: the second's bytes are in at 1024 cycles, then the
  // 200-cycle L2 latency (both hit: L2 and HBM servers are made fast).
  EngineParams p = simple_params();
  p.tma_bytes_per_cycle_per_sm = 32;
  p.l2_bytes_per_cycle = 1e12;
  p.hbm_bytes_per_cycle = 1e12;
  p.tma_latency_hbm = 200;
  HandGrid grid({{op(OpKind::barrier_init, 1, 1), op(OpKind::expect_bytes, 1, 0, 32768), load(1, 0), load(1, 16384),
                  op(OpKind::wait, 1, 0)}});
  CHECK(simulate(grid, p).cycles == Approx(1024 + 200));
}

namespace {
// Stores with their latencies as given, the L2 taking them at `rate` bytes per cycle, HBM not in the way.
EngineParams store_params(double latency, double under_load, double rate) {
  EngineParams p = simple_params();
  p.tma_store_latency = latency;
  p.tma_store_latency_under_load = under_load;
  p.store_bytes_per_cycle = rate;
  p.hbm_bytes_per_cycle = 1e12;
  return p;
}
// One warp issuing `stores` in one bulk group and waiting until they have read shared memory.
std::vector<TraceOp> stores_then_wait(std::initializer_list<TraceOp> stores) {
  std::vector<TraceOp> w(stores);
  w.push_back(op(OpKind::tma_store_commit));
  w.push_back(op(OpKind::tma_store_wait, 0, 0));
  return w;
}
}  // namespace

TEST_CASE("TMA stores: alone at their own latency, slower with every SM storing", "[engine]") {
  // Stores alone: 500 cycles until the staging tile may be reused. In flight across the chip they
  // slow down towards 4500 cycles, in proportion to how many are in flight per SM.
  EngineParams p = store_params(500, 4500, 1e12);
  p.sms = 2;
  HandGrid alone({stores_then_wait({store(0)})});
  CHECK(simulate(alone, p).cycles == Approx(500));
  // Two stores back to back from one warp (2 SMs in the machine): the first sees none in flight
  // (500), the second sees one, half an SM's worth of load: 500 + 0.5 * 4000 = 2500.
  HandGrid grid({stores_then_wait({store(0), store(16384)})});
  const SimReport r = simulate(grid, p);
  CHECK(r.cycles == Approx(2500));
  CHECK(r.global_write_bytes == 32768);
  CHECK(r.hbm_write_bytes == 0);  // both boxes still dirty in the L2 when the kernel ends
}

TEST_CASE("TMA reducing stores: the L2 takes them at their own rate", "[engine]") {
  // One 16 KB box with everything else fast: the L2's store side is the limit, 16384 / 100 cycles
  // for a plain store and 16384 / 50 for a reducing one (count 1: a read-modify-write in L2).
  EngineParams p = store_params(10, 10, 100);
  p.tma_bytes_per_cycle_per_sm = 1e12;
  p.reduce_bytes_per_cycle = 50;
  TraceOp add = store(0);
  add.count = 1;
  const auto run = [&](const TraceOp& s) {
    HandGrid grid({stores_then_wait({s})});
    return simulate(grid, p);
  };
  CHECK(run(store(0)).cycles == Approx(163.84));
  CHECK(run(add).cycles == Approx(327.68));
}

namespace {
// A warp's plain load or store of one row of `bytes` of tensor `tensor`.
TraceOp plain(OpKind kind, uint32_t tensor, uint32_t bytes = 64) {
  TraceOp o = op(kind, 0, 0, bytes);
  o.box = GlobalBox{.tensor = tensor, .rows = 1, .row_bytes = bytes, .row_pitch = bytes, .offset = 0};
  return o;
}
}  // namespace

TEST_CASE("a plain global load waits for its data, HBM's latency on a miss and the L2's on a hit; a store does not wait", "[engine]") {
  EngineParams p = simple_params();
  p.gmem_latency_l2 = 300;
  p.gmem_latency_hbm = 700;
  const TraceOp row = plain(OpKind::gmem_load, 3), out = plain(OpKind::gmem_store, 4);
  // Miss (700: the 64 bytes' 0.64 and 1.28 cycles on the L2 and HBM servers are under the latency),
  // then the same bytes again: a hit, 300 more. The store after them costs the warp nothing, and its
  // bytes stay in the L2 (written back only when evicted): the kernel ends with the second load.
  HandGrid grid({{row, row, out}});
  const SimReport r = simulate(grid, p);
  CHECK(r.cycles == Approx(1000 + 64 / p.store_bytes_per_cycle));  // the L2 takes the store in
  CHECK(r.l2_misses == 1);
  CHECK(r.l2_hits == 1);
  CHECK(r.hbm_read_bytes == 64);
  CHECK(r.global_write_bytes == 64);
  CHECK(r.hbm_write_bytes == 0);
}

TEST_CASE("the L2 writes back: a stored box reaches HBM when a later miss evicts it, once however often stored", "[engine]") {
  // An L2 of 64 bytes (one partition). The warp stores box S twice (one dirty copy), then loads box
  // A, which misses and evicts S: S's 64 bytes go to HBM then, behind A's in HBM's queue, so A's
  // load waits only for its own bytes.
  EngineParams p = simple_params();
  p.l2_bytes = 64;
  p.l2_partitions = 1;
  p.gmem_latency_hbm = 700;
  const TraceOp a = plain(OpKind::gmem_load, 3), s = plain(OpKind::gmem_store, 4);
  HandGrid grid({{s, s, a}});
  const SimReport r = simulate(grid, p);
  CHECK(r.global_write_bytes == 128);
  CHECK(r.hbm_write_bytes == 64);
  CHECK(r.hbm_read_bytes == 64);
  CHECK(r.cycles == Approx(700));  // the load's latency hides both HBM transfers (1.28 + 1.28 cycles)
  // A box larger than the whole L2 goes through to HBM at once.
  HandGrid through({{plain(OpKind::gmem_store, 4, 128)}});
  CHECK(simulate(through, p).hbm_write_bytes == 128);
}

TEST_CASE("a TMA load's bytes cost the receiving SM's busy tensor cores, not idle ones", "[engine]") {
  // Two m64n256k64 over four warps, one after the other: 512 cycles each on each sub-partition's core,
  // + 10 latency (longer than the load's 327.68 cycles on the HBM server, so the MMAs end the run). A
  // 16 KB load issued while the first runs costs each core 16384 x 0.001 = 16.384 cycles, taken on by
  // its next MMA.
  const TraceOp mma = op(OpKind::mma, 0, 256, 0, 4 * 524288 / 4);
  const std::vector<TraceOp> consumer = {mma, op(OpKind::mma_commit), op(OpKind::mma_wait, 0, 0),
                                         mma, op(OpKind::mma_commit), op(OpKind::mma_wait, 0, 0)};
  const std::vector<TraceOp> producer = {op(OpKind::barrier_init, 1, 1), op(OpKind::expect_bytes, 1, 0, 16384), load(1, 0)};
  EngineParams p = simple_params();
  p.tma_write_tensor_stall = 0.001;
  HandGrid busy({consumer, consumer, consumer, consumer, producer});  // warps run in order at time 0: the MMAs are queued first
  CHECK(simulate(busy, p).cycles == Approx(2 * 522 + 16.384));
  HandGrid idle({producer, consumer, consumer, consumer, consumer});  // the load comes while no core has work
  CHECK(simulate(idle, p).cycles == Approx(2 * 522));
  p.tma_write_tensor_stall = 0;
  HandGrid off({consumer, consumer, consumer, consumer, producer});
  CHECK(simulate(off, p).cycles == Approx(2 * 522));
}

TEST_CASE("HBM moves boxes of scattered short rows at its scattered rate, runs of bytes at the copy's", "[engine]") {
  // Two 8 KB misses back to back, timed on the HBM server (L2 and port made fast, HBM latency 400):
  // the copy's rate 50 bytes/cycle, the scattered rate 25. A box whose rows are one run (pitch =
  // row bytes) takes 8192/50 each; a box of 64 rows of 128 bytes at a 32 KB pitch starts rows of its
  // own (8192/25); the next box of the same rows, 128 bytes on, continues them (8192/50), as a B
  // slice's four boxes side by side do; the next 64 rows below it do not (A's second box).
  EngineParams p = simple_params();
  p.l2_bytes_per_cycle = 1e12;
  p.hbm_scattered_bytes_per_cycle = 25;
  const auto box = [](uint64_t offset, uint32_t pitch) {
    TraceOp o = load(1, offset, 64, 128);
    o.box.row_pitch = pitch;
    return o;
  };
  const auto two_loads = [&](TraceOp first, TraceOp second) {
    HandGrid grid({{op(OpKind::barrier_init, 1, 1), op(OpKind::expect_bytes, 1, 0, 16384), first, second, op(OpKind::wait, 1, 0)}});
    return simulate(grid, p).cycles;
  };
  CHECK(two_loads(box(0, 128), box(8192, 128)) == Approx(2 * 8192.0 / 50 + 400));                 // one run each
  CHECK(two_loads(box(0, 32768), box(128, 32768)) == Approx(8192.0 / 25 + 8192.0 / 50 + 400));     // B: the second continues
  CHECK(two_loads(box(0, 32768), box(64 * 32768, 32768)) == Approx(2 * 8192.0 / 25 + 400));        // A: both start rows
}

TEST_CASE("SMs pair into TPCs, TPCs fill GPCs, a GPC's TPCs share HBM ports: the H100's 132 SMs", "[engine]") {
  // 66 TPCs in 8 GPCs of at most 9: six lack one TPC. Three TPCs a port: a whole GPC has ports of
  // 6, 6 and 6 SMs, one that lacks a TPC 6, 6 and 4 (the measured map: gemm-dram-orders, facts 8-9).
  const std::vector<uint32_t> port = hbm_port_of_sm(132, 8, 3);
  REQUIRE(port.size() == 132);
  std::vector<int> sms_of(24, 0);
  for (const uint32_t p : port) {
    REQUIRE(p < 24);
    ++sms_of[p];
  }
  CHECK(std::count(sms_of.begin(), sms_of.end(), 6) == 18);
  CHECK(std::count(sms_of.begin(), sms_of.end(), 4) == 6);
  CHECK(std::is_sorted(port.begin(), port.end()));  // contiguous: the first wave of blocks goes port by port
  CHECK(port[12] == 2);                             // GPC 0: SMs 0-5, 6-11, then the short port 12-15
  CHECK(port[16] == 3);
  CHECK(hbm_port_of_sm(16, 1, 4) == std::vector<uint32_t>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK_THROWS(hbm_port_of_sm(132, 0, 3));
}

TEST_CASE("HBM ports take fair turns: an SM alone on its port gets the share of a port, not of an SM, and the chip's total is kept", "[engine]") {
  // Three SMs, each loading one 16 KB box that misses (an L2 smaller than the box), all at once;
  // HBM 50 bytes/cycle, the L2 and the SMs' ports fast. One queue serves them in order: 327.68,
  // 655.36, 983.04 cycles. With SM 0 on a port of its own and SMs 1 and 2 sharing the other, SM 0's
  // box goes first at the full rate (the second port had nothing queued yet), SM 1's shares HBM
  // with port 0's (2 x 327.68 from the start), and SM 2's waits behind SM 1's on their port, at the
  // same half share: the port with fewer SMs moves more bytes per SM.
  EngineParams p = simple_params();
  p.sms = 3;
  p.l2_bytes = 1024;
  p.l2_merge_window = 0;
  p.l2_bytes_per_cycle = 1e12;
  p.tma_bytes_per_cycle_per_sm = 1e12;
  const std::vector<TraceOp> warp = {op(OpKind::barrier_init, 1, 1), op(OpKind::expect_bytes, 1, 0, 16384), load(1, 0),
                                     op(OpKind::wait, 1, 0)};
  const auto last_wait_end = [&](std::vector<uint32_t> ports) {
    p.hbm_port_of_sm = std::move(ports);
    HandGrid grid({warp}, 3);
    SimOptions opt;
    opt.timeline_sms = 3;
    const SimReport r = simulate(grid, p, opt);
    CHECK(r.hbm_read_bytes == 3 * 16384);
    std::vector<double> end(3, 0);
    for (const Span& s : r.spans) end[s.sm] = std::max(end[s.sm], s.end);
    return end;
  };
  const std::vector<double> one_queue = last_wait_end({});
  const std::vector<double> two_ports = last_wait_end({0, 1, 1});
  // One queue: each SM one box later than the one before.
  CHECK(one_queue[1] - one_queue[0] == Approx(327.68));
  CHECK(one_queue[2] - one_queue[1] == Approx(327.68));
  // Two ports: SM 1 one box after SM 0 (the half share), SM 2 two boxes after SM 1 (its port's half).
  CHECK(two_ports[0] == Approx(one_queue[0]));
  CHECK(two_ports[1] - two_ports[0] == Approx(327.68));
  CHECK(two_ports[2] - two_ports[1] == Approx(655.36));
  // SMs 0 and 1 on one port, SM 2 on the other: port 0 queues two boxes at the full rate before
  // port 1 asks, so port 1's half share alone would deliver its box by 2 x 327.68, three boxes in
  // the time HBM moves two. The chip's queue keeps the total: SM 2 waits for the third turn.
  const std::vector<double> shared_first = last_wait_end({0, 0, 1});
  CHECK(shared_first[0] == Approx(one_queue[0]));
  CHECK(shared_first[1] == Approx(one_queue[1]));
  CHECK(shared_first[2] == Approx(one_queue[2]));
  CHECK_THROWS(last_wait_end({0, 3, 1}));  // a port number past the SMs
}

TEST_CASE("a launch's first blocks start spread over block_start_spread, a TPC's two SMs together; later blocks when an SM frees", "[engine]") {
  // 8 SMs, 16 blocks of one run of register math each (no shared unit between SMs, so a block's work
  // starts when it does): the first wave at each TPC's offset (the golden-ratio sequence over TPCs
  // 0..3: 0, 0.618, 0.236, 0.854 of the spread), the second wave when its SM's first block ends, with
  // no offset of its own.
  EngineParams p = pipe_params();
  p.sms = 8;
  p.block_start_spread_cycles = 1000;
  const std::vector<TraceOp> warp = {math({{Pipe::fma, 100}})};
  HandGrid grid({warp}, 16, p.smem_per_sm / 2 + 1);  // one block an SM at a time
  SimOptions opt;
  opt.timeline_sms = 8;
  const SimReport r = simulate(grid, p, opt);
  std::vector<double> start_of(16, -1), end_of(16, 0);
  std::vector<uint32_t> sm_of(16);
  for (const Span& s : r.spans) {
    if (start_of[s.block] < 0) start_of[s.block] = s.start;
    end_of[s.block] = std::max(end_of[s.block], s.end);
    sm_of[s.block] = s.sm;
  }
  const double tpc_offset[4] = {0, 618.0339887, 236.0679775, 854.1019662};
  for (uint32_t b = 0; b < 8; ++b) {
    CHECK(sm_of[b] == b);
    CHECK(start_of[b] == Approx(tpc_offset[b / 2]));
  }
  for (uint32_t b = 8; b < 16; ++b) {  // the moment the block before it on its SM ended
    double before = -1;
    for (uint32_t c = 0; c < 16; ++c)
      if (c != b && sm_of[c] == sm_of[b] && end_of[c] <= start_of[b] + 1e-9) before = std::max(before, end_of[c]);
    CHECK(start_of[b] == Approx(before));
  }
  // Without a spread every first block starts at once.
  p.block_start_spread_cycles = 0;
  HandGrid again({warp}, 16, p.smem_per_sm / 2 + 1);
  const SimReport flat = simulate(again, p, opt);
  for (const Span& s : flat.spans)
    if (s.block < 8) CHECK(s.start == 0);
}
