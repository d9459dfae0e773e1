// The host backend of tiles/ on its own: bf16 rounding, mbarrier phases, fiber barriers, TMA
// boxes, and deadlock reports (a tiny broken pipeline kernel must fail with a message, not hang).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tiles/backend/host/launch.hpp"
#include "tiles/tiles.hpp"

using namespace ts;

namespace {

uint16_t bf16_bits(float f) { return bf16(f).bits; }
float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Runs `body` as each of `warps` warps of one block (no shared memory: barriers live in the test).
void run_warps(int warps, const std::function<void()>& body) {
  host::Block blk;
  blk.warps = warps;
  host::run_block(blk, body);
}

}  // namespace

TEST_CASE("host bf16 rounds to nearest even and keeps specials", "[host][bf16]") {
  CHECK(bf16_bits(1.0f) == 0x3f80);
  CHECK(bf16_bits(-0.0f) == 0x8000);
  // Exactly half way between two bf16 values: to the even one.
  CHECK(bf16_bits(from_bits(0x3f808000u)) == 0x3f80);  // 1 + 2^-8 -> 1 (0x3f80 is even)
  CHECK(bf16_bits(from_bits(0x3f818000u)) == 0x3f82);  // between 0x3f81 and 0x3f82 -> 0x3f82
  CHECK(bf16_bits(from_bits(0xbf818000u)) == 0xbf82);  // negative ties too
  CHECK(bf16_bits(from_bits(0x3f808001u)) == 0x3f81);  // just above half way: up
  CHECK(bf16_bits(from_bits(0x3f817fffu)) == 0x3f81);  // just below half way: down
  CHECK(bf16_bits(from_bits(0x00008000u)) == 0x0000);  // subnormal tie to even (zero)
  CHECK(bf16_bits(from_bits(0x00018000u)) == 0x0002);
  // Specials: infinities stay, the largest float overflows to inf, NaNs stay NaN (quiet).
  CHECK(bf16_bits(std::numeric_limits<float>::infinity()) == 0x7f80);
  CHECK(bf16_bits(-std::numeric_limits<float>::infinity()) == 0xff80);
  CHECK(bf16_bits(std::numeric_limits<float>::max()) == 0x7f80);
  for (uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xffffffffu, 0x7fffffffu}) {
    const uint16_t b = bf16_bits(from_bits(nan));
    CHECK((b & 0x7f80) == 0x7f80);
    CHECK((b & 0x007f) != 0);  // still a NaN, not an infinity
    CHECK(std::isnan(static_cast<float>(bf16(from_bits(nan)))));
  }
  CHECK(static_cast<float>(bf16(3.140625f)) == 3.140625f);  // representable: exact round trip
}

TEST_CASE("mbarrier phases flip when every arrival is in", "[host][mbarrier]") {
  barrier b;
  init(b, 3);
  CHECK(host::state_of(b).phase == 0);
  std::vector<std::string> log;
  run_warps(4, [&] {
    if (warpid() == 0) {
      wait(b, 1);  // a fresh barrier counts the phase before it (parity 1) as complete
      log.push_back("passed parity 1");
      wait(b, 0);  // blocks until warps 1..3 have arrived
      log.push_back("phase 0 done");
    } else {
      log.push_back("arrive " + std::to_string(warpid()));
      if (elect_one()) arrive(b);
    }
  });
  CHECK(log == std::vector<std::string>{"passed parity 1", "arrive 1", "arrive 2", "arrive 3", "phase 0 done"});
  CHECK(host::state_of(b).phase == 1);
  CHECK(host::state_of(b).pending == 3);  // re-armed for the next phase

  log.clear();
  run_warps(3, [&] {
    if (warpid() == 0) {
      wait(b, 0);  // phase 0 has completed: passes
      wait(b, 1);  // phase 1 is in progress: blocks
      log.push_back("phase 1 done");
    } else {
      log.push_back("arrive " + std::to_string(warpid()));
      if (elect_one()) {
        arrive(b);
        if (warpid() == 1) arrive(b);  // a warp may arrive twice: three arrivals in all
      }
    }
  });
  CHECK(log == std::vector<std::string>{"arrive 1", "arrive 2", "phase 1 done"});
  CHECK(host::state_of(b).phase == 0);
}

