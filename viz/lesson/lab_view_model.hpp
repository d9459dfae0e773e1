#pragma once
// What the GUI's Labs section draws from a check's result, computed without drawing: the per-warp
// timeline (the pipeline scene's model over the lab kernel's spans) and the kernel's shared-memory
// accesses, grouped by tile and walk, with their wavefronts and conflicts from the bank model and,
// for the worst one, the banks scene's state that poses the same access.
#include <optional>
#include <string>
#include <vector>

#include "viz/lesson/lab_check.hpp"
#include "viz/lesson/pipeline_model.hpp"
#include "viz/lesson/scenes.hpp"

namespace ts::viz {

// One row per warp of SM 0 (the block the simulator put there first), labelled "warp N".
PipelineModel lab_timeline(const lab::SimSummary& s);

struct LabSmemAccess {
  bool store = false;
  layout::SmemLayout tile{};
  sim::SmemWalk walk{};
  uint64_t ops = 0, instructions = 0, wavefronts = 0, conflicts = 0;
  std::string text;  // "ldmatrix.x4 loads of a bf16 64 x 64 tile, no swizzle"
};

// Every register <-> shared access of block 0 of the first launch, grouped; most conflicts first.
std::vector<LabSmemAccess> lab_smem_accesses(const std::vector<lab::RecordedLaunch>& trace);

// The banks scene's state for an ldmatrix/stmatrix access of a 16-bit tile (its first subtile);
// nothing for walks the scene does not pose.
std::optional<BanksState> lab_banks_state(const LabSmemAccess& a);

}  // namespace ts::viz
