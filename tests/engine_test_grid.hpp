#pragma once
// The engine tests' hand-written grids and op builders (test_engine.cpp, test_engine_memory.cpp).
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "sim/engine.hpp"

namespace ts::sim::engine_test {

// A grid of identical blocks built from per-warp op lists.
class HandGrid final : public GridTrace {
 public:
  HandGrid(std::vector<std::vector<TraceOp>> warps, uint32_t blocks = 1, uint32_t smem = 1024, uint32_t cluster = 1)
      : warps_(std::move(warps)), blocks_(blocks), smem_(smem), cluster_(cluster) {}
  uint32_t blocks() const override { return blocks_; }
  uint32_t threads_per_block() const override { return 32 * static_cast<uint32_t>(warps_.size()); }
  uint32_t cluster_size() const override { return cluster_; }
  BlockTrace block(uint32_t) override {
    BlockTrace b;
    for (const auto& w : warps_) b.warps.push_back(std::make_unique<VectorSource>(w));
    b.shared_bytes = smem_;
    b.registers_per_thread = 128;
    return b;
  }

 private:
  std::vector<std::vector<TraceOp>> warps_;
  uint32_t blocks_, smem_, cluster_;
};

inline EngineParams simple_params() {
  EngineParams p;
  p.clock_mhz = 1000;
  p.sms = 1;
  p.mma_flops_per_cycle = 4096;
  p.mma_latency = 10;
  p.tma_issue_cycles = 0;
  p.tma_bytes_per_cycle_per_sm = 1e12;  // the SM's port out of the way, unless a test sets it
  p.tma_latency_l2 = 200;
  p.tma_latency_hbm = 400;
  p.l2_bytes_per_cycle = 100;
  p.hbm_bytes_per_cycle = 50;
  p.barrier_latency = 0;
  p.block_launch_cycles = 0;
  p.kernel_launch_cycles = 0;
  return p;
}

inline TraceOp op(OpKind k, uint32_t barrier = 0, uint32_t count = 0, uint64_t bytes = 0, uint64_t flops = 0) {
  return make_op(k, barrier, count, bytes, flops);
}

// A register math op with these instruction counts (and chains) per pipe, as trace mode records it.
inline TraceOp math(const PipeCounts& pipes) {
  TraceOp o = op(OpKind::math);
  o.pipes = pipes;  // the op was made with its box zeroed, which leaves the counts' room past it undefined
  return o;
}
// ... with these instruction counts per pipe (no chain).
inline TraceOp math(std::initializer_list<std::pair<Pipe, uint16_t>> counts) {
  PipeCounts c{};
  for (auto [pipe, n] : counts) c[pipe] = n;
  return math(c);
}
inline EngineParams pipe_params() {  // round figures: FMA 1/cycle, latency 4; SFU one per 8 cycles, latency 18
  EngineParams p = simple_params();
  p.pipe_interval = {1, 2, 8, 2, 4};
  p.pipe_latency = {4, 5, 18, 5, 24};
  p.issue_interval = 1;
  p.named_barrier_cycles = 20;
  return p;
}

inline TraceOp load(uint32_t barrier, uint64_t offset, uint32_t rows = 128, uint32_t row_bytes = 128) {
  TraceOp o = op(OpKind::tma_load, barrier, 0, uint64_t{rows} * row_bytes);
  o.box = GlobalBox{.tensor = 0, .rows = rows, .row_bytes = row_bytes, .row_pitch = row_bytes, .offset = offset};  // one run of bytes
  return o;
}

inline TraceOp store(uint64_t offset) {  // a 16 KB box of another tensor
  TraceOp o = op(OpKind::tma_store, 0, 0, 16384);
  o.box = GlobalBox{.tensor = 2, .rows = 128, .row_bytes = 128, .row_pitch = 128, .offset = offset};
  return o;
}

}  // namespace ts::sim::engine_test
