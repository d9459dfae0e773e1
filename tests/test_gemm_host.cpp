// The GEMM kernel source (kernels/gemm/gemm.cuh) on the host backend, against a double-precision
// reference computed from the same bf16 inputs: the only differences left are fp32 accumulation
// order and, for bf16 output, the final rounding. Every output element must be written.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_host.hpp"

using namespace ts;
using namespace ts::kernels;

namespace {

// TMA wants 16-byte aligned tensors (cudaMalloc gives 256): say so rather than rely on malloc,
// which aligns to 8 only where max_align_t is 8 (WebAssembly).
template <typename T>
struct Aligned16 {
  using value_type = T;
  Aligned16() = default;
  template <typename U>
  Aligned16(const Aligned16<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{16})); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{16}); }
  bool operator==(const Aligned16&) const { return true; }
};
template <typename T>
using vec16 = std::vector<T, Aligned16<T>>;

struct Inputs {
  GemmShape s;
  bool b_row_major;
  vec16<bf16> a, b;
  std::vector<double> ref;  // M x N
};

Inputs make_inputs(GemmShape s, bool b_row_major, unsigned seed) {
  Inputs in{s, b_row_major, vec16<bf16>(s.m * s.k), vec16<bf16>(s.k * s.n), std::vector<double>(s.m * s.n)};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& x : in.a) x = bf16(u(rng));
  for (auto& x : in.b) x = bf16(u(rng));
  for (int64_t m = 0; m < s.m; ++m)
    for (int64_t n = 0; n < s.n; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < s.k; ++k) {
        const bf16 bkn = b_row_major ? in.b[k * s.n + n] : in.b[n * s.k + k];
        acc += static_cast<double>(static_cast<float>(in.a[m * s.k + k])) * static_cast<float>(bkn);
      }
      in.ref[m * s.n + n] = acc;
    }
  return in;
}

struct Result {
  int64_t unwritten = 0;
  double rel_frobenius = 0;
  int64_t outside_bf16_rounding = 0;
};

Result run(const Inputs& in, const GemmConfig& cfg, int sms) {
  const int64_t count = in.s.m * in.s.n;
  Result r;
  double err = 0, norm = 0;
  if (cfg.out == OutType::fp32) {
    vec16<uint32_t> c(count, 0x7fbadbadu);  // a NaN no computation produces
    run_gemm_host(in.a.data(), in.b.data(), c.data(), in.s, cfg, sms);
    for (int64_t i = 0; i < count; ++i) {
      if (c[i] == 0x7fbadbadu) ++r.unwritten;
      float f;
      std::memcpy(&f, &c[i], 4);
      err += (f - in.ref[i]) * (f - in.ref[i]);
      norm += in.ref[i] * in.ref[i];
    }
  } else {
    vec16<uint16_t> c(count, 0x7fabu);  // a bf16 NaN that rounding never produces (those are 0x7fc0 | ...)
    run_gemm_host(in.a.data(), in.b.data(), c.data(), in.s, cfg, sms);
    for (int64_t i = 0; i < count; ++i) {
      if (c[i] == 0x7fabu) ++r.unwritten;
      bf16 h;
      h.bits = c[i];
      const double f = static_cast<float>(h);
      err += (f - in.ref[i]) * (f - in.ref[i]);
      norm += in.ref[i] * in.ref[i];
      // Round to nearest: within half a bf16 ulp (2^-8 relative) of the fp32 sum, which itself
      // is within ~1e-6 of the exact value; the absolute term covers results near zero.
      if (!(std::fabs(f - in.ref[i]) <= std::ldexp(std::fabs(in.ref[i]), -8) + 1e-5)) ++r.outside_bf16_rounding;
    }
  }
  r.rel_frobenius = std::sqrt(err / norm);
  return r;
}

std::string name(const GemmShape& s, const GemmConfig& cfg, int sms) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " " + describe(cfg) +
         " sms " + std::to_string(sms);
}

}  // namespace