TEST_CASE("mbarrier expect_bytes waits for the transaction bytes", "[host][mbarrier]") {
  barrier b;
  init(b, 1);
  expect_bytes(b, 64);  // the only arrival, but 64 bytes outstanding
  CHECK(host::state_of(b).phase == 0);
  CHECK(host::state_of(b).tx == 64);
  host::complete_tx(b, 32);
  CHECK(host::state_of(b).phase == 0);
  host::complete_tx(b, 32);
  CHECK(host::state_of(b).phase == 1);
  CHECK(host::state_of(b).tx == 0);
  // Bytes may land before they are announced (the count goes negative, the phase waits for the arrival).
  host::complete_tx(b, 16);
  CHECK(host::state_of(b).phase == 1);
  expect_bytes(b, 16);
  CHECK(host::state_of(b).phase == 0);
}

TEST_CASE("a TMA load completes its bytes on the barrier and fills the tile in its swizzle", "[host][tma]") {
  using tile = st<bf16, 64, 128>;  // two 64-column blocks, 128B swizzle
  // 100 x 120: the second tile row and column are tails.
  alignas(16) static bf16 src[100 * 120], dst[100 * 120];
  for (int i = 0; i < 100 * 120; ++i) src[i] = bf16(static_cast<float>(i % 251));
  const auto m = tma::make_map<tile>(gl<bf16>::make(src, 1, 1, 100, 120));
  static tile t;
  std::memset(&t, 0xff, sizeof t);
  barrier b;
  init(b, 1);
  expect_bytes(b, tile::bytes);
  tma::load_async(t, m, {0, 0, 1, 0}, b);  // rows 64..127 (64..99 in range), columns 0..127 (0..119)
  CHECK(host::state_of(b).phase == 1);     // the whole box's bytes count, zero-filled ones included
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 128; ++c) {
      const float want = (64 + r < 100 && c < 120) ? static_cast<float>(((64 + r) * 120 + c) % 251) : 0.f;
      REQUIRE(static_cast<float>(*t.at(r, c)) == want);
    }
  // The shared bytes are in the swizzled order: row 1, column 0 sits in the row's second 16-byte chunk.
  CHECK(reinterpret_cast<char*>(t.at(1, 0)) - reinterpret_cast<char*>(t.data) == 128 + 16);
  // A store writes back only what is in range.
  for (auto& x : dst) x = bf16(-1.f);
  tma::store_async(tma::make_map<tile>(gl<bf16>::make(dst, 1, 1, 100, 120)), t, {0, 0, 1, 0});
  for (int r = 0; r < 100; ++r)
    for (int c = 0; c < 120; ++c) {
      const float want = r >= 64 ? static_cast<float>((r * 120 + c) % 251) : -1.f;
      REQUIRE(static_cast<float>(dst[r * 120 + c]) == want);
    }
  CHECK_THROWS_WITH(tma::make_map<tile>(gl<bf16>::make(src, 1, 1, 100, 100)), Catch::Contains("multiple of 16 bytes"));
  CHECK_THROWS_WITH(tma::make_map<tile>(gl<bf16>::make(src + 1, 1, 1, 90, 120)), Catch::Contains("16-byte aligned"));
}

TEST_CASE("block_sync and warpgroup::sync are barriers over the block's fibers", "[host][sync]") {
  std::vector<int> log;
  host::Block blk;
  blk.warps = 8;
  host::run_block(blk, [&] {
    log.push_back(warpid());
    block_sync();
    log.push_back(100 + warpid());
    // Only warpgroup 1 syncs on 3: warpgroup 0 goes straight on.
    if (warpgroup::groupid() == 1) {
      if (warpgroup::warpid() == 3) log.push_back(200);
      warpgroup::sync(3);
      log.push_back(300 + warpid());
    }
  });
  REQUIRE(log.size() == 8 + 8 + 1 + 4);
  for (int i = 0; i < 8; ++i) CHECK(log[i] < 8);  // nobody passed block_sync before all arrived
  // Warps 4..6 wait at warpgroup::sync until warp 7 logs 200 and arrives.
  const auto at200 = std::find(log.begin(), log.end(), 200) - log.begin();
  for (std::size_t i = 0; i < log.size(); ++i)
    if (log[i] >= 300) CHECK(static_cast<long>(i) > at200);
  CHECK(blk.all.generation == 1);
  CHECK(blk.named[3].generation == 1);
}

