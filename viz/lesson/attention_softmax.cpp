#include "viz/lesson/attention_softmax.hpp"

#include <cmath>
#include <random>
#include <vector>

#if TILESCOPE_HAVE_HOST_BACKEND
#include "tiles/tiles.hpp"
#endif

namespace ts::viz {

double SoftmaxModel::estimate(int r, int j, int blocks) const {
  if (blocks <= 0 || j >= blocks * kSoftmaxKeys) return 0;
  const SoftmaxStep& now = steps[blocks - 1];
  const float s = steps[j / kSoftmaxKeys].scores[r][j % kSoftmaxKeys];
  return std::exp2((double(s) - now.max_after[r]) * scale_log2) / now.sum[r];
}

#if TILESCOPE_HAVE_HOST_BACKEND

namespace {

constexpr int R = 16;  // register tiles have 16 rows: the first kSoftmaxRows are the ones shown

using q_tile = rt_bf<R, kSoftmaxDim>;                    // A operand of S = Q K^T
using k_tile = rt_bf<kSoftmaxKeys, kSoftmaxDim>;         // K block, N x K row layout (the B^T operand)
using v_tile = rt_bf<kSoftmaxKeys, kSoftmaxDim, col_l>;  // V block, K x N column layout (the B operand of P V)
using score_tile = rt_fl<R, kSoftmaxKeys>;
using row_stats = row_vec<score_tile>;

}  // namespace

SoftmaxModel softmax_model(uint32_t seed, KeyTrend trend) {
  SoftmaxModel m;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  q_tile q;
  for (auto& row : q.v)
    for (auto& x : row) x = from_float<bf16>(2.f * u(rng));
  std::vector<k_tile> k(kSoftmaxBlocks);
  std::vector<v_tile> v(kSoftmaxBlocks);
  for (int b = 0; b < kSoftmaxBlocks; ++b) {
    const float gain = trend == KeyTrend::rising ? 0.5f + 0.25f * b : 1.f;
    for (auto& row : k[b].v)
      for (auto& x : row) x = from_float<bf16>(2.f * gain * u(rng));
    for (auto& row : v[b].v)
      for (auto& x : row) x = from_float<bf16>(u(rng));
  }
  m.scale = 1.f / std::sqrt(float(kSoftmaxDim));
  m.scale_log2 = m.scale * 1.4426950408889634f;  // the kernel's globals: scale * log2(e)

  // attention_fwd.cuh compute(), op for op (the warp MMA in place of the warpgroup's: the same
  // bf16 products summed in fp32).
  rt_fl<R, kSoftmaxDim> o;
  row_stats max, sum;
  zero(o);
  fill(max, -INFINITY);
  zero(sum);
  for (int b = 0; b < kSoftmaxBlocks; ++b) {
    SoftmaxStep& st = m.steps[b];
    score_tile att, none;
    zero(none);
    warp::mma_ABt(att, q, k[b], none);
    for (int r = 0; r < kSoftmaxRows; ++r) {
      for (int c = 0; c < kSoftmaxKeys; ++c) st.scores[r][c] = att.v[r][c];
      st.max_before[r] = max.v[r];
    }
    row_stats rescale, max_scaled, block_max;
    row_max(block_max, att);  // for the scene only: this block's own maximum
    copy(rescale, max);
    row_max(max, att, max);
    sub(rescale, rescale, max);
    mul(rescale, rescale, m.scale_log2);
    exp2(rescale, rescale);
    mul(max_scaled, max, m.scale_log2);
    exp2_row(att, att, m.scale_log2, max_scaled);
    mul(sum, sum, rescale);
    row_sum(sum, att, sum);
    mul_row(o, o, rescale);
    rt_bf<R, kSoftmaxKeys> probs;
    copy(probs, att);
    warp::mma_AB(o, probs, v[b], o);
    for (int r = 0; r < kSoftmaxRows; ++r) {
      for (int c = 0; c < kSoftmaxKeys; ++c) st.p[r][c] = att.v[r][c];
      for (int c = 0; c < kSoftmaxDim; ++c) st.o[r][c] = o.v[r][c];
      st.block_max[r] = block_max.v[r];
      st.max_after[r] = max.v[r];
      st.rescale[r] = rescale.v[r];
      st.sum[r] = sum.v[r];
    }
  }
  // store(): O / sum, and the log-sum-exp.
  div_row(o, o, sum);
  row_stats lse, max_scaled;
  log(lse, sum);
  mul(max_scaled, max, m.scale);
  add(lse, lse, max_scaled);
  for (int r = 0; r < kSoftmaxRows; ++r) {
    for (int c = 0; c < kSoftmaxDim; ++c) m.out[r][c] = o.v[r][c];
    m.lse[r] = lse.v[r];
  }

  // The exact softmax, in double, from the same bf16 values.
  for (int r = 0; r < kSoftmaxRows; ++r) {
    std::array<double, kSoftmaxAllKeys> s{};
    double mx = -INFINITY;
    for (int j = 0; j < kSoftmaxAllKeys; ++j) {
      double dot = 0;
      for (int d = 0; d < kSoftmaxDim; ++d)
        dot += double(to_float(q.v[r][d])) * double(to_float(k[j / kSoftmaxKeys].v[j % kSoftmaxKeys][d]));
      s[j] = dot;
      mx = std::max(mx, dot);
    }
    double total = 0;
    for (int j = 0; j < kSoftmaxAllKeys; ++j) total += std::exp(m.scale * (s[j] - mx));
    for (int j = 0; j < kSoftmaxAllKeys; ++j) m.exact_p[r][j] = std::exp(m.scale * (s[j] - mx)) / total;
    for (int d = 0; d < kSoftmaxDim; ++d) {
      double acc = 0;
      for (int j = 0; j < kSoftmaxAllKeys; ++j)
        acc += m.exact_p[r][j] * double(to_float(v[j / kSoftmaxKeys].v[j % kSoftmaxKeys][d]));
      m.exact_out[r][d] = acc;
    }
    m.exact_max[r] = mx;
    m.exact_lse[r] = m.scale * mx + std::log(total);
  }
  return m;
}

float rescale_factor(float old_max, float block_max, float scale) {
  score_tile att;
  fill(att, block_max);
  row_stats max, rescale;
  fill(max, old_max);
  copy(rescale, max);
  row_max(max, att, max);
  sub(rescale, rescale, max);
  mul(rescale, rescale, scale * 1.4426950408889634f);
  exp2(rescale, rescale);
  return rescale.v[0];
}

#else

float rescale_factor(float, float, float) { return 0; }

SoftmaxModel softmax_model(uint32_t, KeyTrend) {
  SoftmaxModel m;
  m.error = "this build has no host backend (Boost.Context was not found), so the kernel's tile ops cannot run here";
  return m;
}

#endif

}  // namespace ts::viz
