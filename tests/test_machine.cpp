#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/calibrate/calibrate.hpp"
#include "sim/machine.hpp"

using namespace ts::sim;
namespace fs = std::filesystem;

namespace {

nlohmann::json h100_json() {
  std::ifstream in(find_data_path("machines/h100-sxm.json"));
  return nlohmann::json::parse(in);
}

// Writes `j` to a fresh file and returns its path.
fs::path write_machine(const std::string& name, const nlohmann::json& j) {
  const fs::path dir = fs::temp_directory_path() / "tilescope-machine-tests";
  fs::create_directories(dir);
  const fs::path file = dir / (name + ".json");
  std::ofstream(file) << j.dump(2);
  return file;
}

// "FILE:LINE" where the file writes "key" (a missing key: where "parameters" opens), which is what
// an error about that key must point at.
std::string where(const fs::path& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  int n = 0, parameters = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find("\"" + key + "\"") != std::string::npos) return file.string() + ":" + std::to_string(n);
    if (!parameters && line.find("\"parameters\"") != std::string::npos) parameters = n;
  }
  return file.string() + ":" + std::to_string(parameters ? parameters : 1);
}

}  // namespace

TEST_CASE("the H100 SXM machine file holds the datasheet and seed-material figures", "[machine]") {
  const MachineSpec m = load_machine("h100-sxm");
  CHECK(m.id == "h100-sxm");
  CHECK(m.sm_count.value == 132);
  CHECK(m.bf16_dense_tflops.value == Approx(989.4));
  CHECK(m.hbm_capacity.value == 80);
  CHECK(m.hbm_bandwidth.value == Approx(3.35));
  CHECK(m.hbm_latency.value == 400);
  CHECK(m.l2_capacity.value == 50);
  CHECK(m.l2_bandwidth.value == 12);
  CHECK(m.l2_latency.value == 200);
  CHECK(m.smem_per_sm.value == 228);
  CHECK(m.smem_bandwidth.value == 33);
  CHECK(m.smem_latency.value == 30);
  CHECK(m.register_file_per_sm.value == 256);
  CHECK(m.registers_per_sm.value == 65536);
  CHECK(m.max_registers_per_thread.value == 255);
  CHECK(m.smem_banks.value == 32);
  CHECK(m.smem_bank_width.value == 4);
  // 989.4 / 3.35: the ridge the roofline lesson shows (the seed's 330 uses 3 TB/s).
  CHECK(m.ridge_flop_per_byte() == Approx(295.3).epsilon(0.001));
  for (const auto& field : machine_fields()) {
    INFO(field.key);
    CHECK((m.*field.member).unit == field.unit);
    CHECK_FALSE((m.*field.member).source.empty());
  }
  CHECK(m.bf16_dense_tflops.source.rfind("datasheet", 0) == 0);
  CHECK(m.hbm_latency.source.rfind("seed material", 0) == 0);
}

TEST_CASE("the H200 machine file: same chip, more and faster HBM", "[machine]") {
  const MachineSpec m = load_machine("h200");
  CHECK(m.hbm_capacity.value == 141);
  CHECK(m.hbm_bandwidth.value == Approx(4.8));
  CHECK(m.l2_capacity.value == 60);
  CHECK(m.bf16_dense_tflops.value == Approx(989.4));
  CHECK(m.ridge_flop_per_byte() == Approx(206.1).epsilon(0.001));
}

TEST_CASE("machine ids list the files of data/machines", "[machine]") {
  const auto ids = machine_ids();
  CHECK(std::find(ids.begin(), ids.end(), "h100-sxm") != ids.end());
  CHECK(std::find(ids.begin(), ids.end(), "h200") != ids.end());
}

