// Microbenchmarks of the memory system behind `tilescope calibrate`: shared-memory bandwidth, TMA
// load latency and bandwidth and TMA stores (tiles/tma with an mbarrier), L2 and HBM latency (a
// pointer chase) and bandwidth. Cycles come from clock64 inside the kernels, times from CUDA events;
// every figure is a median.
#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/calibrate/calibrate_common.cuh"
#include "tiles/tiles.hpp"

namespace ts::kernels::calibrate::detail {
namespace {

// Reads n uint4 through L2 (ld.global.cg, L1 bypassed) `passes` times; grid-stride.
__global__ void read_kernel(const uint4* __restrict__ p, size_t n, int passes, uint32_t* sink) {
  uint32_t x = 0;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (int pass = 0; pass < passes; ++pass) {
#pragma unroll 4
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
      const uint4 v = __ldcg(p + i);
      x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  if (x == 0x9E3779B9u) sink[0] = x;  // never in practice; keeps the loads
}

// ---------------------------------------------------------------------------------------------
// TMA: boxes of 128 x 64 bf16 (16 KB, one 128-byte swizzle span wide), from a matrix 64 columns
// wide, so that tile row r is the 16 KB at r * 16 KB.

using TmaTile = st<bf16, 128, 64>;
static_assert(TmaTile::bytes == 16384 && TmaTile::block_cols == 64, "one TMA box of 16 KB");

struct TmaLatencySmem {
  TmaTile tile;
  barrier bar;
};

// One thread: tile first, first + stride, ...: issue to mbarrier wait return, one load at a time.
// With warm, each tile is loaded once untimed first (so the timed load hits L2).
__global__ void tma_latency_kernel(const __grid_constant__ tma::map<TmaTile> map, int first, int stride, int n,
                                   int warm, unsigned* cycles) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& s = *reinterpret_cast<TmaLatencySmem*>(smem);
  if (threadIdx.x != 0) return;
  ts::init(s.bar, 1);
  fence_barrier_init();
  uint32_t phase = 0;
  for (int i = 0; i < n; ++i) {
    const coord c{0, 0, first + i * stride, 0};
    if (warm) {
      ts::expect_bytes(s.bar, TmaTile::bytes);
      tma::load_async(s.tile, map, c, s.bar);
      ts::wait(s.bar, phase);
      phase ^= 1;
    }
    ts::expect_bytes(s.bar, TmaTile::bytes);
    const uint64_t c0 = clock_cycles();
    tma::load_async(s.tile, map, c, s.bar);
    ts::wait(s.bar, phase);
    const uint64_t c1 = clock_cycles();
    phase ^= 1;
    cycles[i] = static_cast<unsigned>(c1 - c0);
  }
}

constexpr int kTmaStages = 12;  // 192 KB in flight per SM
struct TmaStreamSmem {
  TmaTile tile[kTmaStages];
  barrier full[kTmaStages];
};

// One thread per block streams `loads` boxes through a ring of kTmaStages buffers, each reissued as
// soon as its previous load landed; from tiles [0, tiles) starting at a block-dependent tile.
__global__ void tma_stream_kernel(const __grid_constant__ tma::map<TmaTile> map, int tiles, int loads,
                                  BlockTiming* timing) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& s = *reinterpret_cast<TmaStreamSmem*>(smem);
  if (threadIdx.x != 0) return;
  for (int i = 0; i < kTmaStages; ++i) ts::init(s.full[i], 1);
  fence_barrier_init();
  const int first = static_cast<int>((blockIdx.x * 37ull) % tiles);
  const uint64_t c0 = clock_cycles(), t0 = global_ns();
  for (int i = 0; i < loads; ++i) {
    const int stage = i % kTmaStages, use = i / kTmaStages;
    if (use > 0) ts::wait(s.full[stage], (use - 1) & 1);
    ts::expect_bytes(s.full[stage], TmaTile::bytes);
    tma::load_async(s.tile[stage], map, {0, 0, (first + i) % tiles, 0}, s.full[stage]);
  }
  for (int i = loads > kTmaStages ? loads - kTmaStages : 0; i < loads; ++i)
    ts::wait(s.full[i % kTmaStages], (i / kTmaStages) & 1);
  const uint64_t c1 = clock_cycles(), t1 = global_ns();
  timing[blockIdx.x] = {c1 - c0, t1 - t0, sm_id(), 0};
}

// TMA stores, as the GEMM's epilogue issues them: one thread stores 16 KB boxes from a ring of
// kStoreStages shared buffers, reusing a buffer once its store has read it (wait_group.read).
// Reducing stores, as attention's backward adds dQ: 64 x 64 fp32 tiles (16 KB, its staging tile)
// added into the region.
constexpr int kStoreStages = 4;
using ReduceTile = st<float, 64, 64>;
static_assert(ReduceTile::bytes == 16384, "one 16 KB reducing store");
template <class Tile> struct StoreRing {
  Tile tile[kStoreStages];
};
using TmaStoreSmem = StoreRing<TmaTile>;

// Fills the block's staging buffers (so that the stores move defined bytes: small floats for a
// reducing store, whose sums then stay finite however often it runs) and makes the writes visible
// to the async proxy before thread 0 goes on.
template <class Ring> __device__ void fill_store_staging(Ring& s, bool small_floats) {
  auto* words = reinterpret_cast<uint32_t*>(&s);
  for (uint32_t i = threadIdx.x; i < sizeof(Ring) / 4; i += blockDim.x)
    words[i] = small_floats ? __float_as_uint(1e-3f * static_cast<float>(i % 7)) : i * 2654435761u;
  fence_async_shared();
  __syncthreads();
}

// Block b stores (or, Add, adds) tiles b, b + grid, b + 2 grid, ... (mod tiles): `stores` boxes,
// then waits for every write to complete.
template <class Tile, bool Add>
__global__ void tma_store_stream_kernel(const __grid_constant__ tma::map<Tile> map, int tiles, int stores, BlockTiming* timing) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& s = *reinterpret_cast<StoreRing<Tile>*>(smem);
  fill_store_staging(s, Add);
  if (threadIdx.x != 0) return;
  const uint64_t c0 = clock_cycles(), t0 = global_ns();
  for (int i = 0; i < stores; ++i) {
    if (i >= kStoreStages) tma::store_async_read_wait<kStoreStages - 1>();
    const int tile = static_cast<int>((blockIdx.x + uint64_t(i) * gridDim.x) % tiles);
    if constexpr (Add) tma::store_add_async(map, s.tile[i % kStoreStages], {0, 0, tile, 0});
    else tma::store_async(map, s.tile[i % kStoreStages], {0, 0, tile, 0});
  }
  tma::store_async_wait<0>();
  const uint64_t c1 = clock_cycles(), t1 = global_ns();
  timing[blockIdx.x] = {c1 - c0, t1 - t0, sm_id(), 0};
}

