// The check of a lab kernel file: compile, run in a child, simulate, judge.
#include "viz/lesson/lab_check.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/machine.hpp"

namespace ts::lab {

namespace fs = std::filesystem;
using nlohmann::json;

std::string status_name(Status s) {
  switch (s) {
    case Status::pass: return "pass";
    case Status::wrong: return "wrong";
    case Status::compile_error: return "compile_error";
    case Status::crashed: return "crashed";
    case Status::deadlock: return "deadlock";
    case Status::timeout: return "timeout";
    case Status::slow: return "slow";
    case Status::error: return "error";
  }
  return "error";
}

std::string key_hash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

fs::path check_work_dir(const LabSpec& lab, const fs::path& file) {
  return cache_dir() / (lab.id + "-" + key_hash(fs::absolute(file).lexically_normal().string()));
}

json shape_json(const LabSpec& lab, const Params& p) {
  json s = {{"params", json::object()}, {"inputs", json::array()}, {"outputs", json::array()}};
  for (const auto& [k, v] : p) s["params"][k] = v;
  for (const auto* set : {&lab.inputs, &lab.outputs})
    for (const auto& t : *set) {
      const auto [rows, cols] = resolve_shape(t, p, "lab");
      json x = {{"name", t.name}, {"dtype", t.dtype}, {"rows", rows}, {"cols", cols}};
      if (set == &lab.outputs) x["tile_rows"] = t.tile_rows, x["tile_cols"] = t.tile_cols;
      s[set == &lab.inputs ? "inputs" : "outputs"].push_back(x);
    }
  return s;
}

namespace {

// A recorded launch as the simulator's grid.
class RecordedGrid final : public sim::GridTrace {
 public:
  explicit RecordedGrid(const RecordedLaunch& l) : l_(l) {}
  uint32_t blocks() const override { return static_cast<uint32_t>(l_.grid); }
  uint32_t threads_per_block() const override { return static_cast<uint32_t>(l_.warps * 32); }
  uint32_t cluster_size() const override { return 1; }  // labs launch no clusters
  sim::BlockTrace block(uint32_t index) override {
    sim::BlockTrace b;
    for (const auto& ops : l_.blocks[index]) b.warps.push_back(std::make_unique<sim::VectorSource>(ops));
    b.shared_bytes = l_.smem_bytes;
    b.registers_per_thread = l_.registers;
    return b;
  }

