// The scenes a lesson can show: their names, default states and the spellings of their choices
// (the knobs themselves are scene_knobs.cpp).
#include "viz/lesson/scenes.hpp"

#include <stdexcept>

namespace ts::viz {

const std::vector<SceneInfo>& scenes() {
  static const std::vector<SceneInfo> all = {
      {SceneKind::roofline, "roofline", "Memory hierarchy and roofline",
       {"machine", "gemm", "attn_rows", "kv_rows", "head_dim"},
       {"registers", "smem", "l2", "hbm", "roofline", "ridge", "gemm", "attention"}},
      {SceneKind::banks, "banks", "Banks and swizzles",
       {"dtype", "rows", "cols", "swizzle", "pad", "access", "r", "c", "phase"},
       {"tile", "lanes", "banks", "totals"}},
      {SceneKind::fragments, "fragments", "Register tiles and fragments",
       {"view", "swap", "n", "lane", "row", "col"},
       {"tile", "lane", "registers", "element", "subtiles", "warps"}},
      {SceneKind::pipeline, "pipeline", "Pipeline timeline",
       {"m", "n", "k", "in", "stages", "block_n", "cluster", "sm", "from", "to"},
       {"producer", "consumers", "tensor", "idle", "epilogue", "stages", "measured"}},
      {SceneKind::grid, "grid", "Grid and L2",
       {"m", "n", "k", "in", "stages", "block_n", "order", "group", "persistent", "cluster", "split_k", "tail_split", "wave", "colour"},
       {"tiles", "sms", "wave", "working-set", "simulated", "measured", "clusters", "multicast", "ranges"}},
      {SceneKind::accuracy, "accuracy", "Simulated against measured",
       {"sweep", "metric", "big", "stages"},
       {"points", "diagonal", "errors", "table"}},
      {SceneKind::barriers, "barriers", "TMA and mbarriers",
       {"m", "n", "k", "stages", "slot", "first", "iters"},
       {"producer", "bytes", "phase", "consumers", "empty"}},
      {SceneKind::registers, "registers", "Registers and occupancy",
       {"split", "producer", "consumer", "m", "n", "k", "stages", "block_n"},
       {"file", "accumulator", "limits", "occupancy"}},
      {SceneKind::source, "source", "Kernel source", {"context"}, {"code"}},
      {SceneKind::softmax, "softmax", "Online softmax", {"block", "row", "seed", "keys"},
       {"scores", "max", "rescale", "sum", "probabilities", "output"}},
      {SceneKind::attn_flow, "attn-flow", "Attention dataflow", {"n", "d", "heads", "causal", "block"},
       {"q", "stages", "registers", "output", "bytes", "roofline"}},
      {SceneKind::overlap, "overlap", "Softmax and tensor cores overlapped",
       {"n", "d", "heads", "causal", "overlap", "consumers", "from", "to"},
       {"consumers", "tensor", "softmax", "waiting", "cost", "measured"}},
      {SceneKind::causal, "causal", "Causal attention and load balance", {"n", "d", "heads", "causal"},
       {"grid", "order", "work", "sms", "tail"}},
      {SceneKind::attn_backward, "attn-backward", "The attention backward pass", {"n", "d", "heads", "causal"},
       {"recompute", "accumulate", "launches", "work", "measured"}},
      {SceneKind::attn_trust, "attn-trust", "Attention: simulated against measured", {"pass", "causal_only"},
       {"points", "diagonal", "errors", "table"}},
  };
  return all;
}

const SceneInfo* find_scene(std::string_view name) {
  for (const auto& s : scenes())
    if (s.name == name) return &s;
  return nullptr;
}

const SceneInfo& scene_info(SceneKind kind) {
  for (const auto& s : scenes())
    if (s.kind == kind) return s;
  throw std::logic_error("unknown scene kind");
}

SceneKind kind_of(const SceneState& state) {
  // The variant's alternatives are in SceneKind order.
  return static_cast<SceneKind>(state.index());
}

SceneState default_state(SceneKind kind) {
  switch (kind) {
    case SceneKind::roofline: return RooflineState{};
    case SceneKind::banks: return BanksState{};
    case SceneKind::fragments: return FragmentsState{};
    case SceneKind::pipeline: return PipelineState{};
    case SceneKind::grid: return GridState{};
    case SceneKind::accuracy: return AccuracyState{};
    case SceneKind::barriers: return BarriersState{};
    case SceneKind::registers: return RegistersState{};
    case SceneKind::source: return SourceState{};
    case SceneKind::softmax: return SoftmaxState{};
    case SceneKind::attn_flow: return AttnFlowState{};
    case SceneKind::overlap: return OverlapState{};
    case SceneKind::causal: return CausalState{};
    case SceneKind::attn_backward: return AttnBackwardState{};
    case SceneKind::attn_trust: return AttnTrustState{};
  }
  throw std::logic_error("unknown scene kind");
}

std::string_view name_of(Dtype d) { return d == Dtype::bf16 ? "bf16" : "fp32"; }
uint32_t elem_bytes(Dtype d) { return d == Dtype::bf16 ? 2 : 4; }

std::string_view name_of(SwizzleKnob s) {
  switch (s) {
    case SwizzleKnob::none: return "none";
    case SwizzleKnob::b32: return "32B";
    case SwizzleKnob::b64: return "64B";
    case SwizzleKnob::b128: return "128B";
    case SwizzleKnob::automatic: return "auto";
  }
  return "?";
}

std::string_view name_of(Access a) {
  switch (a) {
    case Access::ldsm4: return "ldsm4";
    case Access::row128: return "row128";
    case Access::col128: return "col128";
    case Access::col32: return "col32";
  }
  return "?";
}

std::string_view name_of(FragmentView v) {
  switch (v) {
    case FragmentView::a: return "a";
    case FragmentView::b: return "b";
    case FragmentView::acc: return "acc";
    case FragmentView::wide: return "wide";
    case FragmentView::wgmma: return "wgmma";
  }
  return "?";
}

std::string_view name_of(OrderKnob o) {
  switch (o) {
    case OrderKnob::row: return "row";
    case OrderKnob::col: return "col";
    case OrderKnob::grouped: return "grouped";
  }
  return "?";
}

std::string_view name_of(InKnob i) { return i == InKnob::fp8 ? "fp8" : "bf16"; }

std::string_view name_of(TileColour c) { return c == TileColour::wave ? "wave" : "l2"; }

std::string_view name_of(MeasuredSweep s) {
  switch (s) {
    case MeasuredSweep::all: return "all";
    case MeasuredSweep::size: return "size";
    case MeasuredSweep::skinny: return "skinny";
    case MeasuredSweep::stages: return "stages";
    case MeasuredSweep::order: return "order";
    case MeasuredSweep::layout: return "layout";
    case MeasuredSweep::tile: return "tile";
    case MeasuredSweep::holdout: return "holdout";
  }
  return "?";
}

std::string_view name_of(AccuracyMetric m) { return m == AccuracyMetric::tflops ? "tflops" : "hbm"; }
std::string_view name_of(RegisterSplit s) { return s == RegisterSplit::setmaxnreg ? "setmaxnreg" : "even"; }
std::string_view name_of(KeyTrend t) { return t == KeyTrend::random ? "random" : "rising"; }
std::string_view name_of(AttnPassFilter p) { return p == AttnPassFilter::all ? "all" : p == AttnPassFilter::fwd ? "fwd" : "bwd"; }

}  // namespace ts::viz
