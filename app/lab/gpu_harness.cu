// The main of `tilescope lab check --gpu`'s child process: the student's file, compiled by nvcc
// against the device backend of tiles/, linked with this. The parent writes a plan and runs
//   <binary> PLAN.json RESULT.json
// in a child with a time limit (a wait that never completes on the GPU is a timeout there). Per
// checked shape: the inputs filled as the CPU check fills them (same seed, same values), copied to
// the GPU, the outputs poisoned with NaN (all-ones bits), lab_launch, the outputs copied back and
// compared with the same reference and tolerance. Then lab_launch on the timed shape (the lab's
// simulated one): one warm-up, then `reps` runs from a cold L2, each the sum of its launches'
// cudaEvent times.
// Exit: 0 the result is written, 10 an error (in the result), 11 no usable GPU (in the result).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/lab/harness_common.hpp"

using nlohmann::json;

namespace ts::lab {

namespace {
cudaEvent_t g_start = nullptr, g_stop = nullptr;

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw std::runtime_error(what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
}  // namespace

void Run::check_launch(int grid, std::size_t smem_bytes, int warps) {
  int device = 0, max_smem = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&max_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "cudaDeviceGetAttribute");
  if (grid <= 0 || grid > 65536) fail("launch: the grid must have 1..65536 blocks, got " + std::to_string(grid));
  if (warps <= 0 || warps > 32) fail("launch: a block has 1..32 warps, got " + std::to_string(warps));
  if (smem_bytes > static_cast<std::size_t>(max_smem))
    fail("launch: " + std::to_string(smem_bytes) + " bytes of shared memory exceed the " + std::to_string(max_smem) +
         " this GPU's block may have");
}

void Run::device_begin() { check(cudaEventRecord(g_start), "cudaEventRecord"); }

void Run::device_end(const char* what) {
  check(cudaGetLastError(), std::string("launch of ") + what);
  check(cudaEventRecord(g_stop), "cudaEventRecord");
  check(cudaEventSynchronize(g_stop), std::string("running ") + what);
  float ms = 0;
  check(cudaEventElapsedTime(&ms, g_start, g_stop), "cudaEventElapsedTime");
  kernel_ms_ += ms;
  ++kernel_launches_;
}

}  // namespace ts::lab

