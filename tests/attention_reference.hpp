#pragma once
// A double-precision reference of attention forward and backward, straight from the definitions,
// and the error measure the attention tests use (host backend and GPU alike).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/attention/attention_api.hpp"
#include "tiles/types/dtypes.hpp"

namespace ts::test {

using kernels::AttentionShape;

std::vector<bf16> random_bf16(std::size_t n, std::mt19937& rng, float spread = 1.f) {
  std::normal_distribution<float> d(0.f, spread);
  std::vector<bf16> v(n);
  for (auto& x : v) x = bf16(d(rng));
  return v;
}

double at(const std::vector<bf16>& v, std::size_t i) { return static_cast<double>(static_cast<float>(v[i])); }

struct Reference {
  std::vector<double> o, lse, dq, dk, dv;
};

// Softmax attention and its gradients in double, straight from the definitions.
Reference reference(const AttentionShape& s, const std::vector<bf16>& q, const std::vector<bf16>& k, const std::vector<bf16>& v,
                    const std::vector<bf16>& d_o) {
  const int64_t B = s.batch, H = s.heads_q, N = s.seq, D = s.dim, group = s.heads_q / s.heads_kv;
  const double scale = kernels::softmax_scale(s);
  Reference r;
  r.o.assign(B * H * N * D, 0);
  r.lse.assign(B * H * N, 0);
  r.dq.assign(B * H * N * D, 0);
  r.dk.assign(B * s.heads_kv * N * D, 0);
  r.dv.assign(B * s.heads_kv * N * D, 0);
  std::vector<double> p(N), dp(N);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t hk = h / group;
      const auto qi = [&](int64_t i, int64_t d) { return at(q, ((b * H + h) * N + i) * D + d); };
      const auto kj = [&](int64_t j, int64_t d) { return at(k, ((b * s.heads_kv + hk) * N + j) * D + d); };
      const auto vj = [&](int64_t j, int64_t d) { return at(v, ((b * s.heads_kv + hk) * N + j) * D + d); };
      const auto doi = [&](int64_t i, int64_t d) { return at(d_o, ((b * H + h) * N + i) * D + d); };
      for (int64_t i = 0; i < N; ++i) {
        const int64_t keys = s.causal ? i + 1 : N;
        double m = -std::numeric_limits<double>::infinity(), sum = 0;
        for (int64_t j = 0; j < keys; ++j) {
          double x = 0;
          for (int64_t d = 0; d < D; ++d) x += qi(i, d) * kj(j, d);
          p[j] = x * scale;
          m = std::max(m, p[j]);
        }
        for (int64_t j = 0; j < keys; ++j) sum += (p[j] = std::exp(p[j] - m));
        for (int64_t j = 0; j < keys; ++j) p[j] /= sum;
        r.lse[(b * H + h) * N + i] = m + std::log(sum);
        double delta = 0;
        for (int64_t j = 0; j < keys; ++j) {
          dp[j] = 0;
          for (int64_t d = 0; d < D; ++d) dp[j] += doi(i, d) * vj(j, d);
          delta += p[j] * dp[j];
        }
        for (int64_t j = 0; j < keys; ++j) {
          const double ds = p[j] * (dp[j] - delta) * scale;
          for (int64_t d = 0; d < D; ++d) {
            r.o[((b * H + h) * N + i) * D + d] += p[j] * vj(j, d);
            r.dq[((b * H + h) * N + i) * D + d] += ds * kj(j, d);
            r.dk[((b * s.heads_kv + hk) * N + j) * D + d] += ds * qi(i, d);
            r.dv[((b * s.heads_kv + hk) * N + j) * D + d] += p[j] * doi(i, d);
          }
        }
      }
    }
  return r;
}

// ||got - want|| / ||want||; infinity when an element is not finite (never written, or overflowed),
// and `unwritten` counts those.
template <class T> double relative_error(const std::vector<T>& got, const std::vector<double>& want, std::size_t* unwritten = nullptr) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(static_cast<float>(got[i]));
    if (!std::isfinite(g)) {
      if (unwritten) ++*unwritten;
      num = INFINITY;
      continue;
    }
    num += (g - want[i]) * (g - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / std::max(den, 1e-30));
}

}  // namespace ts::test
