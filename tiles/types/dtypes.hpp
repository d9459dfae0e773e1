#pragma once
// Element types. On the device bf16/fp16 are CUDA's own types; on the host they are bit-exact
// stand-ins that round to nearest even, so host results match the GPU's up to accumulation order.
#include <cstdint>
#include <cstring>

#include "tiles/layout/hd.hpp"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
namespace ts {
using bf16 = __nv_bfloat16;
using fp16 = __half;
}  // namespace ts
#else
namespace ts {
// bfloat16: the top 16 bits of an fp32, rounded to nearest even (NaN kept quiet).
struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  explicit bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = static_cast<uint16_t>((u >> 16) | 0x40);
      return;
    }
    u += 0x7fffu + ((u >> 16) & 1u);
    bits = static_cast<uint16_t>(u >> 16);
  }
  explicit operator float() const {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};
// IEEE half, round to nearest even (subnormals included).
struct fp16 {
  uint16_t bits = 0;
  fp16() = default;
  explicit fp16(float f);
  explicit operator float() const;
};
}  // namespace ts
#include "tiles/backend/host/fp16.hpp"
#endif

namespace ts {
template <class T> TS_HD inline float to_float(T x) { return static_cast<float>(x); }
template <class T> TS_HD inline T from_float(float f) { return T(f); }
#if defined(__CUDACC__)
template <> TS_HD inline float to_float<bf16>(bf16 x) { return __bfloat162float(x); }
template <> TS_HD inline bf16 from_float<bf16>(float f) { return __float2bfloat16_rn(f); }
#endif
}  // namespace ts
