// What the app keeps between runs (viz/lesson/saved_state.*) and its search over the lessons
// (viz/lesson/search.*): plain C++, every build.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "viz/lesson/lesson.hpp"
#include "viz/lesson/saved_state.hpp"
#include "viz/lesson/search.hpp"

using namespace ts::viz;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tilescope-lecture-tests-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("the saved state reads back what was written, atomically replaced", "[state]") {
  SavedState s;
  s.lesson = "banks-swizzles";
  s.step = 2;
  s.zoom = 1.5f;
  s.exercises[exercise_key("banks-swizzles", 3)] = {12345678901234ull, "28", true};
  s.exercises[exercise_key("memory-roofline", 0)] = {7, "1,365", false};
  CHECK(exercise_key("banks-swizzles", 3) == "banks-swizzles/4");
  const fs::path file = scratch("sub/dir/state.json");
  fs::remove_all(file.parent_path());
  save_state(file, s);  // creates the folder
  std::string warning;
  CHECK(load_saved_state(file, warning) == s);
  CHECK(warning.empty());
  // Written again: replaced whole, nothing left beside it.
  s.step = 4;
  save_state(file, s);
  CHECK(load_saved_state(file, warning) == s);
  for (const auto& e : fs::directory_iterator(file.parent_path())) CHECK(e.path().filename() == "state.json");
}

TEST_CASE("a missing state file is a fresh start, a corrupt one a one-line warning", "[state]") {
  std::string warning = "x";
  CHECK(load_saved_state(scratch("does-not-exist.json"), warning) == SavedState{});
  CHECK(warning.empty());

  CHECK(parse_saved_state("{\n  \"lesson\": \"a\",\n  \"step\": 2,\n", "s.json", warning) == SavedState{});
  CHECK(warning == "s.json:4: not valid JSON");
  CHECK(parse_saved_state("{\n \"lesson\": \"a\",\n \"step\": \"two\"\n}", "s.json", warning) == SavedState{});
  CHECK(warning == "s.json:3: 'step' is not a step number");
  CHECK(parse_saved_state("{\"zoom\": 9}", "s.json", warning) == SavedState{});
  CHECK(warning == "s.json:1: 'zoom' is not a number from 1 to 3");
  CHECK(parse_saved_state("{\"exercises\": {\n\"l/1\": {\"typed\": \"3\"}}}", "s.json", warning) == SavedState{});
  CHECK(warning == "s.json:2: exercise 'l/1' has no seed");
  // Found by fuzz_state: a key holding an escaped newline still makes a one-line warning.
  CHECK(parse_saved_state("{\"exercises\": {\"a\\nb/1\": {}}}", "s.json", warning) == SavedState{});
  CHECK(warning == "s.json:1: exercise 'a?b/1' has no seed");
  // Found by fuzz_state: a number past a double's range is refused like any bad JSON.
  CHECK(parse_saved_state("{\n\"step\": 1222e111111111}", "s.json", warning) == SavedState{});
  CHECK(warning == "s.json:2: not valid JSON");
  CHECK(parse_saved_state("[1, 2]", "s.json", warning) == SavedState{});
  CHECK(warning == "s.json:1: not a JSON object");
  CHECK(warning.find('\n') == std::string::npos);
  // A good one clears the warning.
  const SavedState ok = parse_saved_state("{\"lesson\": \"a\", \"step\": 3}", "s.json", warning);
  CHECK(warning.empty());
  CHECK(ok.lesson == "a");
  CHECK(ok.step == 2);
}

TEST_CASE("the state file lives under the user's config folder", "[state]") {
  const char* old_xdg = std::getenv("XDG_CONFIG_HOME");
  const std::string keep = old_xdg ? old_xdg : "";
  ::unsetenv("TILESCOPE_STATE_FILE");
  ::setenv("XDG_CONFIG_HOME", "/tmp/xdg-test", 1);
  CHECK(default_state_file() == fs::path("/tmp/xdg-test/tilescope/state.json"));
  ::unsetenv("XDG_CONFIG_HOME");
  ::setenv("HOME", "/home/someone", 1);
  CHECK(default_state_file() == fs::path("/home/someone/.config/tilescope/state.json"));
  if (old_xdg) ::setenv("XDG_CONFIG_HOME", keep.c_str(), 1);
}

TEST_CASE("search finds steps by lesson title, step title and text, and jumps to them", "[search]") {
  const LessonSet set = load_lessons(TILESCOPE_TEST_LESSONS);
  REQUIRE(!set.lessons.empty());
  CHECK(search_lessons(set, "").empty());
  CHECK(search_lessons(set, "   ").empty());
  CHECK(search_lessons(set, "qqqzzxnotaword").empty());

  // Case does not matter; every hit names a real step whose text or titles hold the word.
  const auto hits = search_lessons(set, "SWIZZLE");
  REQUIRE(!hits.empty());
  for (const SearchHit& h : hits) {
    REQUIRE(h.lesson >= 0);
    REQUIRE(h.lesson < static_cast<int>(set.lessons.size()));
    REQUIRE(h.step >= 0);
    REQUIRE(h.step < static_cast<int>(set.lessons[h.lesson].steps.size()));
  }
  CHECK(set.lessons[hits.front().lesson].id == "banks-swizzles");  // its title says it: first

  // Several words: each must occur, anywhere in the step.
  const auto both = search_lessons(set, "swizzle ldmatrix");
  CHECK(!both.empty());
  CHECK(both.size() <= hits.size());
  for (const SearchHit& h : both) {
    std::string all = set.lessons[h.lesson].title + set.lessons[h.lesson].steps[h.step].title + set.lessons[h.lesson].steps[h.step].markdown;
    for (char& c : all) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    CHECK(all.find("ldmatrix") != std::string::npos);
  }
  CHECK(search_lessons(set, "swizzle", 2).size() == 2);
  // A snippet is one line of the step's text around the word.
  bool snippet = false;
  for (const SearchHit& h : hits)
    if (!h.snippet.empty()) {
      snippet = true;
      CHECK(h.snippet.find('\n') == std::string::npos);
    }
  CHECK(snippet);
}
