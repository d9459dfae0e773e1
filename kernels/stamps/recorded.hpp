#pragma once
// Measured per-warp timelines: our kernels run once in the instrumented build (every op stamped,
// tiles/backend/device/stamp.cuh) on fresh random inputs, and timed against the plain build on the
// same inputs, alternately, so the cost of recording is known. Plain C++ interface; the device
// side is recorded_launch.cu. sim/stamps.hpp turns a Recording into timeline spans.
#include <cstdint>
#include <string>

#include "kernels/attention/attention_api.hpp"
#include "kernels/gemm/gemm_api.hpp"
#include "tiles/backend/stamps.hpp"

namespace ts::kernels {

// Which blocks record and how much room each warp gets.
struct RecordOptions {
  // Blocks first, first + stride, ...: `blocks` of them; 0 records every block the budget allows
  // (the stride grows until the recorded blocks fit).
  uint32_t first = 0, stride = 1, blocks = 0;
  uint32_t warp_mask = ~0u;           // bit w: warp w of each recorded block records
  uint32_t capacity = 0;              // records per warp; 0: estimated from the launch (and grown if a run drops some)
  uint64_t budget_bytes = 1ull << 30;  // device memory for records and headers
  int timing_reps = 20;                // timed launches of each build (0: no timing)
};

struct RecordedRun {
  stamp::Recording recording;
  uint32_t grid_blocks = 0;
  double plain_ms = 0, recorded_ms = 0;  // medians, timed alternately on the same inputs
  double sm_clock_mhz = 0;               // median over recorded warps of clock64 cycles per global-timer ns
  std::string title;                     // "gemm 4096x4096x4096 ..." or "attention B1 ... fwd"
};

// Throws std::invalid_argument for a configuration the kernels refuse, std::runtime_error for a
// CUDA failure (no GPU included: its message says so).
RecordedRun record_gemm(const GemmShape& shape, const GemmConfig& cfg, const RecordOptions& opt);
// The forward, or the backward's main launch (its pre-pass and dQ launches run but do not record).
RecordedRun record_attention(const AttentionShape& shape, const AttentionConfig& cfg, bool backward, const RecordOptions& opt);

}  // namespace ts::kernels
