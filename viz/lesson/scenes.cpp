#include "viz/lesson/scenes.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "sim/machine.hpp"
#include "viz/lesson/banks_model.hpp"

namespace ts::viz {

const std::vector<SceneInfo>& scenes() {
  static const std::vector<SceneInfo> all = {
      {SceneKind::roofline, "roofline", "Memory hierarchy and roofline",
       {"machine", "gemm", "attn_rows", "kv_rows", "head_dim"},
       {"registers", "smem", "l2", "hbm", "roofline", "ridge", "gemm", "attention"}},
      {SceneKind::banks, "banks", "Banks and swizzles",
       {"dtype", "rows", "cols", "swizzle", "pad", "access", "r", "c", "phase"},
       {"tile", "lanes", "banks", "totals"}},
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
  return std::holds_alternative<RooflineState>(state) ? SceneKind::roofline : SceneKind::banks;
}

SceneState default_state(SceneKind kind) {
  if (kind == SceneKind::roofline) return RooflineState{};
  return BanksState{};
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

std::string set_knob(SceneState& state, std::string_view name, std::string_view value) {
  if (auto* roof = std::get_if<RooflineState>(&state)) return set_roofline_knob(*roof, name, value);
  return set_banks_knob(std::get<BanksState>(state), name, value);
}

std::string validate(const SceneState& state) {
  if (std::holds_alternative<RooflineState>(state)) return "";  // every value set_knob accepts works
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
  const auto& s = std::get<BanksState>(state);
  return {{"dtype", std::string(name_of(s.dtype))},
          {"rows", std::to_string(s.rows)},
          {"cols", std::to_string(s.cols)},
          {"swizzle", std::string(name_of(s.swizzle))},
          {"pad", std::to_string(s.pad)},
          {"access", std::string(name_of(s.access))},
          {"r", std::to_string(s.r)},
          {"c", std::to_string(s.c)},
          {"phase", std::to_string(s.phase)}};
}

}  // namespace ts::viz