TEST_CASE("a bad machine file is refused with 'file:line: field ...'", "[machine]") {
  SECTION("missing field") {
    auto j = h100_json();
    j["parameters"].erase("hbm_bandwidth");
    const auto file = write_machine("missing", j);
    CHECK_THROWS_WITH(load_machine_file(file), where(file, "hbm_bandwidth") + ": field 'hbm_bandwidth' missing");
  }
  SECTION("negative value") {
    auto j = h100_json();
    j["parameters"]["l2_latency"]["value"] = -200;
    const auto file = write_machine("negative", j);
    CHECK_THROWS_WITH(load_machine_file(file), where(file, "l2_latency") + ": field 'l2_latency' negative");
  }
  SECTION("wrong unit") {
    auto j = h100_json();
    j["parameters"]["hbm_bandwidth"]["unit"] = "GB/s";
    const auto file = write_machine("unit", j);
    CHECK_THROWS_WITH(load_machine_file(file),
                      where(file, "hbm_bandwidth") + ": field 'hbm_bandwidth': unit 'GB/s', expected 'TB/s'");
  }
  SECTION("no source") {
    auto j = h100_json();
    j["parameters"]["sm_count"].erase("source");
    const auto file = write_machine("source", j);
    CHECK_THROWS_WITH(load_machine_file(file), where(file, "sm_count") + ": field 'sm_count': 'source' missing");
  }
  SECTION("value is not a number") {
    auto j = h100_json();
    j["parameters"]["sm_count"]["value"] = "132";
    const auto file = write_machine("string", j);
    CHECK_THROWS_WITH(load_machine_file(file), where(file, "sm_count") + ": field 'sm_count': 'value' is not a number");
  }
  SECTION("unknown field") {
    auto j = h100_json();
    j["parameters"]["hbm_bandwith"] = {{"value", 3}, {"unit", "TB/s"}, {"source", "typo"}};
    const auto file = write_machine("unknown", j);
    CHECK_THROWS_WITH(load_machine_file(file), where(file, "hbm_bandwith") + ": unknown field 'hbm_bandwith'");
  }
  SECTION("zero where the program divides") {
    auto j = h100_json();
    j["parameters"]["hbm_bandwidth"]["value"] = 0;
    const auto file = write_machine("zero", j);
    CHECK_THROWS_WITH(load_machine_file(file), where(file, "hbm_bandwidth") + ": field 'hbm_bandwidth' is zero");
  }
  SECTION("no name") {
    auto j = h100_json();
    j.erase("name");
    const auto file = write_machine("noname", j);
    CHECK_THROWS_WITH(load_machine_file(file), where(file, "name") + ": field 'name' missing");
  }
  SECTION("not JSON") {
    const fs::path file = fs::temp_directory_path() / "tilescope-machine-tests" / "garbage.json";
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "{ not json";
    CHECK_THROWS_WITH(load_machine_file(file), Catch::StartsWith(file.string() + ":1: not valid JSON"));
    // Found by fuzz_machine's seeds: a number past a double's range, on the line that holds it.
    std::ofstream(file) << "{\n  \"name\": \"x\",\n  \"parameters\": {\"sm_count\":\n    {\"value\": 1e999}}\n}\n";
    CHECK_THROWS_WITH(load_machine_file(file), Catch::StartsWith(file.string() + ":4: not valid JSON"));
  }
  SECTION("no such file") {
    CHECK_THROWS_WITH(load_machine("no-such-gpu"), Catch::Contains("cannot find data file 'machines/no-such-gpu.json'"));
  }
}

TEST_CASE("TILESCOPE_DATA_DIR comes first when looking for data", "[machine]") {
  const fs::path dir = fs::temp_directory_path() / "tilescope-data-dir-test";
  fs::create_directories(dir / "machines");
  auto j = h100_json();
  j["name"] = "A test machine";
  std::ofstream(dir / "machines" / "h100-sxm.json") << j.dump();
  ::setenv("TILESCOPE_DATA_DIR", dir.c_str(), 1);
  const MachineSpec m = load_machine("h100-sxm");
  ::unsetenv("TILESCOPE_DATA_DIR");
  CHECK(m.name == "A test machine");
  CHECK(load_machine("h100-sxm").name != "A test machine");
}

// The fields the cycle model needs: what `tilescope calibrate` measures, plus the L2 structure.
TEST_CASE("every figure calibrate measures is a machine field with the same unit", "[machine][calibrate]") {
  for (const auto& f : ts::kernels::calibrate::kMeasuredFields) {
    INFO(f.key);
    const MachineField* field = find_machine_field(f.key);
    REQUIRE(field != nullptr);
    CHECK(field->unit == f.unit);
  }
  CHECK(find_machine_field("no_such_field") == nullptr);
}

TEST_CASE("both machine files carry the cycle-model fields with a unit and a source", "[machine][calibrate]") {
  for (const char* id : {"h100-sxm", "h200"}) {
    INFO(id);
    const MachineSpec m = load_machine(id);
    for (const auto& f : ts::kernels::calibrate::kMeasuredFields) {
      INFO(f.key);
      const Quantity& q = m.*find_machine_field(f.key)->member;
      CHECK(q.unit == f.unit);
      CHECK(q.value > 0);
      CHECK_FALSE(q.source.empty());
    }
    CHECK(m.l2_line_size.value == 128);
    CHECK(m.l2_sector_size.value == 32);
    CHECK(m.l2_partitions.value == 2);
    CHECK(m.l2_associativity.value > 0);
    CHECK(m.l2_partitions.source.rfind("datasheet", 0) == 0);
    // The old fields stay as the datasheet gives them: the roofline lesson uses them.
    CHECK(m.hbm_bandwidth.source.rfind("datasheet", 0) == 0);
  }
}

