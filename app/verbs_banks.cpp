#include <iostream>
#include <memory>

#include "app/verbs.hpp"
#include "sim/banks.hpp"

namespace ts::app {

VerbRun add_banks_verb(CLI::App& cli) {
  struct Args {
    std::string op, lanes;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  std::string ops;
  for (const auto& o : sim::smem_ops()) ops += (ops.empty() ? "" : " ") + std::string(o.name);
  auto* cmd = cli.add_subcommand("banks", "Count shared-memory wavefronts and bank conflicts of one warp access");
  cmd->add_option("--op", args->op, "Access: " + ops)->required();
  cmd->add_option("--lanes", args->lanes, "32 comma-separated byte offsets, one per lane")->required();
  cmd->add_flag("--json", args->json, "Print JSON instead of the table");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    const auto op = sim::find_smem_op(args->op);
    if (!op) throw UsageError("unknown op '" + args->op + "' (expected one of ld32 ld64 ld128 st32 st64 st128 ldsm1 ldsm2 ldsm4 ldsm4t stsm4)");
    std::array<uint32_t, sim::kWarpSize> offsets;
    try {
      offsets = sim::parse_lane_offsets(args->lanes);
      const auto report = sim::analyze_banks(*op, offsets);
      std::cout << (args->json ? sim::format_bank_json(report) + "\n" : sim::format_bank_table(report));
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    return 0;
  };
}

}  // namespace ts::app
