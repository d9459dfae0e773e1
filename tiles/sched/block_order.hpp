#pragma once
// Block orders: which output tile the i-th scheduled block computes. The order decides which
// tiles run at the same time, hence how much of A and B the L2 serves twice (seed material:
// 805 vs 392 TFLOPS at 16384^3 between a grouped and the row-major order). Pure functions:
// the GPU, the simulator and the GUI all call these.
#include <cstdint>
#include <optional>
#include <string_view>

#include "tiles/layout/hd.hpp"

namespace ts::sched {

enum class Order : uint32_t { row_major, col_major, grouped };

struct TileIndex {
  int m, n;
};

struct OrderSpec {
  Order order = Order::grouped;
  int group = 8;  // grouped: super-rows of `group` tile rows, walked column by column
};

// Tile grid of tiles_m x tiles_n, i-th block -> tile.
TS_HD constexpr TileIndex tile_of(OrderSpec spec, int i, int tiles_m, int tiles_n) {
  switch (spec.order) {
    case Order::row_major: return {i / tiles_n, i % tiles_n};
    case Order::col_major: return {i % tiles_m, i / tiles_m};
    default: {
      // Super-rows of `group` tile rows; inside one, go down the rows of a column, then right.
      const int per_group = spec.group * tiles_n;
      const int g = i / per_group, first_m = g * spec.group;
      const int rows_here = (tiles_m - first_m) < spec.group ? (tiles_m - first_m) : spec.group;
      const int j = i % per_group;
      return {first_m + j % rows_here, j / rows_here};
    }
  }
}

// Tiles numbered cluster by cluster: `cluster` consecutive numbers are the CTAs of one cluster,
// vertical neighbours (the same columns of B), and the order walks clusters over a grid of
// ceil(tiles_m / cluster) cluster rows. A last cluster may overhang M: its extra tile's m is
// tiles_m or more, which loads zeros and stores nothing.
TS_HD constexpr TileIndex clustered_tile_of(OrderSpec spec, int i, int tiles_m, int tiles_n, int cluster) {
  const TileIndex t = tile_of(spec, i / cluster, (tiles_m + cluster - 1) / cluster, tiles_n);
  return {t.m * cluster + i % cluster, t.n};
}

// Any order given as a function: a callable (i, tiles_m, tiles_n) -> TileIndex works wherever an
// OrderSpec does, through this overload.
template <class F>
  requires requires(F f) { f(0, 1, 1); }
TS_HD constexpr TileIndex tile_of(F&& f, int i, int tiles_m, int tiles_n) {
  return f(i, tiles_m, tiles_n);
}

inline std::optional<OrderSpec> parse_order(std::string_view s) {
  if (s == "row" || s == "row-major") return OrderSpec{Order::row_major, 1};
  if (s == "col" || s == "col-major" || s == "column-major") return OrderSpec{Order::col_major, 1};
  if (s.starts_with("grouped")) {
    int g = 8;
    if (s.size() > 7) {
      if (s[7] != ':' && s[7] != '-') return std::nullopt;
      g = 0;
      for (char ch : s.substr(8)) {
        if (ch < '0' || ch > '9' || g > 4096) return std::nullopt;
        g = g * 10 + (ch - '0');
      }
      if (g <= 0) return std::nullopt;
    }
    return OrderSpec{Order::grouped, g};
  }
  return std::nullopt;
}

inline const char* order_name(Order o) {
  switch (o) {
    case Order::row_major: return "row-major";
    case Order::col_major: return "col-major";
    default: return "grouped";
  }
}

}  // namespace ts::sched