TEST_CASE("host GEMM matches a double reference over stages, tiles, B layouts and outputs", "[host][gemm]") {
  // 200 x 264 x 136 has tails in M, N and K for every tile shape.
  const GemmShape shapes[] = {{128, 256, 64}, {256, 512, 192}, {200, 264, 136}};
  unsigned seed = 1;
  for (const GemmShape& s : shapes)
    for (bool b_row : {true, false}) {
      const Inputs in = make_inputs(s, b_row, seed++);
      for (int stages = 1; stages <= 4; ++stages)
        for (int block_n : {128, 256})
          for (OutType out : {OutType::fp32, OutType::bf16}) {
            GemmConfig cfg;
            cfg.stages = stages;
            cfg.block_n = block_n;
            cfg.b_row_major = b_row;
            cfg.out = out;
            // Persistent with fewer blocks than tiles (2 "SMs"), so blocks loop over tiles.
            const int sms = 2;
            INFO(name(s, cfg, sms));
            const Result r = run(in, cfg, sms);
            CHECK(r.unwritten == 0);
            if (out == OutType::fp32) CHECK(r.rel_frobenius < 1e-5);  // accumulation order only: ~1e-7
            else CHECK(r.outside_bf16_rounding == 0);
          }
    }
}

TEST_CASE("host GEMM is right in every block order, persistent or not", "[host][gemm]") {
  const Inputs in = make_inputs({384, 640, 128}, true, 99);  // 3 x 5 tiles of 128 x 128
  const sched::OrderSpec orders[] = {{sched::Order::row_major, 1}, {sched::Order::col_major, 1},
                                     {sched::Order::grouped, 2}, {sched::Order::grouped, 8}};
  for (const auto& order : orders)
    for (int sms : {1, 4, 132}) {
      GemmConfig cfg;
      cfg.block_n = 128;
      cfg.stages = 2;
      cfg.order = order;
      cfg.out = OutType::fp32;
      cfg.persistent = sms != 132;  // 132: one block per tile
      INFO(name(in.s, cfg, sms));
      const Result r = run(in, cfg, sms);
      CHECK(r.unwritten == 0);
      CHECK(r.rel_frobenius < 1e-5);
    }
}

TEST_CASE("host GEMM with one consumer warpgroup (64-row tiles)", "[host][gemm]") {
  const Inputs in = make_inputs({200, 264, 136}, true, 7);
  for (int stages : {1, 3}) {
    GemmConfig cfg;
    cfg.consumers = 1;
    cfg.stages = stages;
    cfg.out = OutType::fp32;
    INFO(name(in.s, cfg, 2));
    const Result r = run(in, cfg, 2);
    CHECK(r.unwritten == 0);
    CHECK(r.rel_frobenius < 1e-5);
  }
  GemmConfig bad;
  bad.consumers = 3;
  CHECK(validate({128, 128, 128}, bad).find("consumers") != std::string::npos);
}

