// Lab pipelined-gemm, the reference solution: C = A B on the pipeline template with two stages, so
// that the producer's TMA loads of slice k+1 run while the consumer's wgmma works on slice k.
#include "lab.hpp"

using namespace ts;

template <int Stages>
struct gemm_lab {
  static constexpr int consumers = 1, stages = Stages, producer_registers = 40, consumer_registers = 232;
  static constexpr int block_m = 64, block_n = 128, block_k = 64, store_cols = 32;
  using a_tile = st<bf16, block_m, block_k>;
  using b_tile = st<bf16, block_k, block_n>;
  using c_tile = st<float, block_m, store_cols>;  // C leaves in four 32-column chunks

  struct globals {
    tma::map<a_tile> a;
    tma::map<b_tile> b;
    tma::map<c_tile> c;
    int tiles_m, tiles_n, k_iters;
  };
  struct input_stage {
    a_tile a;
    b_tile b;
  };
  struct output_stage {
    c_tile c;
  };
  struct consumer_state {
    rt_fl<16, block_n> acc;  // this warp's 16 rows of the 64 x 128 accumulator
  };

  static TS_KERNEL_FN int num_tiles(const globals& g) { return g.tiles_m * g.tiles_n; }
  static TS_KERNEL_FN int iterations(const globals& g) { return g.k_iters; }

  static TS_KERNEL_FN void load(input_stage& in, const globals& g, int tile, int k, barrier& full) {
    const int tm = tile / g.tiles_n, tn = tile % g.tiles_n;
    tma::load_async(in.a, g.a, {0, 0, tm, k}, full);
    tma::load_async(in.b, g.b, {0, 0, k, tn}, full);
  }

  static TS_KERNEL_FN void compute(consumer_state& s, input_stage& in, int, int k) {
    if (k == 0) warpgroup::mma_fence(s.acc);
    warpgroup::mma_AB(s.acc, in.a, in.b, k > 0);
    warpgroup::mma_commit_group();
    // With two stages the newest slice's MMA may stay in flight: its stage is released one
    // iteration later (the template's release lag), so the producer can already refill the other.
    warpgroup::mma_async_wait<sched::release_lag(Stages)>(s.acc);
  }

  static TS_KERNEL_FN void compute_done(consumer_state& s) { warpgroup::mma_async_wait<0>(s.acc); }

  static TS_KERNEL_FN void store(consumer_state& s, output_stage& out, const globals& g, int tile, int consumer) {
    const int tm = tile / g.tiles_n, tn = tile % g.tiles_n;
    const bool leader = warpgroup::warpid() == 0 && elect_one();
    for (int j = 0; j < block_n / store_cols; ++j) {
      if (leader) tma::store_async_read_wait<0>();  // the previous chunk has left the staging tile
      warpgroup::sync(consumer);
      warpgroup::store(out.c, s.acc, j * store_cols);
      fence_async_shared();
      warpgroup::sync(consumer);
      if (leader) tma::store_async(g.c, out.c, {0, 0, tm, tn * (block_n / store_cols) + j});
    }
  }

  static TS_KERNEL_FN void finish(output_stage&, const globals&, int) {
    if (warpgroup::warpid() == 0 && elect_one()) tma::store_async_wait<0>();
  }
};

using kernel = gemm_lab<2>;

void lab_launch(lab::Run& run) {
  const int m = run.param("M"), n = run.param("N"), k = run.param("K");
  const kernel::globals g{tma::make_map<kernel::a_tile>(run.in<bf16>("a")), tma::make_map<kernel::b_tile>(run.in<bf16>("b")),
                          tma::make_map<kernel::c_tile>(run.out<float>("c")), (m + kernel::block_m - 1) / kernel::block_m,
                          (n + kernel::block_n - 1) / kernel::block_n, (k + kernel::block_k - 1) / kernel::block_k};
  run.launch<kernel>(g.tiles_m * g.tiles_n, g);  // num_tiles is device code (TS_KERNEL_FN): the host counts again
}
