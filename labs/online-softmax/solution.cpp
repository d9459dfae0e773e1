// Lab online-softmax, the reference solution: O = softmax(Q K^T / sqrt(64)) V for one head, one
// warpgroup per 64 queries, K and V streamed 64 keys at a time. The softmax is online: each block
// of scores updates the running row max m and row sum l, and rescales the output so far.
#include <cmath>

#include "lab.hpp"

using namespace ts;

struct attention_lab {
  static constexpr int warps = 4;  // one warpgroup: each warp owns 16 of the 64 query rows
  using tile = st<bf16, 64, 64>;
  struct shared {
    tile q, k, v, o;
    barrier q_full, kv_full;
  };
  struct globals {
    tma::map<tile> q, k, v, o;
    int kv_blocks;
    float scale_log2;  // log2(e) / sqrt(D): scores are exponentiated in base 2
  };

  static TS_KERNEL_FN void run(const globals& g, shared& s) {
    const int qb = block_index();
    if (warpid() == 0 && elect_one()) {
      init(s.q_full, 1);
      init(s.kv_full, 1);
      fence_barrier_init();
    }
    block_sync();
    if (warpid() == 0 && elect_one()) {
      expect_bytes(s.q_full, tile::bytes);
      tma::load_async(s.q, g.q, {0, 0, qb, 0}, s.q_full);
    }
    wait(s.q_full, 0);

    rt_fl<16, 64> o, sc;  // this warp's 16 rows of the output and of one block of scores
    rt_bf<16, 64> p;
    row_vec<rt_fl<16, 64>> m, m_new, m_scaled, alpha, l;
    zero(o);
    zero(l);
    fill(m, -INFINITY);
    for (int j = 0; j < g.kv_blocks; ++j) {
      if (warpid() == 0 && elect_one()) {
        expect_bytes(s.kv_full, 2 * tile::bytes);
        tma::load_async(s.k, g.k, {0, 0, j, 0}, s.kv_full);
        tma::load_async(s.v, g.v, {0, 0, j, 0}, s.kv_full);
      }
      wait(s.kv_full, j & 1);
      warpgroup::mma_fence(sc);
      warpgroup::mma_ABt(sc, s.q, s.k, false);  // S = Q K^T
      warpgroup::mma_commit_group();
      warpgroup::mma_async_wait<0>(sc);

      row_max(m_new, sc, m);                 // the running max, this block included
      sub(alpha, m, m_new);
      mul(alpha, alpha, g.scale_log2);
      exp2(alpha, alpha);                    // how much the old max overstated: e^((m - m_new) / sqrt(D))
      mul(m_scaled, m_new, g.scale_log2);
      exp2_row(sc, sc, g.scale_log2, m_scaled);  // P = e^((S - m_new) / sqrt(D))
      mul_row(o, o, alpha);                  // the output and the sum so far, rescaled to the new max
      mul(l, l, alpha);
      row_sum(l, sc, l);
      copy(m, m_new);

      copy(p, sc);
      warpgroup::mma_fence(o);
      warpgroup::mma_AB(o, p, s.v, true);   // O += P V, P from registers
      warpgroup::mma_commit_group();
      warpgroup::mma_async_wait<0>(o);
      warpgroup::sync(0);  // every warp is done with K and V before warp 0 loads the next block
    }
    div_row(o, o, l);
    warpgroup::store(s.o, o);
    fence_async_shared();
    warpgroup::sync(0);
    if (warpid() == 0 && elect_one()) {
      tma::store_async(g.o, s.o, {0, 0, qb, 0});
      tma::store_async_wait<0>();
    }
  }
};

void lab_launch(lab::Run& run) {
  const int n = run.param("N"), l = run.param("L");
  if (l % 64 != 0) lab::fail("this kernel takes whole blocks of 64 keys; L = " + std::to_string(l));
  const attention_lab::globals g{tma::make_map<attention_lab::tile>(run.in<bf16>("q")), tma::make_map<attention_lab::tile>(run.in<bf16>("k")),
                                 tma::make_map<attention_lab::tile>(run.in<bf16>("v")), tma::make_map<attention_lab::tile>(run.out<bf16>("o")),
                                 l / 64, static_cast<float>(1.4426950408889634 / std::sqrt(64.0))};
  run.launch<attention_lab>((n + 63) / 64, g);
}
