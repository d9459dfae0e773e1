#pragma once
// Any pipeline kernel (tiles/sched/pipeline.hpp) in the host backend's trace mode: a grid whose
// blocks are built lazily, in launch order, each running the kernel's own source with tracing on.
// Host code only (g++ with Boost.Context); the kernels' *_trace.cpp use it.
#include <algorithm>
#include <memory>
#include <new>

#include "sim/trace.hpp"
#include "tiles/backend/host/trace.hpp"
#include "tiles/sched/pipeline.hpp"

namespace ts::kernels {

class TracedWarp final : public sim::OpSource {
 public:
  TracedWarp(std::shared_ptr<host::TracedBlock> block, int warp) : block_(std::move(block)), warp_(&block_->warp(warp)) {}
  std::span<const sim::TraceOp> next_batch() override { return host::TracedBlock::next_batch(*warp_); }
  std::array<const void*, 2> refill_hints() const override { return {warp_, warp_->saved_context()}; }

 private:
  std::shared_ptr<host::TracedBlock> block_;  // keeps the warp's fiber
  host::Warp* warp_;
};

template <class K>
class PipelineGrid final : public sim::GridTrace {
 public:
  // Trace mode moves no data: the globals' tensors only need distinct, aligned addresses.
  PipelineGrid(const typename K::globals& g, int grid) : globals_(g), grid_(grid) {
    smem_.reset(static_cast<char*>(::operator new[](bytes, std::align_val_t{1024})));
  }
  uint32_t blocks() const override { return static_cast<uint32_t>(grid_); }
  uint32_t threads_per_block() const override { return threads; }
  uint32_t cluster_size() const override { return sched::kernel_cluster_size<K>(); }
  sim::BlockTrace block(uint32_t index) override {
    char* smem = smem_.get();
    const auto* g = &globals_;
    auto traced = std::make_shared<host::TracedBlock>(static_cast<int>(index), grid_, threads / 32, smem, bytes,
                                                      [g, smem] { sched::run_pipeline<K>(*g, smem); }, host::kTraceBatch, 256 * 1024,
                                                      sched::kernel_cluster_size<K>());
    sim::BlockTrace bt;
    for (int w = 0; w < traced->warps(); ++w) bt.warps.push_back(std::make_unique<TracedWarp>(traced, w));
    bt.shared_bytes = static_cast<uint32_t>(bytes);
    // __launch_bounds__(threads, 1): the compiler may give each thread the register file's share.
    bt.registers_per_thread = std::min(255u, (65536u / threads) & ~7u);
    return bt;
  }

 private:
  static constexpr std::size_t bytes = sched::pipeline_smem_bytes<K>();
  static constexpr uint32_t threads = sched::pipeline_threads<K>();
  struct Free {
    void operator()(char* p) const { ::operator delete[](p, std::align_val_t{1024}); }
  };
  typename K::globals globals_;
  int grid_;
  std::unique_ptr<char[], Free> smem_;
};

// Distinct, 16-byte aligned stand-in addresses for the tensors of a traced launch. With 32-bit
// pointers (WebAssembly) small ones whose tensor_id (tiles/backend/host/trace.hpp) is the same as
// the 64-bit ones', so that a traced launch simulates alike on both.
inline void* trace_address(int tensor) {
  const uint64_t a = sizeof(void*) >= 8 ? uint64_t(tensor + 1) << 40 : uint64_t(tensor + 1) << 8;
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(a));
}

}  // namespace ts::kernels
