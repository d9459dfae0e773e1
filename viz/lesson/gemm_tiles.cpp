#include "viz/lesson/gemm_tiles.hpp"

#if TILESCOPE_HAVE_HOST_BACKEND
#include <string_view>

#include "kernels/gemm/gemm_dispatch.hpp"
#include "kernels/pipeline_trace.hpp"
#endif

namespace ts::viz {

#if TILESCOPE_HAVE_HOST_BACKEND

GemmTileOrder gemm_tile_order(const kernels::GemmShape& shape, const kernels::GemmConfig& asked, int sms) {
  GemmTileOrder out;
  out.cluster = static_cast<uint32_t>(asked.cluster);
  if (out.error = kernels::validate(shape, asked); !out.error.empty()) return out;
  // The GEMM launches the plan has, with the globals the simulator's trace and the GPU launch get
  // (kernels::with_launches, over stand-in tensors); their tile numbering is all that is asked.
  const auto f = [&]<class K>(const typename K::globals& g, int, const char* name) {
    if constexpr (requires { K::k_range(g, 0); }) {  // not the sum of the ranges
      if (std::string_view(name) == kernels::kGemmTailLaunch) out.head_steps = static_cast<uint32_t>(out.steps.size());
      out.tiles_m = static_cast<uint32_t>(g.tiles_m);
      out.tiles_n = static_cast<uint32_t>(g.tiles_n);
      out.k_splits = static_cast<uint32_t>(g.k_splits);
      out.k_iters = static_cast<uint32_t>(K::iterations(g));
      for (int i = 0; i < K::num_tiles(g); ++i) {
        out.steps.push_back(K::tile_index(g, i));
        out.range.push_back(static_cast<uint32_t>(K::k_range(g, i)));
      }
    }
  };
  const auto resident = [&]<class K>() { return sms; };
  const auto at = [](int i) { return kernels::trace_address(i); };
  kernels::with_launches(at(0), at(1), at(2), at(3), shape, asked, kernels::gemm_plan(shape, asked, sms), resident, f);
  return out;
}

GemmStageBytes gemm_stage_bytes(const kernels::GemmConfig& asked) {
  GemmStageBytes out;
  out.cluster = static_cast<uint32_t>(asked.cluster);
  if (out.error = kernels::validate({128, asked.block_n, 128}, asked); !out.error.empty()) return out;
  kernels::GemmConfig cfg = asked;
  if (cfg.split_k == 0) cfg.split_k = 1;  // the stage bytes are the same for any K range; C's staging type is not
  kernels::with_gemm(cfg, [&]<class K>() {
    out.a = static_cast<uint32_t>(K::consumers * K::a_tile::bytes);
    out.b_slice = static_cast<uint32_t>(K::b_tile::bytes);
    out.b_share = static_cast<uint32_t>(K::b_share::bytes);
    out.block_k = static_cast<uint32_t>(K::block_k);
    out.store_cols = static_cast<uint32_t>(K::store_cols);
    out.whole_tile_staging = K::whole_tile_staging;
  });
  return out;
}

#else

// Without the host backend the kernel source cannot be compiled here: its numbering without
// clusters is the block order's own, range after range; with clusters there is nothing to ask.
GemmTileOrder gemm_tile_order(const kernels::GemmShape& shape, const kernels::GemmConfig& cfg, int sms) {
  GemmTileOrder out;
  out.cluster = static_cast<uint32_t>(cfg.cluster);
  if (out.error = kernels::validate(shape, cfg); !out.error.empty()) return out;
  if (cfg.cluster != 1) {
    out.error = "this build has no host backend, so the kernel's cluster numbering cannot be asked";
    return out;
  }
  if (const kernels::GemmPlan plan = kernels::gemm_plan(shape, cfg, sms); plan.head_tiles > 0 && plan.splits > 1) {
    out.error = "this build has no host backend, so the split tail's numbering cannot be asked";
    return out;
  }
  out.tiles_m = static_cast<uint32_t>((shape.m + 64 * cfg.consumers - 1) / (64 * cfg.consumers));
  out.tiles_n = static_cast<uint32_t>((shape.n + cfg.block_n - 1) / cfg.block_n);
  out.k_splits = static_cast<uint32_t>(kernels::gemm_k_splits(shape, cfg, sms));  // (no split tail: it needs the kernel's numbering)
  out.k_iters = static_cast<uint32_t>((shape.k + 64 * out.k_splits - 1) / (64 * out.k_splits));
  for (uint32_t r = 0; r < out.k_splits; ++r)
    for (uint32_t i = 0; i < out.tiles_m * out.tiles_n; ++i) {
      out.steps.push_back(sched::tile_of(cfg.order, static_cast<int>(i), static_cast<int>(out.tiles_m), static_cast<int>(out.tiles_n)));
      out.range.push_back(r);
    }
  return out;
}

GemmStageBytes gemm_stage_bytes(const kernels::GemmConfig& cfg) {
  GemmStageBytes out;
  out.error = "this build has no host backend, so the kernel's tile types cannot be asked";
  return out;
}

#endif

}  // namespace ts::viz
