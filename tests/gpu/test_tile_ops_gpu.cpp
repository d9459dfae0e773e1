// The tile ops of tiles/ops/ on the GPU (kernels in tile_ops_kernels.cu) against double-precision
// loops: the same references as the host backend's tests (tests/test_tile_ops.cpp), so the two
// backends agree up to rounding. Outputs are NaN-poisoned before each kernel: an element that
// should have been written and was not fails. Without a CUDA device every test says so and passes.
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "tests/gpu/gpu_available.hpp"
#include "tests/gpu/tile_ops_kernels.hpp"

using namespace tile_ops_gpu;

namespace {

// The GPU's expf/exp2f are within 2 ulp, so an fp32 result may be 2 ulp off and a 16-bit one
// may round to the neighbour of the correctly rounded value.
double rel_eps(Type t) { return t == Type::f32 ? 8.0 / (1 << 24) : t == Type::bf16 ? 1.0 / 128 : 1.0 / 512; }
// fp16 subnormals (below 2^-14) are 2^-24 apart: there the rounding error is absolute, not relative.
double abs_eps(Type t) { return t == Type::f16 ? std::ldexp(1.0, -24) : 1e-30; }
bool close(double got, double want, double eps, double abs = 1e-30) { return std::abs(got - want) <= eps * std::abs(want) + abs; }

std::vector<float> random_values(Type t, std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = round_to(t, u(g));
  return v;
}

// Element i of `got` against want(i); NaN where a value is wanted means the kernel never wrote it.
void check_all(const std::vector<float>& got, const std::function<double(std::size_t)>& want, Type t) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << " got " << got[i] << " want " << want(i));
    REQUIRE(close(got[i], want(i), rel_eps(t), abs_eps(t)));
  }
}

}  // namespace

TEST_CASE("GPU tile ops: global -> shared -> registers -> shared -> global, tails and warpgroups", "[gpu][tiles][small]") {
  if (!have_gpu()) return;
  struct Shape {
    int rows, cols, tile_r, tile_c;
  };
  // Whole tiles; tails with a row pitch that is not a multiple of 16 bytes (16-bit) or is (fp32); tails with 16-byte rows.
  const Shape shapes[] = {{192, 384, 1, 1}, {150, 340, 2, 2}, {150, 328, 2, 2}};
  unsigned seed = 1;
  for (Type t : {Type::f32, Type::bf16, Type::f16})
    for (bool col : {false, true})
      for (bool wg : {false, true})
        for (const Shape& s : shapes) {
          INFO(name(t) << (col ? " col_l" : " row_l") << (wg ? " warpgroup " : " warp ") << s.rows << "x" << s.cols << " tile ("
                       << s.tile_r << ", " << s.tile_c << ")");
          const std::vector<float> in = random_values(t, std::size_t(s.rows) * s.cols, -100.f, 100.f, seed++);
          const RoundTrip got = round_trip(t, col, wg, s.rows, s.cols, s.tile_r, s.tile_c, in);
          const int r0 = 64 * s.tile_r, c0 = 128 * s.tile_c;
          auto source = [&](int r, int c) { return r < s.rows && c < s.cols ? double(in[std::size_t(r) * s.cols + c]) : 0.0; };
          // The register tile holds rows 16.., columns 48.. of the shared tile, zeros past the tensor's edge.
          for (int r = 0; r < R; ++r)
            for (int c = 0; c < C; ++c) {
              INFO("register element (" << r << ", " << c << ")");
              REQUIRE(got.frag[r * C + c] == source(r0 + 16 + r, c0 + 48 + c));
            }
          for (int r = 0; r < s.rows; ++r)
            for (int c = 0; c < s.cols; ++c) {
              INFO("global element (" << r << ", " << c << ")");
              const std::size_t i = std::size_t(r) * s.cols + c;
              const int tr = r - r0, tc = c - c0;
              const bool in_tile = tr >= 0 && tr < 64 && tc >= 0 && tc < 128;
              if (in_tile) REQUIRE(got.direct[i] == in[i]);
              else REQUIRE(std::isnan(got.direct[i]));
              // The second tile: the register tile at rows 32.., columns 16.., NaN elsewhere.
              if (in_tile && tr >= 32 && tc >= 16 && tc < 80) REQUIRE(got.moved[i] == source(r0 + 16 + tr - 32, c0 + 48 + tc - 16));
              else REQUIRE(std::isnan(got.moved[i]));
            }
        }
}

