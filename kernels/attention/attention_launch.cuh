#pragma once
// The device launches of the attention kernels: instances and globals from attention_dispatch.hpp
// (shared with the host runner), grids sized by attention_layout.hpp on this GPU's SMs (the
// kernels' own num_tiles() are device functions here), launched through kernels/pipeline_launch.cuh.
// Included by attention_launch.cu and, compiled again with stamps on, by the instrumented build
// (kernels/stamps/recorded_launch.cu): internal linkage, as gemm_launch.cuh.
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "kernels/attention/attention_api.hpp"
#include "kernels/attention/attention_dispatch.hpp"
#include "kernels/pipeline_launch.cuh"

namespace ts::kernels {

// A schedule table (forward_schedule) on this GPU: copied once per table and device, and kept, as
// the table is. The copy is synchronous, once per shape, so that first call cannot be captured
// into a CUDA graph: it says so instead of failing inside the runtime.
static const int32_t* device_copy(const std::vector<int32_t>& table, cudaStream_t stream) {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  static std::mutex lock;
  static std::map<std::pair<int, const void*>, int32_t*> copies;
  const std::lock_guard<std::mutex> hold(lock);
  int32_t*& copy = copies[{device, &table}];
  if (!copy) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    check_cuda(cudaStreamIsCapturing(stream, &capture), "cudaStreamIsCapturing");
    if (capture != cudaStreamCaptureStatusNone)
      throw std::runtime_error("attention: a causal forward's first call for a shape copies its schedule to the GPU, which a CUDA "
                               "graph capture cannot hold: run the shape once before capturing");
    const size_t bytes = table.size() * sizeof(int32_t);
    check_cuda(cudaMalloc(&copy, bytes), "cudaMalloc(schedule)");
    check_cuda(cudaMemcpy(copy, table.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy(schedule)");
  }
  return copy;
}

// The backward's launches, in order.
enum class BackwardLaunch { prep, main, dq };

static void attention_forward_device(const void* q, const void* k, const void* v, void* o, float* lse, const AttentionShape& s,
                                     cudaStream_t stream, BlockClock* block_clocks, const AttentionConfig& config) {
  check_attention_args(s, {q, k, v, o, lse});
  const AttentionConfig cfg = resolve(s, config);
  with_forward(s, cfg, [&]<class K>() {
    typename K::globals g = forward_globals<K>(q, k, v, o, lse, s);
    const int blocks = static_cast<int>(forward_blocks(s, cfg, sm_count()));
    if (const auto* table = forward_schedule<K>(g, blocks)) g.schedule = device_copy(*table, stream);
    launch_pipeline<K>(g, blocks, stream, block_clocks, describe(s) + " fwd");
  });
}

// `before(which)` runs before each of the three launches (the instrumented build records the main one).
template <class Before>
static void attention_backward_device(const void* q, const void* k, const void* v, const void* o, const void* d_o,
                                      const float* lse, void* dq, void* dk, void* dv, void* workspace, const AttentionShape& s,
                                      cudaStream_t st, BlockClock* block_clocks, Before&& before) {
  check_attention_args(s, {q, k, v, o, d_o, lse, dq, dk, dv, workspace});
  with_backward(s, [&]<class B>() {
    const auto g = make_backward_globals<B>(q, k, v, o, d_o, lse, dq, dk, dv, workspace, s);
    const std::string name = describe(s) + " bwd";
    const int row_blocks = static_cast<int>(backward_row_blocks(s, sm_count()));  // both per-row passes
    before(BackwardLaunch::prep);
    launch_pipeline<typename B::prep>(g.prep, row_blocks, st, nullptr, name + " prep");
    before(BackwardLaunch::main);
    launch_pipeline<typename B::main>(g.main, static_cast<int>(backward_blocks(s)), st, block_clocks, name);
    before(BackwardLaunch::dq);
    launch_pipeline<typename B::dq>(g.dq, row_blocks, st, nullptr, name + " dq");
  });
}

}  // namespace ts::kernels
