#include <iostream>
#include <memory>

#include "app/verbs.hpp"
#include "sim/banks.hpp"
#include "viz/lesson/banks_model.hpp"
#include "viz/lesson/scenes.hpp"

namespace ts::app {

namespace {

// The scene's knobs from the CLI's spelling: --tile bf16:16x64 --at R,C, the others as the
// lessons write them. The scene's own parser and checks decide, so the CLI refuses what the
// scene refuses, with the same reason.
viz::BanksState scene_state(const std::string& tile, const std::string& swizzle, const std::string& pad,
                            const std::string& access, const std::string& at, const std::string& phase) {
  viz::SceneState state = viz::BanksState{};
  const auto set = [&](const std::string& name, const std::string& value) {
    if (auto reason = viz::set_knob(state, name, value); !reason.empty()) throw UsageError(reason);
  };
  const size_t colon = tile.find(':'), x = tile.find('x', colon == std::string::npos ? 0 : colon);
  if (colon == std::string::npos || x == std::string::npos)
    throw UsageError("--tile '" + tile + "' is not DTYPE:ROWSxCOLS, e.g. bf16:16x64");
  set("dtype", tile.substr(0, colon));
  set("rows", tile.substr(colon + 1, x - colon - 1));
  set("cols", tile.substr(x + 1));
  set("swizzle", swizzle);
  set("pad", pad);
  set("access", access);
  const size_t comma = at.find(',');
  if (comma == std::string::npos) throw UsageError("--at '" + at + "' is not ROW,COL, e.g. 0,8");
  set("r", at.substr(0, comma));
  set("c", at.substr(comma + 1));
  set("phase", phase);
  if (auto reason = viz::validate(state); !reason.empty()) throw UsageError(reason);
  return std::get<viz::BanksState>(state);
}

}  // namespace

VerbRun add_banks_verb(CLI::App& cli) {
  struct Args {
    std::string op, lanes;
    std::string tile, swizzle = "none", pad = "0", access = "ldsm4", at = "0,0", phase = "0";
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  std::string ops;
  for (const auto& o : sim::smem_ops()) ops += (ops.empty() ? "" : " ") + std::string(o.name);
  auto* cmd = cli.add_subcommand(
      "banks",
      "Count shared-memory wavefronts and bank conflicts of one warp access: given by its lane offsets (--op, --lanes), "
      "or as the banks scene poses it (--tile ...), drawn as text");
  cmd->add_option("--op", args->op, "Access: " + ops);
  cmd->add_option("--lanes", args->lanes, "32 comma-separated byte offsets, one per lane");
  cmd->add_option("--tile", args->tile, "The scene's form: the shared tile, DTYPE:ROWSxCOLS (bf16 or fp32), e.g. bf16:16x64");
  cmd->add_option("--swizzle", args->swizzle, "With --tile: none, 32B, 64B, 128B or auto")->capture_default_str();
  cmd->add_option("--pad", args->pad, "With --tile: bytes after each row (no swizzle only)")->capture_default_str();
  cmd->add_option("--access", args->access, "With --tile: ldsm4, row128, col128 or col32")->capture_default_str();
  cmd->add_option("--at", args->at, "With --tile: ROW,COL where the access starts")->capture_default_str();
  cmd->add_option("--phase", args->phase, "With --tile: the phase whose lanes are drawn")->capture_default_str();
  cmd->add_flag("--json", args->json, "Print JSON instead of the table");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    if (!args->tile.empty()) {
      if (!args->op.empty() || !args->lanes.empty()) throw UsageError("give either --tile (the scene's form) or --op and --lanes");
      const viz::BanksState s = scene_state(args->tile, args->swizzle, args->pad, args->access, args->at, args->phase);
      if (args->json) std::cout << sim::format_bank_json(*viz::analyze_banks_scene(s).report) << "\n";
      else std::cout << viz::banks_picture(s);
      return 0;
    }
    if (args->op.empty() || args->lanes.empty()) throw UsageError("give --op and --lanes, or --tile (the scene's form)");
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
