#include <iostream>
#include <memory>
#include <set>
#include <string>

#include "app/verbs.hpp"
#if TILESCOPE_HAVE_CUDA
#include "kernels/gemm/gemm_bench.hpp"
#endif

namespace ts::app {

VerbRun add_bench_verb(CLI::App& cli) {
  struct Args {
    std::string kernel, json, only;
    bool quick = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand("bench", "Time a kernel against its reference library on this GPU (ours vs cuBLAS)");
  cmd->add_option("kernel", args->kernel, "Kernel to time: gemm")->required();
  cmd->add_flag("--quick", args->quick, "A few rows instead of the full sweep");
  cmd->add_option("--json", args->json, "Write the results here (default data/measured/h100/gemm.json for the full sweep)");
  cmd->add_option("--only", args->only, "One sweep: size, skinny, stages, order, layout, tile, or holdout (configurations off the main sweep)");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    if (args->kernel != "gemm") throw UsageError("unknown kernel '" + args->kernel + "' (expected: gemm)");
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
