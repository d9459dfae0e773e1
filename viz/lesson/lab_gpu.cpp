// The device check of a lab kernel file: nvcc, a child process on the GPU, the same comparison.
#include "viz/lesson/lab_gpu.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sim/engine.hpp"
#include "sim/machine.hpp"

namespace ts::lab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// nvcc's messages are long (each error names its instantiation chain): the first lines hold the first errors.
std::string first_lines(const std::string& text, int n) {
  std::istringstream in(text);
  std::string out, line;
  int kept = 0;
  while (std::getline(in, line)) {
    if (kept++ == n) {
      out += "...\n";
      break;
    }
    out += line + "\n";
  }
  return out;
}

// nvcc FILE -c, then the link with the device harness: two children (nvcc's -x cu would also take
// the harness library for a CUDA source).
CompileResult compile_gpu(const GpuBuildConfig& cfg, const fs::path& source, const fs::path& binary) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path object = binary.string() + ".o", log = binary.string() + ".compile.log";
  fs::remove(binary);
  fs::remove(object);
  std::vector<std::string> argv{cfg.nvcc};
  for (const auto& f : cfg.flags) argv.push_back(f);
  for (const auto& i : cfg.includes) argv.push_back("-I" + i);
  for (const char* f : {"-c", "-x", "cu"}) argv.push_back(f);
  argv.push_back(source.string());
  argv.push_back("-o");
  argv.push_back(object.string());
  CompileResult c;
  ChildResult r = run_child(argv, 300, log);
  std::string diagnostics = read_all(log);
  if (r.exit_code == 0 && fs::exists(object)) {
    std::vector<std::string> link{cfg.nvcc};
    // The link keeps the target and the host compiler; "-ccbin" comes as two words, the flag and
    // the compiler (without the second, nvcc took the object for its host compiler).
    for (size_t i = 0; i < cfg.flags.size(); ++i) {
      const std::string& f = cfg.flags[i];
      if (f.rfind("-gencode", 0) == 0 || f.rfind("-ccbin=", 0) == 0) link.push_back(f);
      if (f == "-ccbin" && i + 1 < cfg.flags.size()) {
        link.push_back(f);
        link.push_back(cfg.flags[++i]);
      }
    }
    link.push_back(object.string());
    for (const auto& l : cfg.link) link.push_back(l);
    link.push_back("-o");
    link.push_back(binary.string());
    r = run_child(link, 120, log);
    diagnostics += read_all(log);
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.ok = r.exit_code == 0 && fs::exists(binary);
  c.diagnostics = first_lines(diagnostics, 40);
  if (r.timed_out) c.diagnostics += "\nnvcc ran past its time limit and was stopped";
  else if (r.signal) c.diagnostics += "\nnvcc was ended by " + signal_name(r.signal);
  return c;
}

}  // namespace

double simulated_clock_mhz() {
  static const double mhz = sim::engine_params(sim::load_machine("h100-sxm")).clock_mhz;
  return mhz;
}

std::string gpu_unavailable(const BuildConfig& cfg) {
  if (!cfg.gpu) return "this build of TileScope has no CUDA (nvcc was not found when it was configured, or TILESCOPE_CUDA=OFF)";
  if (!fs::exists(cfg.gpu->nvcc)) return "nvcc (" + cfg.gpu->nvcc + ", from " + cfg.file.string() + ") is not on this machine";
  // $TILESCOPE_LAB_GPU_TRY=1 goes on without one (the compile, and the child's own "no CUDA device"):
  // how the device path is tried on a machine without a GPU.
  const char* try_anyway = std::getenv("TILESCOPE_LAB_GPU_TRY");
  if (!fs::exists("/dev/nvidia0") && !(try_anyway && std::string(try_anyway) == "1"))
    return "this machine has no NVIDIA GPU (no /dev/nvidia0)";
  return "";
}

