#pragma once
// `tilescope lab check --gpu`: the student's file compiled by nvcc for sm_90a against the device
// backend of tiles/ (the same source the CPU check compiles against the host backend), linked with
// the device harness (app/lab/gpu_harness.cu) and run in a child process with the lab's time limit:
// on the spec's checked shapes against the same reference and tolerance, then timed (cudaEvent,
// median of a few runs) on the shape the simulator times, so the two times stand side by side.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "viz/lesson/lab_check.hpp"

namespace ts::lab {

struct GpuCheck {
  bool ran = false;         // compiled and run on a GPU: the fields below hold its result
  std::string unavailable;  // else one line: why it did not run here (no GPU, no nvcc, a build without CUDA)
  Status status = Status::error;
  std::string message;  // what went wrong, in a few lines
  std::string device;   // the GPU's name
  CompileResult compile;
  ChildResult child;
  nlohmann::json checks = nlohmann::json::array();  // per shape, as the CPU check's (plus kernel_ms)
  nlohmann::json timed;                              // params, ms (per run), median_ms, launches
  double seconds = 0;
};

// "" when this machine can run a lab on a GPU: the build has nvcc (lab_build.json's "gpu") and the
// machine a /dev/nvidia0; else the reason in one line. (A driver that finds no usable device is
// the child's to say.)
std::string gpu_unavailable(const BuildConfig& cfg);

// Compiles and runs `file` on the GPU. Throws only where the check cannot start (no build
// configuration); everything the kernel or the compiler does is in the result.
GpuCheck check_gpu(const LabSpec& lab, const std::filesystem::path& file, const CheckOptions& opt = {});

// Lines prefixed "gpu", for after the CPU check's text; `cpu` (when it ran) gives the simulated time
// beside the measured one, else the lab's target (the solution's simulated time plus 5 %) is shown.
std::string format_gpu_text(const GpuCheck& g, const LabSpec& lab, const CheckResult* cpu);
nlohmann::json gpu_json(const GpuCheck& g);

// The clock the check's simulation runs at (the H100 model's, data/machines/h100-sxm.json), to turn
// a lab's target cycles into microseconds where nothing was simulated.
double simulated_clock_mhz();

}  // namespace ts::lab
