// Lab softmax-rows, the reference solution: each warp owns 16 rows of a 64 x 64 tile in registers
// and normalises them with row reductions; the exponent and its max subtraction in one exp2_row.
#include "lab.hpp"

using namespace ts;

struct softmax_tile {
  using tile = st<bf16, 64, 64>;
  static constexpr int warps = 4;
  struct shared {
    tile in, out;
    barrier full;
  };
  struct globals {
    tma::map<tile> x, y;
  };

  static TS_KERNEL_FN void run(const globals& g, shared& s) {
    const int tile_row = block_index();
    if (warpid() == 0 && elect_one()) {
      init(s.full, 1);
      fence_barrier_init();
    }
    block_sync();
    if (warpid() == 0 && elect_one()) {
      expect_bytes(s.full, tile::bytes);
      tma::load_async(s.in, g.x, {0, 0, tile_row, 0}, s.full);
    }
    wait(s.full, 0);
    rt_bf<16, 64> in;
    rt_fl<16, 64> x;
    row_vec<rt_fl<16, 64>> mx, sum;
    warp::load(in, s.in, 16 * warpid(), 0);
    copy(x, in);
    row_max(mx, x);
    // e^(x - max) = 2^(x log2(e) - max log2(e)): one fused multiply-add and one ex2 per element.
    constexpr float log2e = 1.4426950408889634f;
    mul(mx, mx, log2e);
    exp2_row(x, x, log2e, mx);
    row_sum(sum, x);
    div_row(x, x, sum);
    copy(in, x);
    warp::store(s.out, in, 16 * warpid(), 0);
    fence_async_shared();
    block_sync();
    if (warpid() == 0 && elect_one()) {
      tma::store_async(g.y, s.out, {0, 0, tile_row, 0});
      tma::store_async_wait<0>();
    }
  }
};

void lab_launch(lab::Run& run) {
  const softmax_tile::globals g{tma::make_map<softmax_tile::tile>(run.in<bf16>("x")),
                                tma::make_map<softmax_tile::tile>(run.out<bf16>("y"))};
  run.launch<softmax_tile>((run.param("M") + 63) / 64, g);
}