TEST_CASE("a deadlock is reported with each warp's wait, not hung", "[host][deadlock]") {
  barrier never, other;
  init(never, 1);
  init(other, 2);
  host::Block blk;
  blk.index = 5;
  blk.warps = 3;
  blk.name_of = [&](const void* p) { return p == &never ? std::string("never") : std::string(); };
  try {
    host::run_block(blk, [&] {
      if (warpid() == 0) wait(never, 0);
      else if (warpid() == 1) {
        if (elect_one()) arrive(other);  // one of the two arrivals: phase 0 of `other` stays open
        wait(other, 0);
      }
      // warp 2 finishes
    });
    FAIL("run_block returned");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("deadlock in block 5") != std::string::npos);
    CHECK(msg.find("block 5 warp 0 (warpgroup 0): mbarrier wait on never") != std::string::npos);
    CHECK(msg.find("for parity 0") != std::string::npos);
    CHECK(msg.find("block 5 warp 1 (warpgroup 0): mbarrier wait on ") != std::string::npos);
    CHECK(msg.find("1 of 2 arrivals missing") != std::string::npos);
    CHECK(msg.find("block 5 warp 2 (warpgroup 0): finished") != std::string::npos);
  }
  // A block_sync that not every warp reaches.
  host::Block blk2;
  blk2.warps = 2;
  CHECK_THROWS_WITH(host::run_block(blk2, [] { if (warpid() == 0) block_sync(); }),
                    Catch::Contains("warp 0 (warpgroup 0): block_sync (1 of 2 warps arrived)"));
}

TEST_CASE("an exception in a warp leaves run_block and unwinds the other fibers", "[host]") {
  int unwound = 0;
  struct Count {
    int& n;
    ~Count() { ++n; }
  };
  host::Block blk;
  blk.warps = 4;
  CHECK_THROWS_WITH(host::run_block(blk,
                                    [&] {
                                      Count c{unwound};
                                      if (warpid() == 2) throw std::runtime_error("warp 2 failed");
                                      block_sync();
                                    }),
                    "warp 2 failed");
  // Warp 2's own frame, and warps 0 and 1 parked in block_sync, unwound; warp 3 never started.
  CHECK(unwound == 3);
}

namespace {
// A broken pipeline kernel: it announces a whole stage of bytes but loads only half of it, so the
// consumers wait on a phase that never completes and the producer then waits for an empty stage.
struct half_load_kernel {
  static constexpr int consumers = 1, stages = 2, producer_registers = 40, consumer_registers = 232;
  using tile = st<bf16, 64, 64>;
  struct globals {
    tma::map<tile> a;
  };
  struct input_stage {
    tile x, y;
  };
  struct output_stage {
    tile c;
  };
  struct consumer_state {
    rt_fl<16, 64> acc;
  };
  static int num_tiles(const globals&) { return 1; }
  static int iterations(const globals&) { return 4; }
  static void load(input_stage& in, const globals& g, int, int, barrier& full) {
    tma::load_async(in.x, g.a, {0, 0, 0, 0}, full);  // forgot in.y
  }
  static void compute(consumer_state& s, input_stage& in, int, int) { warpgroup::mma_ABt(s.acc, in.x, in.y); }
  static void compute_done(consumer_state&) {}
  static void store(consumer_state&, output_stage&, const globals&, int, int) {}
  static void finish(output_stage&, const globals&, int) {}
};
}  // namespace

