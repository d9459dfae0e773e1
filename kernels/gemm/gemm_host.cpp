// Host runner of kernels/gemm/gemm.cuh: the dispatch and tensor maps of gemm_dispatch.hpp, the grid
// of gemm_grid_blocks(), and ts::host::launch in place of <<<...>>>.
#include "kernels/gemm/gemm_host.hpp"

#include <stdexcept>
#include <string>

#include "kernels/gemm/gemm_dispatch.hpp"
#include "tiles/backend/host/launch.hpp"

namespace ts::kernels {

void run_gemm_host(const bf16* a, const bf16* b, void* c, const GemmShape& s, const GemmConfig& cfg, int sms) {
  if (const std::string why = validate(s, cfg); !why.empty()) throw std::invalid_argument(why);
  if (sms <= 0) throw std::invalid_argument("run_gemm_host: sms must be positive");
  with_gemm(cfg, [&]<class K>() {
    const typename K::globals g = make_globals<K>(a, b, c, s, cfg);
    host::launch<K>(gemm_grid_blocks(s, cfg, sms), g);
  });
}

}  // namespace ts::kernels
