// The tile ops of tiles/ops/ on the host backend against plain double-precision loops: element-wise
// math, row/column reductions and broadcasts, layout swaps, warp loads/stores through swizzled
// shared tiles, the warp MMA variants, and plain shared <-> global copies with tails. The same ops
// run on the GPU in tests/gpu/test_tile_ops_gpu.cpp against the same kind of reference.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tiles/backend/host/trace.hpp"
#include "tiles/tiles.hpp"

using namespace ts;

namespace {

// One rounding of the element type, relative (fp32 gets 4 ulp: exp/exp2 and a rounding of their argument).
template <class T> double rel_eps() {
  if constexpr (std::is_same_v<T, float>) return 4.0 / (1 << 24);
  else if constexpr (std::is_same_v<T, bf16>) return 1.0 / 256;
  else return 1.0 / 1024;
}
// fp16 subnormals (below 2^-14) are 2^-24 apart: there the rounding error is absolute, not relative.
template <class T> double abs_eps() { return std::is_same_v<T, fp16> ? std::ldexp(1.0, -24) : 1e-30; }
bool close(double got, double want, double eps, double abs = 1e-30) { return std::abs(got - want) <= eps * std::abs(want) + abs; }

std::mt19937& rng() {
  static std::mt19937 g(1234);
  return g;
}
float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng()); }

// Random values that the element type holds exactly (so the reference sees what the op sees).
template <class T, int R, int C, class L> void randomize(rt<T, R, C, L>& t, float lo = -2.f, float hi = 2.f) {
  for (auto& row : t.v)
    for (auto& x : row) x = from_float<T>(uniform(lo, hi));
}
template <class T, int N, class L> void randomize(rv<T, N, L>& v, float lo = -2.f, float hi = 2.f) {
  for (auto& x : v.v) x = from_float<T>(uniform(lo, hi));
}
template <class T> double d(T x) { return static_cast<double>(to_float(x)); }

// Checks every element of `out` against want(r, c) within one rounding of out's type.
template <class T, int R, int C, class L>
void check_tile(const rt<T, R, C, L>& out, const std::function<double(int, int)>& want, double eps = rel_eps<T>()) {
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      INFO("element (" << r << ", " << c << ")");
      REQUIRE(close(d(out.v[r][c]), want(r, c), eps, abs_eps<T>()));
    }
}

template <class TD, class TS> void elementwise_case() {
  rt<TS, 32, 48> a, b;
  randomize(a);
  randomize(b, 0.5f, 2.f);  // a divisor well away from zero
  rt<TD, 32, 48> out;
  INFO("dst " << typeid(TD).name() << " src " << typeid(TS).name());
  fill(out, 1.25f);
  check_tile(out, [](int, int) { return 1.25; });
  copy(out, a);
  check_tile(out, [&](int r, int c) { return d(a.v[r][c]); });
  add(out, a, b);
  check_tile(out, [&](int r, int c) { return d(a.v[r][c]) + d(b.v[r][c]); });
  sub(out, a, b);
  check_tile(out, [&](int r, int c) { return d(a.v[r][c]) - d(b.v[r][c]); });
  mul(out, a, b);
  check_tile(out, [&](int r, int c) { return d(a.v[r][c]) * d(b.v[r][c]); });
  div(out, a, b);
  check_tile(out, [&](int r, int c) { return d(a.v[r][c]) / d(b.v[r][c]); });
  max(out, a, b);
  check_tile(out, [&](int r, int c) { return std::max(d(a.v[r][c]), d(b.v[r][c])); });
  min(out, a, b);
  check_tile(out, [&](int r, int c) { return std::min(d(a.v[r][c]), d(b.v[r][c])); });
  exp(out, a);
  check_tile(out, [&](int r, int c) { return std::exp(d(a.v[r][c])); });
  exp2(out, a);
  check_tile(out, [&](int r, int c) { return std::exp2(d(a.v[r][c])); });
  // Tile-scalar and scalar-tile forms.
  add(out, a, 0.5f);
  check_tile(out, [&](int r, int c) { return d(a.v[r][c]) + 0.5; });
  sub(out, 1.f, a);
  check_tile(out, [&](int r, int c) { return 1.0 - d(a.v[r][c]); });
  mul(out, a, -3.f);
  check_tile(out, [&](int r, int c) { return -3.0 * d(a.v[r][c]); });
  div(out, a, 4.f);
  check_tile(out, [&](int r, int c) { return d(a.v[r][c]) / 4.0; });
  max(out, a, 0.f);
  check_tile(out, [&](int r, int c) { return std::max(d(a.v[r][c]), 0.0); });
  min(out, a, 0.f);
  check_tile(out, [&](int r, int c) { return std::min(d(a.v[r][c]), 0.0); });
  // Tiny results: fp16 rounds them to subnormals (2^-24 apart), the others keep them normal.
  mul(out, a, 1e-6f);
  check_tile(out, [&](int r, int c) { return d(a.v[r][c]) * double(1e-6f); });
}

}  // namespace

