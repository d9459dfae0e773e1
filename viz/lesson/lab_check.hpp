#pragma once
// `tilescope lab check`: a student's kernel file compiled with the harness, run in a child process
// on the lab's shapes against its reference, then its trace simulated; the result as text for the
// terminal, JSON for grading, and a struct the GUI draws (timeline spans, shared-memory accesses).
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "viz/lesson/lab_runner.hpp"
#include "viz/lesson/lab_spec.hpp"
#include "viz/lesson/lab_trace_io.hpp"
#include "sim/engine.hpp"

namespace ts::lab {

// Exit statuses of `lab check` (2 stays bad input to the verb, as for every verb).
enum class Status { pass = 0, wrong = 1, compile_error = 3, crashed = 4, deadlock = 5, timeout = 6, slow = 7, error = 8 };
std::string status_name(Status s);

struct SimSummary {
  double cycles = 0, microseconds = 0, clock_mhz = 0;
  uint64_t conflicts = 0, wavefronts = 0;
  std::vector<std::pair<std::string, double>> units;  // unit name, busy fraction (sorted, busiest first)
  sim::SimReport report;                               // spans of SM 0 for the timeline
  std::shared_ptr<const std::vector<RecordedLaunch>> trace;  // the recorded ops (bank view)
};

struct CheckResult {
  std::string lab, file;
  Status status = Status::error;
  std::string message;  // what went wrong, in a few lines (empty on a pass)
  CompileResult compile;
  ChildResult child;
  nlohmann::json checks = nlohmann::json::array();  // per shape: params, ok, first difference
  std::optional<SimSummary> sim, reference;
  double target_cycles = 0;
  std::string untimed;  // why the kernel was checked but not simulated (an op trace mode cannot record)
  std::vector<std::string> hints;
  double seconds = 0;  // save to result: compile, run, simulate (and the reference's, when not cached)
};

struct CheckOptions {
  bool with_reference = true;  // also time the lab's solution (cached) to compare against
  double time_limit_s = 0;     // > 0: instead of the spec's limit (tests, slow machines)
};

CheckResult check_lab(const LabSpec& lab, const std::filesystem::path& file, const CheckOptions& opt = {});

std::string format_text(const CheckResult& r);
// The per-shape lines of a result's checks ("correct ..." or "WRONG ... the first is ..."), each after `indent`.
std::string format_checks(const nlohmann::json& checks, const std::string& indent = "");

// Where a check of `file` for `lab` builds and runs: the cache folder, one per lab and file.
std::filesystem::path check_work_dir(const LabSpec& lab, const std::filesystem::path& file);
// A short hex key of some bytes (what the compile caches compare).
std::string key_hash(const std::string& s);
// A shape of the lab as the harness's plan names it: params, inputs and outputs with their sizes.
// A check's parameters as one line: "m=256 n=128".
std::string params_text(const nlohmann::json& params);

nlohmann::json shape_json(const LabSpec& lab, const Params& p);
nlohmann::json to_json(const CheckResult& r);

}  // namespace ts::lab
