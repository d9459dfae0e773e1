#pragma once
// Option names that clash once their dashes are dropped: `-h` (help) and `--h` (heads), a positional
// `kernel` and `--kernel`. CLI11 2.1 (Debian 12) accepts them; 2.4 (the GPU machine's) throws while the
// CLI is being built, so every verb crashed there. main() checks the whole CLI with this before
// parsing, so the build here fails the same way, on the first run of any test that starts the app.
#include <CLI/CLI.hpp>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts::app {

// Throws std::logic_error naming the command and the two options that share a name.
inline void check_option_names(CLI::App& app, const std::string& where = "tilescope") {
  std::map<std::string, std::string> seen;  // name without dashes -> the option that has it
  for (const CLI::Option* opt : app.get_options()) {
    std::vector<std::string> names = opt->get_lnames();
    names.insert(names.end(), opt->get_snames().begin(), opt->get_snames().end());
    if (!opt->nonpositional()) names.push_back(opt->get_single_name());  // a positional's name
    for (const std::string& name : names) {
      const auto [at, fresh] = seen.emplace(name, opt->get_name(false, true));
      if (!fresh && at->second != opt->get_name(false, true))
        throw std::logic_error(where + ": options " + at->second + " and " + opt->get_name(false, true) + " share the name '" + name +
                               "' (CLI11 2.4 and later refuse them)");
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_option_names(*sub, where + " " + sub->get_name());
}

}  // namespace ts::app
