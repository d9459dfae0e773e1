// Lab tma-copy: copy x into y, one 64 x 64 tile per block, through shared memory by TMA.
// Fill in the three TODOs (task.md says what each step does), then: tilescope lab check tma-copy
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
    // TODO(1): announce the tile's bytes on s.full (expect_bytes) and start the TMA load of tile
    //          (tile_row, tile_col) of g.in into s.t, completing on s.full. One lane of the warp
    //          does both, as above: if (elect_one()) { ... }

    // TODO(2): wait until phase 0 of s.full has completed.

    // TODO(3): store s.t into tile (tile_row, tile_col) of g.out, and wait for the store (one lane).
    (void)tile_row, (void)tile_col;
  }
};

void lab_launch(lab::Run& run) {
  const int m = run.param("M"), n = run.param("N");
  const tile_copy::globals g{tma::make_map<tile_copy::tile>(run.in<bf16>("x")), tma::make_map<tile_copy::tile>(run.out<bf16>("y")),
                             (n + 63) / 64};
  run.launch<tile_copy>((m + 63) / 64 * g.tiles_n, g);
}
