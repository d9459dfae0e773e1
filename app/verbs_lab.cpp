// tilescope lab: list the labs, start one (copy its starter into the student's folder), check a
// kernel file against the lab (app/lab/lab_check.hpp).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "viz/lesson/lab_check.hpp"
#include "viz/lesson/lab_gpu.hpp"
#include "viz/lesson/lab_spec.hpp"
#include "app/lab_gui.hpp"
#include "app/verbs.hpp"
#ifdef TILESCOPE_HAVE_GUI
#include "viz/gui/lab_view.hpp"
#endif

namespace ts::app {

namespace fs = std::filesystem;

namespace {

lab::LabSpec find_lab(const fs::path& dir, const std::string& id) {
  if (!fs::exists(dir / id / "lab.json")) {
    std::string ids;
    try {
      for (const auto& l : lab::list_labs(dir).labs) ids += (ids.empty() ? "" : ", ") + l.id;
    } catch (const std::exception&) {
    }
    throw UsageError("no lab '" + id + "' in " + dir.string() + (ids.empty() ? "" : " (labs: " + ids + ")"));
  }
  try {
    return lab::load_lab(dir / id);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

// A build without the host backend (no Boost.Context, e.g. the lent GPU machine's): the device
// check alone, said so on the first line.
int check_on_gpu_only(const lab::LabSpec& spec, const fs::path& file, const lab::CheckOptions& opt, bool json) {
  const std::string no_cpu = "this build has no host backend (Boost.Context was not found when it was configured): "
                             "no CPU check and no simulation, the GPU only";
  lab::GpuCheck g = lab::check_gpu(spec, file, opt);
  if (json) {
    nlohmann::json j = {{"lab", spec.id}, {"file", file.string()}, {"cpu", {{"ran", false}, {"unavailable", no_cpu}}}, {"gpu", lab::gpu_json(g)}};
    if (g.ran) {
      j["status"] = lab::status_name(g.status);
      j["exit_code"] = static_cast<int>(g.status);
      j["passed"] = g.status == lab::Status::pass;
    }
    if (spec.target_cycles > 0) {
      j["target_cycles"] = spec.target_cycles;
      j["target_microseconds"] = spec.target_cycles / lab::simulated_clock_mhz();
    }
    std::cout << j.dump(1) << "\n";
  } else {
    std::cout << "lab " << spec.id << ": " << file.string() << "\ncpu       not run: " << no_cpu << "\n" << lab::format_gpu_text(g, spec, nullptr);
  }
  if (!g.ran) throw UsageError("--gpu: " + g.unavailable + ", and " + no_cpu.substr(0, no_cpu.find(':')) + ": nothing could check the kernel");
  return static_cast<int>(g.status);
}

}  // namespace

std::string open_lab_in_gui(const LabGuiArgs& a) {
#ifdef TILESCOPE_HAVE_GUI
  const fs::path dir = a.labs_dir.empty() ? lab::default_labs_dir() : fs::path(a.labs_dir);
  const lab::LabSpec spec = find_lab(dir, a.id);
  const fs::path file = a.file.empty() ? fs::path(spec.id + ".cpp") : fs::path(a.file);
  if (!fs::exists(file)) throw UsageError(file.string() + ": no such file (tilescope lab start " + spec.id + " makes one)");
  lab::CheckResult r;
  try {
    r = lab::check_lab(spec, file, {});
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  viz::open_lab(dir, spec.id, file, &r);
  const std::string text = lab::format_text(r);
  const auto last = text.rfind('\n', text.size() - 2);
  return text.substr(last == std::string::npos ? 0 : last + 1, text.size() - (last == std::string::npos ? 0 : last + 1) - 1);
#else
  (void)a;
  throw UsageError("this build has no GUI, so it cannot draw a lab");
#endif
}

VerbRun add_lab_verb(CLI::App& cli) {
  struct Args {
    std::string labs_dir, id, dir = ".", file;
    bool force = false, json = false, gpu = false, no_reference = false;
    double time_limit = 0;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand("lab", "Kernel labs: write a tile-DSL kernel, check it on the CPU and see its simulated time");
  cmd->require_subcommand(1);
  cmd->fallthrough();  // --labs-dir also after the subcommand: `lab list --labs-dir D`
  cmd->add_option("--labs-dir", a->labs_dir, "Folder of labs (default: the source tree's labs/, or $TILESCOPE_LABS_DIR)");
  auto* list = cmd->add_subcommand("list", "List the labs in order, with their summaries");
  auto* start = cmd->add_subcommand("start", "Copy a lab's starter kernel into your folder as ID.cpp (never over your work)");
  start->add_option("id", a->id, "The lab")->required();
  start->add_option("--dir", a->dir, "Your folder (default: the current one)");
  start->add_flag("--force", a->force, "Replace an existing ID.cpp (your work is lost)");
  auto* check = cmd->add_subcommand("check", "Compile your kernel file, check it on the lab's shapes, simulate it");
  check->add_option("id", a->id, "The lab")->required();
  check->add_option("--file", a->file, "Your kernel file (default: ./ID.cpp)");
  check->add_flag("--json", a->json, "The result as JSON (for grading)");
  check->add_flag("--gpu", a->gpu, "Also build with nvcc and run on the GPU, where there is one");
  check->add_flag("--no-reference", a->no_reference, "Do not time the lab's solution beside yours");
  check->add_option("--time-limit", a->time_limit, "Seconds the check's run may take (default: the lab's time_limit_s)")
      ->check(CLI::Range(0.1, 600.0));

  return [cmd, list, start, check, a]() -> int {
    if (!cmd->parsed()) return -1;
    const fs::path dir = a->labs_dir.empty() ? lab::default_labs_dir() : fs::path(a->labs_dir);
    if (list->parsed()) {
      lab::LabList labs;
      try {
        labs = lab::list_labs(dir);
      } catch (const std::exception& e) {
        throw UsageError(e.what());
      }
      int n = 0;
      for (const auto& l : labs.labs) std::cout << ++n << ". " << l.id << ": " << l.title << "\n   " << l.summary << "\n";
      for (const auto& e : labs.errors) std::cerr << e << "\n";
      return labs.errors.empty() ? 0 : 1;
    }
    const lab::LabSpec spec = find_lab(dir, a->id);
    if (start->parsed()) {
      const fs::path target = fs::path(a->dir) / (spec.id + ".cpp");
      if (fs::exists(target) && !a->force)
        throw UsageError(target.string() + " exists: your work is not overwritten (--force replaces it)");
      fs::create_directories(a->dir);
      fs::copy_file(spec.starter, target, fs::copy_options::overwrite_existing);
      std::cout << "wrote " << target.string() << "\nthe task: " << spec.task.string() << "\ncheck it with: tilescope lab check "
                << spec.id << (a->dir == "." ? "" : " --file " + target.string()) << "\n";
      return 0;
    }
    const fs::path file = a->file.empty() ? fs::path(spec.id + ".cpp") : fs::path(a->file);
    if (!fs::exists(file)) throw UsageError(file.string() + ": no such file (tilescope lab start " + spec.id + " makes one)");
    lab::CheckOptions opt;
    opt.with_reference = !a->no_reference;
    opt.time_limit_s = a->time_limit;
    lab::BuildConfig cfg;
    try {
      cfg = lab::load_build_config();
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
    if (!cfg.host && a->gpu) return check_on_gpu_only(spec, file, opt, a->json);
    lab::CheckResult r;
    try {
      r = lab::check_lab(spec, file, opt);
    } catch (const std::exception& e) {  // the check could not run at all (no build configuration, ...)
      throw UsageError(e.what());
    }
    if (!a->json) std::cout << lab::format_text(r) << std::flush;
    if (!a->gpu) {
      if (a->json) std::cout << lab::to_json(r).dump(1) << "\n";
      return static_cast<int>(r.status);
    }
    // The device run follows a CPU check that compiled and ran to the end (right, wrong or slow): a
    // kernel that crashed, deadlocked or threw on the CPU would do no better on the GPU.
    lab::GpuCheck g;
    g.unavailable = lab::gpu_unavailable(cfg);
    const bool ran_to_end = r.status == lab::Status::pass || r.status == lab::Status::wrong || r.status == lab::Status::slow;
    if (g.unavailable.empty() && ran_to_end) g = lab::check_gpu(spec, file, opt);
    else if (g.unavailable.empty()) g.unavailable = "not run on the GPU, since the CPU check failed (" + lab::status_name(r.status) + ")";
    if (a->json) {
      auto j = lab::to_json(r);
      j["gpu"] = lab::gpu_json(g);
      std::cout << j.dump(1) << "\n";
    } else if (g.ran) {
      std::cout << lab::format_gpu_text(g, spec, &r);
    }
    if (!g.ran) {
      std::cerr << "tilescope: --gpu: " << g.unavailable << "; the check ran on the CPU only\n";
      return static_cast<int>(r.status);
    }
    // The CPU's verdict first (its status names what to fix); a kernel right on the CPU and wrong
    // on the GPU fails with the GPU's.
    return r.status != lab::Status::pass ? static_cast<int>(r.status) : static_cast<int>(g.status);
  };
}

}  // namespace ts::app
