// GEMM against cuBLAS on the GPU. Without a CUDA device every test says so loudly and passes
// nothing: the suite prints "SKIPPED" rather than a silent green.
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "kernels/gemm/gemm_bench.hpp"
#include "tests/gpu/gpu_available.hpp"

using namespace ts::kernels;


TEST_CASE("GEMM matches cuBLAS on fresh random inputs, every output written", "[gpu]") {
  if (!have_gpu()) return;
  struct Case {
    GemmShape shape;
    GemmConfig cfg;
  };
  GemmConfig row{}, col{}, small{}, rowmajor_order{}, one_consumer{};
  one_consumer.consumers = 1;
  col.b_row_major = false;
  small.block_n = 128;
  small.stages = 2;
  rowmajor_order.order = {ts::sched::Order::row_major, 1};
  rowmajor_order.persistent = false;
  const Case cases[] = {
      {{256, 256, 64}, row},     {{1024, 768, 512}, row},  {{512, 512, 256}, col},  {{384, 640, 192}, small},
      {{200, 264, 136}, row},    {{129, 136, 72}, col},    {{1000, 1000, 1000}, small}, {{2048, 2048, 2048}, rowmajor_order}, {{320, 512, 256}, one_consumer},
  };
  unsigned seed = 42;
  for (const auto& c : cases) {
    for (int stages : {1, 3, 4}) {  // 1 and 3: whole-tile staging of C; 4: 16 KB chunks
      GemmConfig cfg = c.cfg;
      cfg.stages = stages;
      INFO(c.shape.m << "x" << c.shape.n << "x" << c.shape.k << " " << describe(cfg));
      const auto r = check_gemm_against_cublas(c.shape, cfg, seed++);
      CHECK(r.unwritten == 0);
      CHECK(r.rel_frobenius_error < 1e-3);  // fp32 accumulation of bf16 products, against cuBLAS
    }
  }
}

TEST_CASE("GEMM in clusters of 2 (B by TMA multicast) matches cuBLAS, every output written", "[gpu]") {
  if (!have_gpu()) return;
  // Tails in every dimension; odd tile-row counts (the last cluster's second CTA has no rows);
  // more tiles than SMs (persistent loops) and one block per tile; both B layouts, both tiles.
  const GemmShape shapes[] = {{256, 256, 64},   {200, 264, 136},  {384, 640, 192},   {129, 136, 72},  {1000, 1000, 1000},
                              {1024, 768, 512}, {2048, 2048, 2048}, {4096, 4096, 320}, {640, 8192, 1024}, {8192, 384, 2048}};
  unsigned seed = 4242;
  int i = 0;
  for (const auto& s : shapes) {
    GemmConfig cfg;
    cfg.cluster = 2;
    cfg.b_row_major = i % 2 == 0;
    cfg.block_n = i % 3 == 2 ? 128 : 256;
    cfg.stages = 2 + i % 3;
    cfg.persistent = i != 6;
    cfg.out = i % 4 == 3 ? OutType::fp32 : OutType::bf16;
    ++i;
    INFO(s.m << "x" << s.n << "x" << s.k << " " << describe(cfg));
    const auto r = check_gemm_against_cublas(s, cfg, seed++, cfg.out);  // (the check sets C's type from its argument)
    CHECK(r.unwritten == 0);
    if (cfg.out == OutType::fp32) CHECK(r.rel_frobenius_error < 1e-3);
    else CHECK(r.outside_rounding == 0);  // bf16 C: within one ulp of cuBLAS's fp32 sum
  }
}

TEST_CASE("GEMM with split-K matches cuBLAS, fp32 and bf16 C", "[gpu]") {
  if (!have_gpu()) return;
  // K ranges that end past K (the last range reads zeros), ranges of one slice, clusters, few tiles
  // and many, both B layouts; a bf16 C goes through the fp32 workspace and the rounding pass.
  struct Case {
    GemmShape shape;
    int split;
  };
  const Case cases[] = {{{256, 256, 64}, 2},     {{200, 264, 136}, 3},    {{384, 640, 192}, 8},    {{1000, 1000, 1000}, 5},
                        {{1024, 1024, 16384}, 4}, {{512, 1024, 32768}, 8}, {{2048, 1024, 8192}, 2}, {{129, 136, 4104}, 7},
                        {{4096, 4096, 1024}, 2},  {{640, 8192, 1024}, 3}};
  unsigned seed = 777;
  int i = 0;
  for (const auto& c : cases) {
    GemmConfig cfg;
    cfg.split_k = c.split;
    cfg.b_row_major = i % 2 == 0;
    cfg.block_n = i % 3 == 2 ? 128 : 256;
    cfg.cluster = i % 4 == 1 ? 2 : 1;
    cfg.persistent = i != 6;
    const OutType out = i % 2 == 0 ? OutType::bf16 : OutType::fp32;
    ++i;
    INFO(c.shape.m << "x" << c.shape.n << "x" << c.shape.k << " " << describe(cfg) << (out == OutType::bf16 ? " (bf16 C)" : " (fp32 C)"));
    const auto r = check_gemm_against_cublas(c.shape, cfg, seed++, out);
    CHECK(r.unwritten == 0);
    CHECK(r.outside_rounding == 0);
    CHECK(r.rel_frobenius_error < (out == OutType::fp32 ? 1e-3 : 5e-3));
  }
}