TEST_CASE("a pipeline kernel that under-loads a stage deadlocks with a report naming the barriers", "[host][deadlock]") {
  alignas(16) static bf16 a[64 * 64];
  const half_load_kernel::globals g{tma::make_map<half_load_kernel::tile>(gl<bf16>::make(a, 1, 1, 64, 64))};
  try {
    host::launch<half_load_kernel>(1, g);
    FAIL("launch returned");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    INFO(msg);
    for (int w = 0; w < 4; ++w)
      CHECK(msg.find("block 0 warp " + std::to_string(w) + " (warpgroup 0): mbarrier wait on inputs_full[0]") !=
            std::string::npos);
    CHECK(msg.find("8192 tx bytes outstanding") != std::string::npos);
    CHECK(msg.find("block 0 warp 4 (warpgroup 1): mbarrier wait on inputs_empty[0]") != std::string::npos);
    CHECK(msg.find("block 0 warp 5 (warpgroup 1): finished") != std::string::npos);
  }
}

TEST_CASE("a barrier used before init() is an error, not a hang", "[host][mbarrier]") {
  barrier b;
  std::memset(&b, 0xff, sizeof b);  // what the host launcher's poisoned shared memory holds
  host::Block blk;
  blk.warps = 1;
  CHECK_THROWS_WITH(host::run_block(blk, [&] { wait(b, 0); }), Catch::Contains("before init()"));
  CHECK_THROWS_AS(arrive(b), std::logic_error);
}

TEST_CASE("an arrival, announced bytes or a TMA load from the whole warp is an error, as on the GPU it would count 32 times",
          "[host][mbarrier][elect]") {
  using tile = st<bf16, 64, 64>;
  alignas(16) static bf16 src[64 * 64];
  const auto m = tma::make_map<tile>(gl<bf16>::make(src, 1, 1, 64, 64));
  static tile t;
  barrier b;
  const auto in_a_warp = [&](const std::function<void()>& body) {
    init(b, 2);
    host::Block blk;
    blk.index = 3;
    blk.warps = 1;
    host::run_block(blk, body);
  };
  const std::string fix = "let one lane do it: if (elect_one()) { ... }";
  CHECK_THROWS_WITH(in_a_warp([&] { arrive(b); }), Catch::Contains("arrive by the whole warp (block 3 warp 0)") &&
                                                      Catch::Contains(fix));
  CHECK_THROWS_WITH(in_a_warp([&] { expect_bytes(b, tile::bytes); }), Catch::Contains("expect_bytes by the whole warp"));
  CHECK_THROWS_WITH(in_a_warp([&] { tma::load_async(t, m, {0, 0, 0, 0}, b); }), Catch::Contains("tma::load_async by the whole warp"));
  CHECK_NOTHROW(in_a_warp([&] {
    if (elect_one()) {
      expect_bytes(b, tile::bytes);
      tma::load_async(t, m, {0, 0, 0, 0}, b);
    }
  }));
  // An election lasts until the warp's next warp-wide op: after a warp::sync the warp must elect again.
  CHECK_THROWS_WITH(in_a_warp([&] {
                      if (elect_one()) arrive(b);
                      warp::sync();
                      arrive(b);
                    }),
                    Catch::Contains("arrive by the whole warp"));
  CHECK_NOTHROW(in_a_warp([&] {
    if (elect_one()) arrive(b);
    warp::sync();
    if (elect_one()) arrive(b);
    wait(b, 0);
  }));
}

TEST_CASE("contiguous_part cuts a tile into runs of bytes that are tiles of the same layout", "[host][layout]") {
  // Four column blocks: each half is two whole blocks.
  st<bf16, 64, 256> wide;
  auto& right = contiguous_part<2>(wide, 1);
  static_assert(std::is_same_v<std::remove_reference_t<decltype(right)>, st<bf16, 64, 128>>);
  for (int r : {0, 7, 63})
    for (int c : {0, 63, 64, 127}) CHECK(right.at(r, c) == wide.at(r, c + 128));
  // One column block: each half is a run of whole 8-row swizzle groups.
  st<bf16, 256, 64> tall;
  auto& bottom = contiguous_part<2>(tall, 1);
  static_assert(std::is_same_v<std::remove_reference_t<decltype(bottom)>, st<bf16, 128, 64>>);
  for (int r : {0, 1, 8, 127})
    for (int c : {0, 8, 63}) CHECK(bottom.at(r, c) == tall.at(r + 128, c));
}

