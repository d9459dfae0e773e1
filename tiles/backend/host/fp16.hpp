#pragma once
// Host IEEE binary16 conversions with round-to-nearest-even, as cvt.rn.f16.f32 does on the GPU.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace ts {
inline fp16::fp16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) { bits = static_cast<uint16_t>(sign | 0x7e00u); return; }  // NaN
  if (abs >= 0x477ff000u) { bits = static_cast<uint16_t>(sign | 0x7c00u); return; } // overflow -> inf
  if (abs < 0x38800000u) {  // subnormal or zero in half: scale by 2^24 and round
    const float scaled = std::fabs(f) * 16777216.0f;
    bits = static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
    return;
  }
  uint32_t mant = abs + 0xfffu + ((abs >> 13) & 1u) - 0x38000000u;
  bits = static_cast<uint16_t>(sign | (mant >> 13));
}
inline fp16::operator float() const {
  const uint32_t sign = (bits & 0x8000u) << 16, exp = (bits >> 10) & 0x1f, mant = bits & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -f : f;
  }
  const uint32_t u = exp == 31 ? (sign | 0x7f800000u | (mant << 13)) : (sign | ((exp + 112) << 23) | (mant << 13));
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace ts