TEST_CASE("GEMM with a split tail matches cuBLAS: whole waves, then the last wave's tiles in K ranges", "[gpu]") {
  if (!have_gpu()) return;
  // Tiles past the last whole wave of the grid split in K ranges and summed into C (gemm_plan):
  // chosen per shape (tail_split 0) on the shapes the rule picks, and asked for on shapes with
  // tails in M, N and K, both B layouts, one consumer, both C types and the three orders.
  struct Case {
    GemmShape shape;
    int tail_split, consumers, block_n;
    bool b_row;
    OutType out;
    ts::sched::OrderSpec order;
  };
  const ts::sched::OrderSpec grouped{}, row{ts::sched::Order::row_major, 1}, col{ts::sched::Order::col_major, 1};
  const Case cases[] = {
      {{3072, 3072, 8192}, 0, 2, 256, true, OutType::bf16, grouped},   {{12288, 8192, 4096}, 3, 2, 256, true, OutType::bf16, grouped},
      {{2000, 3000, 2056}, 3, 2, 256, true, OutType::bf16, grouped},   {{2000, 3000, 2056}, 2, 2, 256, false, OutType::fp32, row},
      {{4160, 2048, 1000}, 2, 1, 256, true, OutType::bf16, grouped},   {{1152, 1280, 264}, 4, 1, 128, false, OutType::bf16, col},
      {{3072, 3072, 8200}, 5, 2, 128, true, OutType::fp32, grouped},   {{2176, 4104, 1536}, 3, 2, 256, false, OutType::bf16, row},
      {{8192, 2048, 3000}, 2, 2, 128, true, OutType::bf16, grouped},
  };
  int device = 0, sms = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess);
  unsigned seed = 9090;
  for (const auto& c : cases) {
    GemmConfig cfg;
    cfg.tail_split = c.tail_split;
    cfg.consumers = c.consumers;
    cfg.block_n = c.block_n;
    cfg.b_row_major = c.b_row;
    cfg.order = c.order;
    const GemmPlan plan = gemm_plan(c.shape, cfg, sms);
    INFO(c.shape.m << "x" << c.shape.n << "x" << c.shape.k << " " << describe(cfg) << ": head " << plan.head_tiles << " of " << plan.tiles
                   << " tiles, " << plan.splits << " ranges");
    CHECK(plan.head_tiles > 0);
    CHECK(plan.splits > 1);
    const auto r = check_gemm_against_cublas(c.shape, cfg, seed++, c.out);
    CHECK(r.unwritten == 0);
    CHECK(r.outside_rounding == 0);
    CHECK(r.rel_frobenius_error < (c.out == OutType::fp32 ? 1e-3 : 5e-3));
  }
}

