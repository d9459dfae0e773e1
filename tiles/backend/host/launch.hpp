#pragma once
// Host launcher of a pipeline kernel (tiles/sched/pipeline.hpp): the CPU stand-in for
// pipeline_kernel<K><<<grid, pipeline_threads<K>(), pipeline_smem_bytes<K>()>>>(g). Blocks run one
// after another in index order (a kernel must not depend on block order, so any order is right),
// each as pipeline_threads<K>() / 32 warp fibers over its own poisoned shared memory; the blocks
// of a cluster (K::cluster_size consecutive indices) run together, since they wait on each other.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "tiles/backend/host/fiber.hpp"
#include "tiles/sched/pipeline.hpp"

namespace ts::host {

// What an H100 grants one block: a launch the GPU would refuse fails here too.
inline constexpr std::size_t max_smem_bytes = sched::max_block_smem_bytes;

// Names the pipeline's barriers in deadlock reports ("inputs_full[1]").
template <class K>
std::string pipeline_barrier_name(char* smem, const void* p) {
  const auto& s = sched::pipeline_state<K>(smem);
  for (int i = 0; i < K::stages; ++i) {
    if (p == &s.inputs_full[i]) return "inputs_full[" + std::to_string(i) + "]";
    if (p == &s.inputs_empty[i]) return "inputs_empty[" + std::to_string(i) + "]";
  }
  for (int i = 0; i < sched::kernel_tile_stages<K>(); ++i) {
    if (p == &s.tile_full[i]) return "tile_full[" + std::to_string(i) + "]";
    if (p == &s.tile_empty[i]) return "tile_empty[" + std::to_string(i) + "]";
  }
  return {};
}

template <class K>
void launch(int grid_blocks, const typename K::globals& g) {
  constexpr std::size_t bytes = sched::pipeline_smem_bytes<K>();
  constexpr int threads = sched::pipeline_threads<K>();
  static_assert(threads % 32 == 0 && threads <= 1024, "a block has whole warps, at most 1024 threads");
  if (bytes > max_smem_bytes)
    throw std::runtime_error("ts::host::launch: " + std::to_string(bytes) + " bytes of shared memory exceed the " +
                             std::to_string(max_smem_bytes) + " an H100 block may have");
  if (grid_blocks <= 0) throw std::invalid_argument("ts::host::launch: the grid needs at least one block");
  constexpr int ctas = sched::kernel_cluster_size<K>();
  if (grid_blocks % ctas != 0)
    throw std::invalid_argument("ts::host::launch: a grid of " + std::to_string(grid_blocks) + " blocks is not whole clusters of " +
                                std::to_string(ctas));

  struct Free {
    void operator()(char* p) const { ::operator delete[](p, std::align_val_t{1024}); }
  };
  using Smem = std::unique_ptr<char[], Free>;
  Smem smem[ctas];
  for (auto& m : smem) m = Smem(static_cast<char*>(::operator new[](bytes, std::align_val_t{1024})));
  for (int first = 0; first < grid_blocks; first += ctas) {
    Cluster cluster;
    Block blks[ctas];
    for (int r = 0; r < ctas; ++r) {
      // All bits set: bf16 and fp32 NaNs, and barriers that read as uninitialised. A kernel that
      // reads shared memory nobody wrote gets NaNs, not a lucky zero from the previous block.
      std::memset(smem[r].get(), 0xff, bytes);
      Block& blk = blks[r];
      blk.index = first + r;
      blk.grid = grid_blocks;
      blk.warps = threads / 32;
      blk.smem = smem[r].get();
      blk.smem_bytes = bytes;
      char* base = smem[r].get();
      blk.name_of = [base](const void* p) { return pipeline_barrier_name<K>(base, p); };
      if constexpr (ctas > 1) {
        blk.cluster = &cluster;
        blk.cluster_rank = r;
        blk.cluster_ctas = ctas;
        cluster.blocks.push_back(&blk);
        cluster.warps += blk.warps;
      }
    }
    std::vector<Block*> run;
    for (auto& blk : blks) run.push_back(&blk);
    run_blocks(run, [&] { sched::run_pipeline<K>(g, current().block->smem); });
  }
}

}  // namespace ts::host
