// The Labs section's models: timeline rows and shared-memory accesses of a checked kernel.
#include "viz/lesson/lab_view_model.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "sim/smem_walk.hpp"

namespace ts::viz {

PipelineModel lab_timeline(const lab::SimSummary& s) {
  GemmSim g;
  g.report.spans = s.report.spans;
  g.clock_mhz = s.clock_mhz;
  PipelineModel m = pipeline_model(g, 0);
  for (auto& row : m.rows) row.label = "warp " + std::to_string(row.warp) + (row.producer ? " (TMA)" : "");
  return m;
}

namespace {

std::string walk_text(sim::SmemWalk w, bool store) {
  switch (w) {
    case sim::SmemWalk::matrix_x4: return store ? "stmatrix.x4 stores" : "ldmatrix.x4 loads";
    case sim::SmemWalk::accumulator_pairs: return store ? "accumulator pair stores" : "accumulator pair loads";
    case sim::SmemWalk::row_pairs: return store ? "fp32 row-pair stores" : "fp32 row-pair loads";
    case sim::SmemWalk::column_pairs: return store ? "fp32 column-pair stores" : "fp32 column-pair loads";
    case sim::SmemWalk::vector_by_group: return store ? "vector stores (by group)" : "vector loads (by group)";
    case sim::SmemWalk::vector_by_thread: return store ? "vector stores (by thread)" : "vector loads (by thread)";
  }
  return "accesses";
}

std::string swizzle_text(layout::Swizzle s) {
  switch (s) {
    case layout::Swizzle::none: return "no swizzle";
    case layout::Swizzle::b32: return "32B swizzle";
    case layout::Swizzle::b64: return "64B swizzle";
    case layout::Swizzle::b128: return "128B swizzle";
  }
  return "";
}

}  // namespace

std::vector<LabSmemAccess> lab_smem_accesses(const std::vector<lab::RecordedLaunch>& trace) {
  using Key = std::tuple<bool, uint32_t, uint32_t, uint32_t, int, uint32_t, int>;
  std::map<Key, LabSmemAccess> groups;
  if (!trace.empty() && !trace.front().blocks.empty())
    for (const auto& warp : trace.front().blocks.front())
      for (const auto& op : warp) {
        if (op.kind != sim::OpKind::smem_load && op.kind != sim::OpKind::smem_store) continue;
        const bool store = op.kind == sim::OpKind::smem_store;
        const auto& t = op.smem.tile;
        const Key k{store, t.elem_bytes, t.rows, t.cols, static_cast<int>(t.swizzle), t.pad_bytes, static_cast<int>(op.smem.walk)};
        LabSmemAccess& a = groups[k];
        a.store = store;
        a.tile = t;
        a.walk = op.smem.walk;
        const sim::SmemCost c = sim::smem_access_cost(op.smem, store);
        ++a.ops;
        a.instructions += c.instructions;
        a.wavefronts += c.wavefronts;
        a.conflicts += c.conflicts;
      }
  std::vector<LabSmemAccess> out;
  for (auto& [k, a] : groups) {
    a.text = walk_text(a.walk, a.store) + " of a " + (a.tile.elem_bytes == 4 ? "fp32 " : a.tile.elem_bytes == 2 ? "16-bit " : "") +
             std::to_string(a.tile.rows) + " x " + std::to_string(a.tile.cols) + " tile, " + swizzle_text(a.tile.swizzle);
    out.push_back(a);
  }
  std::stable_sort(out.begin(), out.end(), [](const LabSmemAccess& a, const LabSmemAccess& b) { return a.conflicts > b.conflicts; });
  return out;
}

std::optional<BanksState> lab_banks_state(const LabSmemAccess& a) {
  if (a.walk != sim::SmemWalk::matrix_x4 || a.tile.elem_bytes != 2 || a.tile.pad_bytes != 0) return std::nullopt;
  BanksState s;
  s.dtype = Dtype::bf16;
  s.rows = std::min<uint32_t>(a.tile.rows, kMaxTileRows);
  s.cols = std::min<uint32_t>(a.tile.cols, kMaxTileCols);
  switch (a.tile.swizzle) {
    case layout::Swizzle::none: s.swizzle = SwizzleKnob::none; break;
    case layout::Swizzle::b32: s.swizzle = SwizzleKnob::b32; break;
    case layout::Swizzle::b64: s.swizzle = SwizzleKnob::b64; break;
    case layout::Swizzle::b128: s.swizzle = SwizzleKnob::b128; break;
  }
  s.access = Access::ldsm4;
  if (!validate(SceneState{s}).empty()) return std::nullopt;
  return s;
}

}  // namespace ts::viz
