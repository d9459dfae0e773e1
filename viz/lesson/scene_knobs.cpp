// The scenes' knobs: each one's spelling in a lesson file, its range, how the app offers it, and
// the checks across knobs (scenes.hpp: set_knob, validate, knob_values, knob_specs).
#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "kernels/gemm/gemm_api.hpp"
#include "sim/machine.hpp"
#include "viz/lesson/banks_model.hpp"
#include "viz/lesson/scenes.hpp"

namespace ts::viz {

namespace {

std::string quoted(std::string_view name, std::string_view value) {
  return "knob '" + std::string(name) + "' value '" + std::string(value) + "'";
}

// Strict unsigned integer in [lo, hi]; "" or the reason.
std::string parse_uint(std::string_view name, std::string_view value, uint32_t lo, uint32_t hi, uint32_t& out) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || v < lo || v > hi)
    return quoted(name, value) + " is not an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  out = static_cast<uint32_t>(v);
  return "";
}

template <class E, size_t N>
std::string parse_choice(std::string_view name, std::string_view value, const E (&choices)[N], E& out) {
  std::string list;
  for (E e : choices) {
    if (name_of(e) == value) {
      out = e;
      return "";
    }
    list += (list.empty() ? "" : " ") + std::string(name_of(e));
  }
  return quoted(name, value) + " is not one of: " + list;
}

std::string unknown_knob(SceneKind kind, std::string_view name) {
  std::string list;
  for (auto k : scene_info(kind).knobs) list += (list.empty() ? "" : " ") + std::string(k);
  return "unknown knob '" + std::string(name) + "' for scene '" + std::string(scene_info(kind).name) +
         "' (knobs: " + list + ")";
}

std::string set_roofline_knob(RooflineState& s, std::string_view name, std::string_view value) {
  if (name == "machine") {
    const auto ids = sim::machine_ids();
    if (std::find(ids.begin(), ids.end(), value) == ids.end()) {
      std::string list;
      for (const auto& id : ids) list += (list.empty() ? "" : " ") + id;
      return quoted(name, value) + " names no machine file (data/machines/: " + list + ")";
    }
    s.machine = std::string(value);
    return "";
  }
  if (name == "gemm") return parse_uint(name, value, 1, kMaxGemm, s.gemm);
  if (name == "attn_rows") return parse_uint(name, value, 1, kMaxAttnRows, s.attn_rows);
  if (name == "kv_rows") return parse_uint(name, value, 1, kMaxKvRows, s.kv_rows);
  if (name == "head_dim") return parse_uint(name, value, 1, kMaxHeadDim, s.head_dim);
  return unknown_knob(SceneKind::roofline, name);
}

std::string set_banks_knob(BanksState& s, std::string_view name, std::string_view value) {
  static constexpr Dtype dtypes[] = {Dtype::bf16, Dtype::fp32};
  static constexpr SwizzleKnob swizzles[] = {SwizzleKnob::none, SwizzleKnob::b32, SwizzleKnob::b64,
                                             SwizzleKnob::b128, SwizzleKnob::automatic};
  static constexpr Access accesses[] = {Access::ldsm4, Access::row128, Access::col128, Access::col32};
  if (name == "dtype") return parse_choice(name, value, dtypes, s.dtype);
  if (name == "swizzle") return parse_choice(name, value, swizzles, s.swizzle);
  if (name == "access") return parse_choice(name, value, accesses, s.access);
  if (name == "rows") return parse_uint(name, value, 1, kMaxTileRows, s.rows);
  if (name == "cols") return parse_uint(name, value, 1, kMaxTileCols, s.cols);
  if (name == "pad") {
    if (auto err = parse_uint(name, value, 0, kMaxPadBytes, s.pad); !err.empty()) return err;
    if (s.pad % 4 != 0) return quoted(name, value) + " is not a multiple of 4 bytes (one bank word)";
    return "";
  }
  if (name == "r") return parse_uint(name, value, 0, kMaxTileRows - 1, s.r);
  if (name == "c") return parse_uint(name, value, 0, kMaxTileCols - 1, s.c);
  if (name == "phase") return parse_uint(name, value, 0, 31, s.phase);
  return unknown_knob(SceneKind::banks, name);
}

}  // namespace

