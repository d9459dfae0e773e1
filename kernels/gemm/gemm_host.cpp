// Host runner of kernels/gemm/gemm.cuh: the dispatch and tensor maps of gemm_dispatch.hpp, the grid
// of gemm_grid_blocks(), and ts::host::launch in place of <<<...>>>.
#include "kernels/gemm/gemm_host.hpp"

#include <stdexcept>
#include <vector>
#include <string>

#include "kernels/gemm/gemm_dispatch.hpp"
#include "tiles/backend/host/launch.hpp"

namespace ts::kernels {

void run_gemm_host(const void* a, const void* b, void* c, const GemmShape& s, const GemmConfig& asked, int sms) {
  if (const std::string why = validate(s, asked); !why.empty()) throw std::invalid_argument(why);
  if (sms <= 0) throw std::invalid_argument("run_gemm_host: sms must be positive");
  // Split-K as launch_gemm_device does it: each K range's tiles into its own fp32 slice of a
  // workspace, then the second pass (gemm_sum.cuh) sums them into C.
  const GemmConfig cfg = with_k_splits(s, asked, sms);
  const int64_t count = s.m * s.n, ranges = cfg.split_k;
  struct alignas(16) Quad { float v[4]; };  // TMA needs 16-byte alignment (wasm's malloc gives 8)
  std::vector<Quad> workspace(ranges > 1 ? size_t(count * ranges + 3) / 4 : 0);
  float* const parts = ranges > 1 ? workspace.front().v : nullptr;
  with_gemm(cfg, [&]<class K>() {
    const typename K::globals g = make_globals<K>(a, b, ranges > 1 ? parts : c, s, cfg);
    host::launch<K>(gemm_grid_blocks(s, cfg, sms), g);
  });
  if (ranges > 1) with_sum(parts, c, s, cfg, [&]<class S>(const typename S::globals& g, int blocks) { host::launch<S>(blocks, g); });
}

}  // namespace ts::kernels