TEST_CASE("element-wise tile ops match double loops for fp32, bf16 and fp16, converting between them", "[tiles][ops]") {
  elementwise_case<float, float>();
  elementwise_case<bf16, bf16>();
  elementwise_case<fp16, fp16>();
  elementwise_case<float, bf16>();
  elementwise_case<bf16, float>();
  elementwise_case<fp16, float>();
}

TEST_CASE("element-wise ops may write over a source and work on vectors", "[tiles][ops]") {
  rt_bf<16, 32> a, keep;
  randomize(a);
  keep = a;
  mul(a, a, a);  // in place
  check_tile(a, [&](int r, int c) { return d(keep.v[r][c]) * d(keep.v[r][c]); });

  rv<float, 32> v, w, out;
  randomize(v);
  randomize(w, 0.5f, 2.f);
  sub(out, v, w);
  exp2(out, out);
  div(out, out, w);
  for (int n = 0; n < 32; ++n) CHECK(close(out.v[n], std::exp2(double(v.v[n]) - w.v[n]) / w.v[n], 1e-6));
  zero(out);
  for (float x : out.v) CHECK(x == 0.f);
  rv<bf16, 32, by_thread_l> h;
  fill(h, 3.f);
  max(h, h, 7.f);
  for (bf16 x : h.v) CHECK(d(x) == 7.0);
}

TEST_CASE("fp32 math is done once and rounded once: bf16 results are the rounded fp32 ones", "[tiles][ops]") {
  rt_bf<16, 16> a, b, out;
  randomize(a);
  randomize(b);
  add(out, a, b);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) REQUIRE(out.v[r][c].bits == bf16(to_float(a.v[r][c]) + to_float(b.v[r][c])).bits);
}

namespace {
template <class L, class TT, class TV> void rowcol_case() {
  using tile = rt<TT, 32, 64, L>;
  tile t;
  randomize(t);
  row_vec<tile, TV> rmax, rsum, racc, rsum_acc, rmax_acc;
  col_vec<tile, TV> cmax, csum, cacc, csum_acc, cmax_acc;
  randomize(racc);
  randomize(cacc);
  row_max(rmax, t);
  row_sum(rsum, t);
  row_sum(rsum_acc, t, racc);
  row_max(rmax_acc, t, racc);
  col_max(cmax, t);
  col_sum(csum, t);
  col_sum(csum_acc, t, cacc);
  col_max(cmax_acc, t, cacc);
  for (int r = 0; r < 32; ++r) {
    double mx = -INFINITY, sum = 0, abs_sum = 0;
    for (int c = 0; c < 64; ++c) mx = std::max(mx, d(t.v[r][c])), sum += d(t.v[r][c]), abs_sum += std::abs(d(t.v[r][c]));
    INFO("row " << r);
    CHECK(d(rmax.v[r]) == d(from_float<TV>(float(mx))));
    CHECK(std::abs(d(rsum.v[r]) - sum) <= rel_eps<TV>() * std::abs(sum) + 1e-6 * abs_sum);
    CHECK(std::abs(d(rsum_acc.v[r]) - (sum + d(racc.v[r]))) <= rel_eps<TV>() * std::abs(sum + d(racc.v[r])) + 1e-6 * abs_sum);
    CHECK(d(rmax_acc.v[r]) == d(from_float<TV>(float(std::max(mx, d(racc.v[r]))))));
  }
  for (int c = 0; c < 64; ++c) {
    double mx = -INFINITY, sum = 0, abs_sum = 0;
    for (int r = 0; r < 32; ++r) mx = std::max(mx, d(t.v[r][c])), sum += d(t.v[r][c]), abs_sum += std::abs(d(t.v[r][c]));
    INFO("column " << c);
    CHECK(d(cmax.v[c]) == d(from_float<TV>(float(mx))));
    CHECK(std::abs(d(csum.v[c]) - sum) <= rel_eps<TV>() * std::abs(sum) + 1e-6 * abs_sum);
    CHECK(std::abs(d(csum_acc.v[c]) - (sum + d(cacc.v[c]))) <= rel_eps<TV>() * std::abs(sum + d(cacc.v[c])) + 1e-6 * abs_sum);
    CHECK(d(cmax_acc.v[c]) == d(from_float<TV>(float(std::max(mx, d(cacc.v[c]))))));
  }
  // Broadcasts: a vector of the tile's own type; divisors away from zero.
  row_vec<tile> rv_;
  col_vec<tile> cv_;
  randomize(rv_, 0.5f, 2.f);
  randomize(cv_, 0.5f, 2.f);
  tile out;
  sub_row(out, t, rv_);
  check_tile(out, [&](int r, int c) { return d(t.v[r][c]) - d(rv_.v[r]); });
  mul_row(out, t, rv_);
  check_tile(out, [&](int r, int c) { return d(t.v[r][c]) * d(rv_.v[r]); });
  div_row(out, t, rv_);
  check_tile(out, [&](int r, int c) { return d(t.v[r][c]) / d(rv_.v[r]); });
  sub_col(out, t, cv_);
  check_tile(out, [&](int r, int c) { return d(t.v[r][c]) - d(cv_.v[c]); });
  mul_col(out, t, cv_);
  check_tile(out, [&](int r, int c) { return d(t.v[r][c]) * d(cv_.v[c]); });
  div_col(out, t, cv_);
  check_tile(out, [&](int r, int c) { return d(t.v[r][c]) / d(cv_.v[c]); });
}
}  // namespace