namespace {

// ---- knob specs of the newer scenes -------------------------------------------------------------

KnobSpec number_knob(std::string name, std::string help, uint32_t& value, uint32_t lo, uint32_t hi, uint32_t step = 1) {
  KnobSpec k{std::move(name), std::move(help), {}, lo, hi, step, {}, {}};
  k.set = [&value, lo, hi, step, n = k.name](std::string_view text) {
    uint32_t v = 0;
    if (auto err = parse_uint(n, text, lo, hi, v); !err.empty()) return err;
    if (step > 1 && (v - lo) % step != 0)
      return quoted(n, text) + " is not a multiple of " + std::to_string(step);
    value = v;
    return std::string();
  };
  k.get = [&value] { return std::to_string(value); };
  return k;
}

template <class E, size_t N>
KnobSpec choice_knob(std::string name, std::string help, E& value, const E (&all)[N]) {
  KnobSpec k{std::move(name), std::move(help), {}, 0, 0, 1, {}, {}};
  for (E e : all) k.choices.emplace_back(name_of(e));
  k.set = [&value, &all, n = k.name](std::string_view text) { return parse_choice(n, text, all, value); };
  k.get = [&value] { return std::string(name_of(value)); };
  return k;
}

KnobSpec on_off_knob(std::string name, std::string help, bool& value) {
  KnobSpec k{std::move(name), std::move(help), {"off", "on"}, 0, 0, 1, {}, {}};
  k.set = [&value, n = k.name](std::string_view text) {
    if (text != "on" && text != "off") return quoted(n, text) + " is not one of: off on";
    value = text == "on";
    return std::string();
  };
  k.get = [&value] { return std::string(value ? "on" : "off"); };
  return k;
}

constexpr OrderKnob kOrders[] = {OrderKnob::row, OrderKnob::col, OrderKnob::grouped};
constexpr InKnob kInTypes[] = {InKnob::bf16, InKnob::fp8};

// split_k: "auto" (0, the kernel's choice per shape) or 1..kMaxSplitK K ranges.
KnobSpec split_k_knob(uint32_t& value) {
  KnobSpec k{"split_k", "K ranges, each a block storing an fp32 slice summed by a second launch; auto: the kernel's choice", {}, 0, 0, 1, {}, {}};
  k.choices.emplace_back("auto");
  for (uint32_t i = 1; i <= kMaxSplitK; ++i) k.choices.push_back(std::to_string(i));
  k.set = [&value](std::string_view text) {
    if (text == "auto") {
      value = 0;
      return std::string();
    }
    uint32_t v = 0;
    if (auto err = parse_uint("split_k", text, 1, kMaxSplitK, v); !err.empty()) return err + ", or auto";
    value = v;
    return std::string();
  };
  k.get = [&value] { return value == 0 ? std::string("auto") : std::to_string(value); };
  return k;
}

// tail_split: "off" (1), "auto" (0, the kernel's rule per shape) or 2..kMaxSplitK K ranges.
KnobSpec tail_split_knob(uint32_t& value) {
  KnobSpec k{"tail_split", "the tiles past the last whole wave in K ranges, summed into C after; auto: the kernel's rule", {}, 0, 0, 1, {}, {}};
  k.choices = {"off", "auto"};
  for (uint32_t i = 2; i <= kMaxSplitK; ++i) k.choices.push_back(std::to_string(i));
  k.set = [&value](std::string_view text) {
    if (text == "off" || text == "auto") {
      value = text == "off" ? 1 : 0;
      return std::string();
    }
    uint32_t v = 0;
    if (auto err = parse_uint("tail_split", text, 2, kMaxSplitK, v); !err.empty()) return err + ", off or auto";
    value = v;
    return std::string();
  };
  k.get = [&value] { return value == 1 ? std::string("off") : value == 0 ? std::string("auto") : std::to_string(value); };
  return k;
}

// The GEMM knobs a scene offers, by name, in the scene's own order.
KnobSpec gemm_knob(GemmKnobs& g, std::string_view name) {
  if (name == "m") return number_knob("m", "rows of A and C (multiple of 128, the block's rows)", g.m, 128, kMaxGemmSide, 128);
  if (name == "n") return number_knob("n", "columns of B and C (multiple of block_n)", g.n, 128, kMaxGemmSide, 128);
  if (name == "k") return number_knob("k", "the shared dimension (multiple of 64, one k-iteration)", g.k, 64, kMaxGemmSide, 64);
  if (name == "stages") return number_knob("stages", "input stages in shared memory (pipeline depth)", g.stages, 1, 4);
  if (name == "block_n") return number_knob("block_n", "output tile width: 128 or 256", g.block_n, 128, 256, 128);
  if (name == "order") return choice_knob("order", "block order: which tile the i-th block computes", g.order, kOrders);
  if (name == "group") return number_knob("group", "grouped order: tile rows per group", g.group, 1, 64);
  if (name == "persistent") return on_off_knob("persistent", "one block per SM looping over tiles, or one block per tile", g.persistent);
  if (name == "cluster") return number_knob("cluster", "CTAs per cluster along M, sharing each B slice by TMA multicast: 1 or 2", g.cluster, 1, 2);
  if (name == "split_k") return split_k_knob(g.split_k);
  if (name == "tail_split") return tail_split_knob(g.tail_split);
  if (name == "in") return choice_knob("in", "element type of A and B: bf16, or fp8 e4m3 (128-deep k-slices, B stored N x K, per-tensor scales)", g.in, kInTypes);
  throw std::logic_error("no GEMM knob " + std::string(name));
}

std::vector<KnobSpec> gemm_knobs(GemmKnobs& g, std::initializer_list<std::string_view> names) {
  std::vector<KnobSpec> out;
  for (auto n : names) out.push_back(gemm_knob(g, n));
  return out;
}

std::vector<KnobSpec> specs_of(FragmentsState& s) {
  static constexpr FragmentView views[] = {FragmentView::a, FragmentView::b, FragmentView::acc, FragmentView::wide,
                                           FragmentView::wgmma};
  return {choice_knob("view", "a, b: 16x16 bf16; acc: 16x16 fp32; wide: 16x64 bf16; wgmma: 64 x n fp32", s.view, views),
          on_off_knob("swap", "swap_layout: row layout <-> column layout (a, b, wide)", s.swapped),
          number_knob("n", "width of the wgmma accumulator", s.n, 8, 256, 8),
          number_knob("lane", "whose registers are listed (thread 0-127 for wgmma)", s.lane, 0, 127),
          number_knob("row", "row of the element pointed at", s.row, 0, 63),
          number_knob("col", "column of the element pointed at", s.col, 0, 255)};
}

std::vector<KnobSpec> specs_of(PipelineState& s) {
  auto k = gemm_knobs(s.gemm, {"m", "n", "k", "in", "stages", "block_n", "cluster"});
  k.push_back(number_knob("sm", "the SM whose warps are drawn", s.sm, 0, 3));
  k.push_back(number_knob("from", "start of the shown part, % of the run", s.from, 0, 99));
  k.push_back(number_knob("to", "end of the shown part, % of the run", s.to, 1, 100));
  k.push_back(on_off_knob("measured", "also the H100's measured timeline of block 0 (data/measured/h100/timelines)", s.measured));
  return k;
}

std::vector<KnobSpec> specs_of(GridState& s) {
  static constexpr TileColour colours[] = {TileColour::wave, TileColour::l2};
  auto k = gemm_knobs(s.gemm, {"m", "n", "k", "in", "stages", "block_n", "order", "group", "persistent", "cluster", "split_k", "tail_split"});
  k.push_back(number_knob("wave", "the wave whose A and B blocks are marked", s.wave, 0, 4095));
  k.push_back(choice_knob("colour", "tiles coloured by wave, or by the share of their loads' bytes the L2 served", s.colour, colours));
  return k;
}

std::vector<KnobSpec> specs_of(AccuracyState& s) {
  static constexpr MeasuredSweep sweeps[] = {MeasuredSweep::all,   MeasuredSweep::size,   MeasuredSweep::skinny,
                                             MeasuredSweep::stages, MeasuredSweep::order, MeasuredSweep::layout,
                                             MeasuredSweep::tile,  MeasuredSweep::holdout};
  static constexpr AccuracyMetric metrics[] = {AccuracyMetric::tflops, AccuracyMetric::hbm};
  return {choice_knob("sweep", "which measured sweep is shown", s.sweep, sweeps),
          choice_knob("metric", "TFLOPS (gemm.json) or HBM bytes read (gemm_dram.json)", s.metric, metrics),
          on_off_knob("big", "also simulate the 16384^3 rows (seconds each)", s.big),
          number_knob("stages", "only rows with this many stages (0: any)", s.stages, 0, 4)};
}

std::vector<KnobSpec> specs_of(BarriersState& s) {
  auto k = gemm_knobs(s.gemm, {"m", "n", "k", "stages"});
  k.push_back(number_knob("slot", "which stage of the ring is followed", s.slot, 0, 3));
  k.push_back(number_knob("first", "first k-iteration shown (SM 0's first tile)", s.first, 0, 255));
  k.push_back(number_knob("iters", "how many k-iterations are shown", s.iters, 1, 64));
  return k;
}

std::vector<KnobSpec> specs_of(RegistersState& s) {
  static constexpr RegisterSplit splits[] = {RegisterSplit::setmaxnreg, RegisterSplit::even};
  std::vector<KnobSpec> k = {
      choice_knob("split", "setmaxnreg: producer and consumers differ; even: every thread the same", s.split, splits),
      number_knob("producer", "setmaxnreg of the producer warpgroup (24-256, multiple of 8)", s.producer, 24, 256, 8),
      number_knob("consumer", "setmaxnreg of each consumer warpgroup (24-256, multiple of 8)", s.consumer, 24, 256, 8)};
  for (auto& g : gemm_knobs(s.gemm, {"m", "n", "k", "stages", "block_n"})) k.push_back(std::move(g));
  return k;
}

std::vector<KnobSpec> specs_of(SourceState& s) {
  return {number_knob("context", "lines shown above the highlighted line", s.context, 0, 60)};
}

// ---- the attention scenes' knobs --------------------------------------------------------------------

std::vector<KnobSpec> attn_knobs(AttnKnobs& a) {
  return {number_knob("n", "sequence length (tails past a block are masked)", a.n, 64, kMaxAttnSeq, 64),
          number_knob("d", "head dimension: 64 or 128", a.d, 64, 128, 64),
          number_knob("heads", "query heads (each its own key/value head), batch 1", a.heads, 1, kMaxAttnHeads),
          on_off_knob("causal", "causal mask: keys after a query are skipped or masked", a.causal)};
}

std::vector<KnobSpec> specs_of(SoftmaxState& s) {
  static constexpr KeyTrend trends[] = {KeyTrend::random, KeyTrend::rising};
  return {number_knob("block", "key blocks folded so far (0-8)", s.block, 0, 8),
          number_knob("row", "the query row whose probabilities are drawn", s.row, 0, 3),
          number_knob("seed", "which random Q, K and V", s.seed, 1, 999),
          choice_knob("keys", "random, or each block's keys larger than the last (new maxima)", s.keys, trends)};
}

std::vector<KnobSpec> specs_of(AttnFlowState& s) {
  auto k = attn_knobs(s.attn);
  k.push_back(number_knob("block", "the key block the CTA is at", s.block, 0, kMaxAttnSeq / 128 - 1));
  return k;
}

std::vector<KnobSpec> specs_of(OverlapState& s) {
  auto k = attn_knobs(s.attn);
  k.push_back(on_off_knob("overlap", "each warpgroup overlaps its softmax with its previous P V", s.overlap));
  k.push_back(number_knob("consumers", "consumer warpgroups of 64 query rows (2 or 3)", s.consumers, 2, 3));
  k.push_back(number_knob("from", "start of the shown part, % of the run", s.from, 0, 99));
  k.push_back(number_knob("to", "end of the shown part, % of the run", s.to, 1, 100));
  return k;
}

std::vector<KnobSpec> specs_of(CausalState& s) { return attn_knobs(s.attn); }
std::vector<KnobSpec> specs_of(AttnBackwardState& s) { return attn_knobs(s.attn); }

std::vector<KnobSpec> specs_of(AttnTrustState& s) {
  static constexpr AttnPassFilter passes[] = {AttnPassFilter::all, AttnPassFilter::fwd, AttnPassFilter::bwd};
  return {choice_knob("pass", "forward rows, backward rows, or both", s.pass, passes),
          on_off_knob("causal_only", "only the causal rows", s.causal_only)};
}

std::string validate_attn(const AttnKnobs& a) {
  if (a.d != 64 && a.d != 128) return "d must be 64 or 128, not " + std::to_string(a.d);
  return "";
}

std::string set_by_spec(SceneState& state, std::string_view name, std::string_view value) {
  for (auto& k : knob_specs(state))
    if (k.name == name) return k.set(value);
  return unknown_knob(kind_of(state), name);
}

std::string validate_gemm(const GemmKnobs& g) {
  if (g.block_n != 128 && g.block_n != 256) return "block_n must be 128 or 256, not " + std::to_string(g.block_n);
  if (g.n % g.block_n != 0)
    return "n=" + std::to_string(g.n) + " is not a multiple of block_n=" + std::to_string(g.block_n) +
           " (the simulator times whole tiles)";
  if (g.cluster == 2 && g.stages < 2)
    return "cluster=2 needs stages=2 or more (the kernel's clusters run 2 to 4 stages: one stage has no load to share ahead of the MMAs)";
  if (g.in == InKnob::fp8) {
    // The kernel's own refusal (kernels::validate), for the configuration the scenes would run.
    kernels::GemmConfig cfg;
    cfg.in = kernels::InType::fp8;
    cfg.b_row_major = false;
    cfg.block_n = static_cast<int>(g.block_n);
    cfg.stages = static_cast<int>(g.stages);
    cfg.cluster = static_cast<int>(g.cluster);
    if (const std::string why = kernels::validate({g.m, g.n, g.k}, cfg); !why.empty()) return "in=fp8: " + why;
    if (g.k % 128 != 0)
      return "in=fp8 needs k a multiple of 128, not " + std::to_string(g.k) +
             " (an fp8 k-slice is 128 deep: the simulator times whole slices)";
  }
  return "";
}

std::string validate_fragments(const FragmentsState& s) {
  const bool wgmma = s.view == FragmentView::wgmma;
  const uint32_t rows = wgmma ? 64 : 16;
  const uint32_t cols = wgmma ? s.n : s.view == FragmentView::wide ? 64 : 16;
  if (!wgmma && s.lane > 31) return "lane " + std::to_string(s.lane) + " does not exist: a warp has lanes 0-31";
  if (s.row >= rows || s.col >= cols)
    return "element (" + std::to_string(s.row) + ", " + std::to_string(s.col) + ") is outside the " +
           std::to_string(rows) + "x" + std::to_string(cols) + " tile";
  if (s.swapped && (s.view == FragmentView::acc || wgmma))
    return "swap_layout applies to bf16 tiles (view a, b or wide); accumulators have one layout";
  return "";
}

std::string validate_registers(const RegistersState& s) {
  if (auto e = validate_gemm(s.gemm); !e.empty()) return e;
  return "";
}

}  // namespace

