// The attention kernels' source on the host backend, against a double-precision reference:
// forward (O and the log-sum-exp) and backward (dQ, dK, dV), causal and not, tails, D 64 and 128,
// grouped-query heads. Outputs start as NaN, so an element the kernel never wrote fails.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/attention/attention_globals.hpp"
#include "kernels/attention/attention_host.hpp"
#include "kernels/attention/attention_layout.hpp"
#include "kernels/attention/attention_trace.hpp"
#include "tests/attention_reference.hpp"

using namespace ts;
using namespace ts::kernels;
using namespace ts::test;

namespace {

void check_attention(const AttentionShape& s, bool backward, unsigned seed, const AttentionConfig& cfg = {}, int sms = 132) {
  std::mt19937 rng(seed);
  const std::size_t nq = s.batch * s.heads_q * s.seq * s.dim, nkv = s.batch * s.heads_kv * s.seq * s.dim;
  const auto q = random_bf16(nq, rng), k = random_bf16(nkv, rng), v = random_bf16(nkv, rng), d_o = random_bf16(nq, rng);
  const bf16 nan = bf16(std::numeric_limits<float>::quiet_NaN());
  std::vector<bf16> o(nq, nan);
  std::vector<float> lse(s.batch * s.heads_q * s.seq, NAN);
  INFO(describe(s) << " consumers " << cfg.consumers << " overlap " << cfg.overlap << " persistent " << cfg.persistent << " on " << sms << " SMs");
  run_attention_forward_host(q.data(), k.data(), v.data(), o.data(), lse.data(), s, cfg, sms);
  const Reference ref = reference(s, q, k, v, d_o);
  std::size_t unwritten = 0;
  CHECK(relative_error(o, ref.o, &unwritten) < 5e-3);
  CHECK(relative_error(lse, ref.lse, &unwritten) < 1e-4);
  CHECK(unwritten == 0);
  if (!backward) return;
  std::vector<bf16> dq(nq, nan), dk(nkv, nan), dv(nkv, nan);
  run_attention_backward_host(q.data(), k.data(), v.data(), o.data(), d_o.data(), lse.data(), dq.data(), dk.data(), dv.data(), s, sms);
  CHECK(relative_error(dq, ref.dq, &unwritten) < 5e-3);
  CHECK(relative_error(dk, ref.dk, &unwritten) < 5e-3);
  CHECK(relative_error(dv, ref.dv, &unwritten) < 5e-3);
  CHECK(unwritten == 0);
}

}  // namespace

TEST_CASE("attention forward and backward on the host backend match a double reference", "[attention][host]") {
  struct Case {
    int64_t b, hq, hkv, n, d;
    bool causal;
  };
  // Tails (N not a multiple of any block), one-row sequences, several blocks of keys and queries,
  // grouped-query heads, both head dimensions, causal and not.
  const Case cases[] = {
      {1, 1, 1, 1, 64, false},   {1, 1, 1, 1, 128, true},   {1, 2, 1, 77, 64, true},   {2, 1, 1, 130, 64, false},
      {1, 1, 1, 200, 128, false}, {1, 1, 1, 200, 128, true}, {1, 4, 2, 96, 64, false},  {1, 3, 1, 257, 64, true},
      {1, 2, 1, 1000, 64, false},  // its last tile has rows for one warpgroup in three
  };
  unsigned seed = 1;
  for (const Case& c : cases) {
    const AttentionShape s{c.b, c.hq, c.hkv, c.n, c.d, c.causal, 0.f};
    check_attention(s, true, seed++);
  }
  // The backward's per-row passes on two SMs: each block loops over several row blocks, and the
  // prep pass zeroes every row block's dQ sums (the host runner's workspace starts as NaN).
  check_attention(AttentionShape{1, 3, 1, 257, 64, true, 0.f}, true, seed++, {}, 2);
  check_attention(AttentionShape{1, 1, 1, 200, 128, false, 0.f}, true, seed++, {}, 2);
}

TEST_CASE("every forward variant computes the same attention", "[attention][host]") {
  // Two or three consumer warpgroups, with and without each overlapping its own P V (which keeps a
  // stage one iteration longer): causal tails are where a held stage would go wrong.
  const AttentionConfig variants[] = {{2, 0}, {2, 1}, {3, 0}, {3, 1}};
  unsigned seed = 50;
  for (const auto& cfg : variants)
    for (const AttentionShape s : {AttentionShape{1, 2, 1, 333, 64, true, 0.f}, AttentionShape{1, 1, 1, 300, 64, false, 0.f},
                                   AttentionShape{1, 1, 1, 290, 128, true, 0.f}, AttentionShape{1, 1, 1, 200, 64, false, 0.f}}) {
      if (s.dim == 128 && cfg.consumers == 3 && cfg.overlap) {
        CHECK_THROWS_WITH(resolve(s, cfg), Catch::Contains("needs 2 consumers"));
        continue;
      }
      check_attention(s, false, seed++, cfg);
    }
}

