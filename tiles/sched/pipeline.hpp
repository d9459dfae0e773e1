#pragma once
// The producer/consumer pipeline template. A kernel K writes four functions, and this template
// owns everything else: the stage ring in shared memory, the full/empty mbarriers, register
// reallocation, the producer warpgroup and K::consumers consumer warpgroups, and the tile loop of
// a (possibly persistent) grid: block b computes tiles b, b + grid, b + 2 grid, ...
//
//   K::load(input_stage&, globals, tile, iter, barrier&)   one elected producer thread issues TMA
//   K::compute(consumer_state&, input_stage&, consumer, iter)   each consumer warpgroup; may leave
//       one MMA group in flight
//   K::compute_done(consumer_state&)   wait for every MMA of the tile
//   K::store(consumer_state&, output_stage&, globals, tile, consumer)   epilogue of one tile
//   K::finish(output_stage&, globals, consumer)   once, after the last tile
//
// K also names: globals, input_stage, output_stage, consumer_state, stages, consumers,
// producer_registers, consumer_registers, num_tiles(globals), iterations(globals).
#include <cstddef>
#include <cstdint>

#include "tiles/tiles.hpp"

namespace ts::sched {

// How many iterations late a consumer hands a stage back: with one stage there is nothing to
// overlap (and a late release would deadlock), with more the newest MMA group stays in flight.
constexpr int release_lag(int stages) { return stages > 1 ? 1 : 0; }

template <class K>
struct pipeline_shared {
  typename K::input_stage inputs[K::stages];
  typename K::output_stage outputs[K::consumers];
  barrier inputs_full[K::stages];
  barrier inputs_empty[K::stages];
};

template <class K>
constexpr std::size_t pipeline_smem_bytes() {
  return sizeof(pipeline_shared<K>) + 1024;  // + slack to align the base to 1024 (128B swizzle)
}

template <class K>
constexpr int pipeline_threads() {
  return 128 * (K::consumers + 1);
}

// One block of the pipeline. `smem` is the block's dynamic shared memory.
template <class K>
TS_KERNEL_FN void run_pipeline(const typename K::globals& g, char* smem) {
  auto& s = *reinterpret_cast<pipeline_shared<K>*>((reinterpret_cast<std::uintptr_t>(smem) + 1023) & ~std::uintptr_t{1023});
  const int tiles = K::num_tiles(g), iters = K::iterations(g);

  if (warpid() == 0 && elect_one()) {
    for (int i = 0; i < K::stages; ++i) {
      init(s.inputs_full[i], 1);                      // the producer's expect_bytes
      init(s.inputs_empty[i], 4 * K::consumers);      // one arrival per consumer warp
    }
    fence_barrier_init();
  }
  block_sync();

  if (warpgroup::groupid() == K::consumers) {  // the producer warpgroup
    warpgroup::decrease_registers<K::producer_registers>();
    if (warpgroup::warpid() == 0 && elect_one()) {
      int stage = 0;
      uint32_t phase = 0;
      for (int tile = block_index(); tile < tiles; tile += grid_blocks()) {
        for (int it = 0; it < iters; ++it) {
          wait(s.inputs_empty[stage], phase ^ 1);  // the first pass finds every stage empty
          expect_bytes(s.inputs_full[stage], sizeof(typename K::input_stage));
          K::load(s.inputs[stage], g, tile, it, s.inputs_full[stage]);
          if (++stage == K::stages) stage = 0, phase ^= 1;
        }
      }
    }
  } else {
    warpgroup::increase_registers<K::consumer_registers>();
    const int consumer = warpgroup::groupid();
    typename K::consumer_state state;
    int stage = 0;
    uint32_t phase = 0;
    for (int tile = block_index(); tile < tiles; tile += grid_blocks()) {
      // K::compute may leave release_lag(stages) MMA groups in flight, so a stage is handed back
      // that many iterations late, once the MMAs that read it are known to be done.
      int previous = -1;
      for (int it = 0; it < iters; ++it) {
        wait(s.inputs_full[stage], phase);
        K::compute(state, s.inputs[stage], consumer, it);
        if constexpr (release_lag(K::stages) == 0) {
          if (elect_one()) arrive(s.inputs_empty[stage]);
        } else {
          if (previous >= 0 && elect_one()) arrive(s.inputs_empty[previous]);
          previous = stage;
        }
        if (++stage == K::stages) stage = 0, phase ^= 1;
      }
      K::compute_done(state);
      if (previous >= 0 && elect_one()) arrive(s.inputs_empty[previous]);
      K::store(state, s.outputs[consumer], g, tile, consumer);
    }
    K::finish(s.outputs[consumer], g, consumer);
  }
}

}  // namespace ts::sched