TEST_CASE("GPU tile ops: element-wise math matches double loops", "[gpu][tiles][small]") {
  if (!have_gpu()) return;
  struct Case {
    Type dst, src;
    bool col;
  };
  const Case cases[] = {{Type::f32, Type::f32, false},  {Type::bf16, Type::bf16, false}, {Type::f16, Type::f16, false},
                        {Type::f32, Type::bf16, false}, {Type::bf16, Type::f32, false},  {Type::f16, Type::f32, true},
                        {Type::bf16, Type::bf16, true}};
  unsigned seed = 100;
  for (const Case& k : cases) {
    INFO(name(k.dst) << " <- " << name(k.src) << (k.col ? " col_l" : " row_l"));
    const auto a = random_values(k.src, R * C, -2.f, 2.f, seed++), b = random_values(k.src, R * C, 0.5f, 2.f, seed++);
    const std::vector<float> out = elementwise(k.dst, k.src, k.col, a, b);
    const std::function<double(double, double)> f[op_count] = {
        [](double, double) { return 1.25; },
        [](double x, double) { return x; },
        [](double x, double y) { return x + y; },
        [](double x, double y) { return x - y; },
        [](double x, double y) { return x * y; },
        [](double x, double y) { return x / y; },
        [](double x, double y) { return std::max(x, y); },
        [](double x, double y) { return std::min(x, y); },
        [](double x, double) { return std::exp(x); },
        [](double x, double) { return std::exp2(x); },
        [](double x, double) { return x + 0.5; },
        [](double x, double) { return 1.0 - x; },
        [](double x, double) { return -3.0 * x; },
        [](double x, double) { return x / 4.0; },
        [](double x, double) { return std::max(x, 0.0); },
        [](double x, double) { return std::min(x, 0.0); },
    };
    for (int op = 0; op < op_count; ++op) {
      INFO("op " << op);
      const std::vector<float> got(out.begin() + op * R * C, out.begin() + (op + 1) * R * C);
      check_all(got, [&](std::size_t i) { return f[op](a[i], b[i]); }, k.dst);
    }
  }
}

TEST_CASE("GPU tile ops: row and column reductions and broadcasts match double loops", "[gpu][tiles][small]") {
  if (!have_gpu()) return;
  struct Case {
    Type tile, vec;
    bool col;
  };
  const Case cases[] = {{Type::f32, Type::f32, false}, {Type::f32, Type::f32, true}, {Type::bf16, Type::f32, false},
                        {Type::bf16, Type::bf16, true}, {Type::f16, Type::f16, false}};
  unsigned seed = 200;
  for (const Case& k : cases) {
    INFO(name(k.tile) << " tile, " << name(k.vec) << " vectors, " << (k.col ? "col_l" : "row_l"));
    const auto t = random_values(k.tile, R * C, -2.f, 2.f, seed++);
    const auto racc = random_values(k.vec, R, -2.f, 2.f, seed++), cacc = random_values(k.vec, C, -2.f, 2.f, seed++);
    const auto rb = random_values(k.tile, R, 0.5f, 2.f, seed++), cb = random_values(k.tile, C, 0.5f, 2.f, seed++);
    const RowCol got = rowcol(k.tile, k.vec, k.col, t, racc, cacc, rb, cb);
    CHECK(got.replica_mismatches == 0);
    const double ev = rel_eps(k.vec);
    auto x = [&](int r, int c) { return double(t[r * C + c]); };
    for (int r = 0; r < R; ++r) {
      double mx = -INFINITY, sum = 0, abs_sum = 0;
      for (int c = 0; c < C; ++c) mx = std::max(mx, x(r, c)), sum += x(r, c), abs_sum += std::abs(x(r, c));
      INFO("row " << r);
      CHECK(got.rows[0 * R + r] == round_to(k.vec, float(mx)));
      CHECK(std::abs(got.rows[1 * R + r] - sum) <= ev * std::abs(sum) + 1e-6 * abs_sum);
      CHECK(std::abs(got.rows[2 * R + r] - (sum + racc[r])) <= ev * std::abs(sum + racc[r]) + 1e-6 * abs_sum);
      CHECK(got.rows[3 * R + r] == round_to(k.vec, float(std::max(mx, double(racc[r])))));
      // exp2((max - acc) * 0.5), each step rounded to the vector type as the ops do.
      const float m = round_to(k.vec, float(mx));
      const double chain = std::exp2(double(round_to(k.vec, round_to(k.vec, m - racc[r]) * 0.5f)));
      CHECK(close(got.rows[4 * R + r], chain, ev));
    }
    for (int c = 0; c < C; ++c) {
      double mx = -INFINITY, sum = 0, abs_sum = 0;
      for (int r = 0; r < R; ++r) mx = std::max(mx, x(r, c)), sum += x(r, c), abs_sum += std::abs(x(r, c));
      INFO("column " << c);
      CHECK(got.cols[0 * C + c] == round_to(k.vec, float(mx)));
      CHECK(std::abs(got.cols[1 * C + c] - sum) <= ev * std::abs(sum) + 1e-6 * abs_sum);
      CHECK(std::abs(got.cols[2 * C + c] - (sum + cacc[c])) <= ev * std::abs(sum + cacc[c]) + 1e-6 * abs_sum);
      CHECK(got.cols[3 * C + c] == round_to(k.vec, float(std::max(mx, double(cacc[c])))));
    }
    const std::function<double(int, int)> want[6] = {
        [&](int r, int c) { return x(r, c) - rb[r]; }, [&](int r, int c) { return x(r, c) * rb[r]; },
        [&](int r, int c) { return x(r, c) / rb[r]; }, [&](int r, int c) { return x(r, c) - cb[c]; },
        [&](int r, int c) { return x(r, c) * cb[c]; }, [&](int r, int c) { return x(r, c) / cb[c]; },
    };
    for (int op = 0; op < 6; ++op) {
      INFO("broadcast " << op);
      const std::vector<float> tile(got.tiles.begin() + op * R * C, got.tiles.begin() + (op + 1) * R * C);
      check_all(tile, [&](std::size_t i) { return want[op](int(i) / C, int(i) % C); }, k.tile);
    }
  }
}