// One thread, one store at a time: cycles until the box is read from shared memory, and until
// its writes are complete.
__global__ void tma_store_latency_kernel(const __grid_constant__ tma::map<TmaTile> map, int first, int n,
                                         unsigned* read_cycles, unsigned* write_cycles) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& s = *reinterpret_cast<TmaStoreSmem*>(smem);
  fill_store_staging(s, false);
  if (threadIdx.x != 0) return;
  for (int i = 0; i < n; ++i) {
    const uint64_t c0 = clock_cycles();
    tma::store_async(map, s.tile[0], {0, 0, first + i, 0});
    tma::store_async_read_wait<0>();
    const uint64_t c1 = clock_cycles();
    tma::store_async_wait<0>();
    const uint64_t c2 = clock_cycles();
    read_cycles[i] = static_cast<unsigned>(c1 - c0);
    write_cycles[i] = static_cast<unsigned>(c2 - c0);
  }
}

// ---------------------------------------------------------------------------------------------
// Shared-memory bandwidth: 1024 threads, 128-bit loads, each warp reading 512 contiguous bytes
// (4 wavefronts, no conflicts), over 64 KB. The loads are volatile and their addresses rotate with
// the iteration: plain loads of loop-invariant addresses are hoisted out of the loop by ptxas.
constexpr int kSmemBandwidthBytes = 64 * 1024;
__global__ void __launch_bounds__(1024, 1) smem_bandwidth_kernel(int iters, uint32_t seed, BlockTiming* timing,
                                                                 uint32_t* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto* words = reinterpret_cast<uint32_t*>(smem);
  for (int i = threadIdx.x; i < kSmemBandwidthBytes / 4; i += blockDim.x)
    words[i] = static_cast<uint32_t>(mix(i + (uint64_t(seed) << 32)));
  __syncthreads();
  const uint32_t base = smem_addr(smem) + threadIdx.x * 16;
  uint32_t x = 0;
  const uint64_t c0 = clock_cycles(), t0 = global_ns();
  constexpr int slabs = kSmemBandwidthBytes / (1024 * 16);  // 16 KB each: one load of every thread
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < slabs; ++j) {
      uint32_t a, b, c, d;
      asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                   : "r"(base + ((i + j) % slabs) * 1024 * 16)
                   : "memory");
      x ^= a ^ b ^ c ^ d;
    }
  }
  __syncthreads();
  const uint64_t c1 = clock_cycles(), t1 = global_ns();
  if (threadIdx.x == 0) timing[blockIdx.x] = {c1 - c0, t1 - t0, sm_id(), 0};
  if (x == 0x9E3779B9u) sink[0] = x;
}

