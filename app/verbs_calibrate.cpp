#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/verbs.hpp"
#include "kernels/calibrate/calibrate.hpp"
#include "sim/machine.hpp"

namespace ts::app {

#if TILESCOPE_HAVE_CUDA
namespace {

namespace cal = kernels::calibrate;
namespace fs = std::filesystem;

// Which machine file the device writes by default: the H100 SXM's, the H200's, or none.
std::string machine_id_for(const std::string& device) {
  if (device.find("H100") != std::string::npos) return "h100-sxm";
  if (device.find("H200") != std::string::npos) return "h200";
  return {};
}

nlohmann::json calibration_record(const cal::Report& rep, const std::string& command) {
  nlohmann::json j;
  j["device"] = rep.device;
  j["date"] = rep.date;
  j["command"] = command;
  j["sm_count"] = rep.sm_count;
  j["cuda_driver"] = rep.driver_version;
  j["cuda_runtime"] = rep.runtime_version;
  nlohmann::json methods = nlohmann::json::object(), extras = nlohmann::json::object();
  for (const auto& f : rep.fields) methods[f.key] = f.method;
  for (const auto& f : rep.extras) extras[f.key] = {{"value", f.value}, {"unit", f.unit}, {"method", f.method}};
  j["methods"] = methods;
  j["extras"] = extras;
  j["failures"] = rep.failures;
  return j;
}

// A run of one group (--only) adds to the record already in the machine file it keeps the other
// fields of: the methods of the fields it measured replace theirs, and the run itself (device, date,
// command, its fields, extras and failures) goes under "partial_runs", replacing an earlier partial
// run of the same group. The rest of the record, the full run's, stays as it was.
nlohmann::json merged_record(const fs::path& base, const cal::Report& rep, const std::string& command, const std::string& group) {
  std::ifstream in(base);
  const nlohmann::json file = nlohmann::json::parse(in);
  nlohmann::json record = file.contains("calibration") && file["calibration"].is_object() ? file["calibration"] : nlohmann::json::object();
  nlohmann::json run = calibration_record(rep, command);
  if (!record.contains("methods") || !record["methods"].is_object()) record["methods"] = nlohmann::json::object();
  for (const auto& [key, method] : run["methods"].items()) record["methods"][key] = method;
  run.erase("methods");
  run["only"] = group;
  run["fields"] = nlohmann::json::array();
  for (const auto& f : rep.fields) run["fields"].push_back(f.key);
  nlohmann::json runs = nlohmann::json::array();
  if (record.contains("partial_runs") && record["partial_runs"].is_array())
    for (const auto& r : record["partial_runs"])
      if (!(r.is_object() && r.value("only", "") == group)) runs.push_back(r);
  runs.push_back(run);
  record["partial_runs"] = runs;
  return record;
}

}  // namespace
#endif

VerbRun add_calibrate_verb(CLI::App& cli) {
  struct Args {
    std::string out, machine_id, only;
    bool quick = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand("calibrate", "Measure this GPU with microbenchmarks and write its machine file");
  cmd->add_option("--out", args->out,
                  "Machine file to write (default: data/machines/h100-sxm.json on an H100, h200.json on an H200)");
  cmd->add_option("--machine-id", args->machine_id,
                  "Machine file (data/machines/ID.json) whose other fields are kept, and the default --out");
  cmd->add_flag("--quick", args->quick, "Small sizes, few repetitions: checks that it runs; writes only with --out");
  cmd->add_option("--only", args->only,
                  "Run one group of microbenchmarks (" + kernels::calibrate::group_list() +
                      ") and rewrite only its fields, keeping the others and their calibration record");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    if (!args->only.empty() && !kernels::calibrate::is_group(args->only))
      throw UsageError("calibrate: unknown group '" + args->only + "' (expected " + kernels::calibrate::group_list() + ")");
#if TILESCOPE_HAVE_CUDA
    std::string device;
    try {
      device = cal::device_name();
    } catch (const cal::NoDevice& e) {
      throw UsageError(e.what());
    }
    // The file whose datasheet fields are kept, and where the result goes.
    std::string id = args->machine_id.empty() ? machine_id_for(device) : args->machine_id;
    fs::path out = args->out;
    if (out.empty() && !args->quick) {
      if (id.empty())
        throw UsageError("calibrate: no machine file is known for '" + device + "': name one with --machine-id or --out");
      out = fs::path(TILESCOPE_SOURCE_DIR) / "data" / "machines" / (id + ".json");
    }
    fs::path base;
    try {
      base = sim::find_data_path("machines/" + (id.empty() ? std::string("h100-sxm") : id) + ".json");
    } catch (const std::runtime_error& e) {
      throw UsageError("calibrate: " + std::string(e.what()) + "; --machine-id takes one of the files there");
    }
    sim::MachineSpec spec = sim::load_machine_file(base);
    const sim::MachineSpec before = spec;

    const cal::Report rep = cal::run({.quick = args->quick, .only = args->only, .sub_partitions = static_cast<int>(spec.sub_partitions.value)});
    const std::string source = "measured: tilescope calibrate on " + rep.device + ", " + rep.date;
    for (const auto& f : rep.fields) {
      const sim::MachineField* field = sim::find_machine_field(f.key);
      if (!field || field->unit != f.unit)
        throw std::runtime_error("calibrate measured '" + f.key + "' in '" + f.unit + "', which the machine file does not take");
      spec.*field->member = {f.value, f.unit, source};
    }
    if (id.empty() || base.stem() != id) spec.name = rep.device;
    std::string command = "tilescope calibrate";
    if (!args->machine_id.empty()) command += " --machine-id " + args->machine_id;
    if (!args->out.empty()) command += " --out " + args->out;
    if (args->quick) command += " --quick";
    if (!args->only.empty()) command += " --only " + args->only;
    if (!out.empty()) {
      const nlohmann::json record = args->only.empty() ? calibration_record(rep, command) : merged_record(base, rep, command, args->only);
      sim::save_machine_file(spec, out, record.dump());
    }

    for (const auto& f : rep.failures) std::printf("not measured: %s\n", f.c_str());
    std::printf("\n%s, %s%s: %s\n", rep.device.c_str(), rep.date.c_str(), args->quick ? " (--quick: rough figures)" : "",
                out.empty() ? "no file written" : ("wrote " + out.string()).c_str());
    std::printf("%-28s %10s  %-19s %10s  %s\n", "field", "measured", "unit", "was", "was from");
    for (const auto& f : cal::kMeasuredFields) {
      if (!args->only.empty() && f.group != args->only) continue;
      const sim::MachineField* field = sim::find_machine_field(f.key);
      const sim::Quantity& old = before.*field->member;
      const auto it = std::find_if(rep.fields.begin(), rep.fields.end(), [&](const cal::Figure& g) { return g.key == f.key; });
      const std::string was_from = old.source.substr(0, old.source.find(':'));
      if (it == rep.fields.end())
        std::printf("%-28s %10s  %-19s %10g  %s\n", std::string(f.key).c_str(), "-", std::string(f.unit).c_str(), old.value, was_from.c_str());
      else
        std::printf("%-28s %10g  %-19s %10g  %s\n", it->key.c_str(), it->value, it->unit.c_str(), old.value, was_from.c_str());
    }
    return rep.failures.empty() ? 0 : 1;
#else
    throw UsageError("this build has no CUDA kernels (nvcc was not found at configure time): calibrate needs them and a Hopper GPU");
#endif
  };
}

}  // namespace ts::app
