#pragma once
// The scenes a lesson can show, their knobs and the things a step may highlight. Plain data and
// parsing only: no GLFW, ImGui or md4c here, so lessons load (and are checked) in any build.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ts::viz {

enum class SceneKind { roofline, banks, fragments, pipeline, grid, accuracy, barriers, registers, source,
                       softmax, attn_flow, overlap, causal, attn_backward, attn_trust };

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

// ---- fragments: register tiles and who owns each element ---------------------------------------
// a: a 16x16 bf16 tile in row layout (the mma A fragment); b: the same in column layout (the mma B
// fragment); acc: a 16x16 fp32 accumulator; wide: a 16x64 bf16 row-layout tile (four 16x16
// subtiles); wgmma: the 64 x n fp32 accumulator of one warpgroup's wgmma.
enum class FragmentView { a, b, acc, wide, wgmma };
struct FragmentsState {
  FragmentView view = FragmentView::a;
  bool swapped = false;  // swap_layout: the same elements read in the other layout (a, b, wide)
  uint32_t n = 64;       // wgmma accumulator width
  uint32_t lane = 0;     // whose registers are listed (a thread 0..127 of the warpgroup for wgmma)
  uint32_t row = 0, col = 0;  // the element that is pointed at
};

// ---- the GEMM of kernels/gemm/gemm.cuh, as the simulator runs it ----------------------------------
enum class OrderKnob { row, col, grouped };
// The element type of A and B: bf16, or FP8 E4M3 (kernels::InType::fp8: 128-deep slices, B N x K).
enum class InKnob { bf16, fp8 };
struct GemmKnobs {
  uint32_t m = 2048, n = 2048, k = 2048;
  uint32_t stages = 4;
  uint32_t block_n = 256;
  OrderKnob order = OrderKnob::grouped;
  uint32_t group = 8;  // grouped only
  bool persistent = true;
  uint32_t cluster = 1;  // CTAs per cluster along M (1 or 2), sharing each B slice by TMA multicast
  // Split-K: K ranges (1..kMaxSplitK), each a block of its own storing an fp32 slice that a second
  // launch sums; 0 ("auto"): as many as the kernel picks for the shape (kernels::gemm_k_splits).
  uint32_t split_k = 0;
  // The split tail (kernels::gemm_plan): the tiles past the last whole wave in K ranges, after the
  // whole waves over all of K; 1 (off, as the measured sweeps ran), 0 ("auto": the kernel's rule) or 2..16.
  uint32_t tail_split = 1;
  // A and B in bf16, or in fp8 e4m3 (the kernel's fp8 instance: B stored N x K, per-tensor scales,
  // 128x256 tiles and 2..4 stages only, as kernels::validate says).
  InKnob in = InKnob::bf16;
};
inline constexpr uint32_t kMaxGemmSide = 16384, kMaxSplitK = 16;

// ---- pipeline: a Gantt chart of one SM's warps from the simulator ---------------------------------
struct PipelineState {
  GemmKnobs gemm;
  uint32_t sm = 0;             // whose warps are drawn (the simulator records SMs 0..3)
  uint32_t from = 0, to = 100;  // the part of the run shown, in percent of its time
  bool measured = false;       // also the H100's own timeline of the same block, where one is committed
};

// ---- grid: the output tiles over the SMs, by wave, and the L2 ---------------------------------------
enum class TileColour { wave, l2 };
struct GridState {
  GemmKnobs gemm{1024, 16384, 2048};
  uint32_t wave = 0;  // the wave whose A and B blocks are marked
  TileColour colour = TileColour::wave;
};

// ---- accuracy: every measured row against its simulation ----------------------------------------
enum class MeasuredSweep { all, size, skinny, stages, order, layout, tile, holdout };
enum class AccuracyMetric { tflops, hbm };
struct AccuracyState {
  MeasuredSweep sweep = MeasuredSweep::all;
  AccuracyMetric metric = AccuracyMetric::tflops;
  bool big = false;  // also simulate the 16384^3 rows (seconds each)
  uint32_t stages = 0;  // 0: any; else only rows with this many stages
};