TEST_CASE("host GEMM in clusters of 2: B multicast into both CTAs, an overhanging last cluster", "[host][gemm]") {
  // 200 rows are 2 tile rows (one cluster), 384 are 3 (the second cluster's rank 1 has no rows);
  // tails in every dimension; persistent over 2 and 4 "SMs" (whole clusters) and one block per tile.
  const GemmShape shapes[] = {{200, 264, 136}, {384, 640, 128}};
  unsigned seed = 300;
  for (const GemmShape& s : shapes)
    for (bool b_row : {true, false}) {
      const Inputs in = make_inputs(s, b_row, seed++);
      for (int block_n : {128, 256})
        for (int stages : {2, 4})
          for (int sms : {2, 4, 132}) {
            GemmConfig cfg;
            cfg.cluster = 2;
            cfg.block_n = block_n;
            cfg.stages = stages;
            cfg.b_row_major = b_row;
            cfg.out = OutType::fp32;
            cfg.persistent = sms != 132;
            INFO(name(s, cfg, sms));
            const Result r = run(in, cfg, sms);
            CHECK(r.unwritten == 0);
            CHECK(r.rel_frobenius < 1e-5);
          }
    }
  GemmConfig bad;
  bad.cluster = 2;
  bad.consumers = 1;
  CHECK(validate({128, 128, 128}, bad).find("cluster of 2 needs 2 consumers") != std::string::npos);
  bad.consumers = 2;
  bad.cluster = 4;
  CHECK(validate({128, 128, 128}, bad).find("cluster must be 1 or 2") != std::string::npos);
  // Whole clusters: a persistent grid on an odd number of SMs leaves the odd one out.
  GemmConfig two;
  two.cluster = 2;
  CHECK(gemm_grid_blocks({1024, 1024, 64}, two, 5) == 4);
  CHECK(gemm_grid_blocks({384, 256, 64}, two, 132) == 4);  // 3 tile rows round up to 2 clusters
}

TEST_CASE("host GEMM with split-K: K ranges summed into C, tails and a last range shorter than the rest", "[host][gemm]") {
  // K = 136 is 3 slices (the last one 8 deep): 2 ranges of 2 slices, the second reading one slice
  // of zeros past K; K = 320 is 5 slices: 3 requested ranges are 3 of 2 (the last one short).
  const GemmShape shapes[] = {{200, 264, 136}, {128, 256, 320}};
  unsigned seed = 500;
  for (const GemmShape& s : shapes)
    for (bool b_row : {true, false}) {
      const Inputs in = make_inputs(s, b_row, seed++);
      for (int split : {2, 3, 8})
        for (OutType out : {OutType::fp32, OutType::bf16})
          for (int sms : {3, 132}) {
            GemmConfig cfg;
            cfg.split_k = split;
            cfg.block_n = 128;
            cfg.stages = 2;
            cfg.b_row_major = b_row;
            cfg.out = out;
            cfg.persistent = sms != 132;
            INFO(name(s, cfg, sms));
            const Result r = run(in, cfg, sms);
            CHECK(r.unwritten == 0);
            CHECK(r.rel_frobenius < (out == OutType::fp32 ? 1e-5 : 4e-3));
            CHECK(r.outside_bf16_rounding == 0);
          }
    }
  // Ranges of whole slices, none empty: 5 slices in 3 ranges are 3 of 2; 3 slices in 8 are 3 of 1.
  GemmConfig cfg;
  cfg.split_k = 3;
  CHECK(gemm_k_splits({128, 256, 320}, cfg, 132) == 3);
  cfg.split_k = 4;
  CHECK(gemm_k_splits({128, 256, 320}, cfg, 132) == 3);  // 5 slices: ranges of 2, so 3 of them
  cfg.split_k = 8;
  CHECK(gemm_k_splits({128, 256, 136}, cfg, 132) == 3);
  CHECK(gemm_grid_blocks({128, 256, 136}, cfg, 132) == 3);  // one tile, three ranges
  cfg.split_k = 65;
  CHECK(validate({128, 128, 128}, cfg).find("split_k must be 1..64") != std::string::npos);
  // Chosen per shape (split_k 0) on 132 SMs, as measured on the H100: only where tiles leave half
  // the SMs idle, as many ranges as fill them, each at least 1024 deep.
  cfg.split_k = 0;
  CHECK(gemm_k_splits({1024, 1024, 16384}, cfg, 132) == 4);  // 32 tiles
  CHECK(gemm_k_splits({512, 1024, 32768}, cfg, 132) == 8);   // 16 tiles
  CHECK(gemm_k_splits({2048, 1024, 8192}, cfg, 132) == 2);   // 64 tiles
  CHECK(gemm_k_splits({4096, 4096, 1024}, cfg, 132) == 1);   // 128 tiles: no idle half
  CHECK(gemm_k_splits({1024, 1024, 1536}, cfg, 132) == 1);   // ranges would be under 1024 deep
  CHECK(gemm_k_splits({256, 256, 65536}, cfg, 132) == 16);   // 2 tiles: at most 16 ranges
}