TEST_CASE("a persistent forward runs tile after tile, the next tile's Q loading during this one", "[attention][host]") {
  // Two SMs for up to ten tiles: each block wraps its two tile stages several times. Every
  // variant, causal and not (persistent is a knob for both), against the reference; and the same
  // bits as a block per tile, since a tile's arithmetic does not depend on which block runs it.
  unsigned seed = 70;
  for (const AttentionConfig cfg : {AttentionConfig{3, 0, 1}, AttentionConfig{3, 1, 1}, AttentionConfig{2, 1, 1}})
    for (const AttentionShape s : {AttentionShape{1, 4, 2, 200, 64, false, 0.f}, AttentionShape{2, 1, 1, 333, 64, true, 0.f},
                                   AttentionShape{1, 2, 2, 290, 128, false, 0.f}}) {
      if (s.dim == 128 && cfg.consumers == 3 && cfg.overlap) continue;  // refused: does not fit
      check_attention(s, false, seed++, cfg, 2);
    }
  const AttentionShape s{1, 4, 2, 500, 128, true, 0.f};
  std::mt19937 rng(7);
  const std::size_t nq = s.batch * s.heads_q * s.seq * s.dim, nkv = s.batch * s.heads_kv * s.seq * s.dim;
  const auto q = random_bf16(nq, rng), k = random_bf16(nkv, rng), v = random_bf16(nkv, rng);
  std::vector<bf16> o_tiles(nq), o_persistent(nq);
  std::vector<float> lse_tiles(s.batch * s.heads_q * s.seq), lse_persistent(lse_tiles.size());
  run_attention_forward_host(q.data(), k.data(), v.data(), o_tiles.data(), lse_tiles.data(), s, {0, -1, 0});
  run_attention_forward_host(q.data(), k.data(), v.data(), o_persistent.data(), lse_persistent.data(), s, {0, -1, 1}, 3);
  CHECK(std::memcmp(o_tiles.data(), o_persistent.data(), nq * sizeof(bf16)) == 0);
  CHECK(lse_tiles == lse_persistent);
  CHECK(forward_blocks(s, resolve(s, {0, -1, 1}), 3) == 3);
  CHECK(forward_blocks(s, resolve(s, {0, -1, 0}), 3) == 4 * 3);
  // The default: persistent, with a causal mask too (its tiles then run a schedule).
  CHECK(resolve(s, {}).persistent == 1);
  CHECK(resolve(AttentionShape{1, 4, 2, 500, 128, false, 0.f}, {}).persistent == 1);
  CHECK_THROWS_WITH(resolve(s, {0, -1, 2}), Catch::Contains("persistent must be 0 or 1"));
}

TEST_CASE("the persistent causal forward's blocks run a balanced schedule; the unmasked one a stride", "[attention][host]") {
  using Causal = attention_fwd<128, true, 3, false>;
  const AttentionShape s{4, 16, 16, 4096, 128, true, 0.f};
  auto g = forward_globals_for<Causal>(s);
  const int blocks = 132, tiles = Causal::num_tiles(g);
  const auto* table = forward_schedule<Causal>(g, blocks);
  REQUIRE(table != nullptr);
  CHECK(forward_schedule<Causal>(g, blocks) == table);  // made once per shape and grid
  CHECK(forward_schedule<Causal>(g, tiles) == nullptr);  // a block per tile: the GPU balances
  // Each block's work in the schedule's own cost (iterations and a start per tile): the greedy
  // leaves them within the longest tile of each other.
  std::vector<int> seen(tiles, 0);
  std::vector<double> work(blocks, 0);
  double longest = 0;
  for (int b = 0; b < blocks; ++b)
    for (int i = 0, t; (t = sched::scheduled_tile(table->data(), b, i)) >= 0; ++i) {
      ++seen[t];
      const double cost = Causal::iterations(g, t) + kForwardTileStart;
      work[b] += cost;
      longest = std::max(longest, cost);
    }
  CHECK(std::count(seen.begin(), seen.end(), 1) == tiles);
  CHECK(*std::max_element(work.begin(), work.end()) - *std::min_element(work.begin(), work.end()) <= longest);
  using Full = attention_fwd<128, false, 3, false>;
  CHECK(forward_schedule<Full>(forward_globals_for<Full>({4, 16, 16, 4096, 128, false, 0.f}), blocks) == nullptr);
}

TEST_CASE("attention takes a softmax scale", "[attention][host]") {
  check_attention(AttentionShape{1, 1, 1, 70, 64, true, 0.3f}, true, 42);
}

