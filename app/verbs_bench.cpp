#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/verbs.hpp"
#if TILESCOPE_HAVE_CUDA
#include "kernels/gemm/gemm_bench.hpp"
#endif

namespace ts::app {

namespace {

// The attention bench compares against cuDNN and FlashAttention-2, which only PyTorch puts in one
// process with ours, so it is python/bench_attention.py. Runs it with `args` (argv, no shell, so
// nothing needs quoting) and returns its exit status.
int run_attention_bench(const std::vector<std::string>& args) {
  const std::string script = std::string(TILESCOPE_SOURCE_DIR) + "/python/bench_attention.py";
  if (!std::filesystem::is_regular_file(script)) throw UsageError("bench attention: " + script + " not found");
  std::vector<std::string> words = {"python3", script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  static const char missing[] = "tilescope: bench attention needs python3 with PyTorch (see python/README.md)\n";

  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    execvp("python3", argv.data());
    [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, missing, sizeof missing - 1);
    _exit(2);
  }
  // Ctrl-C reaches the script too (same process group): let it end its own way, then report its status.
  struct sigaction ignore {}, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  int status = 0;
  pid_t r;
  while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (r < 0) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

}  // namespace

VerbRun add_bench_verb(CLI::App& cli) {
  struct Args {
    std::string kernel, json, only;
    std::vector<std::string> shapes;
    bool quick = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand(
      "bench", "Time a kernel against its reference library on this GPU (gemm: ours vs cuBLAS; attention: ours vs cuDNN and "
               "FlashAttention-2 through PyTorch, python/bench_attention.py)");
  cmd->add_option("kernel", args->kernel, "Kernel to time: gemm or attention")->required();
  cmd->add_flag("--quick", args->quick, "A few rows instead of the full sweep");
  cmd->add_option("--json", args->json,
                  "Write the results here (default data/measured/h100/gemm.json or attention.json for the full sweep)");
  cmd->add_option("--only", args->only,
                  "gemm: one sweep: size, skinny, stages, order, layout, tile, or holdout (configurations off the main "
                  "sweep); attention: one pass, fwd or bwd");
  cmd->add_option("--shape", args->shapes, "attention: time B,H,N,D[,causal][,hkv=K] instead of the sweep (repeatable)")
      ->allow_extra_args(false);
  cmd->allow_extras();  // bench attention hands whatever else it is given to the script
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    if (args->kernel == "attention") {
      if (!args->only.empty() && args->only != "fwd" && args->only != "bwd")
        throw UsageError("unknown pass '" + args->only + "' (expected fwd or bwd)");
      std::vector<std::string> fwd;
      if (args->quick) fwd.push_back("--quick");
      if (!args->only.empty()) fwd.insert(fwd.end(), {"--only", args->only});
      if (!args->json.empty()) fwd.insert(fwd.end(), {"--json", args->json});
      for (const auto& s : args->shapes) fwd.insert(fwd.end(), {"--shape", s});
      for (const auto& extra : cmd->remaining()) fwd.push_back(extra);
      return run_attention_bench(fwd);
    }
    if (args->kernel != "gemm") throw UsageError("unknown kernel '" + args->kernel + "' (expected: gemm or attention)");
    if (!args->shapes.empty()) throw UsageError("--shape is for bench attention (bench gemm times its own sweeps)");
    if (!cmd->remaining().empty()) throw UsageError("unexpected argument '" + cmd->remaining().front() + "'");
    static const std::set<std::string> sweeps = {"size", "skinny", "stages", "order", "layout", "tile", "holdout"};
    if (!args->only.empty() && !sweeps.count(args->only))
      throw UsageError("unknown sweep '" + args->only + "' (expected size, skinny, stages, order, layout, tile or holdout)");
#if TILESCOPE_HAVE_CUDA
    std::string json = args->json;
    if (json.empty() && !args->quick && args->only.empty()) json = std::string(TILESCOPE_SOURCE_DIR) + "/data/measured/h100/gemm.json";
    return kernels::run_gemm_bench(args->quick, json, args->only);
#else
    throw UsageError("this build has no CUDA kernels (nvcc was not found at configure time)");
#endif
  };
}

}  // namespace ts::app
