// ts::sched::greedy_schedule (tiles/sched/schedule.hpp): the table's layout, the stride it becomes
// for equal tiles, and the balance it keeps for tiles of unequal length.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tiles/sched/schedule.hpp"

namespace {

// Each block's tiles, read back through the kernel's own accessor.
std::vector<std::vector<int>> runs_of(const std::vector<int32_t>& table, int blocks) {
  std::vector<std::vector<int>> runs(blocks);
  for (int b = 0; b < blocks; ++b)
    for (int i = 0, t; (t = ts::sched::scheduled_tile(table.data(), b, i)) >= 0; ++i) runs[b].push_back(t);
  return runs;
}

}  // namespace

TEST_CASE("schedule: every tile once, in order within a block; equal tiles make the stride", "[schedule]") {
  const int tiles = 1000, blocks = 132;
  const auto table = ts::sched::greedy_schedule(tiles, blocks, [](int) { return 1.0; });
  REQUIRE(table.size() == size_t(blocks + 1 + tiles));
  const auto runs = runs_of(table, blocks);
  std::vector<int> seen(tiles, 0);
  for (int b = 0; b < blocks; ++b) {
    CHECK(std::is_sorted(runs[b].begin(), runs[b].end()));
    for (size_t i = 0; i < runs[b].size(); ++i) {
      CHECK(runs[b][i] == b + int(i) * blocks);  // ties go to the lower block: tile t to block t % blocks
      ++seen[runs[b][i]];
    }
  }
  CHECK(std::count(seen.begin(), seen.end(), 1) == tiles);
  // More blocks than tiles: the spare blocks get an empty run.
  const auto few = ts::sched::greedy_schedule(3, 8, [](int) { return 1.0; });
  CHECK(runs_of(few, 8)[2] == std::vector<int>{2});
  CHECK(runs_of(few, 8)[7].empty());
  CHECK_THROWS(ts::sched::greedy_schedule(3, 0, [](int) { return 1.0; }));
}

TEST_CASE("schedule: causal-like tiles (longest first within each head) end within one tile of each other", "[schedule]") {
  // 64 heads of 22 query blocks, the first of a head the longest (22 key blocks), as the causal
  // forward at N 4096 numbers them; 132 blocks. The stride gives block b the same position in
  // every head (132 is 6 x 22), so its loads differ by up to 21 x; the schedule's by at most the
  // longest tile.
  const int heads = 64, per_head = 22, blocks = 132, tiles = heads * per_head;
  const auto cost = [&](int t) { return double(per_head - t % per_head); };
  const auto load = [&](const std::vector<std::vector<int>>& runs) {
    std::vector<double> l;
    for (const auto& r : runs) {
      double sum = 0;
      for (int t : r) sum += cost(t);
      l.push_back(sum);
    }
    return std::pair(*std::min_element(l.begin(), l.end()), *std::max_element(l.begin(), l.end()));
  };
  const auto [lo, hi] = load(runs_of(ts::sched::greedy_schedule(tiles, blocks, cost), blocks));
  CHECK(hi - lo <= per_head);
  CHECK(hi <= 1.05 * (heads * per_head * (per_head + 1) / 2.0) / blocks + per_head);
  std::vector<std::vector<int>> stride(blocks);
  for (int t = 0; t < tiles; ++t) stride[t % blocks].push_back(t);
  const auto [slo, shi] = load(stride);
  CHECK(shi / slo > 10);  // what the schedule is for
}
