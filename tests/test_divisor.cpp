// ts::divisor (tiles/sched/divisor.hpp) divides exactly like / and % over the range kernels use.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <random>
#include <stdexcept>

#include "tiles/sched/divisor.hpp"

TEST_CASE("divisor: quotient and remainder agree with / and % for every divisor up to 2048", "[divisor]") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> any(0, INT32_MAX);
  for (int d = 1; d <= 2048; ++d) {
    const ts::divisor div(d);
    REQUIRE(div.value() == d);
    for (int n : {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, INT32_MAX - 1, INT32_MAX}) {
      REQUIRE(div.div(n) == n / d);
      REQUIRE(div.mod(n) == n % d);
      const auto [q, r] = div.divmod(n);
      REQUIRE((q == n / d && r == n % d));
    }
    for (int i = 0; i < 200; ++i) {
      const int n = i < 100 ? i * 37 : any(rng);
      REQUIRE(div.div(n) == n / d);
      REQUIRE(div.mod(n) == n % d);
    }
  }
}

TEST_CASE("divisor: large divisors, powers of two and their neighbours", "[divisor]") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> any(0, INT32_MAX);
  for (int s = 11; s <= 30; ++s)
    for (int d : {(1 << s) - 1, 1 << s, (1 << s) + 1, INT32_MAX}) {
      const ts::divisor div(d);
      for (int i = 0; i < 2000; ++i) {
        const int n = any(rng);
        REQUIRE(div.div(n) == n / d);
        REQUIRE(div.mod(n) == n % d);
      }
      REQUIRE(div.div(INT32_MAX) == INT32_MAX / d);
    }
}

TEST_CASE("divisor: a default one is 1; zero and negatives are refused", "[divisor]") {
  const ts::divisor one;
  REQUIRE(one.value() == 1);
  REQUIRE(one.div(12345) == 12345);
  REQUIRE(one.mod(12345) == 0);
  REQUIRE_THROWS_AS(ts::divisor(0), std::invalid_argument);
  REQUIRE_THROWS_AS(ts::divisor(-3), std::invalid_argument);
}