TEST_CASE("a cluster's blocks run together: cluster::sync, arrivals on a peer's barrier, TMA multicast", "[host][cluster]") {
  struct Smem {
    st<bf16, 64, 64> tile;
    barrier full, done;
  };
  constexpr std::size_t bytes = sizeof(Smem) + 1024;
  std::vector<char> mem[2] = {std::vector<char>(bytes, '\xff'), std::vector<char>(bytes, '\xff')};
  auto at = [](std::vector<char>& m) { return reinterpret_cast<Smem*>((reinterpret_cast<std::uintptr_t>(m.data()) + 1023) & ~std::uintptr_t{1023}); };
  alignas(16) static bf16 src[64 * 64];  // TMA maps need 16-byte aligned memory (a vector's need not be, in wasm)
  for (int i = 0; i < 64 * 64; ++i) src[i] = bf16(static_cast<float>(i % 61));
  const auto g = gl<bf16>::make(src, 1, 1, 64, 64);
  const auto map = tma::make_map<st<bf16, 64, 64>>(g);

  host::Cluster cluster;
  host::Block blks[2];
  for (int r = 0; r < 2; ++r) {
    blks[r].index = r;
    blks[r].grid = 2;
    blks[r].warps = 2;
    blks[r].smem = reinterpret_cast<char*>(at(mem[r]));  // a peer's object sits at the same offset from here
    blks[r].smem_bytes = sizeof(Smem);
    blks[r].cluster = &cluster;
    blks[r].cluster_rank = r;
    blks[r].cluster_ctas = 2;
    cluster.blocks.push_back(&blks[r]);
    cluster.warps += 2;
  }
  int checked = 0;
  host::run_blocks({&blks[0], &blks[1]}, [&] {
    Smem& s = *at(mem[cluster::rank()]);
    if (warpid() == 0 && elect_one()) {
      init(s.full, 1);
      init(s.done, 2);  // one warp of each CTA
    }
    cluster::sync();
    if (warpid() == 0) {
      if (elect_one()) expect_bytes(s.full, sizeof(s.tile));
      // Rank 0 loads once for both CTAs.
      if (cluster::rank() == 0 && elect_one()) tma::load_async_multicast(s.tile, map, {0, 0, 0, 0}, s.full, 0b11);
      wait(s.full, 0);
      for (int r = 0; r < 64; r += 9)
        for (int c = 0; c < 64; c += 7) checked += static_cast<float>(*s.tile.at(r, c)) == static_cast<float>(src[r * 64 + c]);
      // Both CTAs' warps 0 arrive on rank 1's barrier; its warp 1 waits for the two.
      if (elect_one()) cluster::arrive(s.done, 1);
    } else if (cluster::rank() == 1) {
      wait(s.done, 0);
    }
    cluster::sync();
  });
  CHECK(checked == 2 * 8 * 10);

  // A cluster member waiting for an arrival that never comes: a deadlock report naming the cluster.
  std::vector<char> fresh[2] = {std::vector<char>(bytes, '\xff'), std::vector<char>(bytes, '\xff')};
  blks[0].smem = reinterpret_cast<char*>(at(fresh[0])), blks[1].smem = reinterpret_cast<char*>(at(fresh[1]));
  host::Cluster c2;
  for (auto& b : blks) b.cluster = &c2, c2.blocks.push_back(&b), c2.warps += 2;
  CHECK_THROWS_WITH(host::run_blocks({&blks[0], &blks[1]},
                                     [&] {
                                       Smem& s = *at(fresh[cluster::rank()]);
                                       if (warpid() == 0 && elect_one()) init(s.done, 3);
                                       cluster::sync();
                                       if (warpid() == 0 && elect_one()) cluster::arrive(s.done, 0);
                                       if (cluster::rank() == 0 && warpid() == 1) wait(s.done, 0);
                                     }),
                    Catch::Contains("cluster of 2 blocks") && Catch::Contains("1 of 3 arrivals missing"));
}
