// sim/banks against the hardware: every pattern measured on an H100 with Nsight Compute
// (data/measured/h100/banks.json, written by scripts/measure-banks and scripts/banks-ncu-to-json.py)
// must come out of the model with the same wavefronts and the same bank-conflict count.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/banks.hpp"

using namespace ts::sim;

namespace {
nlohmann::json load_measured() {
  const std::string path = std::string(TILESCOPE_SOURCE_DIR) + "/data/measured/h100/banks.json";
  std::ifstream in(path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

std::string lanes_text(const std::array<uint32_t, kWarpSize>& offs) {
  std::string s;
  for (uint32_t i = 0; i < kWarpSize; ++i) s += (i ? "," : "") + std::to_string(offs[i]);
  return s;
}
}  // namespace

TEST_CASE("bank model equals the H100 measurement on every measured pattern", "[banks][measured]") {
  const auto doc = load_measured();
  const auto& rows = doc.at("patterns");
  REQUIRE(rows.size() >= 1000);
  std::map<std::string, int> per_op;
  size_t matched = 0;
  for (const auto& row : rows) {
    const auto op = find_smem_op(row.at("op").get<std::string>());
    REQUIRE(op.has_value());
    std::array<uint32_t, kWarpSize> offs{};
    REQUIRE(row.at("offsets").size() == kWarpSize);
    for (uint32_t i = 0; i < kWarpSize; ++i) offs[i] = row.at("offsets")[i].get<uint32_t>();
    const BankReport r = analyze_banks(*op, offs);
    const auto wavefronts = row.at("wavefronts").get<uint32_t>();
    const auto ncu_conflicts = row.at("ncu_bank_conflicts").get<uint32_t>();
    INFO("banks --op " << op->name << " --lanes " << lanes_text(offs));
    CHECK(r.wavefronts == wavefronts);
    CHECK(r.conflicts == ncu_conflicts);
    // The measured 'conflicts' (against the op's nominal ideal) follows from the model too.
    CHECK(static_cast<int>(r.wavefronts) - static_cast<int>(op->ideal_wavefronts()) == row.at("conflicts").get<int>());
    if (r.wavefronts == wavefronts && r.conflicts == ncu_conflicts) ++matched;
    ++per_op[std::string(op->name)];
  }
  CHECK(matched == rows.size());
  // Every op the model knows was measured.
  for (const auto& op : smem_ops()) CHECK(per_op[std::string(op.name)] > 0);
}

TEST_CASE("measured: launches without a shared instruction count one wavefront of their own", "[banks][measured]") {
  const auto doc = load_measured();
  for (const auto& w : doc.at("control").at("wavefronts_sum")) CHECK(w.get<int>() == 1);
  for (const auto& row : doc.at("patterns"))
    CHECK(row.at("wavefronts_sum").get<uint32_t>() == row.at("wavefronts").get<uint32_t>() + 1);
}

TEST_CASE("paired lanes merge the phases of 64- and 128-bit loads only", "[banks]") {
  auto lanes = [](auto f) {
    std::array<uint32_t, kWarpSize> a{};
    for (uint32_t i = 0; i < kWarpSize; ++i) a[i] = f(i);
    return a;
  };
  auto run = [](std::string_view op, const std::array<uint32_t, kWarpSize>& o) {
    return analyze_banks(*find_smem_op(op), o);
  };
  const auto zeros = lanes([](uint32_t) { return 0u; });
  // One address for the whole warp: a 64-bit load is one wavefront, a 128-bit load two.
  auto r = run("ld64", zeros);
  CHECK(r.wavefronts == 1);
  CHECK(r.conflicts == 0);
  CHECK(r.paired_lanes_xor == 1);
  CHECK(r.phases() == 1);
  r = run("ld128", zeros);
  CHECK(r.wavefronts == 2);
  CHECK(r.conflicts == 0);
  CHECK(r.lanes_per_phase == 16);
  // Stores do not merge.
  CHECK(run("st64", zeros).wavefronts == 2);
  CHECK(run("st128", zeros).wavefronts == 4);
  // Lanes i and i^2 sharing also merges; i^3 and i^16 do not.
  CHECK(run("ld64", lanes([](uint32_t i) { return ((i / 4) * 2 + i % 2) * 8; })).wavefronts == 1);
  CHECK(run("ld64", lanes([](uint32_t i) { return ((i / 4) * 2 + ((i % 4 == 0 || i % 4 == 3) ? 0 : 1)) * 8; }))
            .wavefronts == 2);
  CHECK(run("ld64", lanes([](uint32_t i) { return (i % 16) * 8; })).wavefronts == 2);
  // Merged phases still conflict: pairs on 8 rows of a 128-byte pitch, all in banks 0-1.
  r = run("ld64", lanes([](uint32_t i) { return (i / 4) * 128; }));
  CHECK(r.wavefronts == 8);
  CHECK(r.conflicts == 7);
  // Merged 128-bit phases are lanes 0-15 and 16-31: two rows per phase here, so 2 + 2.
  r = run("ld128", lanes([](uint32_t i) {
        const uint32_t p = i / 2;
        return (p % 4) * 16 + ((p / 4) % 2) * 128 + (p >= 8 ? 64 : 0);
      }));
  CHECK(r.wavefronts == 4);
  CHECK(r.conflicts == 2);
  // A warp paired only in part keeps its ordinary phases.
  CHECK(run("ld128", lanes([](uint32_t i) { return i < 16 ? (i / 2) * 16 : 512 + (i - 16) * 16; })).wavefronts == 4);
}
