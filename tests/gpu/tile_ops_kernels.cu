// One-block kernels over the tile ops (tiles/ops/) for tests/gpu/test_tile_ops_gpu.cpp; see
// tile_ops_kernels.hpp for what each returns. Every kernel moves its data with the ops under test
// (plain global copies, ldmatrix/stmatrix), so a wrong lane map shows up as wrong values.
#include "tests/gpu/tile_ops_kernels.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "tiles/tiles.hpp"

namespace tile_ops_gpu {
namespace {

using namespace ts;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class T> T to_type(float x) {
  if constexpr (std::is_same_v<T, float>) return x;
  else if constexpr (std::is_same_v<T, bf16>) return __float2bfloat16_rn(x);
  else return __float2half_rn(x);
}
template <class T> float to_f(T x) {
  if constexpr (std::is_same_v<T, float>) return x;
  else if constexpr (std::is_same_v<T, bf16>) return __bfloat162float(x);
  else return __half2float(x);
}

// A device array of T made from (or read back as) floats; NaN-poisoned when made from a size.
template <class T> struct Buf {
  T* p = nullptr;
  std::size_t n = 0;
  explicit Buf(std::size_t count) : n(count) {
    check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
    check(cudaMemset(p, 0xff, n * sizeof(T)), "cudaMemset");  // all ones: NaN in fp32, bf16 and fp16
  }
  explicit Buf(const std::vector<float>& v) : Buf(v.size()) {
    std::vector<T> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = to_type<T>(v[i]);
    check(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
  }
  Buf(const Buf&) = delete;
  ~Buf() { cudaFree(p); }
  std::vector<float> get() const {
    std::vector<T> h(n);
    check(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = to_f(h[i]);
    return v;
  }
  gl<T> matrix(int rows, int cols) const { return gl<T>::make(p, 1, 1, rows, cols); }
};

template <class Kernel, class... Args> void launch(Kernel k, int threads, std::size_t smem, Args... args) {
  check(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)), "cudaFuncSetAttribute");
  k<<<1, threads, smem>>>(args...);
  check(cudaGetLastError(), "launch");
  check(cudaDeviceSynchronize(), "kernel");
}

// Shared tiles carved one after another from the dynamic shared memory, 1024-byte aligned (the
// 128B swizzle repeats every 1024 bytes, and TMA and wgmma expect tiles to start there too).
struct Carve {
  char* p;
  __device__ explicit Carve(char* raw) : p(reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t{1023})) {}
  template <class S> __device__ S& take() {
    S& s = *reinterpret_cast<S*>(p);
    p += (sizeof(S) + 1023) / 1024 * 1024;
    return s;
  }
};
template <class... S> constexpr std::size_t smem_for() { return 1024 + (((sizeof(S) + 1023) / 1024 * 1024) + ...); }

extern __shared__ char smem_raw[];

// Each lane writes the elements it holds to where the fragment maps say they belong.
template <class T, int Rows, int Cols, class L> __device__ void write_fragment(const rt<T, Rows, Cols, L>& t, float* out) {
  const int lane = laneid();
#pragma unroll
  for (int i = 0; i < Rows / 16; ++i)
#pragma unroll
    for (int j = 0; j < Cols / 16; ++j)
#pragma unroll
      for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const layout::RowCol e = std::is_same_v<L, row_l> ? layout::rt_row_l_element(lane, k, h) : layout::rt_col_l_element(lane, k, h);
          const float2 p = ts::detail::to_float2(t.tiles[i][j][k]);
          out[(16 * i + e.row) * Cols + 16 * j + e.col] = h ? p.y : p.x;
        }
}

// Fills a shared tile with NaN (all ones) with every thread of the block.
template <class S> __device__ void poison(S& s) {
  for (int i = threadIdx.x; i < static_cast<int>(sizeof(S) / 4); i += blockDim.x) reinterpret_cast<uint32_t*>(&s)[i] = 0xffffffffu;
}

