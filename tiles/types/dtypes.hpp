#pragma once
// Element types. On the device bf16/fp16 are CUDA's own types; on the host they are bit-exact
// stand-ins that round to nearest even, so host results match the GPU's up to accumulation order.
#include <cstdint>
#include <cstring>

#include "tiles/layout/hd.hpp"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
namespace ts {
using bf16 = __nv_bfloat16;
using fp16 = __half;
using fp8e4m3 = __nv_fp8_e4m3;
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
// FP8 E4M3 (OCP "FP8 Formats for Deep Learning"): no infinities, one NaN pattern (S.1111.111),
// largest finite 448; conversion rounds to nearest even and saturates to +-448, as the GPU's
// cvt.rn.satfinite.e4m3x2.f32 does.
struct fp8e4m3 {
  uint8_t bits = 0;
  fp8e4m3() = default;
  explicit fp8e4m3(float f);
  explicit operator float() const;
};
}  // namespace ts
#include "tiles/backend/host/fp16.hpp"
#include "tiles/backend/host/fp8.hpp"
#endif

namespace ts {
template <class T> TS_HD inline float to_float(T x) { return static_cast<float>(x); }
template <class T> TS_HD inline T from_float(float f) { return T(f); }
#if defined(__CUDACC__)
template <> TS_HD inline float to_float<bf16>(bf16 x) { return __bfloat162float(x); }
template <> TS_HD inline bf16 from_float<bf16>(float f) { return __float2bfloat16_rn(f); }
template <> TS_HD inline float to_float<fp8e4m3>(fp8e4m3 x) { return float(x); }
template <> TS_HD inline fp8e4m3 from_float<fp8e4m3>(float f) { return fp8e4m3(f); }  // rn, satfinite
#endif

// The K depth of one wgmma instruction: 32 bytes of K per row (m64nNk16 for 16-bit inputs,
// m64nNk32 for fp8). The tensor core's FLOPs per cycle double as the element halves.
template <class T> inline constexpr int mma_k = static_cast<int>(32 / sizeof(T));
}  // namespace ts
