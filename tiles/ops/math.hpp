#pragma once
// The per-element math of the tile ops, written once for both backends: every op converts its
// operands to fp32, applies one of these and rounds the result once to dst's type. The backends
// differ only in how they walk the elements (lane fragments and shuffles on the GPU, plain loops
// on the CPU), so results agree bit for bit except where the math library does (exp, exp2: CUDA's
// expf/exp2f are within 2 ulp, glibc's within 1) and where sums are taken in another order.
//
// Each also says what one element costs a lane in warp instructions on the SM's pipes, as the
// device backend compiles it for sm_90a (read off its SASS by scripts/sass-math-costs; the counts it
// printed on 2026-11-23 are in data/measured/h100/sim-attention/sass-math-costs.txt): the simulator's only source for the
// cost of register math (tiles/ops/pipe_cost.hpp adds the walk's conversions and shuffles).
#include <cmath>
#include <cstdint>

#include "tiles/layout/hd.hpp"

namespace ts::math {

struct Cost {
  uint8_t fma = 0, alu = 0, sfu = 0;  // FFMA/FADD/FMUL/moves; FMNMX/compare/select; MUFU
};

struct constant {
  static constexpr Cost cost{.fma = 1};  // a move
  float value;
  TS_HD float operator()() const { return value; }
};
struct identity {
  static constexpr Cost cost{};  // only the conversion, if the types differ
  TS_HD float operator()(float x) const { return x; }
};
struct add {
  static constexpr Cost cost{.fma = 1};
  static constexpr float neutral = 0.f;  // the start of a reduction
  TS_HD float operator()(float a, float b) const { return a + b; }
};
struct sub {
  static constexpr Cost cost{.fma = 1};
  TS_HD float operator()(float a, float b) const { return a - b; }
};
struct mul {
  static constexpr Cost cost{.fma = 1};
  TS_HD float operator()(float a, float b) const { return a * b; }
};
struct div {
  static constexpr Cost cost{.fma = 5, .alu = 1, .sfu = 1};  // MUFU.RCP, Newton steps, the range check
  TS_HD float operator()(float a, float b) const { return a / b; }
};
// fmaxf/fminf: a NaN operand is ignored (the other one wins), on both backends.
struct max {
  static constexpr Cost cost{.alu = 1};
  static constexpr float neutral = -INFINITY;
  TS_HD float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct min {
  static constexpr Cost cost{.alu = 1};
  static constexpr float neutral = INFINITY;
  TS_HD float operator()(float a, float b) const { return fminf(a, b); }
};
struct exp {
  static constexpr Cost cost{.fma = 6, .alu = 1, .sfu = 1};  // range reduction around MUFU.EX2
  TS_HD float operator()(float x) const { return expf(x); }
};
struct exp2 {
  static constexpr Cost cost{.fma = 2, .alu = 1, .sfu = 1};  // exp2f's subnormal scaling around MUFU.EX2
  TS_HD float operator()(float x) const { return exp2f(x); }
};
struct log {
  static constexpr Cost cost{.fma = 15, .alu = 9};  // logf: a polynomial, no MUFU (its SASS)
  TS_HD float operator()(float x) const { return logf(x); }
};
// 2^(x scale - v): the softmax's exponent with its scale folded into one fused multiply-add, so
// that scores need no separate scaling pass (x: a score, v: the row's or column's max times scale,
// or its log-sum-exp in base 2). On the GPU the special-function unit's ex2 alone (2 ulp, like
// exp2f, but results below 2^-126 flush to zero: they vanish beside the row's largest term, which
// is 1), without exp2f's extra instructions for subnormal results.
struct exp2_scaled {
  static constexpr Cost cost{.fma = 1, .sfu = 1};  // one FFMA, one MUFU.EX2
  float scale;
  TS_HD float operator()(float x, float v) const {
#if defined(__CUDA_ARCH__)
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(fmaf(x, scale, -v)));
    return y;
#else
    return exp2f(fmaf(x, scale, -v));
#endif
  }
};

// Where mask() replaces an element, by its (row, column) in the tile.
struct above_diagonal {  // column > row + offset: causal attention's future keys
  static constexpr Cost cost{.alu = 1};  // one compare; mask() adds the select
  int offset;
  TS_HD bool operator()(int r, int c) const { return c > r + offset; }
};
struct below_diagonal {  // column < row + offset: the same mask seen from the transposed scores
  static constexpr Cost cost{.alu = 1};
  int offset;
  TS_HD bool operator()(int r, int c) const { return c < r + offset; }
};
struct columns_from {  // column >= first: keys past the end of the sequence
  static constexpr Cost cost{.alu = 1};
  int first;
  TS_HD bool operator()(int, int c) const { return c >= first; }
};

}  // namespace ts::math
