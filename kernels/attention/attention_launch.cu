// The attention's device entry points (attention_api.hpp); the launches are attention_launch.cuh.
#include "kernels/attention/attention_launch.cuh"

namespace ts::kernels {

void attention_forward(const void* q, const void* k, const void* v, void* o, float* lse, const AttentionShape& s, void* stream,
                       BlockClock* block_clocks, const AttentionConfig& config) {
  attention_forward_device(q, k, v, o, lse, s, static_cast<cudaStream_t>(stream), block_clocks, config);
}

void attention_backward(const void* q, const void* k, const void* v, const void* o, const void* d_o, const float* lse, void* dq,
                        void* dk, void* dv, void* workspace, const AttentionShape& s, void* stream, BlockClock* block_clocks) {
  attention_backward_device(q, k, v, o, d_o, lse, dq, dk, dv, workspace, s, static_cast<cudaStream_t>(stream), block_clocks,
                            [](BackwardLaunch) {});
}

}  // namespace ts::kernels