// ---------------------------------------------------------------------------------------------
// Pointer chase, one thread: each load's address is the previous load's value (ld.global.cg: L2,
// never L1). The shared store makes the second clock read wait for the load's data.
__global__ void chase_kernel(const uint32_t* __restrict__ next, uint32_t start, int hops, unsigned* cycles,
                             uint32_t* sink) {
  __shared__ uint32_t landing;
  const uint32_t slot = smem_addr(&landing);
  uint32_t p = start;
  for (int i = 0; i < hops; ++i) {
    const uint64_t c0 = clock_cycles();
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(p) : "l"(next + p) : "memory");
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(slot), "r"(p) : "memory");
    const uint64_t c1 = clock_cycles();
    cycles[i] = static_cast<unsigned>(c1 - c0);
  }
  sink[0] = p;
}

// ---------------------------------------------------------------------------------------------
// The benchmarks

// A bf16 matrix 64 columns wide and `rows` rows, random; TMA boxes of TmaTile.
struct TmaSource {
  DeviceArray<bf16> data;
  tma::map<TmaTile> map;
  int tiles;
  explicit TmaSource(size_t bytes) : data(bytes / 2), tiles(static_cast<int>(bytes / TmaTile::bytes)) {
    fill_random_bf16<<<1024, 256>>>(data.p, data.n, 5);
    TS_CHECK_LAUNCH("fill_random_bf16");
    map = tma::make_map<TmaTile>(gl<bf16>::make(data.p, 1, 1, static_cast<int64_t>(data.n / 64), 64));
  }
};
// A zeroed fp32 region 64 columns wide that reducing stores add into, tile row r at r * 16 KB.
struct ReduceTarget {
  DeviceArray<float> data;
  tma::map<ReduceTile> map;
  int tiles;
  explicit ReduceTarget(size_t bytes) : data(bytes / 4), tiles(static_cast<int>(bytes / ReduceTile::bytes)) {
    TS_CHECK(cudaMemset(data.p, 0, bytes));
    map = tma::make_map<ReduceTile>(gl<float>::make(data.p, 1, 1, static_cast<int64_t>(data.n / 64), 64));
  }
};

}  // namespace

// Evicts L2 by reading a buffer several times its size.
void flush_l2(Context& ctx) {
  if (!ctx.flush) {
    ctx.flush = std::make_unique<DeviceArray<uint4>>(ctx.sz.flush_bytes / 16);
    fill_random_u32<<<1024, 256>>>(reinterpret_cast<uint32_t*>(ctx.flush->p), ctx.flush->n * 4, 3);
    TS_CHECK_LAUNCH("fill_random_u32");
  }
  read_kernel<<<ctx.rep.sm_count * 2, 1024>>>(ctx.flush->p, ctx.flush->n, 1, reinterpret_cast<uint32_t*>(ctx.sink.p));
  TS_CHECK_LAUNCH("read_kernel (L2 flush)");
  TS_CHECK(cudaDeviceSynchronize());
}

