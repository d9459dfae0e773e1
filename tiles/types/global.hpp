#pragma once
// Global layouts gl<T, B, H, R, C>: a 4-D row-major tensor (batch, head, rows, cols) in device
// memory. Each dimension is fixed at compile time (a positive number) or given at run time (-1).
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tiles/types/dtypes.hpp"

namespace ts {

inline constexpr int dynamic = -1;

template <class T, int B = dynamic, int H = dynamic, int R = dynamic, int C = dynamic>
struct gl {
  using dtype = T;
  static constexpr std::array<int, 4> static_dims{B, H, R, C};
  T* ptr = nullptr;
  std::array<int64_t, 4> dims{};  // batch, head, rows, cols

  gl() = default;
  TS_HD gl(T* p, int64_t b, int64_t h, int64_t r, int64_t c) : ptr(p), dims{b, h, r, c} {}
  // Host constructor that checks run-time dims against the static ones.
  static gl make(T* p, int64_t b, int64_t h, int64_t r, int64_t c) {
    const std::array<int64_t, 4> given{b, h, r, c};
    for (int i = 0; i < 4; ++i) {
      if (given[i] <= 0) throw std::invalid_argument("gl: dimension " + std::to_string(i) + " must be positive");
      if (static_dims[i] != dynamic && static_dims[i] != given[i])
        throw std::invalid_argument("gl: dimension " + std::to_string(i) + " is fixed at " +
                                    std::to_string(static_dims[i]) + ", got " + std::to_string(given[i]));
    }
    return gl(p, b, h, r, c);
  }
  TS_HD int64_t batch() const { return B == dynamic ? dims[0] : B; }
  TS_HD int64_t heads() const { return H == dynamic ? dims[1] : H; }
  TS_HD int64_t rows() const { return R == dynamic ? dims[2] : R; }
  TS_HD int64_t cols() const { return C == dynamic ? dims[3] : C; }
  TS_HD int64_t offset(int64_t b, int64_t h, int64_t r, int64_t c) const {
    return ((b * heads() + h) * rows() + r) * cols() + c;
  }
  TS_HD T& operator()(int64_t b, int64_t h, int64_t r, int64_t c) const { return ptr[offset(b, h, r, c)]; }
};

// Tile coordinates in units of tiles (rows and cols of the tile), as the TMA ops take them.
struct coord {
  int b = 0, h = 0, r = 0, c = 0;
};

}  // namespace ts
