// Lab swizzle-banks: y = max(x, 0) through registers. Correct, but its shared tiles have no
// swizzle: read the check's bank line, then change ONE line (the TODO) and check again.
#include "lab.hpp"

using namespace ts;

struct relu_tile {
  // TODO: a plain row-major tile puts the 8 rows one ldmatrix phase reads 128 bytes apart, all in
  //       the same 4 banks. Which shared tile of the DSL spreads them over all 32?
  using tile = lab::plain_st<bf16, 64, 64>;
  static constexpr int warps = 4;
  struct shared {
    tile in, out;
    barrier full;
  };
  struct globals {
    tma::map<tile> x, y;
    int tiles_n;
  };

  static TS_KERNEL_FN void run(const globals& g, shared& s) {
    const int tile_row = block_index() / g.tiles_n, tile_col = block_index() % g.tiles_n;
    if (warpid() == 0 && elect_one()) {
      init(s.full, 1);
      fence_barrier_init();
    }
    block_sync();
    if (warpid() == 0 && elect_one()) {
      expect_bytes(s.full, tile::bytes);
      tma::load_async(s.in, g.x, {0, 0, tile_row, tile_col}, s.full);
    }
    wait(s.full, 0);
    rt_bf<16, 64> r;  // this warp's 16 rows
    warp::load(r, s.in, 16 * warpid(), 0);
    max(r, r, 0.f);
    warp::store(s.out, r, 16 * warpid(), 0);
    fence_async_shared();  // the warps' shared writes, visible to TMA
    block_sync();
    if (warpid() == 0 && elect_one()) {
      tma::store_async(g.y, s.out, {0, 0, tile_row, tile_col});
      tma::store_async_wait<0>();
    }
  }
};

void lab_launch(lab::Run& run) {
  const int m = run.param("M"), n = run.param("N");
  const relu_tile::globals g{tma::make_map<relu_tile::tile>(run.in<bf16>("x")), tma::make_map<relu_tile::tile>(run.out<bf16>("y")),
                             (n + 63) / 64};
  run.launch<relu_tile>((m + 63) / 64 * g.tiles_n, g);
}