TEST_CASE("host GEMM with a split tail: whole waves over all of K, the last partial wave in K ranges", "[host][gemm]") {
  // 200 x 264 in 128 x 128 tiles is 2 x 3 = 6 tiles: on 4 "SMs" a head of 4 and a tail of 2, on 5
  // a head of 5 and a tail of 1; 384 x 640 is 15 tiles, on 4 a tail of 3 (more than half a wave:
  // split only when asked), on 7 a tail of 1. Tails in M, N and K; ranges past K read zeros; the
  // order decides which tiles are the tail, and the sum must put each back where the order put it.
  struct Case {
    GemmShape s;
    int sms[2];
  };
  const Case cases[] = {{{200, 264, 136}, {4, 5}}, {{384, 640, 320}, {4, 7}}};
  const sched::OrderSpec orders[] = {{sched::Order::grouped, 8}, {sched::Order::row_major, 1}, {sched::Order::col_major, 1}};
  unsigned seed = 700;
  for (const auto& [s, sms_list] : cases) {
    const Inputs in = make_inputs(s, true, seed++);
    for (const auto& order : orders)
      for (int tail : {2, 3})
        for (OutType out : {OutType::fp32, OutType::bf16})
          for (int sms : sms_list) {
            GemmConfig cfg;
            cfg.tail_split = tail;
            cfg.block_n = 128;
            cfg.stages = 2;
            cfg.order = order;
            cfg.out = out;
            const GemmPlan plan = gemm_plan(s, cfg, sms);
            REQUIRE(plan.splits > 1);
            REQUIRE(plan.head_tiles == plan.tiles / sms * sms);
            INFO(name(s, cfg, sms) << " head " << plan.head_tiles << " of " << plan.tiles << ", " << plan.splits << " ranges");
            const Result r = run(in, cfg, sms);
            CHECK(r.unwritten == 0);
            CHECK(r.rel_frobenius < (out == OutType::fp32 ? 1e-5 : 4e-3));
            CHECK(r.outside_bf16_rounding == 0);
          }
  }
  // One consumer (64-row tiles, C staged whole) and B column-major.
  const Inputs col = make_inputs({200, 264, 136}, false, 777);
  GemmConfig one;
  one.consumers = 1, one.block_n = 128, one.b_row_major = false, one.tail_split = 2, one.out = OutType::fp32;
  REQUIRE(gemm_plan(col.s, one, 5).head_tiles == 10);  // 4 x 3 tiles: a tail of 2
  const Result r = run(col, one, 5);
  CHECK(r.unwritten == 0);
  CHECK(r.rel_frobenius < 1e-5);
}

