#include <iostream>
#include <memory>

#include "app/lessons_folder.hpp"

namespace ts::app {

viz::LessonSet load_lessons_or_usage_error(const std::string& dir) {
  const std::filesystem::path path = dir.empty() ? viz::default_lessons_dir() : std::filesystem::path(dir);
  try {
    return viz::load_lessons(path);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

// Exit status: 0 when every lesson file loads; 1 when some do not (the others are still listed,
// each failure is one "file:line: reason" line on stderr), so that a teacher's script can check a
// folder; 2 for bad input (no such folder, or a folder with no lesson files).
VerbRun add_lessons_verb(CLI::App& cli) {
  auto dir = std::make_shared<std::string>();
  auto* cmd = cli.add_subcommand("lessons", "List the lessons and their steps, and check the lesson files");
  cmd->add_option("--dir,--lessons-dir", *dir, "Folder of lesson files (default: $TILESCOPE_LESSONS_DIR, else lessons/)");
  return [cmd, dir]() -> int {
    if (!cmd->parsed()) return -1;
    const viz::LessonSet set = load_lessons_or_usage_error(*dir);
    if (set.lessons.empty() && set.errors.empty())
      throw UsageError("no lesson files (named like 01-name.md) in '" + (dir->empty() ? viz::default_lessons_dir().string() : *dir) + "'");
    for (size_t i = 0; i < set.lessons.size(); ++i) {
      const viz::Lesson& l = set.lessons[i];
      std::cout << i + 1 << ". " << l.title << "  [id " << l.id << ", scene " << viz::scene_info(l.scene).name
                << ", " << l.file << "]\n";
      for (size_t s = 0; s < l.steps.size(); ++s) {
        std::cout << "   " << s + 1 << ". " << l.steps[s].title;
        std::string knobs;
        for (const auto& k : l.steps[s].knobs) knobs += " " + k.name + "=" + k.value;
        if (!knobs.empty()) std::cout << "   (knobs:" << knobs << ")";
        std::cout << "\n";
      }
    }
    for (const auto& e : set.errors) std::cerr << e.text() << "\n";
    return set.errors.empty() ? 0 : 1;
  };
}

}  // namespace ts::app
