#pragma once
// Search over the lessons: titles, step titles and the steps' text, for the app's search box.
// Plain C++ (no ImGui): the app draws the hits, the tests check them.
#include <string>
#include <string_view>
#include <vector>

#include "viz/lesson/lesson.hpp"

namespace ts::viz {

struct SearchHit {
  int lesson = 0, step = 0;  // 0-based, as StepRef
  std::string snippet;       // the words around the first match in the step's text ("" when only a title matched)
};

// Every step where each word of `query` occurs (case-insensitive, ASCII) in the lesson's title,
// the step's title or its text; steps whose titles hold the whole query come first, then document
// order. An empty query finds nothing. At most `max_hits` hits.
std::vector<SearchHit> search_lessons(const LessonSet& set, std::string_view query, size_t max_hits = 40);

}  // namespace ts::viz
