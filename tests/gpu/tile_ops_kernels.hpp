#pragma once
// Small one-block kernels that run the tile ops of tiles/ops/ on the GPU (tile_ops_kernels.cu), for
// tests/gpu/test_tile_ops_gpu.cpp, which checks them against double-precision loops. Data crosses
// this interface as float (values the element type holds exactly); outputs are poisoned with NaN
// before each kernel, so an element nobody wrote reads as NaN. Every call throws std::runtime_error
// on a CUDA error.
#include <vector>

namespace tile_ops_gpu {

enum class Type { f32, bf16, f16 };
const char* name(Type t);
// x rounded to nearest even in type t (what the kernels see of an input).
float round_to(Type t, float x);

// The register tile of the element-wise, row/column and swap kernels.
inline constexpr int R = 32, C = 64;

// Global -> shared (64 x 128 tile (tile_r, tile_c) of a rows x cols tensor, by a warp or a
// warpgroup) -> registers (rows 16..47, columns 48..111 of it, row_l or col_l) -> shared (at rows
// 32..63, columns 16..79 of a second, NaN-filled tile) -> global (the same tile of a rows x cols
// tensor). `direct` is the first shared tile stored straight back; `frag` is the register tile as
// the lanes hold it, each element written where tiles/layout/fragments.hpp says it belongs.
struct RoundTrip {
  std::vector<float> direct, moved, frag;  // rows x cols, rows x cols, R x C
};
RoundTrip round_trip(Type t, bool col_l, bool warpgroup, int rows, int cols, int tile_r, int tile_c,
                     const std::vector<float>& in);

// Element-wise ops on R x C tiles: dst type `dst`, both sources of type `src`.
enum Op : int { op_fill, op_copy, op_add, op_sub, op_mul, op_div, op_max, op_min, op_exp, op_exp2,
                op_add_s, op_rsub_s, op_mul_s, op_div_s, op_max_s, op_min_s, op_count };
// op_count R x C results, in Op order. Scalars: fill 1.25, a + 0.5, 1 - a, a * -3, a / 4, max(a, 0), min(a, 0).
std::vector<float> elementwise(Type dst, Type src, bool col_l, const std::vector<float>& a, const std::vector<float>& b);

// Reductions and broadcasts of an R x C tile `t` of type `tile`, vectors of type `vec`:
//  rows (5 x R): row_max(t), row_sum(t), row_sum(t, racc), row_max(t, racc), exp2((row_max(t) - racc) * 0.5)
//  cols (4 x C): col_max(t), col_sum(t), col_sum(t, cacc), col_max(t, cacc)
//  tiles (6 x R x C): sub_row, mul_row, div_row with rb, sub_col, mul_col, div_col with cb (vectors of the tile's type)
//  replica_mismatches: vector elements whose copies in different lanes differ (must be 0)
struct RowCol {
  std::vector<float> rows, cols, tiles;
  int replica_mismatches = -1;
};
RowCol rowcol(Type tile, Type vec, bool col_l, const std::vector<float>& t, const std::vector<float>& racc,
              const std::vector<float>& cacc, const std::vector<float>& rb, const std::vector<float>& cb);

// swap_layout: loaded row_l, swapped and stored as col_l; loaded col_l, swapped and stored as row_l;
// and the swapped col_l tile as its lanes hold it (fragment maps), all R x C.
struct Swap {
  std::vector<float> row_to_col, col_to_row, frag;
};
Swap swap(Type t, const std::vector<float>& in);

// warp::mma_* with bf16/fp16 inputs: d = a b + c, M x N x K. The tensors are given as each variant
// takes them: a M x K (AB, ABt) or K x M (AtB, AtBt); b K x N (AB, AtB) or N x K (ABt, AtBt); c M x N fp32.
enum class Mma { AB, ABt, AtB, AtBt };
inline constexpr int M = 32, N = 48, K = 64;
std::vector<float> mma(Type t, Mma variant, const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c);

}  // namespace tile_ops_gpu