TEST_CASE("a cycle-model field that is missing, negative or in the wrong unit is refused by name", "[machine][calibrate]") {
  std::vector<std::string> keys = {"l2_line_size", "l2_sector_size", "l2_associativity", "l2_partitions", "sub_partitions", "issue_per_cycle"};
  for (const auto& f : ts::kernels::calibrate::kMeasuredFields) keys.emplace_back(f.key);
  for (const auto& key : keys) {
    INFO(key);
    const std::string unit(find_machine_field(key)->unit);
    {
      auto j = h100_json();
      j["parameters"].erase(key);
      const auto file = write_machine("missing-" + key, j);
      CHECK_THROWS_WITH(load_machine_file(file), where(file, key) + ": field '" + key + "' missing");
    }
    {
      auto j = h100_json();
      j["parameters"][key]["value"] = -1.5;
      const auto file = write_machine("negative-" + key, j);
      CHECK_THROWS_WITH(load_machine_file(file), where(file, key) + ": field '" + key + "' negative");
    }
    {
      auto j = h100_json();
      j["parameters"][key]["unit"] = "furlongs";
      const auto file = write_machine("unit-" + key, j);
      CHECK_THROWS_WITH(load_machine_file(file),
                        where(file, key) + ": field '" + key + "': unit 'furlongs', expected '" + unit + "'");
    }
  }
  SECTION("a rate the model divides by may not be zero") {
    for (const char* key : {"wgmma_m64n256k16_interval", "sub_partitions", "issue_per_cycle", "fma_interval", "sfu_interval", "shuffle_interval"}) {
      INFO(key);
      auto j = h100_json();
      j["parameters"][key]["value"] = 0;
      const auto file = write_machine(std::string("zero-") + key, j);
      CHECK_THROWS_WITH(load_machine_file(file), where(file, key) + ": field '" + key + "' is zero");
    }
  }
}

TEST_CASE("save_machine_file writes what load_machine_file reads back", "[machine][calibrate]") {
  MachineSpec m = load_machine("h100-sxm");
  m.l2_hit_latency = {273.4, "cycles", "measured: a test, 2026-01-01"};
  const fs::path file = fs::temp_directory_path() / "tilescope-machine-tests" / "saved.json";
  fs::create_directories(file.parent_path());
  save_machine_file(m, file, R"({"device": "A GPU", "extras": {"x": {"value": 1, "unit": "cycles"}}})");
  const MachineSpec back = load_machine_file(file);
  CHECK(back.name == m.name);
  for (const auto& field : machine_fields()) {
    INFO(field.key);
    CHECK((back.*field.member).value == (m.*field.member).value);
    CHECK((back.*field.member).unit == (m.*field.member).unit);
    CHECK((back.*field.member).source == (m.*field.member).source);
  }
  std::ifstream in(file);
  const auto j = nlohmann::json::parse(in);
  CHECK(j["calibration"]["device"] == "A GPU");
  CHECK(j["parameters"].size() == machine_fields().size());
  CHECK_THROWS_WITH(save_machine_file(m, file, "{not json"), Catch::Contains("calibration record is not valid JSON"));
  CHECK_THROWS_WITH(save_machine_file(m, fs::path("/nonexistent-dir/x.json")), Catch::Contains("cannot write"));
}

TEST_CASE("the H100 file's cycle-model figures come from a calibration run on an H100", "[machine][calibrate]") {
  const MachineSpec m = load_machine("h100-sxm");
  for (const auto& f : ts::kernels::calibrate::kMeasuredFields) {
    INFO(f.key);
    const std::string& source = (m.*find_machine_field(f.key)->member).source;
    CHECK(source.rfind("measured: tilescope calibrate on NVIDIA H100", 0) == 0);
  }
  // What the run found, against what the datasheet implies: the tensor pipe reaches 4096 FLOP per
  // cycle per SM, shared memory 32 banks x 4 bytes per cycle, under load below the 1980 MHz maximum.
  CHECK(m.wgmma_m64n64k16_interval.value == Approx(2.0 * 64 * 64 * 16 / 4096).epsilon(0.02));
  CHECK(m.wgmma_m64n128k16_interval.value == Approx(2.0 * 64 * 128 * 16 / 4096).epsilon(0.02));
  CHECK(m.wgmma_m64n256k16_interval.value == Approx(2.0 * 64 * 256 * 16 / 4096).epsilon(0.02));
  CHECK(m.smem_bandwidth_per_sm.value == Approx(128).epsilon(0.02));
  CHECK(m.sm_clock_under_load.value < 1980);
  CHECK(m.wgmma_m64n64k16_latency.value < m.wgmma_m64n128k16_latency.value);
  CHECK(m.wgmma_m64n128k16_latency.value < m.wgmma_m64n256k16_latency.value);
  CHECK(m.tma_load_latency_l2_hit.value < m.tma_load_latency_hbm.value);
  CHECK(m.l2_hit_latency.value < m.hbm_latency_measured.value);
  // The pipes: no pipe takes instructions faster than its scheduler issues them,
  // and the FMA and SFU rates are the Programming Guide's (128 and 16 results per clock per SM on 4
  // sub-partitions: an FFMA every cycle, a MUFU every 8).
  for (const Quantity* q : {&m.fma_interval, &m.alu_interval, &m.sfu_interval, &m.convert_interval, &m.shuffle_interval})
    CHECK(q->value >= 0.98 / m.issue_per_cycle.value);
  for (const Quantity* q : {&m.fma_latency, &m.alu_latency, &m.sfu_latency, &m.convert_latency, &m.shuffle_latency, &m.named_barrier_cycles})
    CHECK(q->value >= 1);
  CHECK(m.fma_interval.value == Approx(1).epsilon(0.1));
  CHECK(m.sfu_interval.value == Approx(8).epsilon(0.1));
}

