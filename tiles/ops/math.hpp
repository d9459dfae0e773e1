#pragma once
// The per-element math of the tile ops, written once for both backends: every op converts its
// operands to fp32, applies one of these and rounds the result once to dst's type. The backends
// differ only in how they walk the elements (lane fragments and shuffles on the GPU, plain loops
// on the CPU), so results agree bit for bit except where the math library does (exp, exp2: CUDA's
// expf/exp2f are within 2 ulp, glibc's within 1) and where sums are taken in another order.
#include <cmath>

#include "tiles/layout/hd.hpp"

namespace ts::math {

struct constant {
  float value;
  TS_HD float operator()() const { return value; }
};
struct identity {
  TS_HD float operator()(float x) const { return x; }
};
struct add {
  static constexpr float neutral = 0.f;  // the start of a reduction
  TS_HD float operator()(float a, float b) const { return a + b; }
};
struct sub {
  TS_HD float operator()(float a, float b) const { return a - b; }
};
struct mul {
  TS_HD float operator()(float a, float b) const { return a * b; }
};
struct div {
  TS_HD float operator()(float a, float b) const { return a / b; }
};
// fmaxf/fminf: a NaN operand is ignored (the other one wins), on both backends.
struct max {
  static constexpr float neutral = -INFINITY;
  TS_HD float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct min {
  static constexpr float neutral = INFINITY;
  TS_HD float operator()(float a, float b) const { return fminf(a, b); }
};
struct exp {
  TS_HD float operator()(float x) const { return expf(x); }
};
struct exp2 {
  TS_HD float operator()(float x) const { return exp2f(x); }
};
struct log {
  TS_HD float operator()(float x) const { return logf(x); }
};
// 2^(x scale - v): the softmax's exponent with its scale folded into one fused multiply-add, so
// that scores need no separate scaling pass (x: a score, v: the row's or column's max times scale,
// or its log-sum-exp in base 2). On the GPU the special-function unit's ex2 alone (2 ulp, like
// exp2f, but results below 2^-126 flush to zero: they vanish beside the row's largest term, which
// is 1), without exp2f's extra instructions for subnormal results.
struct exp2_scaled {
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
  int offset;
  TS_HD bool operator()(int r, int c) const { return c > r + offset; }
};
struct below_diagonal {  // column < row + offset: the same mask seen from the transposed scores
  int offset;
  TS_HD bool operator()(int r, int c) const { return c < r + offset; }
};
struct columns_from {  // column >= first: keys past the end of the sequence
  int first;
  TS_HD bool operator()(int, int c) const { return c >= first; }
};

}  // namespace ts::math
