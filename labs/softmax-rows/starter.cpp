// Lab softmax-rows: y = softmax of each row of x (M x 64), one 64 x 64 tile per block, 16 rows per
// warp in registers. Fill in the TODO with the tile ops of tiles/README.md (row_max, sub_row, exp,
// row_sum, div_row ...), then: tilescope lab check softmax-rows
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
    // TODO: x holds this warp's 16 rows in fp32. Make each row its softmax: subtract the row's
    //       max (so that exp cannot overflow), exponentiate, divide by the row's sum.
    (void)mx, (void)sum;
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
