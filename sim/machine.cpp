#include "sim/machine.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
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
      {"sm_clock_under_load", "MHz", &MachineSpec::sm_clock_under_load},
      {"wgmma_m64n64k16_interval", "cycles/instruction", &MachineSpec::wgmma_m64n64k16_interval},
      {"wgmma_m64n128k16_interval", "cycles/instruction", &MachineSpec::wgmma_m64n128k16_interval},
      {"wgmma_m64n256k16_interval", "cycles/instruction", &MachineSpec::wgmma_m64n256k16_interval},
      {"wgmma_m64n64k16_latency", "cycles", &MachineSpec::wgmma_m64n64k16_latency},
      {"wgmma_m64n128k16_latency", "cycles", &MachineSpec::wgmma_m64n128k16_latency},
      {"wgmma_m64n256k16_latency", "cycles", &MachineSpec::wgmma_m64n256k16_latency},
      {"wgmma_m64n256k32_fp8_interval", "cycles/instruction", &MachineSpec::wgmma_m64n256k32_fp8_interval},
      {"wgmma_m64n256k32_fp8_latency", "cycles", &MachineSpec::wgmma_m64n256k32_fp8_latency},
      {"sub_partitions", "sub-partitions", &MachineSpec::sub_partitions},
      {"issue_per_cycle", "instructions/cycle", &MachineSpec::issue_per_cycle},
      {"fma_interval", "cycles/instruction", &MachineSpec::fma_interval},
      {"fma_latency", "cycles", &MachineSpec::fma_latency},
      {"alu_interval", "cycles/instruction", &MachineSpec::alu_interval},
      {"alu_latency", "cycles", &MachineSpec::alu_latency},
      {"sfu_interval", "cycles/instruction", &MachineSpec::sfu_interval},
      {"sfu_latency", "cycles", &MachineSpec::sfu_latency},
      {"sfu_share_age_weight", "ratio", &MachineSpec::sfu_share_age_weight},
      {"convert_interval", "cycles/instruction", &MachineSpec::convert_interval},
      {"convert_latency", "cycles", &MachineSpec::convert_latency},
      {"shuffle_interval", "cycles/instruction", &MachineSpec::shuffle_interval},
      {"shuffle_latency", "cycles", &MachineSpec::shuffle_latency},
      {"named_barrier_cycles", "cycles", &MachineSpec::named_barrier_cycles},
      {"tma_load_latency_l2_hit", "cycles", &MachineSpec::tma_load_latency_l2_hit},
      {"tma_load_latency_hbm", "cycles", &MachineSpec::tma_load_latency_hbm},
      {"tma_bandwidth_per_sm", "bytes/cycle", &MachineSpec::tma_bandwidth_per_sm},
      {"mbarrier_round_trip", "cycles", &MachineSpec::mbarrier_round_trip},
      {"smem_bandwidth_per_sm", "bytes/cycle", &MachineSpec::smem_bandwidth_per_sm},
      {"wgmma_issue_cycles", "cycles/instruction", &MachineSpec::wgmma_issue_cycles},
      {"wgmma_share_age_weight", "ratio", &MachineSpec::wgmma_share_age_weight},
      {"wgmma_issue_cycles_per_column", "cycles/column", &MachineSpec::wgmma_issue_cycles_per_column},
      {"wgmma_queue_depth", "instructions", &MachineSpec::wgmma_queue_depth},
      {"lsu_load_bytes_under_wgmma", "bytes/cycle", &MachineSpec::lsu_load_bytes_under_wgmma},
      {"lsu_store_bytes_under_wgmma", "bytes/cycle", &MachineSpec::lsu_store_bytes_under_wgmma},
      {"tma_write_tensor_stall", "cycles/byte", &MachineSpec::tma_write_tensor_stall},
      {"l2_hit_bandwidth", "TB/s", &MachineSpec::l2_hit_bandwidth},
      {"l2_tma_bandwidth", "TB/s", &MachineSpec::l2_tma_bandwidth},
      {"l2_merge_window", "cycles", &MachineSpec::l2_merge_window},
      {"sm_clock_gemm_sustained", "MHz", &MachineSpec::sm_clock_gemm_sustained},
      {"sm_clock_boost", "MHz", &MachineSpec::sm_clock_boost},
      {"tma_load_latency_under_load", "cycles", &MachineSpec::tma_load_latency_under_load},
      {"tma_store_latency", "cycles", &MachineSpec::tma_store_latency},
      {"tma_store_latency_under_load", "cycles", &MachineSpec::tma_store_latency_under_load},
      {"tma_store_bandwidth", "TB/s", &MachineSpec::tma_store_bandwidth},
      {"tma_reduce_bandwidth", "TB/s", &MachineSpec::tma_reduce_bandwidth},
      {"l2_hit_latency", "cycles", &MachineSpec::l2_hit_latency},
      {"hbm_bandwidth_measured", "TB/s", &MachineSpec::hbm_bandwidth_measured},
      {"hbm_bandwidth_scattered", "TB/s", &MachineSpec::hbm_bandwidth_scattered},
      {"hbm_latency_measured", "cycles", &MachineSpec::hbm_latency_measured},
      {"launch_overhead", "us", &MachineSpec::launch_overhead},
      {"launch_latency_timed", "us", &MachineSpec::launch_latency_timed},
      {"block_start_spread", "us", &MachineSpec::block_start_spread},
      {"l2_line_size", "bytes", &MachineSpec::l2_line_size},
      {"l2_sector_size", "bytes", &MachineSpec::l2_sector_size},
      {"l2_associativity", "ways", &MachineSpec::l2_associativity},
      {"l2_partitions", "partitions", &MachineSpec::l2_partitions},
      {"gpc_count", "GPCs", &MachineSpec::gpc_count},
      {"hbm_port_tpcs", "TPCs", &MachineSpec::hbm_port_tpcs},
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
  std::ostringstream text;
  text << in.rdbuf();
  return parse_machine_text(text.str(), file);
}

