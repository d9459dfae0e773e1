// Lab tma-copy, the reference solution: one 64 x 64 tile per block, in by TMA, out by TMA.
#include "lab.hpp"

using namespace ts;

struct tile_copy {
  using tile = st<bf16, 64, 64>;
  static constexpr int warps = 1;
  struct shared {
    tile t;
    barrier full;
  };
  struct globals {
    tma::map<tile> in, out;
    int tiles_n;  // tiles per row of the matrix
  };

  static TS_KERNEL_FN void run(const globals& g, shared& s) {
    const int tile_row = block_index() / g.tiles_n, tile_col = block_index() % g.tiles_n;
    if (elect_one()) {  // one lane acts for the warp (on the CPU a warp is one thread: always true)
      init(s.full, 1);
      fence_barrier_init();
    }
    warp::sync();  // the other lanes see the initialised barrier before they wait on it
    if (elect_one()) {
      expect_bytes(s.full, tile::bytes);
      tma::load_async(s.t, g.in, {0, 0, tile_row, tile_col}, s.full);
    }
    wait(s.full, 0);
    if (elect_one()) {
      tma::store_async(g.out, s.t, {0, 0, tile_row, tile_col});
      tma::store_async_wait<0>();
    }
  }
};

void lab_launch(lab::Run& run) {
  const int m = run.param("M"), n = run.param("N");
  const tile_copy::globals g{tma::make_map<tile_copy::tile>(run.in<bf16>("x")), tma::make_map<tile_copy::tile>(run.out<bf16>("y")),
                             (n + 63) / 64};
  run.launch<tile_copy>((m + 63) / 64 * g.tiles_n, g);
}
