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
  // The launches launch_gemm_device makes (gemm_plan): split tiles into a workspace, summed after.
  const GemmPlan plan = gemm_plan(s, asked, sms);
  const size_t floats = gemm_workspace_bytes(plan, asked) / sizeof(float);
  struct alignas(16) Quad { float v[4]; };  // TMA needs 16-byte alignment (wasm's malloc gives 8)
  std::vector<Quad> workspace((floats + 3) / 4);
  float* const parts = floats > 0 ? workspace.front().v : nullptr;
  const auto resident = [&]<class K>() { return sms; };
  with_launches(a, b, c, parts, s, asked, plan, resident, [&]<class K>(const typename K::globals& g, int blocks, const char*) {
    host::launch<K>(blocks, g);
  });
}

}  // namespace ts::kernels