namespace {

using namespace ts::lab;
using namespace ts::lab::harness;

// The same tensors in device memory.
struct DeviceTensors {
  std::vector<Tensor> tensors;
  DeviceTensors() = default;
  DeviceTensors(const DeviceTensors&) = delete;
  DeviceTensors& operator=(const DeviceTensors&) = delete;
  explicit DeviceTensors(const Buffers& host) {
    for (const auto& t : host.tensors) {
      Tensor d = t;
      d.data = nullptr;
      check(cudaMalloc(&d.data, std::max<std::size_t>(bytes_of(t), 16)), "cudaMalloc of " + t.name);
      tensors.push_back(d);
    }
  }
  ~DeviceTensors() {
    for (auto& t : tensors) cudaFree(t.data);
  }
  void upload(const Buffers& host) {
    for (std::size_t i = 0; i < tensors.size(); ++i)
      check(cudaMemcpy(tensors[i].data, host.tensors[i].data, bytes_of(host.tensors[i]), cudaMemcpyHostToDevice), "copy of " + tensors[i].name + " to the GPU");
  }
  void poison() {  // all-ones bits: NaN in bf16 and in fp32
    for (auto& t : tensors) check(cudaMemset(t.data, 0xff, bytes_of(t)), "cudaMemset of " + t.name);
  }
  void download(Buffers& host) {
    for (std::size_t i = 0; i < tensors.size(); ++i)
      check(cudaMemcpy(host.tensors[i].data, tensors[i].data, bytes_of(host.tensors[i]), cudaMemcpyDeviceToHost), "copy of " + tensors[i].name + " from the GPU");
  }
};

// One shape's inputs, filled as the CPU check fills them and uploaded, and its outputs poisoned on
// the GPU, with the Run that launches the student's kernel on them.
struct Staged {
  Buffers in, out;
  DeviceTensors din, dout;
  Run run;
  Staged(const json& plan, const json& shape, unsigned seed)
      : in(make_tensors(shape.at("inputs"))),
        out(make_tensors(shape.at("outputs"))),
        din(in),
        dout(out),
        run(params_of(shape), &din.tensors, &dout.tensors, false) {
    fill(plan, in, out, seed);
    din.upload(in);
    dout.poison();
  }
};

json check_shape(const json& plan, const json& shape, unsigned seed) {
  Staged s(plan, shape, seed);
  Run& run = s.run;
  lab_launch(run);
  if (run.kernel_launches() == 0) throw std::invalid_argument("lab_launch launched no kernel");
  check(cudaDeviceSynchronize(), "the kernel");
  s.dout.download(s.out);
  json r = compare(plan, shape, s.in, s.out);
  r["kernel_ms"] = run.kernel_ms();
  return r;
}

// Each timed run starts with the inputs out of L2, as the simulation starts them (and as the GEMM
// bench's rotating input sets do): writing twice the L2's size in between evicts them. Timed warm,
// the labs' small shapes ran up to 2.4x faster than their simulation on the H100, most of it L2.
json time_shape(const json& plan, const json& shape, unsigned seed, int reps) {
  Staged s(plan, shape, seed);
  Run& run = s.run;
  int device = 0, l2_bytes = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute");
  const std::size_t scratch_bytes = 2 * static_cast<std::size_t>(l2_bytes);
  void* scratch = nullptr;
  check(cudaMalloc(&scratch, scratch_bytes), "cudaMalloc (L2 eviction buffer)");
  std::unique_ptr<void, cudaError_t (*)(void*)> scratch_owner(scratch, cudaFree);
  lab_launch(run);  // warm-up: module load, first touch of the buffers
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    check(cudaMemset(scratch, i & 0xff, scratch_bytes), "cudaMemset (L2 eviction)");
    check(cudaDeviceSynchronize(), "L2 eviction");
    run.reset_timing();
    lab_launch(run);
    ms.push_back(run.kernel_ms());
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.size() % 2 ? sorted[sorted.size() / 2] : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
  return {{"params", shape.at("params")}, {"ms", ms}, {"median_ms", median}, {"launches", run.kernel_launches()}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PLAN.json RESULT.json (run by tilescope lab check --gpu)\n", argv[0]);
    return 2;
  }
  json plan;
  {
    std::ifstream f(argv[1]);
    plan = json::parse(f);
  }
  json result = {{"checks", json::array()}};
  auto write = [&] { std::ofstream(argv[2]) << result.dump(1) << "\n"; };
  std::string stage = "start";
  try {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      result["no_device"] = e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e) : std::string("no CUDA device");
      write();
      return 11;
    }
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    result["device"] = prop.name;
    if (prop.major != 9) {  // sm_90a code runs on compute capability 9.0 only
      result["no_device"] = std::string(prop.name) + " is compute capability " + std::to_string(prop.major) + "." +
                            std::to_string(prop.minor) + "; lab kernels are built for sm_90a (Hopper)";
      write();
      return 11;
    }
    check(cudaEventCreate(&g_start), "cudaEventCreate");
    check(cudaEventCreate(&g_stop), "cudaEventCreate");
    unsigned seed = plan.value("seed", 1u);
    for (const auto& shape : plan.at("checks")) {
      stage = stage_name("device", shape);
      std::fprintf(stderr, "lab-stage: %s\n", stage.c_str());
      result["checks"].push_back(check_shape(plan, shape, seed++));
    }
    if (plan.contains("time")) {
      const json& shape = plan.at("time");
      stage = stage_name("device timing", shape);
      std::fprintf(stderr, "lab-stage: %s\n", stage.c_str());
      result["timed"] = time_shape(plan, shape, seed, plan.value("reps", 5));
    }
  } catch (const std::exception& e) {
    result["error"] = {{"kind", "error"}, {"stage", stage}, {"message", e.what()}};
    write();
    return 10;
  }
  write();
  return 0;
}