// ---- round trip ------------------------------------------------------------------------------------
template <class T, class L, int Threads>
__global__ void round_trip_kernel(gl<T> in, gl<T> direct, gl<T> moved, float* frag, int tile_r, int tile_c) {
  using tile = st<T, 64, 128>;
  Carve carve(smem_raw);
  tile& a = carve.take<tile>();
  tile& b = carve.take<tile>();
  poison(b);
  const coord idx{0, 0, tile_r, tile_c};
  if constexpr (Threads == 32) warp::load(a, in, idx);
  else warpgroup::load(a, in, idx);
  block_sync();
  if (warpid() == 0) {
    rt<T, R, C, L> t;
    warp::load(t, a, 16, 48);
    write_fragment(t, frag);
    warp::store(b, t, 32, 16);
  }
  block_sync();
  if constexpr (Threads == 32) {
    warp::store(direct, a, idx);
    warp::store(moved, b, idx);
  } else {
    warpgroup::store(direct, a, idx);
    warpgroup::store(moved, b, idx);
  }
}

template <class T, class L, int Threads>
RoundTrip run_round_trip(int rows, int cols, int tile_r, int tile_c, const std::vector<float>& in) {
  using tile = st<T, 64, 128>;
  Buf<T> src(in), direct(in.size()), moved(in.size());
  Buf<float> frag(R * C);
  launch(round_trip_kernel<T, L, Threads>, Threads, smem_for<tile, tile>(), src.matrix(rows, cols), direct.matrix(rows, cols),
         moved.matrix(rows, cols), frag.p, tile_r, tile_c);
  return {direct.get(), moved.get(), frag.get()};
}

// ---- element-wise ------------------------------------------------------------------------------
// A tile from a row-major R x C global matrix, through shared memory.
template <class RT, class S> __device__ void load_tile(RT& dst, S& staging, const gl<typename RT::dtype>& g, int index) {
  warp::load(staging, g, {0, 0, index, 0});
  __syncwarp();
  warp::load(dst, staging);
  __syncwarp();
}
template <class RT, class S> __device__ void store_tile(const gl<typename RT::dtype>& g, S& staging, const RT& src, int index) {
  warp::store(staging, src);
  __syncwarp();
  warp::store(g, staging, {0, 0, index, 0});
  __syncwarp();
}

template <class TD, class TS, class L>
__global__ void elementwise_kernel(gl<TS> a_in, gl<TS> b_in, gl<TD> out) {
  Carve carve(smem_raw);
  auto& s_in = carve.take<st<TS, R, C>>();
  auto& s_out = carve.take<st<TD, R, C>>();
  rt<TS, R, C, L> a, b;
  load_tile(a, s_in, a_in, 0);
  load_tile(b, s_in, b_in, 0);
  rt<TD, R, C, L> d;
  for (int op = 0; op < op_count; ++op) {
    switch (op) {
      case op_fill: fill(d, 1.25f); break;
      case op_copy: copy(d, a); break;
      case op_add: add(d, a, b); break;
      case op_sub: sub(d, a, b); break;
      case op_mul: mul(d, a, b); break;
      case op_div: div(d, a, b); break;
      case op_max: max(d, a, b); break;
      case op_min: min(d, a, b); break;
      case op_exp: exp(d, a); break;
      case op_exp2: exp2(d, a); break;
      case op_add_s: add(d, a, 0.5f); break;
      case op_rsub_s: sub(d, 1.f, a); break;
      case op_mul_s: mul(d, a, -3.f); break;
      case op_div_s: div(d, a, 4.f); break;
      case op_max_s: max(d, a, 0.f); break;
      case op_min_s: min(d, a, 0.f); break;
    }
    store_tile(out, s_out, d, op);  // rows op R .. op R + R - 1 of an (op_count R) x C matrix
  }
}

template <class TD, class TS, class L> std::vector<float> run_elementwise(const std::vector<float>& a, const std::vector<float>& b) {
  Buf<TS> da(a), db(b);
  Buf<TD> out(std::size_t{op_count} * R * C);
  launch(elementwise_kernel<TD, TS, L>, 32, smem_for<st<TS, R, C>, st<TD, R, C>>(), da.matrix(R, C), db.matrix(R, C),
         out.matrix(op_count * R, C));
  return out.get();
}

// ---- rows and columns --------------------------------------------------------------------------
// Counts vector elements whose copy in this lane differs from the copy the storing lane holds.
template <class V> __device__ void count_replica_mismatches(const V& v, int* mismatches) {
  const int lane = laneid();
  const int writer = std::is_same_v<typename V::layout, by_group_l> ? lane & ~3 : lane % 4;
#pragma unroll
  for (int b = 0; b < V::blocks; ++b)
#pragma unroll
    for (int s = 0; s < V::slots; ++s) {
      const float mine = to_float(v.data[b][s]);
      if (__float_as_uint(mine) != __float_as_uint(__shfl_sync(0xffffffffu, mine, writer))) atomicAdd(mismatches, 1);
    }
}