TEST_CASE("the split tail chosen per shape on 132 SMs, and refused where it cannot run", "[host][gemm]") {
  const GemmConfig cfg;  // tail_split 0: chosen per shape
  const auto plan = [&](GemmShape s) { return gemm_plan(s, cfg, 132); };
  // 96 x 32 tiles of 128 x 256: 23 waves and 36 tiles; 36 x 3 ranges would fill one wave, but K
  // 4096 is too short for the split to pay; at K 8192 it does.
  CHECK(plan({12288, 8192, 4096}).splits == 1);
  CHECK(plan({12288, 8192, 4096}).head_tiles == 3072);
  CHECK(plan({12288, 8192, 8192}).head_tiles == 3036);
  CHECK(plan({12288, 8192, 8192}).splits == 3);
  CHECK(plan({3072, 3072, 8192}).head_tiles == 264);  // 288 tiles: 2 waves and 24
  CHECK(plan({3072, 3072, 8192}).splits == 5);
  CHECK(plan({16384, 16384, 16384}).splits == 16);      // 8192 tiles: 62 waves and 8; at most 16
  CHECK(plan({8192, 8192, 8192}).splits == 1);          // 2048 tiles: 15 waves and 68, more than half
  CHECK(plan({8192, 8192, 8192}).head_tiles == 2048);
  CHECK(plan({3072, 3072, 1024}).splits == 1);          // ranges would be under 1024 deep
  CHECK(plan({4096, 4096, 4096}).splits == 1);          // 512 tiles: 3 waves and 116
  CHECK(plan({1024, 1024, 16384}).head_tiles == 0);     // few tiles: all split (split_k's rule)
  CHECK(plan({1024, 1024, 16384}).splits == 4);
  GemmConfig off = cfg;
  off.tail_split = 1;
  CHECK(gemm_plan({12288, 8192, 8192}, off, 132).splits == 1);
  GemmConfig bad;
  bad.tail_split = 17;
  CHECK(validate({128, 128, 128}, bad).find("tail_split must be 1..16") != std::string::npos);
  bad.tail_split = 2;
  bad.cluster = 2;
  CHECK(validate({128, 128, 128}, bad).find("tail_split needs the persistent grid without clusters") != std::string::npos);
  bad.cluster = 1;
  bad.persistent = false;
  CHECK_FALSE(validate({128, 128, 128}, bad).empty());
}

TEST_CASE("host GEMM refuses what the device launcher refuses", "[host][gemm]") {
  std::vector<bf16> a(128 * 128), b(128 * 128);
  std::vector<float> c(128 * 128);
  CHECK_THROWS_AS(run_gemm_host(a.data(), b.data(), c.data(), {128, 128, 100}, GemmConfig{}), std::invalid_argument);
  GemmConfig bad;
  bad.stages = 5;
  CHECK_THROWS_WITH(run_gemm_host(a.data(), b.data(), c.data(), {128, 128, 128}, bad), Catch::Contains("stages"));
  CHECK_THROWS_WITH(run_gemm_host(a.data() + 1, b.data(), c.data(), {128, 120, 120}, GemmConfig{}),
                    Catch::Contains("16-byte aligned"));
}

TEST_CASE("fp8e4m3 conversion rounds to nearest even and saturates as the GPU's does", "[host][gemm][fp8]") {
  CHECK(float(fp8e4m3(1.f)) == 1.f);
  CHECK(fp8e4m3(1.f).bits == 0x38);
  CHECK(float(fp8e4m3(448.f)) == 448.f);
  CHECK(float(fp8e4m3(1e6f)) == 448.f);    // satfinite: no infinity in e4m3
  CHECK(float(fp8e4m3(-1e6f)) == -448.f);
  CHECK(float(fp8e4m3(1.0625f)) == 1.f);   // halfway between 1 and 1.125: to the even mantissa
  CHECK(float(fp8e4m3(1.1875f)) == 1.25f); // halfway between 1.125 and 1.25: to the even one
  CHECK(float(fp8e4m3(0.001953125f)) == 0.001953125f);  // 2^-9, the smallest subnormal
  CHECK(float(fp8e4m3(0.0009f)) == 0.f);
  CHECK(std::isnan(float(fp8e4m3(NAN))));
  for (int bits = 0; bits < 256; ++bits) {  // every finite pattern converts back to itself
    fp8e4m3 x;
    x.bits = static_cast<uint8_t>(bits);
    if ((bits & 0x7f) == 0x7f) continue;
    INFO(bits);
    CHECK(fp8e4m3(float(x)).bits == (bits == 0x80 ? 0x80 : bits));
  }
}