void smem_bandwidth(Context& ctx) {
  const int sms = ctx.rep.sm_count;
  DeviceArray<BlockTiming> t(sms);
  allow_smem(smem_bandwidth_kernel, kOneBlockPerSmSmem);
  std::vector<double> per_run;
  for (int r = 0; r <= ctx.sz.reps; ++r) {
    smem_bandwidth_kernel<<<sms, 1024, kOneBlockPerSmSmem>>>(ctx.sz.smem_iters, r, t.p, reinterpret_cast<uint32_t*>(ctx.sink.p));
    TS_CHECK_LAUNCH("smem_bandwidth_kernel");
    TS_CHECK(cudaDeviceSynchronize());
    const PerSm s = per_sm(t);
    if (r > 0) per_run.push_back(double(ctx.sz.smem_iters) * kSmemBandwidthBytes / median(s.cycles));
  }
  ctx.field("smem_bandwidth_per_sm", round_to(median(per_run), 1), "bytes/cycle",
        "1024 threads per SM on every SM, ld.shared.v4 (512 contiguous bytes a warp, no conflicts) over 64 KB, " + std::to_string(ctx.sz.smem_iters) +
            " rounds; bytes / block cycles, median over SMs, then over " + std::to_string(ctx.sz.reps) + " runs");
}

void tma_latency(Context& ctx) {
  TmaSource src(size_t(64) << 20);
  const int n = ctx.sz.quick ? 8 : 64;
  DeviceArray<unsigned> c(n);
  const size_t smem = sizeof(TmaLatencySmem);
  allow_smem(tma_latency_kernel, smem);
  std::vector<double> hit, miss;
  for (int r = 0; r < ctx.sz.reps; ++r) {
    const int first = (r * 2 * n * 2) % (src.tiles - 2 * n);  // fresh tiles each run
    flush_l2(ctx);
    tma_latency_kernel<<<1, 32, smem>>>(src.map, first, 2, n, 0, c.p);
    TS_CHECK_LAUNCH("tma_latency_kernel (HBM)");
    TS_CHECK(cudaDeviceSynchronize());
    for (double v : as_doubles(c.to_host(), 1)) miss.push_back(v - ctx.overhead);
    tma_latency_kernel<<<1, 32, smem>>>(src.map, first + 1, 2, n, 1, c.p);
    TS_CHECK_LAUNCH("tma_latency_kernel (L2)");
    TS_CHECK(cudaDeviceSynchronize());
    for (double v : as_doubles(c.to_host(), 1)) hit.push_back(v - ctx.overhead);
  }
  const std::string how = "one thread, one TMA load of a 128 x 64 bf16 box (16 KB, 128-byte swizzle) at a time: mbarrier expect_tx, clock64, cp.async.bulk.tensor, mbarrier wait, clock64";
  ctx.field("tma_load_latency_l2_hit", round_to(median(hit), 1), "cycles", how + "; each box loaded once untimed just before (an L2 hit); median of " + std::to_string(hit.size()) + " loads");
  ctx.field("tma_load_latency_hbm", round_to(median(miss), 1), "cycles", how + "; boxes not touched since L2 was flushed (reading " + std::to_string(ctx.sz.flush_bytes >> 20) + " MB); median of " + std::to_string(miss.size()) + " loads");
  ctx.extra("tma_load_latency_l2_hit_p90", round_to(quantile(hit, 0.9), 1), "cycles", "90th percentile");
  ctx.extra("tma_load_latency_hbm_p90", round_to(quantile(miss, 0.9), 1), "cycles", "90th percentile");
}