template <class V, class SV> __device__ void load_vector(V& dst, SV& staging, const gl<typename V::dtype>& g, int row) {
  warp::load(staging, g, {0, 0, row, 0});
  __syncwarp();
  warp::load(dst, staging);
  __syncwarp();
}
template <class V, class SV> __device__ void store_vector(const gl<typename V::dtype>& g, SV& staging, const V& src, int row, int* mismatches) {
  count_replica_mismatches(src, mismatches);
  warp::store(staging, src);
  __syncwarp();
  warp::store(g, staging, {0, 0, row, 0});
  __syncwarp();
}

template <class TT, class TV, class L>
__global__ void rowcol_kernel(gl<TT> t_in, gl<TV> racc_in, gl<TV> cacc_in, gl<TT> rb_in, gl<TT> cb_in, gl<TV> rows_out,
                              gl<TV> cols_out, gl<TT> tiles_out, int* mismatches) {
  using tile = rt<TT, R, C, L>;
  Carve carve(smem_raw);
  auto& s_tile = carve.take<st<TT, R, C>>();
  __shared__ sv<TV, R> sr;
  __shared__ sv<TV, C> sc;
  __shared__ sv<TT, R> sr_t;
  __shared__ sv<TT, C> sc_t;
  tile t;
  load_tile(t, s_tile, t_in, 0);
  row_vec<tile, TV> racc, v;
  col_vec<tile, TV> cacc, w;
  row_vec<tile> rb;
  col_vec<tile> cb;
  load_vector(racc, sr, racc_in, 0);
  load_vector(cacc, sc, cacc_in, 0);
  load_vector(rb, sr_t, rb_in, 0);
  load_vector(cb, sc_t, cb_in, 0);

  row_max(v, t);
  store_vector(rows_out, sr, v, 0, mismatches);
  sub(v, v, racc);  // the flash-attention rescale: exp2((max - old max) * scale)
  mul(v, v, 0.5f);
  exp2(v, v);
  store_vector(rows_out, sr, v, 4, mismatches);
  row_sum(v, t);
  store_vector(rows_out, sr, v, 1, mismatches);
  row_sum(v, t, racc);
  store_vector(rows_out, sr, v, 2, mismatches);
  row_max(v, t, racc);
  store_vector(rows_out, sr, v, 3, mismatches);
  col_max(w, t);
  store_vector(cols_out, sc, w, 0, mismatches);
  col_sum(w, t);
  store_vector(cols_out, sc, w, 1, mismatches);
  col_sum(w, t, cacc);
  store_vector(cols_out, sc, w, 2, mismatches);
  col_max(w, t, cacc);
  store_vector(cols_out, sc, w, 3, mismatches);

  tile d;
  sub_row(d, t, rb);
  store_tile(tiles_out, s_tile, d, 0);
  mul_row(d, t, rb);
  store_tile(tiles_out, s_tile, d, 1);
  div_row(d, t, rb);
  store_tile(tiles_out, s_tile, d, 2);
  sub_col(d, t, cb);
  store_tile(tiles_out, s_tile, d, 3);
  mul_col(d, t, cb);
  store_tile(tiles_out, s_tile, d, 4);
  div_col(d, t, cb);
  store_tile(tiles_out, s_tile, d, 5);
}

template <class TT, class TV, class L>
RowCol run_rowcol(const std::vector<float>& t, const std::vector<float>& racc, const std::vector<float>& cacc,
                  const std::vector<float>& rb, const std::vector<float>& cb) {
  Buf<TT> dt(t), drb(rb), dcb(cb);
  Buf<TV> dracc(racc), dcacc(cacc), rows(5 * R), cols(4 * C);
  Buf<TT> tiles(6 * R * C);
  Buf<int> mismatches(1);
  check(cudaMemset(mismatches.p, 0, sizeof(int)), "cudaMemset");
  launch(rowcol_kernel<TT, TV, L>, 32, smem_for<st<TT, R, C>>(), dt.matrix(R, C), dracc.matrix(1, R), dcacc.matrix(1, C),
         drb.matrix(1, R), dcb.matrix(1, C), rows.matrix(5, R), cols.matrix(4, C), tiles.matrix(6 * R, C), mismatches.p);
  int n = -1;
  check(cudaMemcpy(&n, mismatches.p, sizeof n, cudaMemcpyDeviceToHost), "cudaMemcpy");
  return {rows.get(), cols.get(), tiles.get(), n};
}

