// tilescope: the lesson GUI (no verb), and the command-line verbs.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli_names.hpp"
#include "app/timeline_gui.hpp"
#include "app/verbs.hpp"

int main(int argc, char** argv) {
  CLI::App cli{"TileScope: learn and do GPU kernel design on NVIDIA Hopper"};
  cli.require_subcommand(0, 1);
  std::vector<ts::app::VerbRun> verbs;
  verbs.push_back(ts::app::add_banks_verb(cli));
  verbs.push_back(ts::app::add_bench_verb(cli));
  verbs.push_back(ts::app::add_calibrate_verb(cli));
  verbs.push_back(ts::app::add_lessons_verb(cli));
  verbs.push_back(ts::app::add_render_verb(cli));
  verbs.push_back(ts::app::add_sim_verb(cli));
  verbs.push_back(ts::app::add_compare_verb(cli));
  verbs.push_back(ts::app::add_lab_verb(cli));
  std::string lessons_dir;
  ts::app::GuiOptions gui;
  cli.add_option("--lessons-dir", lessons_dir, "With no verb: folder of lesson files the GUI opens");
  cli.add_option("--student", gui.student, "With no verb: whose exercise attempts these are (default: $TILESCOPE_STUDENT, else $USER)");
  cli.add_option("--results-file", gui.results_file,
                 "With no verb: where attempts are appended (default: $TILESCOPE_RESULTS, else ~/.local/share/tilescope/results.jsonl)");
  cli.add_flag("--teacher", gui.teacher, "With no verb: show the exercises' keys and the attempts");
  auto* zoom = cli.add_option("--zoom", gui.zoom,
                              "With no verb: text and UI this many times larger, for a projector (1 to 3; in the app Ctrl + / Ctrl -)");
  cli.add_flag("--present", gui.present, "With no verb: start in presentation mode (scene and text fill the window; F5 toggles)");
  cli.add_flag("--no-state", gui.forget,
               "With no verb: neither read nor write the remembered lesson, step and answers ($XDG_CONFIG_HOME/tilescope/state.json)");
  ts::app::TimelineGuiArgs timeline;
  cli.add_option("--timeline", timeline.file,
                 "With no verb: open this measured timeline (bench --timeline-measured) above the simulation of its "
                 "configuration, with zoom and the block picker");
  // The job verbs take help as --help only (their --h is the heads: app/cli_names.hpp); -h still asks
  // for help everywhere.
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(std::string(argv[i]) == "-h" ? "--help" : argv[i]);
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  if (argc > 0) cli.name(argv[0]);          // (parse(argc, argv) would have named it)
  try {
    ts::app::check_option_names(cli);
    cli.parse(args);
    gui.zoom_given = zoom->count() > 0;
    for (auto& run : verbs)
      if (int rc = run(); rc >= 0) return rc;
    if (!timeline.file.empty()) ts::app::open_timeline_in_gui(timeline, false);  // a bad file: one line, the app runs on
    return ts::app::run_lesson_gui(lessons_dir, gui);
  } catch (const CLI::CallForHelp&) {
    std::cout << cli.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << cli.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "tilescope: " << e.what() << "\n";
    return 2;
  } catch (const ts::app::UsageError& e) {
    std::cerr << "tilescope: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tilescope: error: " << e.what() << "\n";
    return 1;
  }
}