void tma_bandwidth(Context& ctx) {
  // One SM, from an L2-resident 4 MB region: the SM's own TMA ceiling.
  TmaSource src(size_t(16) << 20);
  const size_t smem = sizeof(TmaStreamSmem);
  allow_smem(tma_stream_kernel, smem);
  auto run = [&](int blocks, int tiles, int loads) {
    DeviceArray<BlockTiming> t(blocks);
    tma_stream_kernel<<<blocks, 32, smem>>>(src.map, tiles, loads, t.p);  // warm-up: region into L2
    TS_CHECK_LAUNCH("tma_stream_kernel");
    TS_CHECK(cudaDeviceSynchronize());
    std::vector<double> per_run;
    for (int r = 0; r < ctx.sz.reps; ++r) {
      tma_stream_kernel<<<blocks, 32, smem>>>(src.map, tiles, loads, t.p);
      TS_CHECK_LAUNCH("tma_stream_kernel");
      TS_CHECK(cudaDeviceSynchronize());
      per_run.push_back(double(loads) * TmaTile::bytes / median(per_sm(t).cycles));
    }
    return median(per_run);
  };
  const int loads = ctx.sz.tma_loads;
  const double one = run(1, 256, loads);
  ctx.field("tma_bandwidth_per_sm", round_to(one, 1), "bytes/cycle",
        "one thread on one SM streams " + std::to_string(loads) + " TMA loads of 16 KB boxes from an L2-resident 4 MB region through " + std::to_string(kTmaStages) +
            " buffers (each reissued when its mbarrier completes); bytes / cycles, median of " + std::to_string(ctx.sz.reps) + " runs");
  const double all = run(ctx.rep.sm_count, src.tiles, std::max(64, loads / 4));
  ctx.extra("tma_bandwidth_per_sm_all_sms", round_to(all, 1), "bytes/cycle", "the same on every SM at once, from a 16 MB L2-resident region (median over SMs)");
}

// What the GEMM's epilogue meets: TMA stores alone (latency to read the staging buffer and to
// complete the write) and from every SM at once, into HBM (a region far past L2) and into L2; and
// what attention's dQ meets: reducing stores from every SM into L2.
void tma_store(Context& ctx) {
  const size_t smem = std::max<size_t>(sizeof(TmaStoreSmem), kOneBlockPerSmSmem);
  allow_smem(tma_store_latency_kernel, smem);
  allow_smem(tma_store_stream_kernel<TmaTile, false>, smem);
  allow_smem(tma_store_stream_kernel<ReduceTile, true>, smem);
  {
    TmaSource dst(size_t(64) << 20);
    const int n = ctx.sz.quick ? 8 : 64;
    DeviceArray<unsigned> rd(n), wr(n);
    std::vector<double> read, write;
    for (int r = 0; r < std::min(ctx.sz.reps, 5); ++r) {
      tma_store_latency_kernel<<<1, 128, smem>>>(dst.map, r * n, n, rd.p, wr.p);
      TS_CHECK_LAUNCH("tma_store_latency_kernel");
      TS_CHECK(cudaDeviceSynchronize());
      for (double v : as_doubles(rd.to_host(), 1)) read.push_back(v - ctx.overhead);
      for (double v : as_doubles(wr.to_host(), 1)) write.push_back(v - ctx.overhead);
    }
    const std::string how = "one thread, one TMA store of a 16 KB box (128 x 64 bf16, 128-byte swizzle) at a time, clock64 from the store to ";
    ctx.field("tma_store_latency", round_to(median(read), 1), "cycles", how + "cp.async.bulk.wait_group.read 0 returning (staging buffer free); median of " + std::to_string(read.size()));
    ctx.extra("tma_store_latency_write", round_to(median(write), 1), "cycles", how + "cp.async.bulk.wait_group 0 returning (writes complete); median of " + std::to_string(write.size()));
  }
  // Every SM streaming 16 KB stores (Add: reducing stores) into a region of `region` bytes.
  auto chip_rate = [&]<bool Add>(size_t region, int stores_per_sm) {
    using Tile = std::conditional_t<Add, ReduceTile, TmaTile>;
    std::conditional_t<Add, ReduceTarget, TmaSource> dst(region);
    const int blocks = ctx.rep.sm_count;
    DeviceArray<BlockTiming> t(blocks);
    auto once = [&] {
      tma_store_stream_kernel<Tile, Add><<<blocks, 128, smem>>>(dst.map, dst.tiles, stores_per_sm, t.p);
      TS_CHECK_LAUNCH("tma_store_stream_kernel");
    };
    once();
    TS_CHECK(cudaDeviceSynchronize());
    std::vector<double> tbs, sm_rate;
    Events ev;
    for (int r = 0; r < std::max(ctx.sz.reps, 5); ++r) {
      tbs.push_back(double(blocks) * stores_per_sm * Tile::bytes / (ev.ms(once) * 1e-3) / 1e12);
      sm_rate.push_back(double(stores_per_sm) * Tile::bytes / median(per_sm(t).cycles));
    }
    return std::pair{median(tbs), median(sm_rate)};
  };
  const size_t big = ctx.sz.hbm_bytes;
  const int hbm_stores = static_cast<int>(big / TmaTile::bytes / ctx.rep.sm_count);
  const auto [hbm, hbm_sm] = chip_rate.template operator()<false>(big, hbm_stores);
  ctx.extra("tma_store_bandwidth_hbm", round_to(hbm, 3), "TB/s",
        "every SM, one thread storing 16 KB boxes through " + std::to_string(kStoreStages) + " staging buffers (reused after wait_group.read) into a " +
            std::to_string(big >> 20) + " MB region, each box once; bytes / CUDA-event time, median");
  ctx.extra("tma_store_bytes_per_cycle_per_sm_hbm", round_to(hbm_sm, 1), "bytes/cycle", "the same run: bytes / cycles per SM, median over SMs");
  const int l2_stores = ctx.sz.quick ? 16 : 256;
  const auto [l2, l2_sm] = chip_rate.template operator()<false>(size_t(16) << 20, l2_stores);
  ctx.field("tma_store_bandwidth", round_to(l2, 3), "TB/s", "the same into a 16 MB region rewritten over and over (L2-resident); bytes / CUDA-event time, median");
  ctx.extra("tma_store_bytes_per_cycle_per_sm_l2", round_to(l2_sm, 1), "bytes/cycle", "the same run: bytes / cycles per SM, median over SMs");
  const auto [red, red_sm] = chip_rate.template operator()<true>(size_t(16) << 20, l2_stores);
  ctx.field("tma_reduce_bandwidth", round_to(red, 3), "TB/s",
            "the same with reducing stores (cp.reduce.async.bulk .add) of 64 x 64 fp32 tiles, attention's dQ staging tile, into a zeroed 16 MB fp32 region (L2-resident); bytes / CUDA-event time, median");
  ctx.extra("tma_reduce_bytes_per_cycle_per_sm_l2", round_to(red_sm, 1), "bytes/cycle", "the same run: bytes / cycles per SM, median over SMs");
}