TEST_CASE("row and column reductions and broadcasts match double loops in both layouts", "[tiles][ops]") {
  rowcol_case<row_l, float, float>();
  rowcol_case<col_l, float, float>();
  rowcol_case<row_l, bf16, float>();  // bf16 tile, fp32 sums
  rowcol_case<col_l, bf16, bf16>();
  rowcol_case<row_l, fp16, fp16>();
}

TEST_CASE("swap_layout keeps the matrix and changes only the layout tag", "[tiles][ops]") {
  rt_bf<32, 48> a, back;
  randomize(a);
  rt<bf16, 32, 48, col_l> b;
  swap_layout(b, a);
  swap_layout(back, b);
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 48; ++c) {
      REQUIRE(b.v[r][c].bits == a.v[r][c].bits);
      REQUIRE(back.v[r][c].bits == a.v[r][c].bits);
    }
}

TEST_CASE("register vector maps agree with the register tile maps of tiles/layout/fragments.hpp", "[tiles][fragments]") {
  using namespace ts::layout;
  for (uint32_t lane = 0; lane < 32; ++lane)
    for (uint32_t pair = 0; pair < 4; ++pair)
      for (uint32_t half = 0; half < 2; ++half) {
        const RowCol r = rt_row_l_element(lane, pair, half), c = rt_col_l_element(lane, pair, half);
        CHECK(r.row == rv_group_element(lane, row_l_row_slot(pair, half)));
        CHECK(r.col == rv_thread_element(lane, row_l_col_slot(pair, half)));
        CHECK(c.row == rv_thread_element(lane, col_l_row_slot(pair, half)));
        CHECK(c.col == rv_group_element(lane, col_l_col_slot(pair, half)));
        // col_l is row_l's 8x8 blocks transposed (what movmatrix.trans does per block).
        CHECK(c.row % 8 == r.col % 8);
        CHECK(c.col % 8 == r.row % 8);
        CHECK(c.row / 8 == r.row / 8);
        CHECK(c.col / 8 == r.col / 8);
      }
  // Each map covers a 16-element block, every element in 4 (group) or 8 (thread) lanes.
  for (uint32_t e = 0; e < 16; ++e) {
    int group = 0, thread = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      for (uint32_t s = 0; s < 2; ++s) group += rv_group_element(lane, s) == e;
      for (uint32_t s = 0; s < 4; ++s) thread += rv_thread_element(lane, s) == e;
    }
    CHECK(group == 4);
    CHECK(thread == 8);
  }
}

