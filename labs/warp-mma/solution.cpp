// Lab warp-mma, the reference solution: one warp per 16 x 16 tile of C = A B, four k16 steps of
// mma.sync over a 64-deep slab of A and B brought in by TMA.
#include "lab.hpp"

using namespace ts;

struct mma16 {
  using a_tile = st<bf16, 16, 64>;  // 16 rows of A, all 64 of K
  using b_tile = st<bf16, 64, 16>;  // all 64 of K, 16 columns of B
  using c_tile = st<float, 16, 16>;
  static constexpr int warps = 1;
  struct shared {
    a_tile a;
    b_tile b;
    c_tile c;
    barrier full;
  };
  struct globals {
    tma::map<a_tile> a;
    tma::map<b_tile> b;
    tma::map<c_tile> c;
    int tiles_n;
  };

  static TS_KERNEL_FN void run(const globals& g, shared& s) {
    const int tm = block_index() / g.tiles_n, tn = block_index() % g.tiles_n;
    if (elect_one()) {  // one lane acts for the warp (on the CPU a warp is one thread: always true)
      init(s.full, 1);
      fence_barrier_init();
      expect_bytes(s.full, a_tile::bytes + b_tile::bytes);
      tma::load_async(s.a, g.a, {0, 0, tm, 0}, s.full);
      tma::load_async(s.b, g.b, {0, 0, 0, tn}, s.full);
    }
    warp::sync();  // the other lanes wait on an initialised barrier
    wait(s.full, 0);
    rt_bf<16, 16> a;          // the mma's A operand: row layout
    rt_bf<16, 16, col_l> b;   // its B operand: column layout (ldmatrix.trans from the row-major tile)
    rt_fl<16, 16> c;
    zero(c);
    for (int k = 0; k < 64; k += 16) {
      warp::load(a, s.a, 0, k);
      warp::load(b, s.b, k, 0);
      warp::mma_AB(c, a, b, c);
    }
    warp::store(s.c, c);
    fence_async_shared();
    warp::sync();  // every lane's part of s.c is written before one lane stores the tile
    if (elect_one()) {
      tma::store_async(g.c, s.c, {0, 0, tm, tn});
      tma::store_async_wait<0>();
    }
  }
};

void lab_launch(lab::Run& run) {
  const int m = run.param("M"), n = run.param("N");
  const mma16::globals g{tma::make_map<mma16::a_tile>(run.in<bf16>("a")), tma::make_map<mma16::b_tile>(run.in<bf16>("b")),
                         tma::make_map<mma16::c_tile>(run.out<float>("c")), (n + 15) / 16};
  run.launch<mma16>((m + 15) / 16 * g.tiles_n, g);
}
