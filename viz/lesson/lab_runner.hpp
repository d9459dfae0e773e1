#pragma once
// Building a lab kernel file and running it in a child process: the compiler and flags come from
// the build (CMake writes lab_build.json beside the binary's build: compiler, flags, include
// folders, the harness library and Boost.Context), never from paths written into the source.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ts::lab {

// `lab check --gpu`: nvcc, its flags and include folders, the device harness library.
struct GpuBuildConfig {
  std::string nvcc;
  std::vector<std::string> flags, includes, link;
};

struct BuildConfig {
  bool host = true;  // the host backend was built (Boost.Context): the CPU check can run
  std::string cxx;
  std::vector<std::string> flags, includes, defines, link;  // link: harness library, then libraries
  uint64_t memory_limit_mb = 0;                               // the check's address-space limit (0: none)
  std::filesystem::path file;                                 // where this was read from
  std::optional<GpuBuildConfig> gpu;                          // where the build had CUDA
};

// $TILESCOPE_LAB_BUILD, else the lab_build.json of the build this binary came from. Throws
// std::runtime_error naming the file when it is missing or broken.
BuildConfig load_build_config();

struct CompileResult {
  bool ok = false;
  bool cached = false;  // the binary of an unchanged file was reused
  double seconds = 0;
  std::string diagnostics;  // the compiler's own messages, paths as the student wrote them
};
// Compiles `source` with the harness main into `binary`.
CompileResult compile_lab(const BuildConfig& cfg, const std::filesystem::path& source, const std::filesystem::path& binary);

struct ChildResult {
  int exit_code = -1;     // when it exited
  int signal = 0;         // when a signal ended it
  bool timed_out = false;  // killed at the time limit
  double seconds = 0;
  std::string output;      // its stderr and stdout (the last 8 KB)
  std::string last_stage;  // the last "lab-stage: ..." line it printed
};
// Runs argv in a child process with its own process group, a time limit (then SIGKILL to the
// group) and, when memory_limit_mb > 0, an address-space limit; never throws for what the child does.
ChildResult run_child(const std::vector<std::string>& argv, double time_limit_s, const std::filesystem::path& log,
                      uint64_t memory_limit_mb = 0);

// The per-user folder where checks build: $XDG_CACHE_HOME/tilescope/labs, else ~/.cache/...
std::filesystem::path cache_dir();

std::string signal_name(int sig);

// A file's bytes ("" when it cannot be read).
std::string read_all(const std::filesystem::path& p);

}  // namespace ts::lab