TEST_CASE("attention refuses bad shapes and pointers with a reason", "[attention][host]") {
  AttentionShape s{1, 1, 1, 64, 64, false, 0.f};
  CHECK(validate(s).empty());
  s.dim = 96;
  CHECK_THAT(validate(s), Catch::Contains("64 or 128"));
  s.dim = 64;
  s.heads_q = 3;
  s.heads_kv = 2;
  CHECK_THAT(validate(s), Catch::Contains("multiple of key/value heads"));
  s.heads_q = 2;
  s.seq = 0;
  CHECK_THAT(validate(s), Catch::Contains("positive"));
  s.seq = 64;
  std::vector<bf16> t(64 * 64 * 2 + 8);
  std::vector<float> lse(128);
  CHECK_THROWS_WITH(run_attention_forward_host(t.data() + 1, t.data(), t.data(), t.data(), lse.data(), s), Catch::Contains("16-byte aligned"));
  s.dim = 80;
  CHECK_THROWS_AS(run_attention_forward_host(t.data(), t.data(), t.data(), t.data(), lse.data(), s), std::invalid_argument);
}

TEST_CASE("attention runs in trace mode: every consumer warp issues its MMAs", "[attention][host][trace]") {
  // N = 512, D = 128, not causal: 3 blocks of 3 x 64 query rows, 4 key blocks each; per consumer
  // warp and key block, one MMA op for S = Q K^T and one for O += P V, which together do the
  // attention's 4 N D FLOPs for each of the block's (padded) query rows. Unmasked, even the last
  // block's third warpgroup (rows 512-575, all past N) computes: skipping it cost more than it saved.
  const AttentionShape s{1, 1, 1, 512, 128, false, 0.f};
  auto fwd = ts::kernels::attention_grid_traces(s, false, {}, 132);
  REQUIRE(fwd.size() == 1);
  auto& grid = fwd[0].grid;
  REQUIRE(grid->blocks() == 3);
  uint64_t mmas = 0, flops = 0, loads = 0;
  for (uint32_t b = 0; b < grid->blocks(); ++b) {
    auto block = grid->block(b);
    for (auto& w : block.warps)
      for (auto batch = w->next_batch(); !batch.empty(); batch = w->next_batch())
        for (const auto& op : batch) {
          mmas += op.kind == ts::sim::OpKind::mma;
          if (op.kind == ts::sim::OpKind::mma) flops += op.flops;
          loads += op.kind == ts::sim::OpKind::tma_load;
        }
  }
  CHECK(mmas == 3 * 3 * 4 * 4 * 2);
  CHECK(flops == uint64_t{3} * 3 * 64 * 4 * 512 * 128);
  CHECK(loads == 3 * (3 * 2 + 4 * 2 * 2));  // per block: Q (3 tiles x 2 column blocks), K and V per key block
  // The backward's three launches, each traced to the end (the pre-pass and the dQ conversion move
  // tiles between registers and shared memory, which trace mode records too).
  auto bwd = ts::kernels::attention_grid_traces(s, true, {}, 132);
  REQUIRE(bwd.size() == 3);
  CHECK(bwd[0].grid->blocks() == 8);  // 512 rows / 64
  CHECK(bwd[1].grid->blocks() == 4);  // 512 keys / 128
  CHECK(bwd[2].grid->blocks() == 8);
  for (auto& launch : bwd) {
    INFO(launch.name);
    uint64_t smem_ops = 0, math_ops = 0;
    auto block = launch.grid->block(0);
    for (auto& w : block.warps)
      for (auto batch = w->next_batch(); !batch.empty(); batch = w->next_batch())
        for (const auto& op : batch) {
          smem_ops += op.kind == ts::sim::OpKind::smem_load || op.kind == ts::sim::OpKind::smem_store;
          math_ops += op.kind == ts::sim::OpKind::math;
        }
    CHECK(smem_ops > 0);
    CHECK(math_ops > 0);
  }
  // The main backward's stores: dQ's shares by reducing stores (count 1), which the simulator prices
  // at the L2's measured reducing rate; dK and dV by plain ones. Per block: 8 query blocks x one dQ
  // share (both consumers' keys; they take turns) x 2 parts (D 128 in 64 columns) x 2 boxes
  // (128-byte column blocks of fp32), and 2 consumers x (dK, dV) x 2 boxes.
  uint64_t adds = 0, plain = 0;
  auto main_block = bwd[1].grid->block(0);
  for (auto& w : main_block.warps)
    for (auto batch = w->next_batch(); !batch.empty(); batch = w->next_batch())
      for (const auto& op : batch)
        if (op.kind == ts::sim::OpKind::tma_store) (op.count == 1 ? adds : plain) += 1;
  CHECK(adds == 8 * 2 * 2);
  CHECK(plain == 2 * 2 * 2);
}