std::vector<KnobSpec> knob_specs(SceneState& state) {
  return std::visit(
      [](auto& s) -> std::vector<KnobSpec> {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, RooflineState> || std::is_same_v<S, BanksState>) return {};
        else return specs_of(s);
      },
      state);
}

std::string set_knob(SceneState& state, std::string_view name, std::string_view value) {
  if (auto* roof = std::get_if<RooflineState>(&state)) return set_roofline_knob(*roof, name, value);
  if (auto* banks = std::get_if<BanksState>(&state)) return set_banks_knob(*banks, name, value);
  return set_by_spec(state, name, value);
}

std::string validate(const SceneState& state) {
  switch (kind_of(state)) {
    case SceneKind::roofline: return "";  // every value set_knob accepts works
    case SceneKind::fragments: return validate_fragments(std::get<FragmentsState>(state));
    case SceneKind::pipeline: return validate_gemm(std::get<PipelineState>(state).gemm);
    case SceneKind::grid: return validate_gemm(std::get<GridState>(state).gemm);
    case SceneKind::barriers: {
      const auto& b = std::get<BarriersState>(state);
      if (b.slot >= b.gemm.stages)
        return "slot " + std::to_string(b.slot) + " does not exist with " + std::to_string(b.gemm.stages) +
               " stage(s): slots 0 to " + std::to_string(b.gemm.stages - 1);
      if (b.first >= b.gemm.k / 64)
        return "first=" + std::to_string(b.first) + " is past the last k-iteration (" + std::to_string(b.gemm.k / 64 - 1) + ")";
      return validate_gemm(b.gemm);
    }
    case SceneKind::registers: return validate_registers(std::get<RegistersState>(state));
    case SceneKind::accuracy:
    case SceneKind::source:
    case SceneKind::softmax:
    case SceneKind::attn_trust: return "";
    case SceneKind::attn_flow: {
      const auto& f = std::get<AttnFlowState>(state);
      if (auto e = validate_attn(f.attn); !e.empty()) return e;
      if (f.block >= (f.attn.n + 127) / 128)
        return "block=" + std::to_string(f.block) + " is past the last key block (" + std::to_string((f.attn.n + 127) / 128 - 1) + ")";
      return "";
    }
    case SceneKind::overlap: {
      const auto& o = std::get<OverlapState>(state);
      if (auto e = validate_attn(o.attn); !e.empty()) return e;
      if (o.overlap && o.consumers == 3 && o.attn.d == 128)
        return "overlap at d=128 needs consumers=2: three stages do not fit in shared memory beside three Q tiles";
      if (o.from >= o.to) return "from=" + std::to_string(o.from) + " must be below to=" + std::to_string(o.to);
      return "";
    }
    case SceneKind::causal: return validate_attn(std::get<CausalState>(state).attn);
    case SceneKind::attn_backward: return validate_attn(std::get<AttnBackwardState>(state).attn);
    case SceneKind::banks: break;
  }
  const auto& s = std::get<BanksState>(state);
  const BanksAnalysis a = analyze_banks_scene(s);
  if (!a.error.empty()) return a.error;
  // The report's phases, not the op's: a 64/128-bit load whose lanes pair up runs in fewer.
  const uint32_t phases = a.report->phases();
  if (s.phase >= phases)
    return "phase " + std::to_string(s.phase) + " does not exist: " + std::string(name_of(s.access)) + " has " +
           std::to_string(phases) + " phase(s) here, 0 to " + std::to_string(phases - 1);
  return "";
}

std::vector<std::pair<std::string, std::string>> knob_values(const SceneState& state) {
  if (const auto* s = std::get_if<RooflineState>(&state))
    return {{"machine", s->machine},
            {"gemm", std::to_string(s->gemm)},
            {"attn_rows", std::to_string(s->attn_rows)},
            {"kv_rows", std::to_string(s->kv_rows)},
            {"head_dim", std::to_string(s->head_dim)}};
  if (const auto* s = std::get_if<BanksState>(&state))
    return {{"dtype", std::string(name_of(s->dtype))},
            {"rows", std::to_string(s->rows)},
            {"cols", std::to_string(s->cols)},
            {"swizzle", std::string(name_of(s->swizzle))},
            {"pad", std::to_string(s->pad)},
            {"access", std::string(name_of(s->access))},
            {"r", std::to_string(s->r)},
            {"c", std::to_string(s->c)},
            {"phase", std::to_string(s->phase)}};
  SceneState copy = state;  // the specs bind to a state they may change; read through a copy
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& k : knob_specs(copy)) out.emplace_back(k.name, k.get());
  return out;
}

}  // namespace ts::viz
