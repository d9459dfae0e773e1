// Microbenchmark of the SM's shared-memory port behind `tilescope calibrate --only port`: what the
// warps' own shared loads and stores get while wgmma reads its operands from shared memory. Two
// warpgroups issue wgmma m64nNk16 bf16 back to back (A and B from shared memory, or A from
// registers), a third streams 16-byte ld.shared or st.shared (512 contiguous bytes a warp, no bank
// conflicts), or stores fp32 accumulators with warpgroup::store, until both are through. One block
// per SM on every SM; medians over SMs, then over runs.
#include <string>
#include <vector>

#include "kernels/calibrate/calibrate_common.cuh"
#include "tiles/tiles.hpp"

namespace ts::kernels::calibrate::detail {
namespace {

enum class Operands { none, shared, a_in_registers };  // none: the MMA warpgroups only wait
// accumulator: the third warpgroup stores an fp32 64 x 64 accumulator tile into a staging tile with
// warpgroup::store (8-byte stores, conflict-free: attention backward's dQ shares), 16 KB a store.
enum class Access { none, load, store, accumulator };

template <int N>
struct PortSmem {
  st<bf16, 64, 64> a[2];
  st<bf16, 64, N> b;
  alignas(1024) uint4 stream[4096];  // 64 KB the third warpgroup walks
  int mma_done;
};

struct PortTiming {
  unsigned long long mma_cycles, stream_cycles, stream_bytes;
};

template <int N, Operands Ops, Access Acc>
__global__ void __launch_bounds__(384, 1) port_kernel(int iters, PortTiming* out, float* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto& s = *reinterpret_cast<PortSmem<N>*>(smem);
  fill_tile(s.a[0], 1);
  fill_tile(s.a[1], 2);
  fill_tile(s.b, 3);
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) s.stream[i] = make_uint4(i, 3 * i, 5 * i, 7 * i);
  if (threadIdx.x == 0) s.mma_done = 0;
  fence_async_shared();
  __syncthreads();
  const int wg = warpgroup::groupid();
  if (wg < 2) {
    rt_fl<16, N> acc;
    zero(acc);
    rt_bf<16, 64> a;
    warp::load(a, s.a[wg], 16 * warpgroup::warpid(), 0);
    warpgroup::mma_fence(acc);
    const uint64_t c0 = clock_cycles();
    if constexpr (Ops == Operands::none) {
      while (clock_cycles() - c0 < uint64_t(iters) * 128) {}
    } else {
      for (int i = 0; i < iters; ++i) {  // 4 instructions each (K = 64)
        if constexpr (Ops == Operands::shared) warpgroup::mma_AB(acc, s.a[wg], s.b, true);
        else warpgroup::mma_AB(acc, a, s.b, true);
        warpgroup::mma_commit_group();
        warpgroup::mma_async_wait<1>(acc);
      }
      warpgroup::mma_async_wait<0>(acc);
    }
    const uint64_t c1 = clock_cycles();
    if (threadIdx.x % 128 == 0) atomicAdd(&s.mma_done, 1);
    if (threadIdx.x == 0) out[blockIdx.x].mma_cycles = c1 - c0;
    const float x = checksum(acc);
    if (x == 1234567.f) sink[0] = x;  // keeps the accumulators live
  } else if constexpr (Acc == Access::accumulator) {
    using staging = st<float, 64, 64>;  // four of them fill the 64 KB stream
    static_assert(4 * sizeof(staging) <= sizeof(s.stream));
    staging* tiles = reinterpret_cast<staging*>(s.stream);
    rt_fl<16, 64> acc;
    zero(acc);
    const volatile int* done = &s.mma_done;
    unsigned long long n = 0;
    const uint64_t c0 = clock_cycles();
    while (*done < 2) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        warpgroup::store(tiles[j], acc);
        asm volatile("" ::: "memory");  // every store happens: none is dead behind the next
      }
      n += 4;
    }
    const uint64_t c1 = clock_cycles();
    if (threadIdx.x == 256) {
      out[blockIdx.x].stream_cycles = c1 - c0;
      out[blockIdx.x].stream_bytes = n * sizeof(staging);
    }
    if (checksum(acc) == 1234567.f) sink[1] = 1.f;
  } else if constexpr (Acc != Access::none) {
    const uint32_t base = smem_addr(s.stream) + (threadIdx.x % 128) * 16;
    const volatile int* done = &s.mma_done;
    uint32_t x = 0;
    unsigned long long n = 0;
    const uint64_t c0 = clock_cycles();
    while (*done < 2) {
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        const uint32_t addr = base + j * 2048;
        if constexpr (Acc == Access::load) {
          uint32_t a, b, c, d;
          asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr) : "memory");
          x ^= a ^ b ^ c ^ d;
        } else {
          asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(x), "r"(x + 1), "r"(x + 2), "r"(j) : "memory");
        }
      }
      n += 16;
    }
    const uint64_t c1 = clock_cycles();
    if (threadIdx.x == 256) {
      out[blockIdx.x].stream_cycles = c1 - c0;
      out[blockIdx.x].stream_bytes = n * 16 * 128;
    }
    if (x == 0x9E3779B9u) sink[1] = static_cast<float>(x);
  }
}

struct PortRun {
  double cycles_per_mma, stream_bytes_per_cycle;
};

