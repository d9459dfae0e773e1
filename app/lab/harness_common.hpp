#pragma once
// What the two harness mains share (app/lab/harness_main.cpp, the host backend's; app/lab/
// gpu_harness.cu, the device's): the plan's shapes and tensors, the inputs' values (one seed, the
// same on both), the comparison with the reference and its first difference, and Run's lookups.
// Included by exactly one file of each harness program.
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/lab/lab.hpp"
#include "viz/lesson/lab_reference.hpp"

namespace ts::lab {

void fail(const std::string& message) { throw std::invalid_argument(message); }

int Run::param(const std::string& name) const {
  std::string known;
  for (const auto& p : params_) {
    if (p.name == name) return p.value;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  fail("run.param(\"" + name + "\"): this lab's parameters are " + known);
}

Tensor& Run::tensor(const std::string& name, bool output) {
  std::string known;
  for (auto& t : output ? *outputs_ : *inputs_) {
    if (t.name == name) return t;
    known += (known.empty() ? "" : ", ") + t.name;
  }
  fail(std::string("run.") + (output ? "out" : "in") + "(\"" + name + "\"): this lab's " + (output ? "outputs" : "inputs") +
       " are " + known);
}

namespace harness {

using nlohmann::json;

// Host memory for a shape's tensors, each 16-byte aligned (TMA's rule on the host backend).
struct Buffers {
  std::vector<Tensor> tensors;
  std::vector<std::vector<unsigned char>> storage;
};

inline std::size_t bytes_of(const Tensor& t) { return std::size_t(t.rows) * t.cols * (t.dtype == DType::f32 ? 4 : 2); }

inline Buffers make_tensors(const json& list) {
  Buffers b;
  for (const auto& t : list) {
    Tensor x;
    x.name = t.at("name");
    x.dtype = t.at("dtype") == "f32" ? DType::f32 : DType::bf16;
    x.rows = t.at("rows");
    x.cols = t.at("cols");
    b.storage.emplace_back(bytes_of(x) + 16);
    b.tensors.push_back(x);
  }
  for (std::size_t i = 0; i < b.tensors.size(); ++i) {
    auto* p = b.storage[i].data();
    b.tensors[i].data = p + (16 - reinterpret_cast<std::uintptr_t>(p) % 16) % 16;
  }
  return b;
}

inline double value_at(const Tensor& t, std::size_t i) {
  if (t.dtype == DType::f32) return static_cast<const float*>(t.data)[i];
  return static_cast<float>(static_cast<const ts::bf16*>(t.data)[i]);
}
inline void set_value(Tensor& t, std::size_t i, float v) {
  if (t.dtype == DType::f32) static_cast<float*>(t.data)[i] = v;
  else static_cast<ts::bf16*>(t.data)[i] = ts::bf16(v);
}

inline std::vector<Run::Param> params_of(const json& shape) {
  std::vector<Run::Param> p;
  for (auto it = shape.at("params").begin(); it != shape.at("params").end(); ++it) p.push_back({it.key(), it.value().get<int>()});
  return p;
}

inline std::string stage_name(const char* what, const json& shape) {
  std::string s = what;
  for (auto it = shape.at("params").begin(); it != shape.at("params").end(); ++it)
    s += " " + it.key() + "=" + std::to_string(it.value().get<int>());
  return s;
}

// JSON has no NaN or infinity: those are written as text.
inline json number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// Inputs uniform in [-1, 1] times the plan's input_scale, rounded to their type; outputs NaN.
inline void fill(const json& plan, Buffers& in, Buffers& out, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uni(-1.f, 1.f);
  const double in_scale = plan.value("input_scale", 1.0);
  for (auto& t : in.tensors)
    for (std::size_t i = 0; i < std::size_t(t.rows) * t.cols; ++i) set_value(t, i, static_cast<float>(uni(rng) * in_scale));
  for (auto& t : out.tensors)
    for (std::size_t i = 0; i < std::size_t(t.rows) * t.cols; ++i) set_value(t, i, NAN);
}

// The outputs against the plan's reference over the inputs: ok, mismatches, the first difference.
inline json compare(const json& plan, const json& shape, const Buffers& in, const Buffers& out) {
  std::vector<Matrix> ref_in, ref_out;
  for (const auto& t : in.tensors) {
    Matrix m{t.rows, t.cols, std::vector<double>(std::size_t(t.rows) * t.cols)};
    for (std::size_t i = 0; i < m.v.size(); ++i) m.v[i] = value_at(t, i);
    ref_in.push_back(std::move(m));
  }
  for (const auto& t : out.tensors) ref_out.push_back(Matrix{t.rows, t.cols, std::vector<double>(std::size_t(t.rows) * t.cols, 0.0)});
  run_reference(plan.at("reference"), ref_in, ref_out);

  const double abs_tol = plan.at("tolerance").at("abs"), rel_tol = plan.at("tolerance").at("rel");
  json r = {{"params", shape.at("params")}, {"ok", true}};
  uint64_t bad = 0, total = 0;
  double max_err = 0;
  for (std::size_t o = 0; o < out.tensors.size(); ++o) {
    const Tensor& t = out.tensors[o];
    const json& spec = shape.at("outputs")[o];
    const int tr = spec.value("tile_rows", 64), tc = spec.value("tile_cols", 64);
    for (int row = 0; row < t.rows; ++row)
      for (int col = 0; col < t.cols; ++col) {
        const std::size_t i = std::size_t(row) * t.cols + col;
        const double got = value_at(t, i), want = ref_out[o].v[i];
        const double err = std::fabs(got - want);
        ++total;
        if (std::isfinite(err)) max_err = std::max(max_err, err);
        if (err <= abs_tol + rel_tol * std::fabs(want)) continue;  // a NaN fails here too
        if (bad++ == 0)
          r["first"] = {{"output", t.name}, {"row", row}, {"col", col}, {"tile_row", row / tr}, {"tile_col", col / tc},
                        {"tile_rows", tr}, {"tile_cols", tc}, {"got", number(got)}, {"expected", number(want)}};
      }
  }
  r["ok"] = bad == 0;
  r["mismatches"] = bad;
  r["elements"] = total;
  r["max_abs_err"] = max_err;
  return r;
}

}  // namespace harness
}  // namespace ts::lab
