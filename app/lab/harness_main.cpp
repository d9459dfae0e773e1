// The main of a lab check's child process, linked with the student's file (which defines
// lab_launch). `tilescope lab check` writes a plan (shapes resolved from the lab's spec) and runs
//   <binary> PLAN.json RESULT.json TRACE.bin
// in a child with a time limit. Per checked shape: fill the inputs (fixed seed), poison the outputs
// with NaN, run lab_launch in functional mode, compare with the reference; then lab_launch once in
// trace mode on the simulated shape and write its op streams. Stages are announced on stderr
// ("lab-stage: ...") so that the parent can say where a crash happened.
// Exit: 0 the result is written (right or wrong), 10 the kernel threw (deadlock or error, in the
// result); a signal is the parent's to report.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/lab/harness_common.hpp"

using nlohmann::json;

namespace ts::lab {

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
using namespace ts::lab::harness;

json check_shape(const json& plan, const json& shape, unsigned seed) {
  Buffers in = make_tensors(shape.at("inputs")), out = make_tensors(shape.at("outputs"));
  fill(plan, in, out, seed);
  Run run(params_of(shape), &in.tensors, &out.tensors, false);
  lab_launch(run);
  return compare(plan, shape, in, out);
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
