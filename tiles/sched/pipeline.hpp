#pragma once
// The producer/consumer pipeline template. A kernel K writes four functions, and this template
// owns everything else: the stage ring in shared memory, the full/empty mbarriers, register
// reallocation, the producer warpgroup and K::consumers consumer warpgroups, and the tile loop of
// a (possibly persistent) grid: block b computes tiles b, b + grid, b + 2 grid, ... (or a schedule's)
//
//   K::load(input_stage&, globals, tile, iter, barrier&)   one elected producer thread issues TMA
//       (tile: what K::locate says of it, where K has one: below)
//   K::compute(consumer_state&, input_stage&, consumer, iter)   each consumer warpgroup; may leave
//       one MMA group in flight
//   K::compute_done(consumer_state&)   wait for every MMA of the tile
//   K::store(consumer_state&, output_stage&, globals, tile, consumer)   epilogue of one tile
//   K::finish(output_stage&, globals, consumer)   once, after the last tile
//
// K also names: globals, input_stage, output_stage, consumer_state, stages, consumers,
// producer_registers, consumer_registers, num_tiles(globals), iterations(globals).
//
// Optional, for kernels that need more (attention): a member found by name changes the template.
//   iterations(globals, tile)   iterations that depend on the tile (causal attention skips blocks)
//   tile_stage                  inputs loaded once per tile (attention's Q), beside the ring:
//       K::load_tile(tile_stage&, globals, tile, barrier&)   the producer, before the tile's loads
//       K::compute(consumer_state&, tile_stage&, input_stage&, globals, tile, consumer, iter)
//       K::store(consumer_state&, tile_stage&, output_stage&, globals, tile, consumer)
//     the consumers hand the tile stage back after store, so store may reuse it as scratch; it may
//     also hold a consumer's own staging tiles past tile_bytes
//     K::init(tile_stage&)      the kernel's own mbarriers in a tile stage (attention's backward
//                               hands dS^T between its consumers), initialised with the pipeline's
//   tile_stages                 tile stages in a ring (default 1). With 2, the producer loads the
//                               next tile's inputs while the consumers still work on this one, so
//                               a persistent block does not wait a load's round trip between tiles
//   locate(globals, tile)       what a tile's loads need to know of it (the GEMM: its output tile
//                               and first K slice), worked out once per tile by the producer and
//                               passed to K::load in place of the tile number. A block order's
//                               divisions by run-time sizes then stay out of the loop over stages,
//                               where they delayed every TMA issue: the default GEMM ran 1.3-4.5 %
//                               faster without them, with one or two stages or 128-wide tiles up
//                               to a third (H100, 2026-11-28, data/measured/h100/
//                               gemm-producer-locate.txt)
//   has_work(globals, tile, consumer)   false when a consumer has nothing to compute in a tile
//                               (attention's warpgroups whose rows all lie past N): it keeps step
//                               with the stages, each waited for and handed straight back, and its
//                               compute, compute_done and store are not called. The test can cost
//                               the consumer loop registers: a kernel measures it (a constant true
//                               leaves the loop as it was)
//   release_lag                 iterations a consumer keeps a stage (default release_lag(stages));
//                               0 for a compute that waits for its own MMAs
//   input_bytes, tile_bytes     bytes TMA brings per stage (default: sizeof the stage), for stages
//                               whose members leave padding (a shared vector beside 1024-aligned tiles)
//   cluster_size                CTAs per cluster (default 1). With 2 or more, K::load may multicast
//                               into the same stage of every CTA of the cluster, so a stage is empty
//                               only once the consumers of every CTA have handed it back: each
//                               consumer warp arrives on the stage's empty barrier in every CTA.
//                               Grids are whole clusters; the CTAs of a cluster run the same number
//                               of tiles and iterations (K's tile numbering sees to it).
//   globals::schedule           a `const int32_t*` (tiles/sched/schedule.hpp): where it is set, block
//                               b runs the tiles its table entry names instead of the stride (a
//                               persistent grid over tiles of unequal length)
#include <cstddef>
#include <cstdint>

#include "tiles/sched/schedule.hpp"
#include "tiles/sync/cluster.hpp"
#include "tiles/tiles.hpp"

