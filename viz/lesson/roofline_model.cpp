#include "viz/lesson/roofline_model.hpp"

#include <algorithm>

namespace ts::viz {

double attainable_tflops(const sim::MachineSpec& m, double flop_per_byte) {
  // TB/s x FLOP/byte = TFLOPS.
  return std::min(m.bf16_dense_tflops.value, m.hbm_bandwidth.value * flop_per_byte);
}

namespace {
RooflinePoint finish(const sim::MachineSpec& m, RooflinePoint p) {
  p.intensity = p.flops / p.bytes;
  p.attainable_tflops = attainable_tflops(m, p.intensity);
  p.memory_bound = p.intensity < m.ridge_flop_per_byte();
  return p;
}
}  // namespace

RooflinePoint gemm_point(const sim::MachineSpec& m, uint32_t n) {
  const double d = n;
  RooflinePoint p;
  p.name = "GEMM " + std::to_string(n) + "³";
  p.formula = "2MNK / 2(MK + KN + MN) bytes";
  p.flops = 2 * d * d * d;
  p.bytes = 2 * (d * d + d * d + d * d);
  return finish(m, p);
}

RooflinePoint attention_point(const sim::MachineSpec& m, uint32_t attn_rows, uint32_t kv_rows, uint32_t head_dim) {
  RooflinePoint p;
  p.name = "attention QKᵀ, " + std::to_string(attn_rows) + " query rows";
  p.formula = "2 x rows x d x kv / (2 x kv x d) bytes of K";
  p.flops = 2.0 * attn_rows * head_dim * kv_rows;
  p.bytes = 2.0 * kv_rows * head_dim;
  return finish(m, p);
}

}  // namespace ts::viz
