// tilescope lab: list the labs, start one (copy its starter into the student's folder), check a
// kernel file against the lab (app/lab/lab_check.hpp).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "viz/lesson/lab_check.hpp"
#include "viz/lesson/lab_spec.hpp"
#include "app/verbs.hpp"

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

}  // namespace

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
    lab::CheckResult r;
    try {
      r = lab::check_lab(spec, file, opt);
    } catch (const std::exception& e) {  // the check could not run at all (no build configuration, ...)
      throw UsageError(e.what());
    }
    if (a->json) std::cout << lab::to_json(r).dump(1) << "\n";
    else std::cout << lab::format_text(r);
    if (a->gpu) {
      // The device build of a lab needs nvcc and a Hopper GPU; the CPU check above stands either way.
      if (!fs::exists("/dev/nvidia0")) std::cerr << "tilescope: --gpu: this machine has no NVIDIA GPU; the check above ran on the CPU only\n";
      else std::cerr << "tilescope: --gpu: running labs on the device is not built yet; the check above ran on the CPU only\n";
    }
    return static_cast<int>(r.status);
  };
}

}  // namespace ts::app
