// The GEMM's grid in trace mode: each block is the kernel source (gemm.cuh through the pipeline
// template) running on the host backend with tracing on, built when the simulator asks for it.
#include "kernels/gemm/gemm_trace.hpp"

#include <algorithm>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm_dispatch.hpp"
#include "tiles/backend/host/trace.hpp"

namespace ts::kernels {
namespace {

class WarpSource final : public sim::OpSource {
 public:
  WarpSource(std::shared_ptr<host::TracedBlock> block, int warp) : block_(std::move(block)), warp_(warp) {}
  std::span<const sim::TraceOp> next_batch() override { return block_->next_batch(warp_); }

 private:
  std::shared_ptr<host::TracedBlock> block_;
  int warp_;
};

template <class K>
class GemmGrid final : public sim::GridTrace {
 public:
  GemmGrid(const GemmShape& s, const GemmConfig& cfg, int sms) {
    // Trace mode moves no data: the tensors only need distinct, aligned addresses.
    const auto a = reinterpret_cast<const void*>(std::uintptr_t{1} << 40);
    const auto b = reinterpret_cast<const void*>(std::uintptr_t{2} << 40);
    const auto c = reinterpret_cast<void*>(std::uintptr_t{3} << 40);
    globals_ = make_globals<K>(a, b, c, s, cfg);
    grid_ = gemm_grid_blocks(s, cfg, sms);
    smem_.reset(static_cast<char*>(::operator new[](bytes, std::align_val_t{1024})));
  }
  uint32_t blocks() const override { return static_cast<uint32_t>(grid_); }
  uint32_t threads_per_block() const override { return threads; }
  sim::BlockTrace block(uint32_t index) override {
    char* smem = smem_.get();
    const auto* g = &globals_;
    auto traced = std::make_shared<host::TracedBlock>(static_cast<int>(index), grid_, threads / 32, smem, bytes,
                                                      [g, smem] { sched::run_pipeline<K>(*g, smem); });
    sim::BlockTrace bt;
    for (int w = 0; w < traced->warps(); ++w) bt.warps.push_back(std::make_unique<WarpSource>(traced, w));
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
  typename K::globals globals_{};
  int grid_ = 0;
  std::unique_ptr<char[], Free> smem_;
};

}  // namespace

std::unique_ptr<sim::GridTrace> gemm_grid_trace(const GemmShape& s, const GemmConfig& cfg, int sms) {
  if (const std::string why = validate(s, cfg); !why.empty()) throw std::invalid_argument(why);
  if (s.m % (64 * cfg.consumers) != 0 || s.n % cfg.block_n != 0 || s.k % 64 != 0)
    throw std::invalid_argument("the simulator times whole tiles: M must be a multiple of " + std::to_string(64 * cfg.consumers) + ", N of " +
                                std::to_string(cfg.block_n) + " and K of 64; got " + std::to_string(s.m) + "x" +
                                std::to_string(s.n) + "x" + std::to_string(s.k));
  if (sms <= 0) throw std::invalid_argument("gemm_grid_trace: sms must be positive");
  std::unique_ptr<sim::GridTrace> grid;
  with_gemm(cfg, [&]<class K>() { grid = std::make_unique<GemmGrid<K>>(s, cfg, sms); });
  return grid;
}

}  // namespace ts::kernels
