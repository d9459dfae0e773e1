// Lab warp-specialization, the reference solution: a GEMM block of three warpgroups with roles. The
// producer (warpgroup 2) gives back registers it does not need and streams slices of A and B by
// TMA into a two-stage ring; the two consumers take them and multiply with wgmma. Two mbarriers
// per stage: full (the producer's bytes have landed) and empty (every consumer warp is done with it).
#include "lab.hpp"

using namespace ts;

struct ws_gemm {
  static constexpr int warps = 12, consumers = 2, stages = 2;
  static constexpr int block_m = 64 * consumers, block_n = 128, block_k = 64;
  using a_tile = st<bf16, 64, block_k>;  // one consumer's 64 rows
  using b_tile = st<bf16, block_k, block_n>;
  using c_tile = st<float, 64, 32>;
  struct shared {
    struct stage {
      a_tile a[consumers];
      b_tile b;
    } ring[stages];
    c_tile c[consumers];
    barrier full[stages], empty[stages];
  };
  struct globals {
    tma::map<a_tile> a;
    tma::map<b_tile> b;
    tma::map<c_tile> c;
    int tiles_n, k_iters;
  };

  static TS_KERNEL_FN void run(const globals& g, shared& s) {
    const int tm = block_index() / g.tiles_n, tn = block_index() % g.tiles_n;
    if (warpid() == 0 && elect_one()) {  // one thread initialises (on the GPU every lane would)
      for (int i = 0; i < stages; ++i) {
        init(s.full[i], 1);                 // the producer's expect_bytes
        init(s.empty[i], 4 * consumers);    // one arrival per consumer warp
      }
      fence_barrier_init();
    }
    block_sync();

    if (warpgroup::groupid() == consumers) {  // the producer
      // 40 registers per thread are plenty to issue TMA: the consumers get the rest.
      warpgroup::decrease_registers<40>();
      if (warpgroup::warpid() == 0 && elect_one()) {  // one thread issues the TMA loads
        for (int k = 0; k < g.k_iters; ++k) {
          const int st = k % stages;
          const uint32_t phase = (k / stages) & 1;
          wait(s.empty[st], phase ^ 1);  // a fresh barrier counts the phase before it as done
          expect_bytes(s.full[st], sizeof(typename shared::stage));
          for (int c = 0; c < consumers; ++c) tma::load_async(s.ring[st].a[c], g.a, {0, 0, tm * consumers + c, k}, s.full[st]);
          tma::load_async(s.ring[st].b, g.b, {0, 0, k, tn}, s.full[st]);
        }
      }
      return;
    }
    warpgroup::increase_registers<232>();  // the accumulator lives here: 64 fp32 per thread and more
    const int consumer = warpgroup::groupid();
    rt_fl<16, block_n> acc;
    for (int k = 0; k < g.k_iters; ++k) {
      const int st = k % stages;
      wait(s.full[st], (k / stages) & 1);
      if (k == 0) warpgroup::mma_fence(acc);
      warpgroup::mma_AB(acc, s.ring[st].a[consumer], s.ring[st].b, k > 0);
      warpgroup::mma_commit_group();
      warpgroup::mma_async_wait<0>(acc);
      if (elect_one()) arrive(s.empty[st]);  // this warp is done with the stage: one arrival per warp
    }
    const bool leader = warpgroup::warpid() == 0 && elect_one();
    for (int j = 0; j < block_n / 32; ++j) {
      if (leader) tma::store_async_read_wait<0>();
      warpgroup::sync(consumer);
      warpgroup::store(s.c[consumer], acc, j * 32);
      fence_async_shared();
      warpgroup::sync(consumer);
      if (leader) tma::store_async(g.c, s.c[consumer], {0, 0, tm * consumers + consumer, tn * (block_n / 32) + j});
    }
    if (leader) tma::store_async_wait<0>();
  }
};

void lab_launch(lab::Run& run) {
  const int m = run.param("M"), n = run.param("N"), k = run.param("K");
  const ws_gemm::globals g{tma::make_map<ws_gemm::a_tile>(run.in<bf16>("a")), tma::make_map<ws_gemm::b_tile>(run.in<bf16>("b")),
                           tma::make_map<ws_gemm::c_tile>(run.out<float>("c")), (n + ws_gemm::block_n - 1) / ws_gemm::block_n,
                           (k + ws_gemm::block_k - 1) / ws_gemm::block_k};
  run.launch<ws_gemm>((m + ws_gemm::block_m - 1) / ws_gemm::block_m * g.tiles_n, g);
}
