#include "viz/lesson/gemm_tiles.hpp"

#if TILESCOPE_HAVE_HOST_BACKEND
#include "kernels/gemm/gemm_dispatch.hpp"
#endif

namespace ts::viz {

#if TILESCOPE_HAVE_HOST_BACKEND

GemmTileOrder gemm_tile_order(const kernels::GemmShape& shape, const kernels::GemmConfig& cfg) {
  GemmTileOrder out;
  out.cluster = static_cast<uint32_t>(cfg.cluster);
  if (out.error = kernels::validate(shape, cfg); !out.error.empty()) return out;
  // The instance the simulator and the GPU run; only its tile numbering is asked, so the globals
  // need the tile counts and the order, not tensor maps.
  kernels::with_gemm(cfg, [&]<class K>() {
    typename K::globals g{};
    g.tiles_m = static_cast<int>((shape.m + K::block_m - 1) / K::block_m);
    g.tiles_n = static_cast<int>((shape.n + K::block_n - 1) / K::block_n);
    g.order = cfg.order;
    out.tiles_m = static_cast<uint32_t>(g.tiles_m);
    out.tiles_n = static_cast<uint32_t>(g.tiles_n);
    const int steps = K::num_tiles(g);
    out.steps.reserve(static_cast<size_t>(steps));
    for (int i = 0; i < steps; ++i) out.steps.push_back(K::tile_index(g, i));
  });
  return out;
}

GemmStageBytes gemm_stage_bytes(const kernels::GemmConfig& cfg) {
  GemmStageBytes out;
  out.cluster = static_cast<uint32_t>(cfg.cluster);
  if (out.error = kernels::validate({128, cfg.block_n, 64}, cfg); !out.error.empty()) return out;
  kernels::with_gemm(cfg, [&]<class K>() {
    out.a = static_cast<uint32_t>(K::consumers * K::a_tile::bytes);
    out.b_slice = static_cast<uint32_t>(K::b_tile::bytes);
    out.b_share = static_cast<uint32_t>(K::b_share::bytes);
  });
  return out;
}

#else

// Without the host backend the kernel source cannot be compiled here: its numbering without
// clusters is the block order's own; with clusters there is nothing to ask.
GemmTileOrder gemm_tile_order(const kernels::GemmShape& shape, const kernels::GemmConfig& cfg) {
  GemmTileOrder out;
  out.cluster = static_cast<uint32_t>(cfg.cluster);
  if (out.error = kernels::validate(shape, cfg); !out.error.empty()) return out;
  if (cfg.cluster != 1) {
    out.error = "this build has no host backend, so the kernel's cluster numbering cannot be asked";
    return out;
  }
  out.tiles_m = static_cast<uint32_t>((shape.m + 64 * cfg.consumers - 1) / (64 * cfg.consumers));
  out.tiles_n = static_cast<uint32_t>((shape.n + cfg.block_n - 1) / cfg.block_n);
  for (uint32_t i = 0; i < out.tiles_m * out.tiles_n; ++i)
    out.steps.push_back(sched::tile_of(cfg.order, static_cast<int>(i), static_cast<int>(out.tiles_m), static_cast<int>(out.tiles_n)));
  return out;
}

GemmStageBytes gemm_stage_bytes(const kernels::GemmConfig& cfg) {
  GemmStageBytes out;
  out.error = "this build has no host backend, so the kernel's tile types cannot be asked";
  return out;
}

#endif

}  // namespace ts::viz