namespace ts::sched {

// How many iterations late a consumer hands a stage back: with one stage there is nothing to
// overlap (and a late release would deadlock), with more the newest MMA group stays in flight.
constexpr int release_lag(int stages) { return stages > 1 ? 1 : 0; }

template <class K> concept HasTileStage = requires { typename K::tile_stage; };
template <class K> concept TileIterations = requires(const typename K::globals& g) { K::iterations(g, 0); };

template <class K> struct tile_stage_of { struct type {}; };
template <HasTileStage K> struct tile_stage_of<K> { using type = typename K::tile_stage; };

template <class K> constexpr int kernel_release_lag() {
  if constexpr (requires { K::release_lag; }) return K::release_lag;
  else return release_lag(K::stages);
}
template <class K> constexpr int kernel_tile_stages() {
  if constexpr (requires { K::tile_stages; }) return K::tile_stages;
  else return 1;
}
template <class K> constexpr int kernel_cluster_size() {
  if constexpr (requires { K::cluster_size; }) return K::cluster_size;
  else return 1;
}
template <class K> constexpr uint32_t input_stage_bytes() {
  if constexpr (requires { K::input_bytes; }) return K::input_bytes;
  else return sizeof(typename K::input_stage);
}
template <class K> constexpr uint32_t tile_stage_bytes() {
  if constexpr (requires { K::tile_bytes; }) return K::tile_bytes;
  else return sizeof(typename tile_stage_of<K>::type);
}
template <class K> TS_KERNEL_FN int tile_iterations(const typename K::globals& g, int tile) {
  if constexpr (TileIterations<K>) return K::iterations(g, tile);
  else return K::iterations(g);
}
// What K::load is told of a tile: K::locate's answer where K has one, else the tile number.
template <class K> TS_KERNEL_FN auto tile_place(const typename K::globals& g, int tile) {
  if constexpr (requires { K::locate(g, tile); }) return K::locate(g, tile);
  else return tile;
}
// The i-th tile this block runs, or -1 past its last: the kernel's schedule where it has one, else
// tiles block, block + grid, ...
template <class K> TS_KERNEL_FN int block_tile(const typename K::globals& g, int i, int tiles) {
  if constexpr (requires { g.schedule; })
    if (g.schedule) return scheduled_tile(g.schedule, block_index(), i);
  const int tile = block_index() + i * grid_blocks();
  return tile < tiles ? tile : -1;
}
template <class K> TS_KERNEL_FN bool consumer_has_work(const typename K::globals& g, int tile, int consumer) {
  if constexpr (requires { K::has_work(g, tile, consumer); }) return K::has_work(g, tile, consumer);
  else return true;
}

// The ring of tile stages (nothing for a kernel without one).
template <class K> struct tile_ring_of { struct type {}; };
template <HasTileStage K> struct tile_ring_of<K> { using type = typename K::tile_stage[kernel_tile_stages<K>()]; };

// A block's shared memory, by its parts: a kernel that chooses its stage counts by what fits asks
// about this layout before it is complete itself (pipeline_fits).
template <class Input, class Output, class TileRing, int Stages, int Consumers, int TileStages>
struct pipeline_layout {
  Input inputs[Stages];
  Output outputs[Consumers];
  [[no_unique_address]] TileRing tile;
  barrier inputs_full[Stages];
  barrier inputs_empty[Stages];
  barrier tile_full[TileStages], tile_empty[TileStages];  // when K has a tile stage
};
template <class K>
using pipeline_shared = pipeline_layout<typename K::input_stage, typename K::output_stage, typename tile_ring_of<K>::type, K::stages,
                                        K::consumers, kernel_tile_stages<K>()>;

// What an H100 grants one block: 227 KB of shared memory.
inline constexpr std::size_t max_block_smem_bytes = 227 * 1024;
// Dynamic shared memory asked for beyond the layout: slack to align its base to 1024 bytes (the
// 128-byte swizzle's period).
inline constexpr std::size_t pipeline_align_slack = 1024;

template <class K>
constexpr std::size_t pipeline_smem_bytes() {
  return sizeof(pipeline_shared<K>) + pipeline_align_slack;
}
// Whether a block with these stages fits in shared memory.
template <class Input, class Output, class TileStage, int Stages, int Consumers, int TileStages>
constexpr bool pipeline_fits() {
  return sizeof(pipeline_layout<Input, Output, TileStage[TileStages], Stages, Consumers, TileStages>) + pipeline_align_slack <=
         max_block_smem_bytes;
}

template <class K>
constexpr int pipeline_threads() {
  return 128 * (K::consumers + 1);
}

// The pipeline's state in a block's dynamic shared memory `smem`, at its first 1 KiB boundary (the
// 128-byte swizzle's period). Rounded up by adding to the pointer, not through an integer: the
// compiler then still knows it points into shared memory and emits shared loads and stores with
// 32-bit addresses (LDS/STS), where an integer round trip left generic ones (LD/ST.E.64 and 64-bit
// address math: 76 of the attention backward loop's 751 instructions were one such store).
template <class K>
TS_KERNEL_FN pipeline_shared<K>& pipeline_state(char* smem) {
  return *static_cast<pipeline_shared<K>*>(__builtin_assume_aligned(smem + (-reinterpret_cast<std::uintptr_t>(smem) & 1023), 1024));
}

// One block of the pipeline. `smem` is the block's dynamic shared memory.
template <class K>
TS_KERNEL_FN void run_pipeline(const typename K::globals& g, char* smem) {
  auto& s = pipeline_state<K>(smem);
  constexpr int lag = kernel_release_lag<K>();
  static_assert(lag == 0 || (lag == 1 && K::stages > 1), "pipeline: a consumer keeps a stage 0 iterations, or 1 with 2+ stages");
  constexpr int ctas = kernel_cluster_size<K>(), tile_stages = kernel_tile_stages<K>();
  static_assert(ctas == 1 || !HasTileStage<K>, "pipeline: a tile stage is not shared across a cluster");
  static_assert(tile_stages == 1 || (tile_stages == 2 && HasTileStage<K>), "pipeline: one or two tile stages");
  const int tiles = K::num_tiles(g);
  // A stage goes back to the producers: one arrival per consumer warp of every CTA of the cluster.
  auto hand_back = [&](barrier& empty) {
    if (!elect_one()) return;
    if constexpr (ctas == 1) arrive(empty);
    else
      for (int cta = 0; cta < ctas; ++cta) cluster::arrive(empty, cta);
  };

  if (warpid() == 0 && elect_one()) {
    for (int i = 0; i < K::stages; ++i) {
      init(s.inputs_full[i], 1);                            // the producer's expect_bytes
      init(s.inputs_empty[i], 4 * K::consumers * ctas);  // one arrival per consumer warp
    }
    if constexpr (HasTileStage<K>) {
      for (int i = 0; i < tile_stages; ++i) {
        init(s.tile_full[i], 1);
        init(s.tile_empty[i], 4 * K::consumers);
        if constexpr (requires { K::init(s.tile[i]); }) K::init(s.tile[i]);
      }
    }
    fence_barrier_init();
  }
  if constexpr (ctas == 1) block_sync();
  else cluster::sync();  // no multicast or remote arrival before the peers' barriers exist

  if (warpgroup::groupid() == K::consumers) {  // the producer warpgroup
    warpgroup::decrease_registers<K::producer_registers>();
    if (warpgroup::warpid() == 0 && elect_one()) {
      int stage = 0, slot = 0;
      uint32_t phase = 0, tile_phase = 0;
      for (int i = 0, tile; (tile = block_tile<K>(g, i, tiles)) >= 0; ++i) {
        if constexpr (HasTileStage<K>) {
          wait(s.tile_empty[slot], tile_phase ^ 1);
          expect_bytes(s.tile_full[slot], tile_stage_bytes<K>());
          K::load_tile(s.tile[slot], g, tile, s.tile_full[slot]);
          if (++slot == tile_stages) slot = 0, tile_phase ^= 1;
        }
        const int iters = tile_iterations<K>(g, tile);
        const auto at = tile_place<K>(g, tile);
        for (int it = 0; it < iters; ++it) {
          wait(s.inputs_empty[stage], phase ^ 1);  // the first pass finds every stage empty
          expect_bytes(s.inputs_full[stage], input_stage_bytes<K>());
          K::load(s.inputs[stage], g, at, it, s.inputs_full[stage]);
          if (++stage == K::stages) stage = 0, phase ^= 1;
        }
      }
    }
  } else {
    warpgroup::increase_registers<K::consumer_registers>();
    const int consumer = warpgroup::groupid();
    typename K::consumer_state state;
    int stage = 0, slot = 0;
    uint32_t phase = 0, tile_phase = 0;
    for (int i = 0, tile; (tile = block_tile<K>(g, i, tiles)) >= 0; ++i) {
      if constexpr (HasTileStage<K>) wait(s.tile_full[slot], tile_phase);
      // K::compute may leave `lag` MMA groups in flight, so a stage is handed back that many
      // iterations late, once the MMAs that read it are known to be done.
      int previous = -1;
      const int iters = tile_iterations<K>(g, tile);
      const bool works = consumer_has_work<K>(g, tile, consumer);
      for (int it = 0; it < iters; ++it) {
        wait(s.inputs_full[stage], phase);
        if (works) {
          if constexpr (HasTileStage<K>) K::compute(state, s.tile[slot], s.inputs[stage], g, tile, consumer, it);
          else K::compute(state, s.inputs[stage], consumer, it);
        }
        if constexpr (lag == 0) {
          hand_back(s.inputs_empty[stage]);
        } else {
          if (previous >= 0) hand_back(s.inputs_empty[previous]);
          previous = stage;
        }
        if (++stage == K::stages) stage = 0, phase ^= 1;
      }
      if (works) K::compute_done(state);
      if (previous >= 0) hand_back(s.inputs_empty[previous]);
      if (works) {
        if constexpr (HasTileStage<K>) K::store(state, s.tile[slot], s.outputs[consumer], g, tile, consumer);
        else K::store(state, s.outputs[consumer], g, tile, consumer);
      }
      if constexpr (HasTileStage<K>) {
        if (elect_one()) arrive(s.tile_empty[slot]);
        if (++slot == tile_stages) slot = 0, tile_phase ^= 1;
      }
    }
    K::finish(s.outputs[consumer], g, consumer);
  }
  if constexpr (ctas > 1) cluster::sync();  // the peers may still arrive on our barriers
}

}  // namespace ts::sched