// ---- layout swap -------------------------------------------------------------------------------
template <class T> __global__ void swap_kernel(gl<T> in, gl<T> row_to_col, gl<T> col_to_row, float* frag) {
  Carve carve(smem_raw);
  auto& s = carve.take<st<T, R, C>>();
  rt<T, R, C, row_l> r, r2;
  rt<T, R, C, col_l> c, c2;
  load_tile(r, s, in, 0);
  swap_layout(c, r);
  write_fragment(c, frag);
  store_tile(row_to_col, s, c, 0);
  load_tile(c2, s, in, 0);
  swap_layout(r2, c2);
  store_tile(col_to_row, s, r2, 0);
}

template <class T> Swap run_swap(const std::vector<float>& in) {
  Buf<T> src(in), a(R * C), b(R * C);
  Buf<float> frag(R * C);
  launch(swap_kernel<T>, 32, smem_for<st<T, R, C>>(), src.matrix(R, C), a.matrix(R, C), b.matrix(R, C), frag.p);
  return {a.get(), b.get(), frag.get()};
}

// ---- MMA ---------------------------------------------------------------------------------------
template <class T, Mma V> __global__ void mma_kernel(gl<T> a_in, gl<T> b_in, gl<float> c_in, gl<float> d_out) {
  constexpr bool at = V == Mma::AtB || V == Mma::AtBt, bt = V == Mma::ABt || V == Mma::AtBt;
  using a_tile = std::conditional_t<at, rt<T, K, M, col_l>, rt<T, M, K, row_l>>;
  using b_tile = std::conditional_t<bt, rt<T, N, K, row_l>, rt<T, K, N, col_l>>;
  using a_smem = st<T, a_tile::rows, a_tile::cols>;
  using b_smem = st<T, b_tile::rows, b_tile::cols>;
  Carve carve(smem_raw);
  auto& sa = carve.take<a_smem>();
  auto& sb = carve.take<b_smem>();
  auto& sc = carve.take<st<float, M, N>>();
  a_tile a;
  b_tile b;
  rt_fl<M, N> c, d;
  load_tile(a, sa, a_in, 0);
  load_tile(b, sb, b_in, 0);
  load_tile(c, sc, c_in, 0);
  if constexpr (V == Mma::AB) warp::mma_AB(d, a, b, c);
  else if constexpr (V == Mma::ABt) warp::mma_ABt(d, a, b, c);
  else if constexpr (V == Mma::AtB) warp::mma_AtB(d, a, b, c);
  else {
    warp::mma_AtBt(c, a, b, c);  // d may be c
    d = c;
  }
  store_tile(d_out, sc, d, 0);
}

template <class T, Mma V>
std::vector<float> run_mma(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c) {
  constexpr bool at = V == Mma::AtB || V == Mma::AtBt, bt = V == Mma::ABt || V == Mma::AtBt;
  Buf<T> da(a), db(b);
  Buf<float> dc(c), dd(M * N);
  const std::size_t smem = smem_for<st<T, K, 64>, st<T, 64, 64>, st<float, M, N>>();  // room for either orientation
  launch(mma_kernel<T, V>, 32, smem, da.matrix(at ? K : M, at ? M : K), db.matrix(bt ? N : K, bt ? K : N), dc.matrix(M, N),
         dd.matrix(M, N));
  return dd.get();
}

}  // namespace

const char* name(Type t) { return t == Type::f32 ? "fp32" : t == Type::bf16 ? "bf16" : "fp16"; }

float round_to(Type t, float x) {
  if (t == Type::bf16) return to_f(to_type<bf16>(x));
  if (t == Type::f16) return to_f(to_type<fp16>(x));
  return x;
}

