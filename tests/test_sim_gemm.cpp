// The simulator on the GEMM's own op streams (trace mode of kernels/gemm/gemm.cuh).
#include <catch2/catch.hpp>

#include "kernels/gemm/gemm_trace.hpp"
#include "sim/engine.hpp"
#include "sim/machine.hpp"

using namespace ts;

namespace {
sim::SimReport sim_gemm(int64_t m, int64_t n, int64_t k, kernels::GemmConfig cfg = {}) {
  const sim::EngineParams p = sim::engine_params(sim::load_machine("h100-sxm"));
  auto launches = kernels::gemm_grid_traces({m, n, k}, cfg, static_cast<int>(p.sms));
  REQUIRE(launches.size() == 1);  // these shapes split no tiles
  return sim::simulate(*launches.front().grid, p);
}
}  // namespace

TEST_CASE("simulated GEMM moves exactly the analytic FLOPs and bytes", "[sim]") {
  for (int block_n : {128, 256})
    for (bool b_row : {true, false}) {
      kernels::GemmConfig cfg;
      cfg.block_n = block_n;
      cfg.b_row_major = b_row;
      const int64_t m = 512, n = 768, k = 320;
      if (n % block_n) continue;
      const sim::SimReport r = sim_gemm(m, n, k, cfg);
      INFO("block_n " << block_n << " b_row_major " << b_row);
      CHECK(r.flops == Approx(2.0 * m * n * k));
      const double tiles = (m / 128.0) * (n / double(block_n)), k_iters = k / 64.0;
      const double loaded = tiles * k_iters * (128 * 64 * 2 + block_n * 64 * 2);
      CHECK(double(r.l2_hit_bytes + r.hbm_read_bytes) == Approx(loaded));
      CHECK(double(r.global_write_bytes) == Approx(m * n * 2.0));  // bf16 C, written once
      CHECK(r.hbm_write_bytes == 0);  // and still in the L2 when the kernel ends
      CHECK(r.bank_conflicts == 0);                               // the 128B swizzle of the staging tile
      CHECK(r.smem_wavefronts > 0);
      CHECK(r.tflops > 0);
    }
}

TEST_CASE("simulated GEMM in clusters of 2: each B slice read once per cluster", "[sim][cluster]") {
  for (bool b_row : {true, false}) {
    kernels::GemmConfig cfg;
    cfg.cluster = 2;
    cfg.b_row_major = b_row;
    const int64_t m = 768, n = 512, k = 320;  // 6 tile rows: 3 clusters per column of tiles
    const sim::SimReport r = sim_gemm(m, n, k, cfg);
    INFO("b_row_major " << b_row);
    CHECK(r.flops == Approx(2.0 * m * n * k));
    const double tiles = (m / 128.0) * (n / 256.0), k_iters = k / 64.0;
    const double loaded = tiles * k_iters * (128 * 64 * 2 + 256 * 64 * 2 / 2);  // A whole, half of B per CTA
    CHECK(double(r.l2_hit_bytes + r.hbm_read_bytes) == Approx(loaded));
    CHECK(double(r.global_write_bytes) == Approx(m * n * 2.0));
  }
  // An odd number of tile rows: the last cluster's second CTA computes nothing and stores nothing,
  // but it loads its share of B (the first CTA waits for it) and zeros for A (outside M: no bytes).
  kernels::GemmConfig cfg;
  cfg.cluster = 2;
  const sim::SimReport odd = sim_gemm(384, 256, 128, cfg);
  CHECK(double(odd.global_write_bytes) == Approx(384 * 256 * 2.0));
  CHECK(double(odd.l2_hit_bytes + odd.hbm_read_bytes) == Approx(2 * (3 * 128 * 64 * 2 + 4 * 256 * 64 * 2 / 2)));
}

TEST_CASE("simulated GEMM is deterministic and honours the schedulers", "[sim]") {
  kernels::GemmConfig cfg;
  const sim::SimReport a = sim_gemm(1024, 1024, 512, cfg), b = sim_gemm(1024, 1024, 512, cfg);
  CHECK(a.cycles == b.cycles);
  CHECK(a.hbm_read_bytes == b.hbm_read_bytes);
  CHECK(a.ops == b.ops);
  cfg.persistent = false;
  const sim::SimReport np = sim_gemm(1024, 1024, 512, cfg);
  CHECK(np.blocks == 32);  // one block per 128x256 tile
  CHECK(a.blocks == 32);   // persistent: min(tiles, 132 SMs)
  cfg.persistent = true;
  const sim::SimReport big = sim_gemm(4096, 4096, 256, cfg);
  CHECK(big.blocks == 132);
  // More stages overlap more: 1 stage cannot be faster than 4.
  kernels::GemmConfig one = cfg, four = cfg;
  one.stages = 1;
  four.stages = 4;
  CHECK(sim_gemm(2048, 2048, 1024, one).seconds > sim_gemm(2048, 2048, 1024, four).seconds);
}

TEST_CASE("the simulator refuses shapes that are not whole tiles", "[sim]") {
  CHECK_THROWS_WITH(kernels::gemm_grid_traces({1000, 1024, 1024}, {}, 132), Catch::Contains("whole tiles"));
  CHECK_THROWS_WITH(kernels::gemm_grid_traces({1024, 1024, 100}, {}, 132), Catch::Contains("multiple of 8"));
}
