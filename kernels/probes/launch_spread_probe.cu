// When the CTAs of one launch start. The simulator starts every block of a grid in the same cycle;
// if the GPU's block scheduler hands CTAs to SMs one after another, a short kernel (a GEMM with
// K = 64 runs one k-step per tile) meets its first loads spread over that time, and its L2 serves
// fewer requests from lookups still in flight than a simulator that starts them together
// (issue 14 item 5: the skinny rows' L2 hit rate). Measured on the H100 (data/measured/h100/
// launch-spread.txt): the bare grid starts within 64 ns; the GEMM's own first loads spread over
// about 0.34 us, each CTA's setup, which is what the machine file's block_start_spread holds.
//
// Each CTA's thread 0 reads %globaltimer and takes a ticket (the order CTAs reached their first
// instruction) as it starts, then the CTA waits about 20 us so that the whole grid is resident at
// once; a one-CTA-per-SM shared-memory request makes the grid one wave. First the timer's step (the
// smallest change between two reads) is measured, since the spread is only as fine as that.
//
// Prints per configuration (threads, shared memory, grid) the median over launches of: the spread
// (last start - first), and the start of the CTA at each eighth of the ticket order; then whether
// the ticket order follows blockIdx.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "kernels/device_clock.cuh"
#include "kernels/probes/check_cuda.cuh"

__global__ void timer_step(unsigned long long* out) {
  unsigned long long smallest = ~0ull, last = global_ns(), changes = 0;
  const unsigned long long first = last;
  for (int i = 0; i < 200000; ++i) {
    const unsigned long long t = global_ns();
    if (t != last) {
      if (t - last < smallest) smallest = t - last;
      ++changes;
      last = t;
    }
  }
  out[0] = smallest, out[1] = changes, out[2] = last - first;
}

struct Start {
  unsigned long long ns;
  unsigned ticket, sm;
};

__global__ void record_start(Start* starts, unsigned* next_ticket) {
  if (threadIdx.x == 0) {
    const unsigned long long ns = global_ns();
    const unsigned ticket = atomicAdd(next_ticket, 1u);
    starts[blockIdx.x] = {ns, ticket, sm_id()};
  }
  const long long start = clock64();
  while (clock64() - start < 40000) {
  }
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int main() {
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs\n", prop.name, sms);

  unsigned long long* d_step = nullptr;
  unsigned long long step[3];
  CHECK_CUDA(cudaMalloc(&d_step, sizeof(step)));
  timer_step<<<1, 1>>>(d_step);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(step, d_step, sizeof(step), cudaMemcpyDeviceToHost));
  std::printf("globaltimer: smallest step %llu ns, %llu changes in %llu ns of reading\n", step[0], step[1], step[2]);

  Start* d_starts = nullptr;
  unsigned* d_ticket = nullptr;
  CHECK_CUDA(cudaMalloc(&d_starts, sms * sizeof(Start)));  // no configuration below launches more CTAs
  CHECK_CUDA(cudaMalloc(&d_ticket, sizeof(unsigned)));
  const int big_smem = int(prop.sharedMemPerBlockOptin);
  CHECK_CUDA(cudaFuncSetAttribute(record_start, cudaFuncAttributeMaxDynamicSharedMemorySize, big_smem));

  struct Config {
    int threads, smem, grid;
  };
  // 384 threads and all the shared memory a block may have: the GEMM's and attention's CTAs.
  const Config configs[] = {{384, big_smem, sms}, {384, big_smem, 128}, {128, big_smem, sms}, {384, 0, sms}, {32, 0, sms}};
  constexpr int kLaunches = 30;
  std::printf("%-34s %10s   start of the k-th CTA to start (ns after the first), k = grid x 1/8 .. 8/8     order\n", "config", "spread");
  for (const Config& c : configs) {
    std::vector<double> spread;
    std::vector<std::vector<double>> at_eighth(8);
    int follows_block = 0;
    for (int launch = 0; launch < kLaunches; ++launch) {
      CHECK_CUDA(cudaMemset(d_ticket, 0, sizeof(unsigned)));
      record_start<<<c.grid, c.threads, c.smem>>>(d_starts, d_ticket);
      CHECK_CUDA(cudaGetLastError());
      std::vector<Start> s(c.grid);
      CHECK_CUDA(cudaMemcpy(s.data(), d_starts, c.grid * sizeof(Start), cudaMemcpyDeviceToHost));
      std::vector<unsigned long long> ns(c.grid);
      for (int b = 0; b < c.grid; ++b) ns[b] = s[b].ns;
      std::sort(ns.begin(), ns.end());
      spread.push_back(double(ns.back() - ns.front()));
      for (int e = 0; e < 8; ++e) at_eighth[e].push_back(double(ns[(e + 1) * c.grid / 8 - 1] - ns.front()));
      // Ticket order against blockIdx: how many blocks took the ticket equal to their index.
      int same = 0;
      for (int b = 0; b < c.grid; ++b) same += s[b].ticket == unsigned(b);
      follows_block += same == c.grid;
    }
    char name[64];
    std::snprintf(name, sizeof(name), "%d threads, %d KB smem, %d CTAs", c.threads, c.smem / 1024, c.grid);
    std::printf("%-34s %7.0f ns  ", name, median(spread));
    for (const auto& v : at_eighth) std::printf(" %6.0f", median(v));
    std::printf("   tickets = blockIdx in %d of %d launches\n", follows_block, kLaunches);
  }
  CHECK_CUDA(cudaFree(d_starts));
  CHECK_CUDA(cudaFree(d_ticket));
  CHECK_CUDA(cudaFree(d_step));
  return 0;
}