GpuCheck check_gpu(const LabSpec& lab, const fs::path& file, const CheckOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  GpuCheck g;
  const BuildConfig cfg = load_build_config();
  g.unavailable = gpu_unavailable(cfg);
  if (!g.unavailable.empty()) return g;
  g.ran = true;
  const fs::path work = check_work_dir(lab, file);
  fs::create_directories(work);
  const fs::path bin = work / "gpu.bin";
  std::string key = read_all(file) + read_all(cfg.file);
  for (const auto& inc : cfg.gpu->includes)
    if (fs::exists(fs::path(inc) / "lab.hpp")) key += read_all(fs::path(inc) / "lab.hpp");
  for (const auto& l : cfg.gpu->link)
    if (fs::exists(l)) key += std::to_string(static_cast<long long>(fs::last_write_time(l).time_since_epoch().count()));
  const std::string stamp = key_hash(key);
  if (fs::exists(bin) && read_all(work / "gpu.bin.key") == stamp) {
    g.compile.ok = true;
    g.compile.cached = true;
  } else {
    fs::remove(work / "gpu.bin.key");
    g.compile = compile_gpu(*cfg.gpu, file, bin);
    if (g.compile.ok) std::ofstream(work / "gpu.bin.key") << stamp;
  }
  auto done = [&] {
    g.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return g;
  };
  if (!g.compile.ok) {
    g.status = Status::compile_error;
    g.message = g.compile.diagnostics;
    return done();
  }
  json plan = {{"reference", lab.reference}, {"tolerance", {{"abs", lab.abs_tol}, {"rel", lab.rel_tol}}},
               {"input_scale", lab.input_scale}, {"seed", 1}, {"checks", json::array()}, {"reps", 5}};
  for (const auto& p : lab.checks) plan["checks"].push_back(shape_json(lab, p));
  plan["time"] = shape_json(lab, lab.simulate);
  const fs::path plan_file = work / "gpu-plan.json", result_file = work / "gpu-result.json";
  std::ofstream(plan_file) << plan.dump(1);
  fs::remove(result_file);
  const double limit = opt.time_limit_s > 0 ? opt.time_limit_s : lab.time_limit_s;
  // No address-space limit: the CUDA driver reserves far more virtual memory than any limit allows.
  g.child = run_child({bin.string(), plan_file.string(), result_file.string()}, limit, work / "gpu-run.log", 0);
  const std::string where = g.child.last_stage.empty() ? "" : " during " + g.child.last_stage;
  if (g.child.timed_out) {
    g.status = Status::timeout;
    g.message = "stopped on the GPU after the lab's time limit of " + std::to_string(static_cast<int>(limit)) + " s" + where +
                ": a wait whose phase never completes (an arrival count or expect_bytes that does not match what arrives), or an endless loop?";
    return done();
  }
  if (g.child.signal) {
    g.status = Status::crashed;
    g.message = "the GPU check's process crashed" + where + ": " + signal_name(g.child.signal);
    if (!g.child.output.empty()) g.message += "\n" + g.child.output;
    return done();
  }
  json res;
  try {
    res = json::parse(read_all(result_file));
  } catch (const std::exception&) {
    g.status = Status::crashed;
    g.message = "the GPU check's process exited with status " + std::to_string(g.child.exit_code) + where + " and wrote no result";
    if (!g.child.output.empty()) g.message += "\n" + g.child.output;
    return done();
  }
  g.device = res.value("device", "");
  if (res.contains("no_device")) {  // nvcc and /dev/nvidia0 are there, but no usable Hopper GPU
    g.ran = false;
    g.unavailable = res["no_device"].get<std::string>();
    return done();
  }
  g.checks = res.value("checks", json::array());
  if (res.contains("error")) {
    const json& e = res["error"];
    g.status = Status::error;
    g.message = "error on the GPU during " + e.value("stage", "") + ": " + e.value("message", "");
    return done();
  }
  g.timed = res.value("timed", json());
  bool wrong = false;
  for (const auto& c : g.checks) wrong |= !c.value("ok", false);
  g.status = wrong ? Status::wrong : Status::pass;
  return done();
}

std::string format_gpu_text(const GpuCheck& g, const LabSpec& lab, const CheckResult* cpu) {
  std::ostringstream o;
  char buf[512];
  if (!g.ran) {
    o << "gpu       not run: " << g.unavailable << "\n";
    return o.str();
  }
  o << "gpu       " << (g.device.empty() ? "the GPU" : g.device) << ": ";
  if (g.status == Status::compile_error) {
    o << "nvcc FAILED (" << std::lround(g.compile.seconds * 10) / 10.0 << " s): the file does not build for the device backend\n" << g.compile.diagnostics;
    if (g.compile.diagnostics.empty() || g.compile.diagnostics.back() != '\n') o << "\n";
  } else if (g.compile.cached) {
    o << "nvcc ok (unchanged since the last check)\n";
  } else {
    std::snprintf(buf, sizeof buf, "nvcc ok (%.1f s)\n", g.compile.seconds);
    o << buf;
  }
  o << format_checks(g.checks, "gpu       ");
  if (g.timed.is_object() && g.timed.contains("median_ms")) {
    const double us = g.timed.value("median_ms", 0.0) * 1000;
    const int launches = g.timed.value("launches", 0);  // per run
    std::snprintf(buf, sizeof buf, "gpu       time      measured %.2f us (median of %zu runs after a warm-up, %d launch%s each, %s)", us,
                  g.timed.value("ms", json::array()).size(), launches, launches == 1 ? "" : "es",
                  params_text(g.timed.value("params", json::object())).c_str());
    o << buf;
    if (cpu && cpu->sim) {
      std::snprintf(buf, sizeof buf, "; simulated %.2f us (%.2fx measured)", cpu->sim->microseconds, us > 0 ? cpu->sim->microseconds / us : 0.0);
      o << buf;
    } else if (lab.target_cycles > 0) {
      const double clock_mhz = simulated_clock_mhz();
      std::snprintf(buf, sizeof buf, "; not simulated here, the lab's target is %.2f us (%.0f cycles: the solution's simulated time + 5%%)",
                    lab.target_cycles / clock_mhz, lab.target_cycles);
      o << buf;
    }
    o << "\n";
  }
  if (g.status != Status::pass && g.status != Status::compile_error && !g.message.empty()) o << "gpu       " << g.message << "\n";
  std::snprintf(buf, sizeof buf, "gpu       result    %s (exit %d) in %.1f s\n",
                g.status == Status::pass ? "PASS" : ("FAIL: " + status_name(g.status)).c_str(), static_cast<int>(g.status), g.seconds);
  o << buf;
  return o.str();
}

json gpu_json(const GpuCheck& g) {
  if (!g.ran) return {{"ran", false}, {"unavailable", g.unavailable}};
  json j = {{"ran", true},
            {"device", g.device},
            {"status", status_name(g.status)},
            {"exit_code", static_cast<int>(g.status)},
            {"passed", g.status == Status::pass},
            {"seconds", g.seconds},
            {"compile", {{"ok", g.compile.ok}, {"seconds", g.compile.seconds}, {"cached", g.compile.cached}}},
            {"checks", g.checks}};
  if (!g.compile.ok) j["compile"]["diagnostics"] = g.compile.diagnostics;
  if (!g.message.empty() && g.status != Status::compile_error) j["message"] = g.message;
  if (g.timed.is_object()) j["timed"] = g.timed;
  return j;
}

}  // namespace ts::lab
