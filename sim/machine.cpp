#include "sim/machine.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ts::sim {

namespace fs = std::filesystem;

const std::vector<MachineField>& machine_fields() {
  static const std::vector<MachineField> fields = {
      {"sm_count", "SM", &MachineSpec::sm_count},
      {"sm_clock", "MHz", &MachineSpec::sm_clock},
      {"bf16_dense_tflops", "TFLOPS", &MachineSpec::bf16_dense_tflops},
      {"hbm_capacity", "GB", &MachineSpec::hbm_capacity},
      {"hbm_bandwidth", "TB/s", &MachineSpec::hbm_bandwidth},
      {"hbm_latency", "cycles", &MachineSpec::hbm_latency},
      {"l2_capacity", "MB", &MachineSpec::l2_capacity},
      {"l2_bandwidth", "TB/s", &MachineSpec::l2_bandwidth},
      {"l2_latency", "cycles", &MachineSpec::l2_latency},
      {"smem_per_sm", "KB", &MachineSpec::smem_per_sm},
      {"smem_bandwidth", "TB/s", &MachineSpec::smem_bandwidth},
      {"smem_latency", "cycles", &MachineSpec::smem_latency},
      {"register_file_per_sm", "KB", &MachineSpec::register_file_per_sm},
      {"registers_per_sm", "registers", &MachineSpec::registers_per_sm},
      {"max_registers_per_thread", "registers", &MachineSpec::max_registers_per_thread},
      {"register_bandwidth", "TB/s", &MachineSpec::register_bandwidth},
      {"register_latency", "cycles", &MachineSpec::register_latency},
      {"smem_banks", "banks", &MachineSpec::smem_banks},
      {"smem_bank_width", "bytes", &MachineSpec::smem_bank_width},
  };
  return fields;
}

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& what) {
  throw std::runtime_error(file.string() + ": " + what);
}

std::string required_string(const fs::path& file, const nlohmann::json& obj, const std::string& key,
                            const std::string& where) {
  if (!obj.contains(key)) fail(file, where + "'" + key + "' missing");
  if (!obj[key].is_string() || obj[key].get<std::string>().empty())
    fail(file, where + "'" + key + "' is not a non-empty string");
  return obj[key].get<std::string>();
}

Quantity read_quantity(const fs::path& file, const nlohmann::json& params, const MachineField& field) {
  const std::string key(field.key);
  if (!params.contains(key)) fail(file, "field '" + key + "' missing");
  const auto& q = params[key];
  if (!q.is_object()) fail(file, "field '" + key + "' is not an object {value, unit, source}");
  const std::string in = "field '" + key + "': ";
  if (!q.contains("value")) fail(file, in + "'value' missing");
  if (!q["value"].is_number()) fail(file, in + "'value' is not a number");
  Quantity out;
  out.value = q["value"].get<double>();
  if (out.value < 0) fail(file, "field '" + key + "' negative");
  out.unit = required_string(file, q, "unit", in);
  if (out.unit != field.unit) fail(file, in + "unit '" + out.unit + "', expected '" + std::string(field.unit) + "'");
  out.source = required_string(file, q, "source", in);
  for (const auto& [k, v] : q.items())
    if (k != "value" && k != "unit" && k != "source") fail(file, in + "unknown key '" + k + "'");
  return out;
}

std::vector<fs::path> data_dir_candidates() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("TILESCOPE_DATA_DIR"); env && *env) dirs.emplace_back(env);
#ifdef TILESCOPE_SOURCE_DIR
  dirs.push_back(fs::path(TILESCOPE_SOURCE_DIR) / "data");
#endif
  dirs.emplace_back("data");
  return dirs;
}

}  // namespace

MachineSpec load_machine_file(const fs::path& file) {
  std::ifstream in(file);
  if (!in) fail(file, "cannot open");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    fail(file, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail(file, "top level is not an object");
  MachineSpec spec;
  spec.id = file.stem().string();
  spec.file = file.string();
  spec.name = required_string(file, j, "name", "field ");
  if (!j.contains("parameters") || !j["parameters"].is_object()) fail(file, "field 'parameters' missing");
  const auto& params = j["parameters"];
  for (const auto& field : machine_fields()) spec.*field.member = read_quantity(file, params, field);
  for (const auto& [key, value] : params.items()) {
    const bool known = std::any_of(machine_fields().begin(), machine_fields().end(),
                                   [&](const MachineField& f) { return f.key == key; });
    if (!known) fail(file, "unknown field '" + key + "'");
  }
  // Fields the rest of the program divides by.
  for (auto key : {"sm_count", "sm_clock", "bf16_dense_tflops", "hbm_bandwidth", "smem_banks", "smem_bank_width"}) {
    for (const auto& f : machine_fields())
      if (f.key == key && (spec.*f.member).value == 0) fail(file, "field '" + std::string(key) + "' is zero");
  }
  return spec;
}

fs::path find_data_path(std::string_view relative) {
  std::string tried;
  for (const auto& dir : data_dir_candidates()) {
    const fs::path p = dir / relative;
    if (fs::exists(p)) return p;
    tried += (tried.empty() ? "" : ", ") + p.string();
  }
  throw std::runtime_error("cannot find data file '" + std::string(relative) + "' (tried " + tried +
                           "; set TILESCOPE_DATA_DIR)");
}

MachineSpec load_machine(std::string_view id) {
  return load_machine_file(find_data_path("machines/" + std::string(id) + ".json"));
}

std::vector<std::string> machine_ids() {
  std::vector<std::string> ids;
  for (const auto& dir : data_dir_candidates()) {
    const fs::path machines = dir / "machines";
    if (!fs::is_directory(machines)) continue;
    for (const auto& entry : fs::directory_iterator(machines))
      if (entry.path().extension() == ".json") ids.push_back(entry.path().stem().string());
    break;
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace ts::sim
