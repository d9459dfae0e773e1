#pragma once
// What the roofline scene shows, computed without any drawing, from the machine file.
#include <string>
#include <vector>

#include "sim/machine.hpp"
#include "viz/lesson/scenes.hpp"

namespace ts::viz {

struct RooflinePoint {
  std::string name;     // "GEMM 4096³" (UTF-8)
  std::string formula;  // how its intensity was counted, for people
  double flops = 0;
  double bytes = 0;
  double intensity = 0;          // FLOP per byte of HBM traffic
  double attainable_tflops = 0;  // min(peak, bandwidth x intensity)
  bool memory_bound = false;
};

// Attainable bf16 tensor-core TFLOPS at an intensity: the lower of the two roofs.
double attainable_tflops(const sim::MachineSpec& m, double flop_per_byte);

// bf16 GEMM, M = N = K = n: 2n^3 FLOPs over 2(MK + KN + MN) bytes read or written once.
RooflinePoint gemm_point(const sim::MachineSpec& m, uint32_t n);

// Attention inner loop, the seed material's count: a K tile of kv_rows x head_dim bf16 comes from
// HBM and is multiplied by attn_rows query rows held in registers (Q K^T only). The head dimension
// cancels: the intensity is the number of query rows that share each K tile.
RooflinePoint attention_point(const sim::MachineSpec& m, uint32_t attn_rows, uint32_t kv_rows, uint32_t head_dim);

}  // namespace ts::viz
