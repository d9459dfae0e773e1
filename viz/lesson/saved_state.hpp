#pragma once
// What the app remembers between runs, so that a student at home picks up where they left off:
// the lesson and step last open, the UI scale, and each exercise's question (its seed), what was
// typed and whether it was committed. One small JSON file under the user's config folder,
// written whole to a temporary file and renamed over the old one (never half written); a file
// that does not parse is ignored with one line saying why.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace ts::viz {

struct SavedExercise {
  uint64_t seed = 0;   // draws the same question again (with the lesson's ranges)
  std::string typed;   // the answer box's text
  bool answered = false;
  friend bool operator==(const SavedExercise&, const SavedExercise&) = default;
};

struct SavedState {
  std::string lesson;  // id of the lesson last open ("" none)
  int step = 0;        // 0-based
  float zoom = 0;      // the UI scale last used (0: never changed)
  std::map<std::string, SavedExercise> exercises;  // by exercise_key()
  friend bool operator==(const SavedState&, const SavedState&) = default;
};

// "lesson-id/step" (step 1-based, as people count): where an exercise lives.
std::string exercise_key(const std::string& lesson_id, int step);

// $TILESCOPE_STATE_FILE, else $XDG_CONFIG_HOME/tilescope/state.json, else ~/.config/tilescope/state.json
// (empty when none of them can be named: nothing is remembered).
std::filesystem::path default_state_file();

// Parses the file's text. Anything wrong: an empty state and `warning` set to one line
// "file:line: reason"; otherwise `warning` is left empty.
SavedState parse_saved_state(const std::string& text, const std::string& file, std::string& warning);
// A missing file is an empty state and no warning.
SavedState load_saved_state(const std::filesystem::path& file, std::string& warning);

std::string saved_state_json(const SavedState& s);
// Writes FILE.tmp-PID and renames it over `file` (creating the folder); throws std::runtime_error.
void save_state(const std::filesystem::path& file, const SavedState& s);

}  // namespace ts::viz