TEST_CASE("FP8 GEMM matches an fp32 reference: scales, tails, clusters, split-K, every output written", "[gpu][fp8]") {
  if (!have_gpu()) return;
  // e4m3 inputs in [-4, 4) (subnormals included), per-tensor scales, bf16 C; tails in M and N, K
  // ending mid-slice, one block per tile and persistent loops, clusters and split-K ranges.
  const GemmShape shapes[] = {{256, 256, 128},  {200, 264, 144},   {384, 640, 400},    {129, 136, 80},    {1000, 1000, 1008},
                              {1024, 768, 512}, {2048, 2048, 2048}, {4096, 4096, 320}, {1024, 1024, 16384}, {640, 8192, 1024}};
  unsigned seed = 8008;
  int i = 0;
  for (const auto& s : shapes) {
    GemmConfig cfg;
    cfg.in = InType::fp8;
    cfg.b_row_major = false;
    cfg.scale_a = i % 2 == 0 ? 0.5f : 3.f;
    cfg.scale_b = 0.25f;
    cfg.stages = 2 + i % 3;
    cfg.cluster = i % 4 == 1 ? 2 : 1;
    cfg.persistent = i != 6;
    cfg.split_k = i == 8 ? 0 : (i == 4 ? 3 : 1);  // 0: chosen per shape (4 ranges for 32 tiles)
    ++i;
    INFO(s.m << "x" << s.n << "x" << s.k << " " << describe(cfg));
    const auto r = check_gemm_against_cublas(s, cfg, seed++, OutType::bf16);
    std::printf("fp8 %lldx%lldx%lld %s: rel %.3g; beyond one bf16 ulp: ours %lld, cuBLASLt %lld; accumulation error: ours %.3g, cuBLASLt %.3g\n",
                (long long)s.m, (long long)s.n, (long long)s.k, describe(cfg).c_str(), r.rel_frobenius_error, r.outside_rounding,
                r.cublaslt_outside_rounding, r.accumulation_error, r.cublaslt_accumulation_error);
    CHECK(r.unwritten == 0);
    // bf16 rounding of C alone is up to 2^-9 relative (about 1.5e-3 in the Frobenius norm).
    CHECK(r.rel_frobenius_error < 3e-3);
    // The tensor core's fp8 sums are not fp32's: no worse than cuBLASLt's FP8 GEMM on the same inputs.
    CHECK(r.accumulation_error <= 1.25 * r.cublaslt_accumulation_error + 1e-6);
    CHECK(r.outside_rounding <= r.cublaslt_outside_rounding * 5 / 4 + 16);
  }
}

TEST_CASE("GEMM blocks time themselves when asked: a plausible SM clock", "[gpu]") {
  if (!have_gpu()) return;
  const double mhz = gemm_sm_clock_mhz({2048, 2048, 1024}, GemmConfig{});
  INFO("median SM clock over blocks " << mhz << " MHz");
  CHECK(mhz > 300);   // every block wrote a record with cycles and nanoseconds
  CHECK(mhz < 2500);  // above any Hopper boost clock: a unit mix-up
}

TEST_CASE("GEMM refuses shapes TMA cannot describe before launching", "[gpu]") {
  GemmConfig cfg{};
  CHECK(validate({128, 128, 100}, cfg).find("K must be a multiple of 8") != std::string::npos);
  CHECK(validate({128, 100, 128}, cfg).find("N must be a multiple of 8") != std::string::npos);
  cfg.stages = 5;
  CHECK(validate({128, 128, 128}, cfg).find("stages") != std::string::npos);
  CHECK_THROWS_AS(launch_gemm(nullptr, nullptr, nullptr, {128, 128, 100}, GemmConfig{}, nullptr), std::invalid_argument);
}

TEST_CASE("GEMM small case for compute-sanitizer", "[gpu][small]") {
  if (!have_gpu()) return;
  GemmConfig cfg{};
  cfg.stages = 2;
  const auto r = check_gemm_against_cublas({200, 264, 136}, cfg, 7);
  CHECK(r.unwritten == 0);
  CHECK(r.rel_frobenius_error < 1e-3);
  cfg.cluster = 2;  // remote arrivals and multicast, for racecheck and synccheck; 3 tile rows: an overhanging cluster
  const auto rc = check_gemm_against_cublas({384, 264, 136}, cfg, 8);
  CHECK(rc.unwritten == 0);
  CHECK(rc.rel_frobenius_error < 1e-3);
  cfg.cluster = 1;  // split-K: reduce-add stores from several blocks into one tile, the workspace and rounding pass
  cfg.split_k = 3;
  const auto rs = check_gemm_against_cublas({200, 264, 1000}, cfg, 9, OutType::bf16);
  CHECK(rs.unwritten == 0);
  CHECK(rs.outside_rounding == 0);
  cfg.split_k = 0;  // a split tail: 18 x 10 tiles of 64 x 128 are a wave of 132 and 48 more in 2 ranges
  cfg.consumers = 1, cfg.block_n = 128, cfg.tail_split = 2;
  const auto rt = check_gemm_against_cublas({1152, 1280, 264}, cfg, 11, OutType::bf16);
  CHECK(rt.unwritten == 0);
  CHECK(rt.outside_rounding == 0);
  GemmConfig f8;  // fp8: K-major B, the scaled epilogue; in a cluster for the multicast of fp8 slices
  f8.in = InType::fp8;
  f8.b_row_major = false;
  f8.scale_a = 0.5f;
  f8.stages = 2;
  f8.cluster = 2;
  const auto r8 = check_gemm_against_cublas({384, 264, 400}, f8, 10, OutType::bf16);
  CHECK(r8.unwritten == 0);
  CHECK(r8.rel_frobenius_error < 3e-3);
}
