#pragma once
// n / d and n % d for a divisor fixed at launch, by a multiply-high, an add and a shift (the
// round-up method of Granlund and Montgomery, "Division by invariant integers using
// multiplication", 1994). A kernel's map from a tile or iteration index to (batch, head, block)
// divides by run-time sizes; the GPU has no integer divider, and each `/` or `%` by a variable
// compiles to about 25 instructions (I2F, MUFU.RCP, F2I and fix-ups): the attention backward's map
// was 100 of its loop's 751 instructions per iteration (H100, 2026-11-26). Valid for 0 <= n < 2^31.
#include <cstdint>
#include <stdexcept>

#include "tiles/layout/hd.hpp"

namespace ts {

class divisor {
 public:
  constexpr divisor() = default;  // 1
  constexpr explicit divisor(int d) : d_(d) {
    if (d < 1) throw std::invalid_argument("divisor: must be positive");
    while ((1u << shift_) < static_cast<uint32_t>(d)) ++shift_;  // ceil(log2 d)
    // floor(2^32 (2^shift - d) / d) + 1 < 2^32; the quotient is (mulhi(n, magic) + n) >> shift.
    magic_ = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift_) - static_cast<uint64_t>(d))) / static_cast<uint64_t>(d) + 1);
  }
  TS_HD constexpr int value() const { return d_; }
  TS_HD constexpr operator int() const { return d_; }  // a divisor is also the size it divides by
  TS_HD constexpr int div(int n) const {
    const uint32_t u = static_cast<uint32_t>(n);
    return static_cast<int>((mulhi(u, magic_) + u) >> shift_);
  }
  TS_HD constexpr int mod(int n) const { return divmod(n).rem; }
  struct quot_rem {
    int quot, rem;
  };
  TS_HD constexpr quot_rem divmod(int n) const {  // both from one multiply-high
    const int q = div(n);
    return {q, n - q * d_};
  }

 private:
  TS_HD static constexpr uint32_t mulhi(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __umulhi(a, b);
#else
    return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
  }
  int d_ = 1;
  uint32_t magic_ = 1, shift_ = 0;
};

}  // namespace ts