// ---- barriers: one producer and its consumers over time (TMA and mbarriers) -------------------------
struct BarriersState {
  GemmKnobs gemm;
  uint32_t slot = 0;   // which stage of the ring (its full and empty barriers) is followed
  uint32_t first = 0;  // the first k-iteration of SM 0's first tile shown
  uint32_t iters = 8;  // how many k-iterations are shown
};

// ---- registers: the register file split, and occupancy against TFLOPS --------------------------------
enum class RegisterSplit { setmaxnreg, even };
struct RegistersState {
  RegisterSplit split = RegisterSplit::setmaxnreg;
  uint32_t producer = 40, consumer = 232;  // setmaxnreg values per thread
  GemmKnobs gemm;
};

// ---- source: the kernel's own source, big ------------------------------------------------------
struct SourceState {
  uint32_t context = 12;  // lines shown above the highlighted line
};

// ---- the attention scenes (viz/lesson/attention_*.hpp compute what they show) ----------------------
// softmax: 4 query rows folded over 8 key blocks with the kernel's register-tile ops.
enum class KeyTrend { random, rising };  // keys drawn at random, or scaled up block after block
struct SoftmaxState {
  uint32_t block = 1;  // key blocks folded so far, 0..8
  uint32_t row = 0;    // the row whose probabilities and output are drawn
  uint32_t seed = 1;   // the draw of Q, K and V
  KeyTrend keys = KeyTrend::random;
};
// The attention of kernels/attention at a size the simulator re-runs quickly: batch 1.
struct AttnKnobs {
  uint32_t n = 1024;    // sequence length
  uint32_t d = 64;      // head dimension: 64 or 128
  uint32_t heads = 4;   // query heads (= key/value heads)
  bool causal = false;
};
inline constexpr uint32_t kMaxAttnSeq = 16384, kMaxAttnHeads = 64;
// attn_flow: one CTA's Q tile, the K/V blocks streaming through its stages, S and P in registers, O.
struct AttnFlowState {
  AttnKnobs attn;
  uint32_t block = 0;  // the key block the picture is at
};
// overlap: one SM's consumer warpgroups over time, with the kernel's self-overlap on or off.
struct OverlapState {
  AttnKnobs attn;
  bool overlap = true;
  uint32_t consumers = 3;
  uint32_t from = 0, to = 100;  // the part of the run shown, in percent of its time
};
// causal: the (query block, key block) grid, per-CTA work and the SMs' tail.
struct CausalState {
  AttnKnobs attn{1024, 64, 16, true};
};
// attn_backward: the three launches of the backward, what each recomputes and accumulates.
struct AttnBackwardState {
  AttnKnobs attn;
};
// attn_trust: every measured attention row beside the simulator's prediction for it.
enum class AttnPassFilter { all, fwd, bwd };
struct AttnTrustState {
  AttnPassFilter pass = AttnPassFilter::all;
  bool causal_only = false;
};

using SceneState = std::variant<RooflineState, BanksState, FragmentsState, PipelineState, GridState, AccuracyState,
                                BarriersState, RegistersState, SourceState, SoftmaxState, AttnFlowState, OverlapState,
                                CausalState, AttnBackwardState, AttnTrustState>;

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

// What the app needs to offer a knob of the newer scenes without knowing the scene: a number in a
// range (lo..hi in steps of `step`) or one of `choices`. `set` and `get` use the lesson spelling
// and are bound to the state the specs were made for.
struct KnobSpec {
  std::string name;
  std::string help;
  std::vector<std::string> choices;  // empty: a number
  uint32_t lo = 0, hi = 0, step = 1;
  std::function<std::string(std::string_view)> set;
  std::function<std::string()> get;
};
// Empty for roofline and banks, which have their own editors.
std::vector<KnobSpec> knob_specs(SceneState& state);

std::string_view name_of(Dtype d);
std::string_view name_of(SwizzleKnob s);
std::string_view name_of(Access a);
std::string_view name_of(FragmentView v);
std::string_view name_of(OrderKnob o);
std::string_view name_of(InKnob i);
std::string_view name_of(TileColour c);
std::string_view name_of(MeasuredSweep s);
std::string_view name_of(AccuracyMetric m);
std::string_view name_of(RegisterSplit s);
std::string_view name_of(KeyTrend t);
std::string_view name_of(AttnPassFilter p);
uint32_t elem_bytes(Dtype d);

}  // namespace ts::viz
