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
// or its log-sum-exp in base 2).
struct exp2_scaled {
  float scale;
  TS_HD float operator()(float x, float v) const { return exp2f(fmaf(x, scale, -v)); }
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
