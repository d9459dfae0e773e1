#pragma once
// What the tests of single lessons share (test_clusters_lesson, test_splitk_lesson, test_attention_lessons,
// test_fp8_lesson): a shipped lesson by id, its prose on one line, a file of the repository, and a
// figure printed as the lessons print it. Needs TILESCOPE_TEST_LESSONS and TILESCOPE_SOURCE_DIR.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "viz/lesson/lesson.hpp"

namespace ts::viz::testing {

inline const Lesson& shipped_lesson(const char* id) {
  static const LessonSet set = load_lessons(std::filesystem::path(TILESCOPE_TEST_LESSONS));
  const int l = find_lesson(set, id);
  REQUIRE(l >= 0);
  return set.lessons[l];
}

// Every step's prose, newlines as spaces: a figure may be wrapped across lines.
inline std::string all_prose(const Lesson& l) {
  std::string s;
  for (const LessonStep& step : l.steps) s += step.markdown + "\n";
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

inline std::string read_text(const std::string& relative) {
  std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/" + relative);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace ts::viz::testing
