#pragma once
// What the attention dataflow, overlap, backward and trust scenes show, computed without drawing:
// sizes and loop counts from kernels/attention's own types and functions, times from the
// simulator (attention_sim.hpp), measured figures from attention_measured.hpp.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/machine.hpp"
#include "viz/lesson/attention_measured.hpp"
#include "viz/lesson/attention_sim.hpp"
#include "viz/lesson/scenes.hpp"

namespace ts::viz {

// The run the knobs describe (batch 1, heads_kv = heads), with the forward's knobs where given.
AttentionRun attention_run(const AttnKnobs& a, bool backward, int consumers = 0, int overlap = -1);

// The overlap scene's runs: the setting shown, and the other one (overlap on / off) where that is a
// kernel too: three consumers at D 128 fit without self-overlap only.
struct OverlapRuns {
  AttentionRun shown;
  std::optional<AttentionRun> other;
};
OverlapRuns overlap_runs(const OverlapState& s);
// Every simulation a step's scene draws from (the overlap, causal and backward scenes; none for the
// others): what `tilescope lessons --sim-timing` times.
std::vector<AttentionRun> scene_attention_runs(const SceneState& state);

// ---- attn-flow: one CTA of the forward -------------------------------------------------------------
struct FlowModel {
  int consumers = 0, stages = 0, block_q = 0, block_kv = 0, dim = 0;
  bool overlap = false;
  int kv_blocks = 0;            // key blocks the CTA shown (the first launched) loads
  uint64_t q_tile_bytes = 0;    // one consumer's Q tile (resident while the CTA works on a tile)
  int tile_stages = 1;          // sets of Q tiles: two where they fit, the next tile's loading into the second
  uint64_t stage_bytes = 0;     // one input stage: a K block and a V block
  uint64_t smem_bytes = 0;      // the pipeline's whole shared memory (stages, Q tiles, barriers, slack)
  uint64_t score_bytes = 0;     // one warpgroup's S tile in registers (fp32), and its P (bf16)
  uint64_t prob_bytes = 0;
  uint64_t out_bytes = 0;       // one warpgroup's O accumulator (fp32)
  double flops_per_block = 0;   // one CTA, one key block: Q K^T and P V of every consumer
  double bytes_per_block = 0;   // ... the K and V it brings into shared memory
  double block_intensity() const { return bytes_per_block > 0 ? flops_per_block / bytes_per_block : 0; }
  double kernel_flops = 0;      // the whole forward (kernels::attention_flops)
  double kernel_hbm_bytes = 0;  // Q, K, V read and O written once each
  double kernel_intensity() const { return kernel_hbm_bytes > 0 ? kernel_flops / kernel_hbm_bytes : 0; }
  double peak_flops = 0, hbm_bytes_per_s = 0, l2_bytes_per_s = 0;  // the machine file
  double hbm_ridge() const { return hbm_bytes_per_s > 0 ? peak_flops / hbm_bytes_per_s : 0; }
  double l2_ridge() const { return l2_bytes_per_s > 0 ? peak_flops / l2_bytes_per_s : 0; }
  std::string error;
};
FlowModel flow_model(const AttnKnobs& a, const sim::MachineSpec& m);

// ---- overlap: one SM's consumer warps over time ---------------------------------------------------
enum class WarpActivity : uint8_t { mma, softmax, wait_mma, wait_data, other };
struct ActivityBar {
  double start = 0, end = 0;
  WarpActivity what{};
};
struct OverlapRow {
  std::string label;  // "consumer 0 (warp 0)"
  uint32_t warp = 0;
  std::vector<ActivityBar> bars;
  double softmax = 0, wait_mma = 0, wait_data = 0;  // cycles
};
// A measured per-warp timeline (the H100's per-warp clock stamps, kernels/stamps/) beside the
// simulated rows, one OverlapRow per measured warpgroup, when data/measured holds one for the
// configuration (measured_timeline.hpp finds it); else the scene says "not measured".
struct MeasuredTrack {
  std::string source;  // the data/measured file it was read from
  std::string title;   // the configuration it recorded ("attention B4 Hq16 Hkv16 N4096 D128 forward")
  std::vector<OverlapRow> rows;  // cycles from its first block's start
  double cycles = 0;   // that block's run, first span to last
};
struct OverlapModel {
  uint32_t sm = 0;                         // the SM drawn
  std::vector<OverlapRow> rows;            // the first warp of each consumer warpgroup of the SM
  std::vector<std::pair<double, double>> tensor_busy;  // the SM's tensor cores, merged
  double first = 0, last = 0, tensor_idle = 0;
  std::optional<MeasuredTrack> measured;   // see MeasuredTrack
};
// The first SM whose every consumer warpgroup computes (with a causal mask, an SM whose first tile is
// a head's first, short block has warpgroups that sit it out: attention_fwd::has_work), or SM 0 if
// none does.
OverlapModel overlap_model(const AttentionSim& sim);
// The same from any spans of the forward (a measured timeline's).
OverlapModel overlap_model(const std::vector<sim::Span>& spans, uint32_t sm);

// ---- attn-backward: where the work goes ----------------------------------------------------------
struct BackwardLaunch {
  std::string name;
  double cycles = 0, mma_flops = 0, stored_bytes = 0, hbm_read_bytes = 0;  // stored: into the L2, every store
  uint32_t blocks = 0;
};
struct BackwardModel {
  std::vector<BackwardLaunch> launches;
  double forward_cycles = 0, backward_cycles = 0;
  double forward_mma_flops = 0;
  // The main kernel's loop, from attention_bwd.cuh's own types and iterations().
  int consumers = 0, block_kv = 0, block_q = 0, ctas = 0;
  uint64_t pairs = 0;            // (key block of a warpgroup, query block) pairs the main kernel computes, all heads
  uint64_t dq_shares = 0;        // (CTA, query block) pairs: one dQ share each, the consumers taking turns
  uint64_t dq_add_bytes = 0;     // fp32 dQ shares added into global memory (TMA reducing stores), all heads
};
// `fwd` and `bwd` may be null while they run.
BackwardModel backward_model(const AttnKnobs& a, const AttentionSim* fwd, const AttentionSim* bwd);
// The main kernel's pairs and dQ bytes alone (the exercise's key).
BackwardModel backward_loop(const AttnKnobs& a);

// ---- attn-trust: measured rows against the simulator ---------------------------------------------
struct TrustModel {
  std::vector<const CompareRow*> rows;
  double mape = 0;  // over the rows shown, from their measured and simulated columns
  std::string header, summary;
};
TrustModel trust_model(const AttnTrustState& s, const AttentionMeasurements& m);

// The forward's shared memory per CTA at a head dimension and configuration, from the kernel's
// pipeline (tiles/sched/pipeline.hpp's pipeline_smem_bytes): the exercise's key and the flow scene's.
uint64_t forward_smem_bytes(int dim, int consumers, bool overlap);
// ... and the sets of Q tiles (the kernel's tile_stages) it holds.
int forward_tile_stages(int dim, int consumers, bool overlap);

}  // namespace ts::viz
