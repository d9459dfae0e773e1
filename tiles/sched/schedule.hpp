#pragma once
// A persistent grid's schedule for tiles of unequal length (causal attention's query blocks, whose
// key ranges grow with their rows). Without one, persistent block b runs tiles b, b + grid, ...: a
// fixed stride, which hands some blocks the long tiles and others the short ones. A grid of one
// block per tile is balanced by the GPU itself, which starts each next block on whichever SM frees
// first, but it pays each tile's start (its Q load, the pipeline filling) on the critical path. The
// schedule does what the block scheduler does, once, before the launch: the tiles, in the kernel's
// own order, each to the block that would be free first by a cost per tile; persistent blocks then
// keep that balance and still overlap a tile's loads with the tile before.
//
// The table: entries [0, blocks] are offsets into the table itself; block b runs the tiles at
// table[table[b]], ..., table[table[b + 1] - 1], in that order. A kernel asks for it by a member
// `const int32_t* schedule` of its globals (tiles/sched/pipeline.hpp); the launchers make the table
// (host code, once per shape) and put it where the kernel can read it.
#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tiles/layout/hd.hpp"

namespace ts::sched {

// `cost(tile)`: the tile's time in any unit. Ties go to the lower block, so the table is the same
// on every run.
template <class Cost>
std::vector<int32_t> greedy_schedule(int tiles, int blocks, Cost&& cost) {
  if (tiles < 0 || blocks <= 0) throw std::invalid_argument("greedy_schedule: needs a block and no negative tile count");
  std::vector<std::vector<int32_t>> runs(static_cast<size_t>(blocks));
  using Free = std::pair<double, int>;  // when a block is free, which block
  std::priority_queue<Free, std::vector<Free>, std::greater<Free>> free_at;
  for (int b = 0; b < blocks; ++b) free_at.push({0.0, b});
  for (int t = 0; t < tiles; ++t) {
    const auto [at, b] = free_at.top();
    free_at.pop();
    runs[static_cast<size_t>(b)].push_back(t);
    free_at.push({at + static_cast<double>(cost(t)), b});
  }
  std::vector<int32_t> table(static_cast<size_t>(blocks) + 1);
  table.reserve(table.size() + static_cast<size_t>(tiles));
  for (int b = 0; b < blocks; ++b) {
    table[static_cast<size_t>(b)] = static_cast<int32_t>(table.size());
    table.insert(table.end(), runs[static_cast<size_t>(b)].begin(), runs[static_cast<size_t>(b)].end());
  }
  table[static_cast<size_t>(blocks)] = static_cast<int32_t>(table.size());
  return table;
}

// The i-th tile block `block` runs under a schedule table, or -1 past its last.
TS_HD inline int scheduled_tile(const int32_t* table, int block, int i) {
  const int at = table[block] + i;
  return at < table[block + 1] ? table[at] : -1;
}

}  // namespace ts::sched
