#pragma once
// Shared-memory swizzles as Hopper's TMA and wgmma apply them, and the shared tile layout built on them.
// The same functions place bytes on the GPU, count bank conflicts in sim/ and colour cells in viz/.
#include <cstdint>

#include "tiles/layout/hd.hpp"

namespace ts::layout {

// The swizzle modes of a TMA tensor map (CU_TENSOR_MAP_SWIZZLE_*) and of a wgmma shared-memory
// descriptor. The value is the span in bytes: the row length over which 16-byte chunks are permuted.
enum class Swizzle : uint32_t { none = 0, b32 = 32, b64 = 64, b128 = 128 };

TS_HD constexpr uint32_t span_bytes(Swizzle s) { return static_cast<uint32_t>(s); }

// Byte offset -> swizzled byte offset. The 16-byte chunk index (bits 4..6) is XORed with the
// 128-byte row index (bits 7..9), keeping as many bits as the span has chunks: 1 bit for 32B,
// 2 for 64B, 3 for 128B. The pattern repeats every 8 rows of 128 bytes (256, 512 or 1024 bytes of
// the span), so a tile must start on a 1024-byte boundary for the 128B swizzle to match TMA.
TS_HD constexpr uint32_t swizzle_offset(Swizzle s, uint32_t byte_offset) {
  if (s == Swizzle::none) return byte_offset;
  const uint32_t chunk_mask = span_bytes(s) / 16 - 1;  // 1, 3, 7
  return byte_offset ^ (((byte_offset >> 7) & chunk_mask) << 4);
}

// The largest swizzle whose span a row fills exactly (or a multiple of it): wider spans spread
// the 8 rows of an ldmatrix or wgmma core matrix over more banks.
TS_HD constexpr Swizzle largest_swizzle_for_row(uint32_t row_bytes) {
  if (row_bytes % 128 == 0) return Swizzle::b128;
  if (row_bytes % 64 == 0) return Swizzle::b64;
  if (row_bytes % 32 == 0) return Swizzle::b32;
  return Swizzle::none;
}

// Where element (r, c) of a rows x cols shared tile lives.
//  - Swizzle::none: row-major with an optional pad after each row (the classic conflict fix).
//  - swizzled: rows wider than the span are cut into column blocks of `span` bytes, each block
//    holding every row (the shape one TMA box fills), then the swizzle permutes chunks in place.
struct SmemLayout {
  uint32_t elem_bytes = 2;
  uint32_t rows = 16;
  uint32_t cols = 64;
  Swizzle swizzle = Swizzle::none;
  uint32_t pad_bytes = 0;  // only meaningful without a swizzle

  TS_HD constexpr uint32_t row_bytes() const { return cols * elem_bytes; }
  TS_HD constexpr uint32_t block_row_bytes() const {
    const uint32_t span = span_bytes(swizzle);
    return (swizzle == Swizzle::none || row_bytes() < span) ? row_bytes() : span;
  }
  TS_HD constexpr uint32_t row_pitch() const {
    return swizzle == Swizzle::none ? row_bytes() + pad_bytes : block_row_bytes();
  }
  TS_HD constexpr uint32_t size_bytes() const {
    return swizzle == Swizzle::none ? rows * row_pitch() : rows * row_bytes();
  }
  // Unswizzled position of a byte at (row, byte-in-row).
  TS_HD constexpr uint32_t linear_byte(uint32_t r, uint32_t byte_in_row) const {
    if (swizzle == Swizzle::none) return r * row_pitch() + byte_in_row;
    const uint32_t block = byte_in_row / block_row_bytes();
    return block * rows * block_row_bytes() + r * block_row_bytes() + byte_in_row % block_row_bytes();
  }
  // swizzle_offset(swizzle, linear_byte(r, byte_in_row)) with the XOR kept to the bytes below the
  // span: the chunk index it applies comes from the bits above them alone, so a compiler sees that
  // the elements a lane stores along one row share it, and a store costs an XOR and an add instead
  // of a fresh swizzle each (the attention backward's fp32 dQ staging stores).
  TS_HD constexpr uint32_t byte_offset(uint32_t r, uint32_t byte_in_row) const {
    const uint32_t span = span_bytes(swizzle);
    if (swizzle == Swizzle::none || row_bytes() < span) return swizzle_offset(swizzle, linear_byte(r, byte_in_row));
    const uint32_t high = (byte_in_row / span) * rows * span + r * span, low = byte_in_row % span;
    return high + (low ^ (((high >> 7) & (span / 16 - 1)) << 4));
  }
  TS_HD constexpr uint32_t element_offset(uint32_t r, uint32_t c) const {
    return byte_offset(r, c * elem_bytes);
  }
};

// The layout a shared tile of T gets when nobody overrides it: the largest swizzle its row allows.
template <class T>
TS_HD constexpr SmemLayout auto_layout(uint32_t rows, uint32_t cols) {
  return SmemLayout{sizeof(T), rows, cols, largest_swizzle_for_row(cols * sizeof(T)), 0};
}

}  // namespace ts::layout
