// Attention shape checks and names: plain C++, shared by the device launcher and the host runner.
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/attention/attention_api.hpp"
#include "kernels/attention/attention_layout.hpp"

namespace ts::kernels {

std::string validate(const AttentionShape& s) {
  if (s.batch <= 0 || s.heads_q <= 0 || s.heads_kv <= 0 || s.seq <= 0)
    return "batch, heads and sequence length must be positive";
  if (s.dim != 64 && s.dim != 128) return "head dimension must be 64 or 128, got " + std::to_string(s.dim);
  if (s.heads_q % s.heads_kv != 0)
    return "query heads (" + std::to_string(s.heads_q) + ") must be a multiple of key/value heads (" + std::to_string(s.heads_kv) + ")";
  if (s.seq >= (int64_t{1} << 31) || s.batch * s.heads_q >= (int64_t{1} << 31)) return "shape too large (sizes must be below 2^31)";
  if (!std::isfinite(s.scale) || s.scale < 0) return "scale must be finite and positive (0 picks 1/sqrt(dim))";
  return {};
}

std::string describe(const AttentionShape& s) {
  return "attention B" + std::to_string(s.batch) + " Hq" + std::to_string(s.heads_q) + " Hkv" + std::to_string(s.heads_kv) + " N" +
         std::to_string(s.seq) + " D" + std::to_string(s.dim) + (s.causal ? " causal" : "");
}

float softmax_scale(const AttentionShape& s) { return s.scale > 0 ? s.scale : 1.f / std::sqrt(static_cast<float>(s.dim)); }

double attention_flops(const AttentionShape& s, bool backward) {
  const double fwd = 4.0 * s.batch * s.heads_q * double(s.seq) * double(s.seq) * s.dim * (s.causal ? 0.5 : 1.0);
  return backward ? 2.5 * fwd : fwd;
}

std::size_t attention_backward_workspace_bytes(const AttentionShape& s) { return BackwardWorkspace(s).bytes; }

AttentionConfig resolve(const AttentionShape& s, const AttentionConfig& cfg) {
  AttentionConfig r = cfg;
  if (r.consumers == 0) r.consumers = default_forward_consumers(s.dim);
  if (r.overlap < 0) r.overlap = default_forward_overlap(s.dim, s.causal) ? 1 : 0;
  if (r.persistent < 0) r.persistent = default_forward_persistent(s.causal) ? 1 : 0;
  if (r.consumers != 2 && r.consumers != 3) throw std::invalid_argument("attention: consumers must be 2 or 3, got " + std::to_string(r.consumers));
  if (r.overlap > 1) throw std::invalid_argument("attention: overlap must be 0 or 1");
  if (r.persistent > 1) throw std::invalid_argument("attention: persistent must be 0 or 1");
  if (r.overlap && r.consumers == 3 && s.dim == 128)
    throw std::invalid_argument("attention: overlap at D = 128 needs 2 consumers (three stages do not fit in shared memory beside three Q tiles)");
  return r;
}

int attention_grid_blocks(const AttentionShape& s, bool backward, const AttentionConfig& cfg, int sms) {
  if (sms <= 0) throw std::invalid_argument("attention: the SM count must be positive");
  return static_cast<int>(backward ? backward_blocks(s) : forward_blocks(s, resolve(s, cfg), sms));
}

}  // namespace ts::kernels