// Medians over SMs, then over runs (after one warm-up).
template <int N, Operands Ops, Access Acc>
PortRun port_run(Context& ctx) {
  const int sms = ctx.rep.sm_count;
  DeviceArray<PortTiming> t(sms);
  constexpr size_t need = sizeof(PortSmem<N>);
  const size_t smem = std::max<size_t>(need, kOneBlockPerSmSmem);
  allow_smem(port_kernel<N, Ops, Acc>, smem);
  // About 2 ms of MMAs at 4096 FLOP per cycle per SM and the maximum clock (4 instructions an iteration).
  const int iters = std::max(1, static_cast<int>((ctx.sz.quick ? 0.05 : 2.0) * 1e-3 * ctx.max_mhz * 1e6 / (2 * 4 * (N / 2.0))));
  std::vector<double> mma, stream;
  for (int r = 0; r <= ctx.sz.reps; ++r) {
    TS_CHECK(cudaMemset(t.p, 0, sizeof(PortTiming) * sms));
    port_kernel<N, Ops, Acc><<<sms, 384, smem>>>(iters, t.p, ctx.sink.p);
    TS_CHECK_LAUNCH("port_kernel");
    TS_CHECK(cudaDeviceSynchronize());
    if (r == 0) continue;
    std::vector<double> m, b;
    for (const auto& x : t.to_host()) {
      m.push_back(double(x.mma_cycles) / (2.0 * 4 * iters));
      if (x.stream_cycles > 0) b.push_back(double(x.stream_bytes) / double(x.stream_cycles));
    }
    mma.push_back(median(m));
    if (!b.empty()) stream.push_back(median(b));
  }
  return {median(mma), stream.empty() ? 0.0 : median(stream)};
}

}  // namespace

void smem_port(Context& ctx) {
  const std::string setup = "one block per SM on all " + std::to_string(ctx.rep.sm_count) +
                            " SMs: two warpgroups issue wgmma m64n64k16 bf16 with A from registers and B from shared memory "
                            "(64 bytes a cycle of operand reads; commit, wait_group 1), a third streams 16-byte ";
  const std::string how = " (512 contiguous bytes a warp, no bank conflicts) until both are through; bytes / cycles of the "
                          "third, median over SMs, then over " + std::to_string(ctx.sz.reps) + " runs";
  const PortRun load = port_run<64, Operands::a_in_registers, Access::load>(ctx);
  const PortRun store = port_run<64, Operands::a_in_registers, Access::store>(ctx);
  ctx.field("lsu_load_bytes_under_wgmma", round_to(load.stream_bytes_per_cycle, 1), "bytes/cycle", setup + "ld.shared.v4" + how);
  ctx.field("lsu_store_bytes_under_wgmma", round_to(store.stream_bytes_per_cycle, 1), "bytes/cycle", setup + "st.shared.v4" + how);
  const std::string same = "the same setup";
  ctx.extra("lsu_load_bytes_alone", round_to(port_run<64, Operands::none, Access::load>(ctx).stream_bytes_per_cycle, 1), "bytes/cycle",
            same + ", the MMA warpgroups only waiting");
  ctx.extra("lsu_store_bytes_alone", round_to(port_run<64, Operands::none, Access::store>(ctx).stream_bytes_per_cycle, 1), "bytes/cycle",
            same + ", stores, the MMA warpgroups only waiting");
  const PortRun ss64 = port_run<64, Operands::shared, Access::load>(ctx);
  ctx.extra("lsu_load_bytes_under_wgmma_ss_n64", round_to(ss64.stream_bytes_per_cycle, 1), "bytes/cycle",
            same + " with A from shared memory too (128 bytes a cycle of operand reads: the port's whole rate)");
  ctx.extra("wgmma_m64n64k16_interval_beside_loads", round_to(ss64.cycles_per_mma, 2), "cycles/instruction", "the SM's wgmma interval in that run");
  // The accumulator's own store (warpgroup::store of fp32 into a staging tile, 8-byte stores), in case
  // the port counted instructions rather than bytes (H100, 2026-11-27: it does not; smem-port.txt).
  ctx.extra("accumulator_store_bytes_alone", round_to(port_run<64, Operands::none, Access::accumulator>(ctx).stream_bytes_per_cycle, 1),
            "bytes/cycle", "the third warpgroup storing fp32 64 x 64 accumulators with warpgroup::store (8-byte stores), MMA warpgroups waiting");
  ctx.extra("accumulator_store_bytes_under_wgmma", round_to(port_run<64, Operands::a_in_registers, Access::accumulator>(ctx).stream_bytes_per_cycle, 1),
            "bytes/cycle", "the same beside wgmma m64n64k16 with A from registers (as attention backward's dK and dV)");
  ctx.extra("accumulator_store_bytes_under_wgmma_ss", round_to(port_run<64, Operands::shared, Access::accumulator>(ctx).stream_bytes_per_cycle, 1),
            "bytes/cycle", "the same beside wgmma m64n64k16 with A and B from shared memory (as its S and dP)");
  const PortRun ss256 = port_run<256, Operands::shared, Access::store>(ctx);
  ctx.extra("lsu_store_bytes_under_wgmma_ss_n256", round_to(ss256.stream_bytes_per_cycle, 1), "bytes/cycle",
            same + " with m64n256k16, A and B from shared memory (80 bytes a cycle of operand reads), stores");
  ctx.extra("wgmma_m64n256k16_interval_beside_stores", round_to(ss256.cycles_per_mma, 2), "cycles/instruction", "the SM's wgmma interval in that run");
}

}  // namespace ts::kernels::calibrate::detail
