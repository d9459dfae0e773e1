// The CLI's option names: none that newer CLI11 releases refuse (app/cli_names.hpp).
#include <catch2/catch.hpp>

#include "app/cli_names.hpp"

TEST_CASE("option names that share a name without their dashes are found, in any subcommand") {
  CLI::App cli{"t"};
  int heads = 0;
  std::string kernel, regex;
  auto* sim = cli.add_subcommand("sim", "");
  sim->add_option("--n", heads, "");
  CHECK_NOTHROW(ts::app::check_option_names(cli));
  sim->add_option("--h", heads, "");  // beside help's -h
  CHECK_THROWS_WITH(ts::app::check_option_names(cli), Catch::Contains("tilescope sim") && Catch::Contains("'h'"));
  sim->set_help_flag("--help", "");
  CHECK_NOTHROW(ts::app::check_option_names(cli));
  auto* compare = cli.add_subcommand("compare", "");
  compare->add_option("kernel", kernel, "");
  compare->add_option("--kernel", regex, "");
  CHECK_THROWS_WITH(ts::app::check_option_names(cli), Catch::Contains("'kernel'"));
}
