// The SASS behind tiles/ops/math.hpp's per-element costs: one kernel per tile op, on a 16 x 128
// fp32 register tile (64 elements per lane) as attention's softmax uses it, so that the opcodes of
// each can be counted (scripts/sass-math-costs) and set beside what the functors declare.
#include <cuda_runtime.h>

#include "tiles/tiles.hpp"

using namespace ts;

using tile = rt_fl<16, 128>;
using rows = row_vec<tile>;

// Inputs come from memory and results go back, so nothing folds away; the loads and stores are
// the same in every kernel and drop out when one subtracts the `copy_only` kernel's counts.
__device__ void load(tile& t, const float* p) {
  auto* v = reinterpret_cast<float*>(&t);
  for (int i = 0; i < 64; ++i) v[i] = p[threadIdx.x * 64 + i];
}
__device__ void keep(const tile& t, float* p) {
  auto* v = reinterpret_cast<const float*>(&t);
  for (int i = 0; i < 64; ++i) p[threadIdx.x * 64 + i] = v[i];
}
__device__ void keep(const rows& r, float* p) {
  auto* v = reinterpret_cast<const float*>(&r);
  for (int i = 0; i < 2; ++i) p[threadIdx.x * 2 + i] = v[i];
}

__global__ void copy_only(const float* in, float* out) {
  tile t;
  load(t, in);
  keep(t, out);
}
__global__ void op_add(const float* in, float* out) {
  tile t;
  load(t, in);
  add(t, t, 1.5f);
  keep(t, out);
}
__global__ void op_max(const float* in, float* out) {
  tile t;
  load(t, in);
  max(t, t, 0.5f);
  keep(t, out);
}
__global__ void op_exp2_row(const float* in, float* out, float scale) {
  tile t;
  rows m;
  load(t, in);
  fill(m, 0.25f);
  exp2_row(t, t, scale, m);
  keep(t, out);
}
__global__ void op_exp(const float* in, float* out) {
  tile t;
  load(t, in);
  exp(t, t);
  keep(t, out);
}
__global__ void op_exp2(const float* in, float* out) {
  tile t;
  load(t, in);
  exp2(t, t);
  keep(t, out);
}
__global__ void op_log(const float* in, float* out) {
  tile t;
  load(t, in);
  log(t, t);
  keep(t, out);
}
__global__ void op_div(const float* in, float* out) {
  tile t, u;
  load(t, in);
  load(u, in + 4096);
  div(t, t, u);
  keep(t, out);
}
__global__ void op_row_max(const float* in, float* out) {
  tile t;
  rows m;
  load(t, in);
  row_max(m, t);
  keep(m, out);
}
__global__ void op_row_sum(const float* in, float* out) {
  tile t;
  rows m;
  load(t, in);
  row_sum(m, t);
  keep(m, out);
}
__global__ void op_mask_causal(const float* in, float* out, int offset) {
  tile t;
  load(t, in);
  mask(t, t, -INFINITY, math::above_diagonal{offset});
  keep(t, out);
}
__global__ void op_to_bf16(const float* in, float* out) {
  tile t;
  rt_bf<16, 128> b;
  load(t, in);
  copy(b, t);
  auto* v = reinterpret_cast<const float*>(&b);
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = v[i];
}

int main() { return 0; }  // built for its SASS only