namespace {

// The 1-based line of byte `at` of `text`.
int line_at(const std::string& text, size_t at) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(at, text.size())), '\n'));
}

// "FILE: field 'x' negative" becomes "FILE:LINE: field 'x' negative", LINE being where the key
// the message names ('x', the first quoted name) is written, else where "parameters" is, else 1:
// an editor jumps there.
std::string with_line(const std::string& message, const std::string& text, const fs::path& file) {
  const std::string prefix = file.string() + ": ";
  if (message.rfind(prefix, 0) != 0) return message;
  const std::string rest = message.substr(prefix.size());
  size_t at = std::string::npos;
  if (const size_t open = rest.find('\''); open != std::string::npos)
    if (const size_t close = rest.find('\'', open + 1); close != std::string::npos)
      if (const std::string name = rest.substr(open + 1, close - open - 1); !name.empty())
        at = std::isdigit(static_cast<unsigned char>(name[0])) || name[0] == '-' ? text.find(name)  // a number
                                                                                  : text.find("\"" + name + "\"");
  if (at == std::string::npos) at = text.find("\"parameters\"");
  return file.string() + ":" + std::to_string(at == std::string::npos ? 1 : line_at(text, at)) + ": " + rest;
}

MachineSpec parse_machine_json(const std::string& text, const fs::path& file);

}  // namespace

MachineSpec parse_machine_text(const std::string& text, const fs::path& file) {
  try {
    return parse_machine_json(text, file);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(with_line(e.what(), text, file));
  }
}

namespace {

MachineSpec parse_machine_json(const std::string& text, const fs::path& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's byte is one past the character it stopped at.
    throw std::runtime_error(file.string() + ":" + std::to_string(line_at(text, e.byte > 0 ? e.byte - 1 : 0)) +
                             ": not valid JSON: " + e.what());
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double (out_of_range) carries no position: with_line finds the
    // line of the number the message quotes.
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
  for (const auto& [key, value] : params.items())
    if (!find_machine_field(key)) fail(file, "unknown field '" + key + "'");
  // Fields the rest of the program divides by.
  for (auto key : {"sm_count", "sm_clock", "bf16_dense_tflops", "hbm_bandwidth", "smem_banks", "smem_bank_width",
                   "sm_clock_under_load", "wgmma_m64n64k16_interval", "wgmma_m64n128k16_interval",
                   "wgmma_m64n256k16_interval", "wgmma_m64n256k32_fp8_interval", "tma_bandwidth_per_sm", "smem_bandwidth_per_sm", "l2_hit_bandwidth", "l2_tma_bandwidth", "sm_clock_gemm_sustained",
                   "sm_clock_boost", "tma_store_bandwidth", "tma_reduce_bandwidth", "sub_partitions", "issue_per_cycle", "fma_interval",
                   "alu_interval", "sfu_interval", "convert_interval", "shuffle_interval",
                   "hbm_bandwidth_measured", "hbm_bandwidth_scattered", "l2_line_size", "l2_sector_size", "l2_associativity", "l2_partitions"}) {
    if ((spec.*find_machine_field(key)->member).value == 0) fail(file, "field '" + std::string(key) + "' is zero");
  }
  return spec;
}

}  // namespace

const MachineField* find_machine_field(std::string_view key) {
  for (const auto& f : machine_fields())
    if (f.key == key) return &f;
  return nullptr;
}

void save_machine_file(const MachineSpec& spec, const fs::path& file, std::string_view calibration_json) {
  size_t width = 0;
  for (const auto& f : machine_fields()) width = std::max(width, f.key.size());
  // Columns: each piece padded to its width, or followed by one space when longer.
  auto column = [](std::string s, size_t w) { return s + std::string(s.size() < w ? w - s.size() : 1, ' '); };
  std::ostringstream os;
  os << "{\n  \"name\": " << nlohmann::json(spec.name).dump() << ",\n  \"parameters\": {\n";
  for (size_t i = 0; i < machine_fields().size(); ++i) {
    const auto& f = machine_fields()[i];
    const Quantity& q = spec.*f.member;
    // Whole numbers without a decimal point, others in the shortest text that reads back the same.
    const std::string value = q.value == std::floor(q.value) && std::abs(q.value) < 1e15
                                  ? std::to_string(static_cast<long long>(q.value))
                                  : nlohmann::json(q.value).dump();
    os << "    " << column(nlohmann::json(std::string(f.key)).dump() + ":", width + 4) << "{\"value\": "
       << column(value + ",", 8) << "\"unit\": " << column(nlohmann::json(q.unit).dump() + ",", 14)
       << "\"source\": " << nlohmann::json(q.source).dump() << "}" << (i + 1 < machine_fields().size() ? "," : "")
       << "\n";
  }
  os << "  }";
  if (!calibration_json.empty()) {
    nlohmann::json c;
    try {
      c = nlohmann::json::parse(calibration_json);
    } catch (const nlohmann::json::parse_error& e) {
      throw std::runtime_error(file.string() + ": calibration record is not valid JSON: " + e.what());
    }
    if (!c.is_object()) throw std::runtime_error(file.string() + ": calibration record is not a JSON object");
    std::string text = c.dump(2);
    for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 3)) text.insert(at + 1, "  ");
    os << ",\n  \"calibration\": " << text;
  }
  os << "\n}\n";
  std::ofstream out(file);
  if (!out) throw std::runtime_error(file.string() + ": cannot write");
  out << os.str();
  if (!out) throw std::runtime_error(file.string() + ": write failed");
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
