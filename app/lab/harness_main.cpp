// The main of a lab check's child process, linked with the student's file (which defines
// lab_launch). `tilescope lab check` writes a plan (shapes resolved from the lab's spec) and runs
//   <binary> PLAN.json RESULT.json TRACE.bin
// in a child with a time limit. Per checked shape: fill the inputs (fixed seed), poison the outputs
// with NaN, run lab_launch in functional mode, compare with the reference; then lab_launch once in
// trace mode on the simulated shape and write its op streams. Stages are announced on stderr
// ("lab-stage: ...") so that the parent can say where a crash happened.
// Exit: 0 the result is written (right or wrong), 10 the kernel threw (deadlock or error, in the
// result); a signal is the parent's to report.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/lab/lab.hpp"
#include "viz/lesson/lab_reference.hpp"

using nlohmann::json;

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

void Run::check_launch(int grid, std::size_t smem_bytes, int warps) {
  if (grid <= 0 || grid > 65536) fail("launch: the grid must have 1..65536 blocks, got " + std::to_string(grid));
  if (warps <= 0 || warps > 32) fail("launch: a block has 1..32 warps, got " + std::to_string(warps));
  if (smem_bytes > host::max_smem_bytes)
    fail("launch: " + std::to_string(smem_bytes) + " bytes of shared memory exceed the " + std::to_string(host::max_smem_bytes) +
         " an H100 block may have");
}

}  // namespace ts::lab

namespace {

using namespace ts::lab;

struct Buffers {
  std::vector<Tensor> tensors;
  std::vector<std::vector<unsigned char>> storage;
};

Buffers make_tensors(const json& list) {
  Buffers b;
  for (const auto& t : list) {
    Tensor x;
    x.name = t.at("name");
    x.dtype = t.at("dtype") == "f32" ? DType::f32 : DType::bf16;
    x.rows = t.at("rows");
    x.cols = t.at("cols");
    const std::size_t bytes = std::size_t(x.rows) * x.cols * (x.dtype == DType::f32 ? 4 : 2);
    b.storage.emplace_back(bytes + 16);
    b.tensors.push_back(x);
  }
  for (std::size_t i = 0; i < b.tensors.size(); ++i) {
    auto* p = b.storage[i].data();
    b.tensors[i].data = p + (16 - reinterpret_cast<std::uintptr_t>(p) % 16) % 16;  // TMA wants 16-byte alignment
  }
  return b;
}

double value_at(const Tensor& t, std::size_t i) {
  if (t.dtype == DType::f32) return static_cast<const float*>(t.data)[i];
  return static_cast<float>(static_cast<const ts::bf16*>(t.data)[i]);
}
void set_value(Tensor& t, std::size_t i, float v) {
  if (t.dtype == DType::f32) static_cast<float*>(t.data)[i] = v;
  else static_cast<ts::bf16*>(t.data)[i] = ts::bf16(v);
}

std::vector<Run::Param> params_of(const json& shape) {
  std::vector<Run::Param> p;
  for (auto it = shape.at("params").begin(); it != shape.at("params").end(); ++it) p.push_back({it.key(), it.value().get<int>()});
  return p;
}

std::string stage_name(const char* what, const json& shape) {
  std::string s = what;
  for (auto it = shape.at("params").begin(); it != shape.at("params").end(); ++it)
    s += " " + it.key() + "=" + std::to_string(it.value().get<int>());
  return s;
}

// JSON has no NaN or infinity: those are written as text.
json number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json check_shape(const json& plan, const json& shape, unsigned seed) {
  Buffers in = make_tensors(shape.at("inputs")), out = make_tensors(shape.at("outputs"));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uni(-1.f, 1.f);
  const double in_scale = plan.value("input_scale", 1.0);
  for (auto& t : in.tensors)
    for (std::size_t i = 0; i < std::size_t(t.rows) * t.cols; ++i) set_value(t, i, static_cast<float>(uni(rng) * in_scale));
  for (auto& t : out.tensors)
    for (std::size_t i = 0; i < std::size_t(t.rows) * t.cols; ++i) set_value(t, i, NAN);

  Run run(params_of(shape), &in.tensors, &out.tensors, false);
  lab_launch(run);

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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PLAN.json RESULT.json TRACE.bin (run by tilescope lab check)\n", argv[0]);
    return 2;
  }
  json plan;
  {
    std::ifstream f(argv[1]);
    plan = json::parse(f);
  }
  json result = {{"checks", json::array()}};
  std::string stage;
  auto write = [&] {
    std::ofstream f(argv[2]);
    f << result.dump(1) << "\n";
  };
  try {
    unsigned seed = plan.value("seed", 1u);
    for (const auto& shape : plan.at("checks")) {
      stage = stage_name("functional", shape);
      std::fprintf(stderr, "lab-stage: %s\n", stage.c_str());
      result["checks"].push_back(check_shape(plan, shape, seed++));
    }
    const json& shape = plan.at("trace");
    stage = stage_name("trace", shape);
    std::fprintf(stderr, "lab-stage: %s\n", stage.c_str());
    Buffers in = make_tensors(shape.at("inputs")), out = make_tensors(shape.at("outputs"));
    Run run(params_of(shape), &in.tensors, &out.tensors, true);
    try {
      lab_launch(run);
      if (run.launches().empty()) throw std::invalid_argument("lab_launch launched no kernel");
      write_trace(argv[3], run.launches());
      result["traced"] = true;
    } catch (const std::logic_error& e) {
      // An op trace mode cannot record yet (tiles/README.md: warp::mma, plain global copies): the
      // kernel is checked but not timed, and the report says which op.
      if (std::string(e.what()).find("trace mode has no op kind") == std::string::npos) throw;
      result["untimed"] = e.what();
    }
  } catch (const std::exception& e) {
    const std::string what = e.what();
    const bool deadlock = what.rfind("deadlock", 0) == 0;
    result["error"] = {{"kind", deadlock ? "deadlock" : "error"}, {"stage", stage}, {"message", what}};
    write();
    return 10;
  }
  write();
  return 0;
}