 private:
  const RecordedLaunch& l_;
};

SimSummary simulate_trace(std::shared_ptr<const std::vector<RecordedLaunch>> trace) {
  static const sim::MachineSpec machine = sim::load_machine("h100-sxm");
  const sim::EngineParams p = sim::engine_params(machine);
  SimSummary s;
  s.clock_mhz = p.clock_mhz;
  s.trace = trace;
  sim::SimOptions opt;
  opt.timeline_sms = 1;
  double cycles = 0;
  std::vector<double> busy(9, 0.0);
  for (const auto& l : *trace) {
    RecordedGrid grid(l);
    sim::SimReport r = sim::simulate(grid, p, opt);
    for (auto sp : r.spans) {
      sp.start += cycles;
      sp.end += cycles;
      s.report.spans.push_back(sp);
    }
    const double w = r.cycles;
    busy[0] += r.tensor_busy * w;
    busy[1] += r.tma_busy * w;
    busy[2] += r.l2_busy * w;
    busy[3] += r.hbm_busy * w;
    for (int i = 0; i < sim::kPipes; ++i) busy[4 + i] += r.pipe_busy[i] * w;
    cycles += r.cycles;
    s.conflicts += r.bank_conflicts;
    s.wavefronts += r.smem_wavefronts;
    s.report.ops += r.ops;
    s.report.blocks += r.blocks;
  }
  s.cycles = cycles;
  s.report.cycles = cycles;
  s.microseconds = cycles / p.clock_mhz;
  const char* names[9] = {"tensor cores", "TMA", "L2", "HBM", "FMA pipe", "ALU pipe", "SFU pipe", "convert pipe", "shuffle pipe"};
  for (int i = 0; i < 9; ++i) s.units.emplace_back(names[i], cycles > 0 ? busy[i] / cycles : 0);
  std::stable_sort(s.units.begin(), s.units.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return s;
}

json sim_json(const SimSummary& s) {
  json u = json::object();
  for (const auto& [n, b] : s.units) u[n] = b;
  return {{"cycles", s.cycles}, {"microseconds", s.microseconds}, {"clock_mhz", s.clock_mhz}, {"bank_conflicts", s.conflicts},
          {"wavefronts", s.wavefronts}, {"units", u}};
}

// Compiles and runs `file` for `lab` in `work`; fills r up to the simulation.
void build_and_run(const LabSpec& lab, const fs::path& file, const fs::path& work, CheckResult& r) {
  const BuildConfig cfg = load_build_config();
  if (!cfg.host)
    throw std::runtime_error("this build of TileScope has no host backend (Boost.Context was not found when " + cfg.file.parent_path().string() +
                             " was configured): the CPU check cannot run here" + (cfg.gpu ? "; --gpu runs the kernel on the GPU" : ""));
  fs::create_directories(work);
  const fs::path bin = work / "lab.bin";
  // The same file, headers and build as the binary already there: no need to compile again.
  std::string key = read_all(file) + read_all(cfg.file);
  for (const auto& inc : cfg.includes)
    if (fs::exists(fs::path(inc) / "lab.hpp")) key += read_all(fs::path(inc) / "lab.hpp");
  for (const auto& l : cfg.link)
    if (fs::exists(l)) key += std::to_string(static_cast<long long>(fs::last_write_time(l).time_since_epoch().count()));
  const std::string stamp = key_hash(key);
  if (fs::exists(bin) && read_all(work / "lab.bin.key") == stamp) {
    r.compile.ok = true;
    r.compile.cached = true;
  } else {
    fs::remove(work / "lab.bin.key");
    r.compile = compile_lab(cfg, file, bin);
    if (r.compile.ok) std::ofstream(work / "lab.bin.key") << stamp;
  }
  if (!r.compile.ok) {
    r.status = Status::compile_error;
    r.message = r.compile.diagnostics;
    return;
  }
  json plan = {{"reference", lab.reference}, {"tolerance", {{"abs", lab.abs_tol}, {"rel", lab.rel_tol}}},
               {"input_scale", lab.input_scale}, {"seed", 1}, {"checks", json::array()}};
  for (const auto& p : lab.checks) plan["checks"].push_back(shape_json(lab, p));
  plan["trace"] = shape_json(lab, lab.simulate);
  const fs::path plan_file = work / "plan.json", result_file = work / "result.json", trace_file = work / "trace.bin";
  std::ofstream(plan_file) << plan.dump(1);
  fs::remove(result_file);
  fs::remove(trace_file);
  r.child = run_child({bin.string(), plan_file.string(), result_file.string(), trace_file.string()}, lab.time_limit_s,
                      work / "run.log", cfg.memory_limit_mb);
  const std::string where = r.child.last_stage.empty() ? "" : " during " + r.child.last_stage;
  if (r.child.timed_out) {
    r.status = Status::timeout;
    r.message = "stopped after the lab's time limit of " + std::to_string(static_cast<int>(lab.time_limit_s)) + " s" + where +
                ": an endless loop, or a wait that spins?";
    return;
  }
  if (r.child.signal) {
    r.status = Status::crashed;
    r.message = "the kernel crashed" + where + ": " + signal_name(r.child.signal);
    if (!r.child.output.empty()) r.message += "\n" + r.child.output;
    return;
  }
  // In a build with AddressSanitizer (tilescope built with TILESCOPE_SANITIZE, the lab compiled with
  // its flags) a bad access ends the process with the sanitizer's report instead of the signal.
  if (const size_t at = r.child.output.find("ERROR: AddressSanitizer: "); r.child.exit_code != 0 && at != std::string::npos) {
    const size_t from = at + 7, end = r.child.output.find('\n', from);
    const std::string report = r.child.output.substr(from, end == std::string::npos ? std::string::npos : end - from);
    const std::string kind = report.substr(18, report.find(' ', 18) - 18);  // after "AddressSanitizer: "
    r.status = Status::crashed;
    r.message = "the kernel crashed" + where + ": " + (kind == "SEGV" || kind == "BUS" ? "SIG" + kind + ", " : std::string()) + report;
    r.message += "\n" + r.child.output;
    return;
  }
  json res;
  try {
    res = json::parse(read_all(result_file));
  } catch (const std::exception&) {
    r.status = Status::crashed;
    r.message = "the check's process exited with status " + std::to_string(r.child.exit_code) + where + " and wrote no result";
    if (!r.child.output.empty()) r.message += "\n" + r.child.output;
    return;
  }
  r.checks = res.value("checks", json::array());
  if (res.contains("error")) {
    const json& e = res["error"];
    r.status = e.value("kind", "") == "deadlock" ? Status::deadlock : Status::error;
    r.message = std::string(r.status == Status::deadlock ? "deadlock" : "error") + " during " + e.value("stage", "") + ": " +
                e.value("message", "");
    return;
  }
  if (res.contains("untimed")) {
    r.untimed = res["untimed"].get<std::string>();
    r.status = Status::pass;
    return;
  }
  auto trace = std::make_shared<const std::vector<RecordedLaunch>>(read_trace(trace_file.string()));
  try {
    r.sim = simulate_trace(trace);
  } catch (const std::exception& e) {
    r.status = Status::error;
    r.message = std::string("the simulator could not replay the kernel's trace: ") + e.what();
    return;
  }
  r.status = Status::pass;
}

// Where the reference solution's trace is cached, and the marker that says it is current: a file
// named by the hash of the solution, the spec and the build.
std::pair<fs::path, fs::path> reference_cache(const LabSpec& lab) {
  const BuildConfig cfg = load_build_config();
  std::string key = read_all(lab.solution) + read_all(lab.dir / "lab.json") + read_all(cfg.file);
  for (const auto& l : cfg.link)
    if (fs::exists(l)) key += std::to_string(static_cast<long long>(fs::last_write_time(l).time_since_epoch().count()));
  const fs::path work = cache_dir() / (lab.id + "-reference");
  return {work, work / ("reference-" + key_hash(key) + ".json")};
}

// The reference solution's simulation: replayed from the cache, else built, run and cached.
std::optional<SimSummary> reference_sim(const LabSpec& lab) {
  const auto [work, cached] = reference_cache(lab);
  // The marker says trace.bin was recorded from this solution, spec and build: replaying it again
  // is cheap (and gives the GUI the reference's spans), building and running it is not.
  if (fs::exists(cached) && fs::exists(work / "trace.bin")) {
    try {
      return simulate_trace(std::make_shared<const std::vector<RecordedLaunch>>(read_trace((work / "trace.bin").string())));
    } catch (const std::exception&) {
      // a broken cache entry: build it again
    }
  }
  CheckResult r;
  build_and_run(lab, lab.solution, work, r);
  if (r.status != Status::pass || !r.sim) return std::nullopt;
  std::ofstream(cached) << sim_json(*r.sim).dump(1);
  return r.sim;
}

}  // namespace

std::string params_text(const json& p) {
  std::string s;
  for (auto it = p.begin(); it != p.end(); ++it) s += (s.empty() ? "" : " ") + it.key() + "=" + std::to_string(it.value().get<int>());
  return s;
}

CheckResult check_lab(const LabSpec& lab, const fs::path& file, const CheckOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckResult r;
  r.lab = lab.id;
  r.file = file.string();
  r.target_cycles = lab.target_cycles;
  if (!fs::exists(file)) throw std::runtime_error(file.string() + ": no such file (tilescope lab start " + lab.id + " makes one)");
  const fs::path work = check_work_dir(lab, file);
  LabSpec limited = lab;
  if (opt.time_limit_s > 0) limited.time_limit_s = opt.time_limit_s;
  build_and_run(limited, file, work, r);
  bool any_wrong = false;
  for (const auto& c : r.checks) any_wrong |= !c.value("ok", false);
  if (r.status == Status::pass && any_wrong) r.status = Status::wrong;
  if (r.status == Status::pass && lab.target_cycles > 0 && r.sim && r.sim->cycles > lab.target_cycles) r.status = Status::slow;
  if (r.sim && read_all(file) == read_all(lab.solution)) {
    // The solution itself: it is its own reference, and the cache gets it without a second build.
    r.reference = r.sim;
    const auto [ref_work, marker] = reference_cache(lab);
    fs::create_directories(ref_work);
    std::error_code ec;
    fs::copy_file(work / "trace.bin", ref_work / "trace.bin", fs::copy_options::overwrite_existing, ec);
    if (!ec) std::ofstream(marker) << sim_json(*r.sim).dump(1);
  } else if (opt.with_reference && r.sim) {
    r.reference = reference_sim(lab);
  }
  for (const auto& h : lab.hints) {
    const bool show = (h.when == "wrong" && r.status == Status::wrong) || (h.when == "slow" && r.status == Status::slow) ||
                      (h.when == "conflicts" && r.sim && r.sim->conflicts > 0 && r.status != Status::pass);
    if (show) r.hints.push_back(h.text);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string format_checks(const json& checks, const std::string& indent) {
  std::ostringstream o;
  char buf[512];
  for (const auto& c : checks) {
    if (c.value("ok", false)) {
      std::snprintf(buf, sizeof buf, "correct   %s: all %llu elements within tolerance (largest error %.3g)\n",
                    params_text(c["params"]).c_str(), static_cast<unsigned long long>(c.value("elements", 0ull)), c.value("max_abs_err", 0.0));
      o << indent << buf;
    } else if (c.contains("first")) {
      const json& f = c["first"];
      const auto text = [](const json& v) {
        if (v.is_string()) return v.get<std::string>();
        char b[32];
        std::snprintf(b, sizeof b, "%.6g", v.is_number() ? v.get<double>() : 0.0);
        return std::string(b);
      };
      const std::string got = text(f["got"]), expected = text(f["expected"]);
      std::snprintf(buf, sizeof buf,
                    "WRONG     %s: %llu of %llu elements differ; the first is %s[%d][%d] (tile %d,%d of %dx%d, at %d,%d in it): "
                    "got %s, expected %s\n",
                    params_text(c["params"]).c_str(), static_cast<unsigned long long>(c.value("mismatches", 0ull)),
                    static_cast<unsigned long long>(c.value("elements", 0ull)), f.value("output", "").c_str(), f.value("row", 0),
                    f.value("col", 0), f.value("tile_row", 0), f.value("tile_col", 0), f.value("tile_rows", 0), f.value("tile_cols", 0),
                    f.value("row", 0) % std::max(1, f.value("tile_rows", 1)), f.value("col", 0) % std::max(1, f.value("tile_cols", 1)),
                    got.c_str(), expected.c_str());
      o << indent << buf;
    }
  }
  return o.str();
}

std::string format_text(const CheckResult& r) {
  std::ostringstream o;
  char buf[512];
  o << "lab " << r.lab << ": " << r.file << "\n";
  if (r.status == Status::compile_error) {
    o << "compile   FAILED (" << std::lround(r.compile.seconds * 10) / 10.0 << " s):\n" << r.compile.diagnostics;
    if (r.compile.diagnostics.empty() || r.compile.diagnostics.back() != '\n') o << "\n";
  } else {
    if (r.compile.cached) std::snprintf(buf, sizeof buf, "compile   ok (unchanged since the last check)\n");
    else std::snprintf(buf, sizeof buf, "compile   ok (%.1f s)\n", r.compile.seconds);
    o << buf;
  }
  o << format_checks(r.checks);
  if (r.sim) {
    const auto& s = *r.sim;
    std::snprintf(buf, sizeof buf, "time      simulated %.2f us (%.0f cycles at %.0f MHz)", s.microseconds, s.cycles, s.clock_mhz);
    o << buf;
    if (r.target_cycles > 0) {
      std::snprintf(buf, sizeof buf, "; target %.0f cycles: %s", r.target_cycles, s.cycles <= r.target_cycles ? "met" : "MISSED");
      o << buf;
    }
    if (r.reference) {
      std::snprintf(buf, sizeof buf, "; reference solution %.0f cycles (yours %.2fx)", r.reference->cycles,
                    r.reference->cycles > 0 ? s.cycles / r.reference->cycles : 0.0);
      o << buf;
    }
    o << "\n";
    std::snprintf(buf, sizeof buf, "banks     %llu bank conflicts over %llu shared-memory wavefronts (register <-> shared moves)\n",
                  static_cast<unsigned long long>(s.conflicts), static_cast<unsigned long long>(s.wavefronts));
    o << buf;
    const auto* idlest = &s.units.front();
    for (const auto& u : s.units)
      if (u.second > 0) idlest = &u;
    std::snprintf(buf, sizeof buf, "units     busiest: %s %.0f%%; idlest of those in use: %s %.0f%%\n", s.units.front().first.c_str(),
                  100 * s.units.front().second, idlest->first.c_str(), 100 * idlest->second);
    o << buf;
  }
  if (!r.untimed.empty()) o << "time      not simulated: " << r.untimed << "\n";
  if (r.status != Status::pass && r.status != Status::compile_error && !r.message.empty()) o << r.message << "\n";
  for (const auto& h : r.hints) o << "hint      " << h << "\n";
  std::snprintf(buf, sizeof buf, "result    %s (exit %d) in %.1f s\n",
                r.status == Status::pass ? "PASS" : ("FAIL: " + status_name(r.status)).c_str(), static_cast<int>(r.status), r.seconds);
  o << buf;
  return o.str();
}

json to_json(const CheckResult& r) {
  json j = {{"lab", r.lab},
            {"file", r.file},
            {"status", status_name(r.status)},
            {"exit_code", static_cast<int>(r.status)},
            {"passed", r.status == Status::pass},
            {"seconds", r.seconds},
            {"compile", {{"ok", r.compile.ok}, {"seconds", r.compile.seconds}, {"cached", r.compile.cached}}},
            {"checks", r.checks},
            {"hints", r.hints}};
  if (!r.compile.ok) j["compile"]["diagnostics"] = r.compile.diagnostics;
  if (!r.message.empty() && r.status != Status::compile_error) j["message"] = r.message;
  if (r.target_cycles > 0) j["target_cycles"] = r.target_cycles;
  if (r.sim) j["simulated"] = sim_json(*r.sim);
  if (r.reference) j["reference"] = sim_json(*r.reference);
  if (!r.untimed.empty()) j["untimed"] = r.untimed;
  return j;
}

}  // namespace ts::lab
