// Host runners of the attention kernels: the dispatch and globals of attention_dispatch.hpp, and
// ts::host::launch in place of <<<...>>>, with the grid sizes of the GPU.
#include "kernels/attention/attention_host.hpp"

#include <limits>
#include <stdexcept>
#include <vector>

#include "kernels/attention/attention_dispatch.hpp"
#include "tiles/backend/host/launch.hpp"

namespace ts::kernels {

void run_attention_forward_host(const bf16* q, const bf16* k, const bf16* v, bf16* o, float* lse, const AttentionShape& s,
                                const AttentionConfig& config, int sms) {
  check_attention_args(s, {q, k, v, o, lse});
  const AttentionConfig cfg = resolve(s, config);
  if (sms <= 0) throw std::invalid_argument("run_attention_forward_host: sms must be positive");
  with_forward(s, cfg, [&]<class K>() {
    typename K::globals g = forward_globals<K>(q, k, v, o, lse, s);
    const int blocks = static_cast<int>(forward_blocks(s, cfg, sms));
    if (const auto* table = forward_schedule<K>(g, blocks)) g.schedule = table->data();
    host::launch<K>(blocks, g);
  });
}

void run_attention_backward_host(const bf16* q, const bf16* k, const bf16* v, const bf16* o, const bf16* d_o, const float* lse,
                                 bf16* dq, bf16* dk, bf16* dv, const AttentionShape& s, int sms) {
  if (sms <= 0) throw std::invalid_argument("run_attention_backward_host: sms must be positive");
  const BackwardWorkspace ws(s);
  // NaN, as a fresh allocation may hold anything: the prep pass must zero the dQ sums itself.
  std::vector<float> workspace(ws.bytes / sizeof(float), std::numeric_limits<float>::quiet_NaN());
  void* base = workspace.data();  // 16-byte aligned, as operator new gives
  check_attention_args(s, {q, k, v, o, d_o, lse, dq, dk, dv, base});
  with_backward(s, [&]<class B>() {
    const auto g = make_backward_globals<B>(q, k, v, o, d_o, lse, dq, dk, dv, base, s);
    const int row_blocks = static_cast<int>(backward_row_blocks(s, sms));  // both per-row passes
    host::launch<typename B::prep>(row_blocks, g.prep);
    host::launch<typename B::main>(static_cast<int>(backward_blocks(s)), g.main);
    host::launch<typename B::dq>(row_blocks, g.dq);
  });
}

}  // namespace ts::kernels
