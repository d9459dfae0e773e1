// The labs' reference functions: what each lab's output must equal, computed the obvious way.
#include "viz/lesson/lab_reference.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

namespace ts::lab {

namespace {

using Fn = std::function<void(const std::vector<Matrix>&, std::vector<Matrix>&)>;

void need(bool ok, const std::string& name, const std::string& what) {
  if (!ok) throw std::invalid_argument("reference '" + name + "': " + what);
}

// C = A B (+ bias[c], then max(0, .)): A is M x K; B is K x N, or N x K when b_nk.
void matmul(const std::string& name, const std::vector<Matrix>& in, std::vector<Matrix>& out, bool b_nk, bool bias_relu) {
  need(in.size() == (bias_relu ? 3u : 2u) && out.size() == 1, name, bias_relu ? "takes A, B, bias and gives C" : "takes A and B and gives C");
  const Matrix &a = in[0], &b = in[1];
  Matrix& c = out[0];
  const int m = a.rows, k = a.cols, n = b_nk ? b.rows : b.cols;
  need((b_nk ? b.cols : b.rows) == k && c.rows == m && c.cols == n, name, "shapes of A, B and C disagree");
  if (bias_relu) need(in[2].rows * in[2].cols == n, name, "the bias needs N values");
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int x = 0; x < k; ++x) s += a.at(i, x) * (b_nk ? b.at(j, x) : b.at(x, j));
      if (bias_relu) s = std::max(0.0, s + in[2].v[static_cast<std::size_t>(j)]);
      c.at(i, j) = s;
    }
}

const std::map<std::string, std::pair<std::string, Fn>>& table() {
  static const std::map<std::string, std::pair<std::string, Fn>> t = {
      {"copy", {"out[0] = in[0]", [](const auto& in, auto& out) {
                  need(in.size() == 1 && out.size() == 1 && in[0].rows == out[0].rows && in[0].cols == out[0].cols, "copy",
                       "takes one input and gives one output of the same shape");
                  out[0].v = in[0].v;
                }}},
      {"relu", {"out[0] = max(in[0], 0)", [](const auto& in, auto& out) {
                  need(in.size() == 1 && out.size() == 1 && in[0].rows == out[0].rows && in[0].cols == out[0].cols, "relu",
                       "takes one input and gives one output of the same shape");
                  for (std::size_t i = 0; i < in[0].v.size(); ++i) out[0].v[i] = std::max(0.0, in[0].v[i]);
                }}},
      {"transpose", {"out[0] = in[0] transposed", [](const auto& in, auto& out) {
                       need(in.size() == 1 && out.size() == 1 && in[0].rows == out[0].cols && in[0].cols == out[0].rows,
                            "transpose", "takes an R x C input and gives a C x R output");
                       for (int r = 0; r < in[0].rows; ++r)
                         for (int c = 0; c < in[0].cols; ++c) out[0].at(c, r) = in[0].at(r, c);
                     }}},
      {"matmul", {"C = A B, A is M x K, B is K x N", [](const auto& in, auto& out) { matmul("matmul", in, out, false, false); }}},
      {"matmul_bt", {"C = A B, A is M x K, B given as its transpose (N x K)",
                     [](const auto& in, auto& out) { matmul("matmul_bt", in, out, true, false); }}},
      {"matmul_bias_relu", {"C = max(0, A B + bias), B is K x N, bias 1 x N",
                            [](const auto& in, auto& out) { matmul("matmul_bias_relu", in, out, false, true); }}},
      {"matmul_bt_bias_relu", {"C = max(0, A B + bias), B given as N x K, bias 1 x N",
                               [](const auto& in, auto& out) { matmul("matmul_bt_bias_relu", in, out, true, true); }}},
      {"softmax_rows", {"out[0][r] = softmax of in[0][r]", [](const auto& in, auto& out) {
                          need(in.size() == 1 && out.size() == 1 && in[0].rows == out[0].rows && in[0].cols == out[0].cols,
                               "softmax_rows", "takes one input and gives one output of the same shape");
                          for (int r = 0; r < in[0].rows; ++r) {
                            double mx = -INFINITY, sum = 0;
                            for (int c = 0; c < in[0].cols; ++c) mx = std::max(mx, in[0].at(r, c));
                            for (int c = 0; c < in[0].cols; ++c) sum += std::exp(in[0].at(r, c) - mx);
                            for (int c = 0; c < in[0].cols; ++c) out[0].at(r, c) = std::exp(in[0].at(r, c) - mx) / sum;
                          }
                        }}},
      {"attention", {"O = softmax(Q K^T / sqrt(D)) V, Q N x D, K and V L x D, one head, not causal",
                     [](const auto& in, auto& out) {
                       need(in.size() == 3 && out.size() == 1, "attention", "takes Q, K, V and gives O");
                       const Matrix &q = in[0], &k = in[1], &v = in[2];
                       const int n = q.rows, d = q.cols, l = k.rows;
                       need(k.cols == d && v.rows == l && v.cols == d && out[0].rows == n && out[0].cols == d, "attention",
                            "Q is N x D, K and V are L x D, O is N x D");
                       std::vector<double> s(static_cast<std::size_t>(l));
                       for (int i = 0; i < n; ++i) {
                         double mx = -INFINITY, sum = 0;
                         for (int j = 0; j < l; ++j) {
                           double x = 0;
                           for (int e = 0; e < d; ++e) x += q.at(i, e) * k.at(j, e);
                           s[j] = x / std::sqrt(double(d));
                           mx = std::max(mx, s[j]);
                         }
                         for (int j = 0; j < l; ++j) sum += (s[j] = std::exp(s[j] - mx));
                         for (int e = 0; e < d; ++e) {
                           double o = 0;
                           for (int j = 0; j < l; ++j) o += s[j] * v.at(j, e);
                           out[0].at(i, e) = o / sum;
                         }
                       }
                     }}},
  };
  return t;
}

}  // namespace

void run_reference(const std::string& name, const std::vector<Matrix>& in, std::vector<Matrix>& out) {
  const auto it = table().find(name);
  if (it == table().end()) throw std::invalid_argument("unknown reference function '" + name + "'");
  it->second.second(in, out);
}

std::vector<std::pair<std::string, std::string>> reference_functions() {
  std::vector<std::pair<std::string, std::string>> r;
  for (const auto& [name, entry] : table()) r.emplace_back(name, entry.first);
  return r;
}

}  // namespace ts::lab