TEST_CASE("host GEMM with fp8 inputs: scales, tails, clusters and split-K against a double reference", "[host][gemm][fp8]") {
  // K = 272 is 3 fp8 slices of 128 (the last 16 deep); 200 x 264 has tails in M and N.
  const GemmShape shapes[] = {{128, 256, 128}, {200, 264, 272}, {384, 512, 512}};
  const float scale_a = 0.25f, scale_b = 3.f;
  unsigned seed = 700;
  for (const GemmShape& s : shapes) {
    std::mt19937 rng(seed++);
    std::uniform_real_distribution<float> u(-4.f, 4.f);
    vec16<fp8e4m3> a(s.m * s.k), b(s.n * s.k);  // B is N x K
    for (auto& x : a) x = fp8e4m3(u(rng));
    for (auto& x : b) x = fp8e4m3(u(rng));
    // The exact result, and how far fp32 sums of its products may stray from it: K units of
    // 2^-24 of the sum of the products' magnitudes (the dot product's classic error bound).
    std::vector<double> ref(s.m * s.n), fp32_slack(s.m * s.n);
    for (int64_t m = 0; m < s.m; ++m)
      for (int64_t n = 0; n < s.n; ++n) {
        double acc = 0, magnitude = 0;
        for (int64_t k = 0; k < s.k; ++k) {
          const double p = double(float(a[m * s.k + k])) * float(b[n * s.k + k]);
          acc += p;
          magnitude += std::fabs(p);
        }
        ref[m * s.n + n] = acc * scale_a * scale_b;
        fp32_slack[m * s.n + n] = std::ldexp(magnitude * scale_a * scale_b * s.k, -24);
      }
    for (int cluster : {1, 2})
      for (int split : {1, 2})
        for (int stages : {2, 4}) {
          GemmConfig cfg;
          cfg.in = InType::fp8;
          cfg.b_row_major = false;
          cfg.scale_a = scale_a;
          cfg.scale_b = scale_b;
          cfg.cluster = cluster;
          cfg.split_k = split;
          cfg.stages = stages;
          const int sms = 2;
          INFO(name(s, cfg, sms));
          vec16<uint16_t> c(s.m * s.n, 0x7fabu);  // a bf16 NaN rounding never produces
          run_gemm_host(a.data(), b.data(), c.data(), s, cfg, sms);
          int64_t unwritten = 0, outside = 0;
          for (int64_t i = 0; i < s.m * s.n; ++i) {
            if (c[i] == 0x7fabu) ++unwritten;
            bf16 h;
            h.bits = c[i];
            // Products of e4m3 values are exact in fp32: C is their fp32 sum rounded once to bf16,
            // within half an ulp (2^-8 relative) of it.
            if (!(std::fabs(double(float(h)) - ref[i]) <= std::ldexp(std::fabs(ref[i]), -8) + 2 * fp32_slack[i])) ++outside;
          }
          CHECK(unwritten == 0);
          CHECK(outside == 0);
        }
  }
  GemmConfig bad;
  bad.in = InType::fp8;
  CHECK(validate({128, 128, 128}, bad).find("fp8 needs B as N x K") != std::string::npos);
  bad.b_row_major = false;
  bad.block_n = 128;
  CHECK(validate({128, 128, 128}, bad).find("128x256 tiles") != std::string::npos);
  bad.block_n = 256;
  CHECK(validate({128, 128, 136}, bad).find("multiple of 16") != std::string::npos);
  CHECK(validate({128, 128, 128}, bad).empty());
  GemmConfig scaled_bf16;
  scaled_bf16.scale_a = 2;
  CHECK(validate({128, 128, 128}, scaled_bf16).find("fp8 inputs only") != std::string::npos);
  // An fp8 slice is 128 deep, so split-K's ranges of 16 slices are 2048 deep.
  GemmConfig f8 = bad;
  f8.split_k = 0;
  CHECK(gemm_k_splits({1024, 1024, 16384}, f8, 132) == 4);
  CHECK(gemm_k_splits({1024, 1024, 2048}, f8, 132) == 1);
}