TEST_CASE("warp loads and stores move 16-aligned rectangles of a swizzled shared tile", "[tiles][ops]") {
  static st<bf16, 64, 128> s, s2;  // 128B swizzle, two column blocks
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 128; ++c) *s.at(r, c) = bf16(float(r * 128 + c));
  rt<bf16, 32, 64, col_l> t;
  warp::load(t, s, 16, 48);  // straddles the two column blocks
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 64; ++c) REQUIRE(d(t.v[r][c]) == d(bf16(float((16 + r) * 128 + 48 + c))));
  std::memset(static_cast<void*>(&s2), 0, sizeof s2);
  warp::store(s2, t, 32, 64);
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 128; ++c) {
      const bool inside = r >= 32 && c >= 64;
      REQUIRE(s2.at(r, c)->bits == (inside ? s.at(r - 16, c - 16)->bits : 0));
    }
  CHECK_THROWS_WITH(warp::load(t, s, 8, 0), Catch::Contains("multiples of 16"));
  CHECK_THROWS_WITH(warp::store(s2, t, 48, 0), Catch::Contains("inside the 64 x 128 shared tile"));

  static st<float, 32, 32> f;
  rt_fl<16, 32> ft;
  randomize(ft);
  warp::store(f, ft, 16, 0);
  rt_fl<16, 32> back;
  warp::load(back, f, 16, 0);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 32; ++c) REQUIRE(back.v[r][c] == ft.v[r][c]);

  sv<float, 32> sv1;
  rv<float, 32, by_thread_l> v, w;
  randomize(v);
  warp::store(sv1, v);
  warp::load(w, sv1);
  for (int n = 0; n < 32; ++n) CHECK(w.v[n] == v.v[n]);
}

namespace {
// C = op(A) op(B) + C0 in double, A as M x K and B as K x N whatever form the tiles hold them in.
template <class T> void mma_case() {
  constexpr int M = 32, N = 48, K = 64;
  rt<T, M, K, row_l> a;
  rt<T, K, M, col_l> at;
  rt<T, K, N, col_l> b;
  rt<T, N, K, row_l> bt;
  rt_fl<M, N> c, out;
  randomize(a);
  randomize(b);
  randomize(c);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) at.v[k][m] = a.v[m][k];
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) bt.v[n][k] = b.v[k][n];
  // fp32 accumulation of 64 exact products: errors scale with the sum of their magnitudes.
  auto check = [&](const rt_fl<M, N>& out) {
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double want = c.v[m][n], scale = std::abs(c.v[m][n]);
        for (int k = 0; k < K; ++k) want += d(a.v[m][k]) * d(b.v[k][n]), scale += std::abs(d(a.v[m][k]) * d(b.v[k][n]));
        INFO("element (" << m << ", " << n << ")");
        REQUIRE(std::abs(out.v[m][n] - want) <= 1e-6 * scale);
      }
  };
  warp::mma_AB(out, a, b, c);
  check(out);
  warp::mma_ABt(out, a, bt, c);
  check(out);
  warp::mma_AtB(out, at, b, c);
  check(out);
  rt_fl<M, N> acc = c;
  warp::mma_AtBt(acc, at, bt, acc);  // d may be c
  check(acc);
}
}  // namespace

TEST_CASE("warp MMA variants compute A B + C from every operand layout", "[tiles][ops][mma]") {
  mma_case<bf16>();
  mma_case<fp16>();
}

TEST_CASE("plain shared <-> global copies zero-fill and skip what lies outside the tensor", "[tiles][ops][copy]") {
  // 50 x 70 bf16: the row pitch (140 bytes) is not a multiple of 16 and both tails are partial.
  std::vector<bf16> g(2 * 50 * 70), out(2 * 50 * 70, bf16(-1.f));
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = bf16(float(i % 1000));
  const auto src = gl<bf16>::make(g.data(), 2, 1, 50, 70);
  const auto dst = gl<bf16>::make(out.data(), 2, 1, 50, 70);
  static st<bf16, 32, 64> t;
  std::memset(static_cast<void*>(&t), 0xff, sizeof t);
  warp::load(t, src, {1, 0, 1, 1});  // rows 32..63 (32..49 exist), columns 64..127 (64..69 exist)
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 64; ++c) {
      const bool in = 32 + r < 50 && 64 + c < 70;
      REQUIRE(d(*t.at(r, c)) == (in ? d(g[(50 + 32 + r) * 70 + 64 + c]) : 0.0));
    }
  warp::store(dst, t, {1, 0, 1, 1});
  for (int b = 0; b < 2; ++b)
    for (int r = 0; r < 50; ++r)
      for (int c = 0; c < 70; ++c) {
        const bool written = b == 1 && r >= 32 && c >= 64;
        REQUIRE(d(out[(b * 50 + r) * 70 + c]) == (written ? d(g[(b * 50 + r) * 70 + c]) : -1.0));
      }

  // Vectors: row 7, elements 32..63 of a 10 x 40 fp32 tensor (32..39 exist).
  std::vector<float> gv(400), ov(400, -1.f);
  for (int i = 0; i < 400; ++i) gv[i] = float(i);
  sv<float, 32> v;
  warp::load(v, gl<float>::make(gv.data(), 1, 1, 10, 40), {0, 0, 7, 1});
  for (int n = 0; n < 32; ++n) CHECK(v.data[n] == (n < 8 ? gv[7 * 40 + 32 + n] : 0.f));
  warp::store(gl<float>::make(ov.data(), 1, 1, 10, 40), v, {0, 0, 7, 1});
  for (int i = 0; i < 400; ++i) CHECK(ov[i] == (i >= 7 * 40 + 32 && i < 8 * 40 ? gv[i] : -1.f));
}

