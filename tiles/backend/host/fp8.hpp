#pragma once
// Host FP8 E4M3 conversions: round to nearest even, saturating to +-448, NaN kept (the device
// type, __nv_fp8_e4m3, converts the same way).
#include <cmath>
#include <cstdint>

namespace ts {
inline fp8e4m3::fp8e4m3(float f) {
  const uint8_t sign = std::signbit(f) ? 0x80 : 0;
  if (std::isnan(f)) { bits = sign | 0x7f; return; }
  const float a = std::fabs(f);
  if (a >= 448.f) { bits = sign | 0x7e; return; }  // saturate (448 = 1.75 x 2^8, the largest finite)
  // Values below 2^-6 are subnormal: multiples of 2^-9. Above, a 3-bit mantissa per binade.
  int e = 0;
  std::frexp(a, &e);                      // a = m 2^e, m in [0.5, 1)
  const int exp = e - 1 < -6 ? -6 : e - 1;  // the binade 2^exp (subnormals share -6's spacing)
  const float step = std::ldexp(1.f, exp - 3);
  const float q = std::nearbyint(a / step);  // round to nearest even in the default FP mode
  const float r = q * step;
  if (r >= 448.f) { bits = sign | 0x7e; return; }
  int re = 0;
  std::frexp(r, &re);
  if (r == 0.f) { bits = sign; return; }
  if (re - 1 < -6) { bits = sign | static_cast<uint8_t>(r / std::ldexp(1.f, -9)); return; }  // subnormal
  const int biased = re - 1 + 7;
  const uint8_t mant = static_cast<uint8_t>(r / std::ldexp(1.f, re - 1 - 3)) & 0x7;
  bits = sign | static_cast<uint8_t>(biased << 3) | mant;
}
inline fp8e4m3::operator float() const {
  const int exp = (bits >> 3) & 0xf, mant = bits & 0x7;
  if (exp == 0xf && mant == 0x7) return std::nanf("");
  const float mag = exp == 0 ? std::ldexp(static_cast<float>(mant), -9) : std::ldexp(1.f + mant / 8.f, exp - 7);
  return (bits & 0x80) ? -mag : mag;
}
}  // namespace ts
