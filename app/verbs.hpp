#pragma once
// Each verb adds its subcommand to the CLI and returns the function that runs it.
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace ts::app {

using VerbRun = std::function<int()>;

VerbRun add_banks_verb(CLI::App& cli);
VerbRun add_lessons_verb(CLI::App& cli);
VerbRun add_render_verb(CLI::App& cli);
VerbRun add_bench_verb(CLI::App& cli);
VerbRun add_sim_verb(CLI::App& cli);
VerbRun add_compare_verb(CLI::App& cli);
VerbRun add_calibrate_verb(CLI::App& cli);
VerbRun add_lab_verb(CLI::App& cli);

// No verb: the lesson app (or, in a build without the GUI, a one-line UsageError).
struct GuiOptions {
  std::string student, results_file;  // empty: the defaults (viz/lesson/results.hpp)
  bool teacher = false;
  float zoom = 1;  // a projector: everything drawn this many times larger
  bool zoom_given = false;  // --zoom was given: it wins over the scale the app remembers
  bool present = false;     // start in presentation mode
  bool forget = false;      // --no-state: remember nothing between runs
};
int run_lesson_gui(const std::string& lessons_dir, const GuiOptions& options);

// Raised by verbs for bad input: main prints "tilescope: <message>" and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ts::app