// Dependent loads over 4096 random lines of a 16 MB region: L2 misses right after a flush, hits on the next pass.
void chase(Context& ctx) {
  const size_t words = (size_t(16) << 20) / 4, lines = words / 32;
  const int hops = ctx.sz.chase_hops;
  std::vector<uint32_t> host(words);
  std::mt19937_64 rng(20261123);
  for (auto& w : host) w = static_cast<uint32_t>(rng());
  std::vector<uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  for (int i = 0; i < hops; ++i) host[size_t(order[i]) * 32] = order[(i + 1) % hops] * 32;
  DeviceArray<uint32_t> next(words);
  TS_CHECK(cudaMemcpy(next.p, host.data(), words * 4, cudaMemcpyHostToDevice));
  DeviceArray<unsigned> c(hops);
  std::vector<double> miss, hit;
  for (int r = 0; r < std::min(ctx.sz.reps, 3); ++r) {
    flush_l2(ctx);
    for (int pass = 0; pass < 2; ++pass) {
      chase_kernel<<<1, 1>>>(next.p, order[0] * 32, hops, c.p, reinterpret_cast<uint32_t*>(ctx.sink.p));
      TS_CHECK_LAUNCH("chase_kernel");
      TS_CHECK(cudaDeviceSynchronize());
      for (double v : as_doubles(c.to_host(), 8)) (pass == 0 ? miss : hit).push_back(v - ctx.overhead);
    }
  }
  const std::string how = "one thread, dependent ld.global.cg (L1 bypassed) over " + std::to_string(hops) + " random 128-byte lines of a 16 MB region, clock64 around each load";
  ctx.field("l2_hit_latency", round_to(median(hit), 1), "cycles", how + ", second pass (every line in L2); median of " + std::to_string(hit.size()) + " loads");
  ctx.field("hbm_latency_measured", round_to(median(miss), 1), "cycles", how + ", first pass after flushing L2 (every line a miss); median of " + std::to_string(miss.size()) + " loads");
  ctx.extra("l2_hit_latency_p10", round_to(quantile(hit, 0.1), 1), "cycles", "10th percentile (near L2 partition)");
  ctx.extra("l2_hit_latency_p90", round_to(quantile(hit, 0.9), 1), "cycles", "90th percentile (far L2 partition)");
  ctx.extra("hbm_latency_p10", round_to(quantile(miss, 0.1), 1), "cycles", "10th percentile");
  ctx.extra("hbm_latency_p90", round_to(quantile(miss, 0.9), 1), "cycles", "90th percentile");
}