TEST_CASE("GPU tile ops: swap_layout keeps the matrix and gives the col_l lane map", "[gpu][tiles][small]") {
  if (!have_gpu()) return;
  unsigned seed = 300;
  for (Type t : {Type::f32, Type::bf16, Type::f16}) {
    INFO(name(t));
    const auto in = random_values(t, R * C, -100.f, 100.f, seed++);
    const Swap got = swap(t, in);
    for (int i = 0; i < R * C; ++i) {
      INFO("element (" << i / C << ", " << i % C << ")");
      REQUIRE(got.row_to_col[i] == in[i]);
      REQUIRE(got.col_to_row[i] == in[i]);
      REQUIRE(got.frag[i] == in[i]);
    }
  }
}

TEST_CASE("GPU tile ops: warp MMA variants match a double reference", "[gpu][tiles][small]") {
  if (!have_gpu()) return;
  unsigned seed = 400;
  for (Type t : {Type::bf16, Type::f16})
    for (Mma v : {Mma::AB, Mma::ABt, Mma::AtB, Mma::AtBt}) {
      INFO(name(t) << " variant " << int(v));
      const auto a = random_values(t, M * K, -2.f, 2.f, seed++), b = random_values(t, K * N, -2.f, 2.f, seed++);
      const auto c = random_values(Type::f32, M * N, -2.f, 2.f, seed++);
      // The operands as the variant takes them: A^T is K x M, B^T is N x K.
      std::vector<float> at(K * M), bt(N * K);
      for (int m = 0; m < M; ++m)
        for (int k = 0; k < K; ++k) at[k * M + m] = a[m * K + k];
      for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n) bt[n * K + k] = b[k * N + n];
      const bool a_t = v == Mma::AtB || v == Mma::AtBt, b_t = v == Mma::ABt || v == Mma::AtBt;
      const std::vector<float> d = mma(t, v, a_t ? at : a, b_t ? bt : b, c);
      for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
          double want = c[m * N + n], scale = std::abs(c[m * N + n]);
          for (int k = 0; k < K; ++k) want += double(a[m * K + k]) * b[k * N + n], scale += std::abs(double(a[m * K + k]) * b[k * N + n]);
          INFO("element (" << m << ", " << n << ")");
          REQUIRE(std::abs(d[m * N + n] - want) <= 1e-5 * scale);
        }
    }
}