TEST_CASE("the SM core: four sub-partitions issuing one instruction a cycle, in both machine files", "[machine][calibrate]") {
  const MachineSpec h100 = load_machine("h100-sxm"), h200 = load_machine("h200");
  for (const MachineSpec* m : {&h100, &h200}) {
    INFO(m->id);
    CHECK(m->sub_partitions.value == 4);
    CHECK(m->issue_per_cycle.value == 1);
    CHECK(m->sub_partitions.source.rfind("datasheet:", 0) == 0);
    CHECK(m->issue_per_cycle.source.rfind("datasheet:", 0) == 0);
  }
  // The H200's pipe figures are its own, measured by calibrate there (2026-11-26), and agree with
  // the H100's: the same GH100 SM.
  for (const auto& f : ts::kernels::calibrate::kMeasuredFields) {
    if (f.group != "pipes") continue;
    INFO(f.key);
    const Quantity& a = h100.*find_machine_field(f.key)->member;
    const Quantity& b = h200.*find_machine_field(f.key)->member;
    CHECK(b.value == Approx(a.value).epsilon(0.05));
    CHECK(b.source.rfind("measured: tilescope calibrate on NVIDIA H200", 0) == 0);
  }
}

TEST_CASE("calibrate's groups: every measured field belongs to one, and --only names one", "[machine][calibrate]") {
  namespace cal = ts::kernels::calibrate;
  std::set<std::string> used;
  for (const auto& f : cal::kMeasuredFields) {
    INFO(f.key);
    CHECK(cal::is_group(f.group));
    used.insert(std::string(f.group));
  }
  CHECK(used.size() == cal::kGroups.size());  // no group without a field
  std::set<std::string> pipes;
  for (const auto& f : cal::kMeasuredFields)
    if (f.group == "pipes") pipes.insert(std::string(f.key));
  CHECK(pipes == std::set<std::string>{"fma_interval", "fma_latency", "alu_interval", "alu_latency", "sfu_interval", "sfu_latency",
                                       "convert_interval", "convert_latency", "shuffle_interval", "shuffle_latency", "named_barrier_cycles"});
  CHECK_FALSE(cal::is_group(""));
  CHECK_FALSE(cal::is_group("everything"));
  CHECK(cal::group_list() == "launch, mbarrier, tensor, clock, memory, pipes or port");
}

TEST_CASE("the GEMM's measured DRAM bytes: every block order at 16384^3, at least the compulsory traffic", "[machine][calibrate]") {
  std::ifstream in(find_data_path("measured/h100/gemm_dram.json"));
  const auto j = nlohmann::json::parse(in);
  CHECK(j["device"].get<std::string>().find("H100") != std::string::npos);
  std::set<std::string> configs;
  for (const auto& r : j["rows"]) {
    INFO(r.dump());
    CHECK(r["m"] == 16384);
    CHECK(r["dram_bytes_read"].get<double>() >= r["compulsory_bytes_read"].get<double>());
    // C is written once; a few MB of slack for what else the launch writes.
    CHECK(r["dram_bytes_write"].get<double>() == Approx(r["compulsory_bytes_write"].get<double>()).epsilon(0.05));
    configs.insert(r["order"].get<std::string>() + ":" + std::to_string(r["group_size"].get<int>()) +
                   (r["persistent"].get<bool>() ? "/p" : "/np"));
  }
  CHECK(configs == std::set<std::string>{"row-major:1/p", "row-major:1/np", "col-major:1/p", "col-major:1/np",
                                         "grouped:8/p", "grouped:8/np", "grouped:16/p", "grouped:16/np"});
  CHECK(j["summary"].size() == configs.size());
}