void l2_bandwidth(Context& ctx) {
  DeviceArray<uint4> buf((size_t(16) << 20) / 16);
  fill_random_u32<<<1024, 256>>>(reinterpret_cast<uint32_t*>(buf.p), buf.n * 4, 9);
  TS_CHECK_LAUNCH("fill_random_u32");
  const int blocks = ctx.rep.sm_count * 2, passes = ctx.sz.l2_passes;
  auto once = [&] {
    read_kernel<<<blocks, 1024>>>(buf.p, buf.n, passes, reinterpret_cast<uint32_t*>(ctx.sink.p));
    TS_CHECK_LAUNCH("read_kernel (L2)");
  };
  once();
  TS_CHECK(cudaDeviceSynchronize());
  Events ev;
  std::vector<double> tbs;
  for (int r = 0; r < std::max(ctx.sz.reps, 10); ++r) tbs.push_back(double(buf.n) * 16 * passes / (ev.ms(once) * 1e-3) / 1e12);
  ctx.field("l2_hit_bandwidth", round_to(median(tbs), 3), "TB/s",
        "all SMs (2 blocks x 1024 threads each) read a 16 MB buffer " + std::to_string(passes) + " times with ld.global.cg.v4 (L1 bypassed, L2 hits after a warm-up pass); bytes read / CUDA-event time, median of " +
            std::to_string(tbs.size()) + " runs");
}

void hbm_bandwidth(Context& ctx) {
  const size_t bytes = ctx.sz.hbm_bytes;
  DeviceArray<uint4> src(bytes / 16), dst(bytes / 16);
  fill_random_u32<<<1024, 256>>>(reinterpret_cast<uint32_t*>(src.p), src.n * 4, 13);
  TS_CHECK_LAUNCH("fill_random_u32");
  fill_random_u32<<<1024, 256>>>(reinterpret_cast<uint32_t*>(dst.p), dst.n * 4, 14);
  TS_CHECK_LAUNCH("fill_random_u32");
  auto copy = [&] { TS_CHECK(cudaMemcpyAsync(dst.p, src.p, bytes, cudaMemcpyDeviceToDevice)); };
  copy();
  copy();
  TS_CHECK(cudaDeviceSynchronize());
  Events ev;
  std::vector<double> tbs;
  for (int r = 0; r < std::max(ctx.sz.reps, 10); ++r) tbs.push_back(2.0 * bytes / (ev.ms(copy) * 1e-3) / 1e12);
  ctx.field("hbm_bandwidth_measured", round_to(median(tbs), 3), "TB/s",
        "cudaMemcpyAsync device to device of " + std::to_string(bytes >> 20) + " MB, bytes read + bytes written / CUDA-event time; median of " + std::to_string(tbs.size()) + " copies after 2 warm-ups");
  auto read = [&] {
    read_kernel<<<ctx.rep.sm_count * 2, 1024>>>(src.p, src.n, 1, reinterpret_cast<uint32_t*>(ctx.sink.p));
    TS_CHECK_LAUNCH("read_kernel (HBM)");
  };
  read();
  std::vector<double> rd;
  for (int r = 0; r < std::max(ctx.sz.reps, 10); ++r) rd.push_back(double(bytes) / (ev.ms(read) * 1e-3) / 1e12);
  ctx.extra("hbm_read_bandwidth", round_to(median(rd), 3), "TB/s", "read-only kernel (ld.global.cg.v4, all SMs) over the same buffer, bytes read / time, median");
}

}  // namespace ts::kernels::calibrate::detail
