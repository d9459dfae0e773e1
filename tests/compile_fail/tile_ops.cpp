// Misuses of the tile ops that must fail to compile with a readable message (tests/compile_fail.cmake
// compiles this once per CASE and looks for the message). CASE 0 is correct and must compile.
#include "tiles/tiles.hpp"

using namespace ts;

void misuse() {
  rt_bf<16, 32> a;
  rt<bf16, 32, 16, col_l> b_col;
  rt<bf16, 32, 16> b_row;  // K x N in row_l: not a B operand of mma_AB
  rt_fl<16, 16> acc;
  rt_fl<16, 32> f;
  rt<float, 16, 32, col_l> f_col;
  st<bf16, 16, 32> s;
#if CASE == 0
  warp::mma_AB(acc, a, b_col, acc);
  add(f, a, 1.f);
  swap_layout(f_col, f);
  row_vec<rt_fl<16, 32>> v;
  row_max(v, f);
  warp::load(a, s);
  mask(f, f, -1.f, math::above_diagonal{0});
  exp2_row(f, f, 2.f, v);
  col_vec<rt_fl<16, 32>> cv;
  exp2_col(f, f, 2.f, cv);
#elif CASE == 1
  warp::mma_AB(acc, a, b_row, acc);
#elif CASE == 2
  rt<bf16, 32, 16, col_l> a_col;
  warp::mma_AB(acc, a_col, b_col, acc);
#elif CASE == 3
  add(f, f, f_col);
#elif CASE == 4
  col_vec<rt_fl<16, 32>> v;  // one value per column: not a row vector
  (void)v;
  rv<float, 16, by_thread_l> wrong;
  row_max(wrong, f);
#elif CASE == 5
  rt_fl<16, 32> g;
  swap_layout(g, f);
#elif CASE == 6
  warp::load(f, s);
#elif CASE == 7
  rt<bf16, 16, 16, col_l> short_k;
  warp::mma_AB(acc, a, short_k, acc);
#elif CASE == 8
  rt_fl<16, 16> small;
  sub(f, f, small);
#elif CASE == 9
  row_vec<rt_fl<16, 32>> rows;  // exp2_col takes one value per column
  exp2_col(f, f, 2.f, rows);
#elif CASE == 10
  mask(f, f_col, 0.f, math::columns_from{3});
#endif
}
