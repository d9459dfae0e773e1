#pragma once
// Each verb adds its subcommand to the CLI and returns the function that runs it.
#include <functional>

#include <CLI/CLI.hpp>

namespace ts::app {

using VerbRun = std::function<int()>;

VerbRun add_banks_verb(CLI::App& cli);

// Raised by verbs for bad input: main prints "tilescope: <message>" and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ts::app
