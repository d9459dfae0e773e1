#pragma once
// What the causal-grid scene shows: the (query block, key block) pairs of one head of
// kernels/attention/attention_fwd.cuh, which of them its blocks (CTAs) loop over, which each
// consumer warpgroup skips or masks, the order the blocks are launched in (the kernel's where()),
// and, from the simulator, when each block ran on which SM: the per-CTA work and the tail.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "viz/lesson/attention_sim.hpp"

namespace ts::viz {

// One consumer warpgroup's share of one key block: skipped (every key in its future: the kernel
// returns before the MMA; or no rows, before 0 or past N: the pipeline calls no compute), masked (on the
// diagonal or the tail's keys: some scores set to -inf), or full.
enum class PairWork : uint8_t { skipped, masked, full };

struct CausalGrid {
  int seq = 0, dim = 64, consumers = 3;
  int block_q = 0, block_kv = 0;  // rows of a CTA (consumers x 64) and keys of a key block (128)
  int q_blocks = 0, kv_blocks = 0;
  bool causal = true;
  // [q_block][kv_block][consumer], for key blocks the CTA loads (kv_block < iterations[q_block]);
  // the others are not loaded at all.
  std::vector<PairWork> work;
  std::vector<int> iterations;    // per q block: the key blocks its CTA loads (the kernel's iterations())
  std::vector<int> launch_order;  // per launch slot t of one head: the q block it computes (the kernel's where())
  uint64_t loaded = 0;            // key blocks loaded over all CTAs of one head
  uint64_t not_loaded = 0;        // ... and the pairs of the full grid that no CTA loads
  uint64_t warpgroup_skipped = 0; // loaded, but a warpgroup's rows all precede the keys (or it has none)
  PairWork at(int q, int kv, int c) const { return work[(size_t(q) * kv_blocks + kv) * consumers + c]; }
  std::string error;
};

// The grid of one head at sequence length `seq` and head dimension `dim` (the kernel's default
// configuration for them).
CausalGrid causal_grid(int seq, int dim, bool causal);

// One SM's row of the simulated timeline: its blocks, and when it finished.
struct SmRow {
  std::vector<BlockSpan> blocks;
  double last = 0;
};

struct CausalTimeline {
  std::vector<SmRow> sms;          // every SM, in SM order
  std::vector<double> block_cycles;  // per block (launch order): end - start
  double makespan = 0;               // the launch's last cycle
  double first_idle = 0;             // the earliest an SM that ran a block ran out of work
  double tail() const { return makespan - first_idle; }
  double busy_fraction = 0;          // SM-cycles in blocks over SMs x makespan
};
CausalTimeline causal_timeline(const AttentionSim& sim, uint32_t sms);

// The run the scene simulates: `heads` heads of one batch, the kernel's default configuration.
AttentionRun causal_run(int seq, int dim, int heads, bool causal);

}  // namespace ts::viz