RoundTrip round_trip(Type t, bool col, bool wg, int rows, int cols, int tile_r, int tile_c, const std::vector<float>& in) {
#define TS_CASE(T, L, N) return run_round_trip<T, L, N>(rows, cols, tile_r, tile_c, in)
  if (t == Type::f32) { if (col) { if (wg) TS_CASE(float, col_l, 128); TS_CASE(float, col_l, 32); } if (wg) TS_CASE(float, row_l, 128); TS_CASE(float, row_l, 32); }
  if (t == Type::bf16) { if (col) { if (wg) TS_CASE(bf16, col_l, 128); TS_CASE(bf16, col_l, 32); } if (wg) TS_CASE(bf16, row_l, 128); TS_CASE(bf16, row_l, 32); }
  if (col) { if (wg) TS_CASE(fp16, col_l, 128); TS_CASE(fp16, col_l, 32); }
  if (wg) TS_CASE(fp16, row_l, 128);
  TS_CASE(fp16, row_l, 32);
#undef TS_CASE
}

std::vector<float> elementwise(Type dst, Type src, bool col, const std::vector<float>& a, const std::vector<float>& b) {
  if (dst == Type::f32 && src == Type::f32 && !col) return run_elementwise<float, float, row_l>(a, b);
  if (dst == Type::bf16 && src == Type::bf16 && !col) return run_elementwise<bf16, bf16, row_l>(a, b);
  if (dst == Type::f16 && src == Type::f16 && !col) return run_elementwise<fp16, fp16, row_l>(a, b);
  if (dst == Type::f32 && src == Type::bf16 && !col) return run_elementwise<float, bf16, row_l>(a, b);
  if (dst == Type::bf16 && src == Type::f32 && !col) return run_elementwise<bf16, float, row_l>(a, b);
  if (dst == Type::f16 && src == Type::f32 && col) return run_elementwise<fp16, float, col_l>(a, b);
  if (dst == Type::bf16 && src == Type::bf16 && col) return run_elementwise<bf16, bf16, col_l>(a, b);
  throw std::invalid_argument("elementwise: this type/layout combination is not instantiated");
}

RowCol rowcol(Type tile, Type vec, bool col, const std::vector<float>& t, const std::vector<float>& racc,
              const std::vector<float>& cacc, const std::vector<float>& rb, const std::vector<float>& cb) {
  if (tile == Type::f32 && vec == Type::f32 && !col) return run_rowcol<float, float, row_l>(t, racc, cacc, rb, cb);
  if (tile == Type::f32 && vec == Type::f32 && col) return run_rowcol<float, float, col_l>(t, racc, cacc, rb, cb);
  if (tile == Type::bf16 && vec == Type::f32 && !col) return run_rowcol<bf16, float, row_l>(t, racc, cacc, rb, cb);
  if (tile == Type::bf16 && vec == Type::bf16 && col) return run_rowcol<bf16, bf16, col_l>(t, racc, cacc, rb, cb);
  if (tile == Type::f16 && vec == Type::f16 && !col) return run_rowcol<fp16, fp16, row_l>(t, racc, cacc, rb, cb);
  throw std::invalid_argument("rowcol: this type/layout combination is not instantiated");
}

Swap swap(Type t, const std::vector<float>& in) {
  if (t == Type::f32) return run_swap<float>(in);
  if (t == Type::bf16) return run_swap<bf16>(in);
  return run_swap<fp16>(in);
}

std::vector<float> mma(Type t, Mma v, const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c) {
  if (t == Type::bf16) {
    switch (v) {
      case Mma::AB: return run_mma<bf16, Mma::AB>(a, b, c);
      case Mma::ABt: return run_mma<bf16, Mma::ABt>(a, b, c);
      case Mma::AtB: return run_mma<bf16, Mma::AtB>(a, b, c);
      case Mma::AtBt: return run_mma<bf16, Mma::AtBt>(a, b, c);
    }
  }
  if (t == Type::f16) {
    switch (v) {
      case Mma::AB: return run_mma<fp16, Mma::AB>(a, b, c);
      case Mma::ABt: return run_mma<fp16, Mma::ABt>(a, b, c);
      case Mma::AtB: return run_mma<fp16, Mma::AtB>(a, b, c);
      case Mma::AtBt: return run_mma<fp16, Mma::AtBt>(a, b, c);
    }
  }
  throw std::invalid_argument("mma: bf16 or fp16 inputs");
}

}  // namespace tile_ops_gpu