TEST_CASE("a warpgroup copy is split among its 4 warps as on the GPU", "[tiles][ops][copy]") {
  std::vector<fp16> g(64 * 64);
  for (int i = 0; i < 64 * 64; ++i) g[i] = fp16(float(i % 2000));
  const auto src = gl<fp16>::make(g.data(), 1, 1, 64, 64);
  static st<fp16, 64, 64> t;
  for (int warps_calling : {4, 3}) {
    std::memset(static_cast<void*>(&t), 0, sizeof t);
    host::Block blk;
    blk.warps = 4;
    host::run_block(blk, [&] {
      if (warpid() < warps_calling) warpgroup::load(t, src, {0, 0, 0, 0});
    });
    // 8 fp16 per chunk, 8 chunks per row: chunk e = 8 r + c / 8 belongs to warp (e % 128) / 32.
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < 64; ++c) {
        const int warp = ((8 * r + c / 8) % 128) / 32;
        REQUIRE(d(*t.at(r, c)) == (warp < warps_calling ? d(g[r * 64 + c]) : 0.0));
      }
  }
}

TEST_CASE("trace mode: register ops record their pipe cost, memory ops the simulator cannot model refuse", "[tiles][ops][trace]") {
  alignas(1024) static char smem[16384];
  auto ops_of = [&](std::function<void()> body) {
    host::TracedBlock block(0, 1, 1, smem, sizeof smem, std::move(body));
    std::vector<sim::TraceOp> all;
    for (;;) {
      const auto& got = block.next_batch(0);
      if (got.empty()) return all;
      all.insert(all.end(), got.begin(), got.end());
    }
  };
  auto run = [&](std::function<void()> body) { return ops_of(std::move(body)).size(); };
  const auto register_ops = [] {
    rt_fl<16, 16> a;
    rt_bf<16, 16> p;
    row_vec<rt_fl<16, 16>> v, w;
    fill(a, 1.f);
    exp(a, a);
    row_max(v, a);
    sub_row(a, a, v);
    copy(p, a);
    copy(w, v);  // same type: no instruction, no op
  };
  // Worked out by hand from the device walk: a 16 x 16 fp32 tile is 8 elements per lane; its row
  // vector 2 values per lane (rows g and g + 8).
  using sim::Pipe;
  auto counts = [](std::initializer_list<std::pair<Pipe, int>> l) {
    sim::PipeCounts c;
    for (auto [p, n] : l) c[p] = static_cast<uint16_t>(n);
    return c;
  };
  // fold 8; 2 values x 2 butterfly rounds, a max each. Its longest dependent chain: one value's 4
  // elements, then per round a shuffle and a max.
  sim::PipeCounts row_max_counts = counts({{Pipe::alu, 8 + 4}, {Pipe::shuffle, 4}});
  row_max_counts.chain[static_cast<int>(Pipe::alu)] = 4 + 2;
  row_max_counts.chain[static_cast<int>(Pipe::shuffle)] = 2;
  const std::vector<sim::PipeCounts> expected = {
      counts({{Pipe::fma, 8}}),                                  // fill: a move each
      counts({{Pipe::fma, 48}, {Pipe::alu, 8}, {Pipe::sfu, 8}}),  // expf: 6 FFMA, a shift, MUFU.EX2 each
      row_max_counts,
      counts({{Pipe::fma, 8}}),                                   // sub_row
      counts({{Pipe::convert, 4}}),                               // 8 elements packed two at a time
  };
  const auto ops = ops_of(register_ops);
  REQUIRE(ops.size() == expected.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    INFO("op " << i);
    CHECK(ops[i].kind == sim::OpKind::math);
    CHECK(ops[i].pipes == expected[i]);
  }
  auto& s = *reinterpret_cast<st<bf16, 16, 32>*>(smem);
  const auto load = [&] {
    rt_bf<16, 32> a;
    warp::load(a, s);
  };
  const auto loads = ops_of(load);  // the device walk: one ldmatrix.x4 per 16 x 16 subtile
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].kind == sim::OpKind::smem_load);
  CHECK(loads[0].smem.walk == sim::SmemWalk::matrix_x4);
  CHECK(loads[0].smem.rows == 16);
  CHECK(loads[0].smem.cols == 32);
  CHECK(loads[0].bytes == 16 * 32 * 2);
  // fp32 row_l tiles 32 columns wide (and whole accumulators) move with partner blocks swapped: a
  // select per value a lane holds, recorded beside the walk; 16 columns have no partner, no select.
  auto& f32 = *reinterpret_cast<st<float, 16, 32>*>(smem);
  const auto fp32_moves = [&] {
    rt_fl<16, 32> a;
    rt_fl<16, 16> narrow;
    warp::load(a, f32);
    warp::store(f32, a);
    warp::load(narrow, f32);
  };
  const auto moves = ops_of(fp32_moves);
  REQUIRE(moves.size() == 5);
  CHECK(moves[0].kind == sim::OpKind::smem_load);
  CHECK(moves[0].smem.walk == sim::SmemWalk::row_pairs);
  CHECK(moves[1].kind == sim::OpKind::math);
  CHECK(moves[1].pipes == counts({{Pipe::alu, 16}}));  // 16 x 32 / 32 lanes
  CHECK(moves[2].kind == sim::OpKind::math);
  CHECK(moves[2].pipes == counts({{Pipe::alu, 16}}));
  CHECK(moves[3].kind == sim::OpKind::smem_store);
  CHECK(moves[4].kind == sim::OpKind::smem_load);
  auto& staging = *reinterpret_cast<st<float, 64, 64>*>(smem);
  const auto accumulator_store = [&] {
    rt_fl<16, 64> acc;
    warpgroup::store(staging, acc);
  };
  const auto stores = ops_of(accumulator_store);
  REQUIRE(stores.size() == 2);
  CHECK(stores[0].kind == sim::OpKind::math);
  CHECK(stores[0].pipes == counts({{Pipe::alu, 32}}));  // the backward's dQ share: 32 FSEL per warp in its SASS
  CHECK(stores[1].kind == sim::OpKind::smem_store);
  CHECK(stores[1].smem.walk == sim::SmemWalk::row_pairs);
  const auto mma = [] {
    rt_fl<16, 16> acc;
    rt_bf<16, 16> a;
    rt<bf16, 16, 16, col_l> b;
    warp::mma_AB(acc, a, b, acc);
  };
  CHECK_THROWS_WITH(run(mma), Catch::Contains("warp::mma: trace mode"));
  // A shared vector's plain copy: the bytes the warp moves, for the L2 model; a tail moves only what
  // lies inside the tensor. A plain tile copy is refused.
  static float row[100];
  const auto tensor = gl<float>::make(row, 1, 1, 1, 100);
  auto& v = *reinterpret_cast<sv<float, 64>*>(smem);
  const auto vector_copies = [&] {
    warp::load(v, tensor, {0, 0, 0, 0});   // elements 0..63: 256 bytes
    warp::store(tensor, v, {0, 0, 0, 1});  // elements 64..127, of which 64..99 exist: 144 bytes
    warp::load(v, tensor, {0, 0, 0, 2});   // elements 128..191: none exists, nothing moves, no op
  };
  const auto copies = ops_of(vector_copies);
  REQUIRE(copies.size() == 2);
  CHECK(copies[0].kind == sim::OpKind::gmem_load);
  CHECK(copies[0].box.rows == 1);
  CHECK(copies[0].box.row_bytes == 256);
  CHECK(copies[0].box.offset == 0);
  CHECK(copies[1].kind == sim::OpKind::gmem_store);
  CHECK(copies[1].box.row_bytes == 144);
  CHECK(copies[1].box.offset == 64 * 4);
  CHECK(copies[0].box.tensor == copies[1].box.tensor);
  auto& tile = *reinterpret_cast<st<float, 16, 16>*>(smem);
  CHECK_THROWS_WITH(run([&] { warp::load(tile, tensor, {0, 0, 0, 0}); }), Catch::Contains("plain copy"));
}
