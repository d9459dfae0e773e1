#pragma once
// The scenes a lesson can show, their knobs and the things a step may highlight. Plain data and
// parsing only: no GLFW, ImGui or md4c here, so lessons load (and are checked) in any build.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ts::viz {

enum class SceneKind { roofline, banks };

// ---- roofline: the memory hierarchy and the roofline -------------------------------------------
struct RooflineState {
  std::string machine = "h100-sxm";  // data/machines/<machine>.json
  uint32_t gemm = 4096;              // M = N = K of a bf16 GEMM
  uint32_t attn_rows = 16;           // query rows that reuse each K tile loaded from HBM
  uint32_t kv_rows = 16;             // rows of that K tile
  uint32_t head_dim = 64;            // columns of Q and K
};
inline constexpr uint32_t kMaxGemm = 65536, kMaxAttnRows = 4096, kMaxKvRows = 4096, kMaxHeadDim = 512;

// ---- banks: swizzled layouts and bank conflicts -------------------------------------------------
enum class Dtype { bf16, fp32 };
enum class SwizzleKnob { none, b32, b64, b128, automatic };
// ldsm4: ldmatrix.x4 of the 16x16 subtile at (r, c); row128: the warp reads 512 consecutive
// bytes of the tile, row after row, 16 per lane, from (r, c); col128: lane i reads 16 bytes of
// row r+i at column c; col32: lane i reads 4 bytes of row r+i at column c. Column reads wrap
// around to row 0 when the tile has fewer than r+32 rows.
enum class Access { ldsm4, row128, col128, col32 };

struct BanksState {
  Dtype dtype = Dtype::bf16;
  uint32_t rows = 16;
  uint32_t cols = 64;
  SwizzleKnob swizzle = SwizzleKnob::none;
  uint32_t pad = 0;  // bytes after each row; only with swizzle=none
  Access access = Access::ldsm4;
  uint32_t r = 0, c = 0;
  uint32_t phase = 0;
};
inline constexpr uint32_t kMaxTileRows = 256, kMaxTileCols = 256, kMaxPadBytes = 256;

using SceneState = std::variant<RooflineState, BanksState>;

struct SceneInfo {
  SceneKind kind;
  std::string_view name;  // as written after "scene:" in a lesson
  std::string_view title;
  std::vector<std::string_view> knobs;
  std::vector<std::string_view> highlights;  // names a step may list after "highlight:"
};
const std::vector<SceneInfo>& scenes();
const SceneInfo* find_scene(std::string_view name);
const SceneInfo& scene_info(SceneKind kind);
SceneKind kind_of(const SceneState& state);
SceneState default_state(SceneKind kind);

// Sets one knob from its lesson spelling. Returns "" or the reason the value was refused.
std::string set_knob(SceneState& state, std::string_view name, std::string_view value);
// Checks the knobs together (e.g. the subtile must fit the tile). Returns "" or the reason.
std::string validate(const SceneState& state);
// Every knob as name=value, in the spelling set_knob reads back.
std::vector<std::pair<std::string, std::string>> knob_values(const SceneState& state);

std::string_view name_of(Dtype d);
std::string_view name_of(SwizzleKnob s);
std::string_view name_of(Access a);
uint32_t elem_bytes(Dtype d);

}  // namespace ts::viz
