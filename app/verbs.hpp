#pragma once
// Each verb adds its subcommand to the CLI and returns the function that runs it.
#include <functional>

#include <CLI/CLI.hpp>

#include "viz/lesson/lesson.hpp"

namespace ts::app {

using VerbRun = std::function<int()>;

VerbRun add_banks_verb(CLI::App& cli);
VerbRun add_lessons_verb(CLI::App& cli);
VerbRun add_render_verb(CLI::App& cli);
VerbRun add_bench_verb(CLI::App& cli);

// Raised by verbs for bad input: main prints "tilescope: <message>" and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Lessons from `dir`, or from the default folder when it is empty; a missing folder is a UsageError.
viz::LessonSet load_lessons_or_usage_error(const std::string& dir);

}  // namespace ts::app
