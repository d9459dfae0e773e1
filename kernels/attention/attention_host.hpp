#pragma once
// The CPU runners of kernels/attention/*.cuh: the same kernel sources on the host backend of tiles/
// (functional mode: real data, one block after another), for tests without a GPU. Host pointers,
// layouts as in attention_api.hpp. `sms` stands in for the GPU's SM count (132 on an H100 SXM): a
// persistent forward has min(tiles, sms) blocks, as have the backward's per-row passes.
#include "kernels/attention/attention_api.hpp"
#include "tiles/types/dtypes.hpp"

namespace ts::kernels {

void run_attention_forward_host(const bf16* q, const bf16* k, const bf16* v, bf16* o, float* lse, const AttentionShape& s,
                                const AttentionConfig& cfg = {}, int sms = 132);
void run_attention_backward_host(const bf16* q, const bf16* k, const bf16* v, const bf16* o, const bf16* d_o, const float* lse,
                                 bf16* dq, bf16* dk, bf16* dv, const AttentionShape& s, int sms = 132);

}  // namespace ts::kernels
