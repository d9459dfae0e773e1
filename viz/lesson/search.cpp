#include "viz/lesson/search.hpp"

#include <algorithm>
#include <cctype>

namespace ts::viz {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> words_of(std::string_view query) {
  std::vector<std::string> words;
  std::string w;
  for (char c : query) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!w.empty()) words.push_back(lower(w)), w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) words.push_back(lower(w));
  return words;
}

// About 70 characters of `text` around position `at`, on one line, cut at spaces, with "…" where cut.
std::string snippet_around(const std::string& text, size_t at, size_t length) {
  const size_t before = 30, after = 40;
  size_t from = at > before ? at - before : 0;
  size_t to = std::min(text.size(), at + length + after);
  if (from > 0) {
    const size_t space = text.find(' ', from);
    if (space != std::string::npos && space < at) from = space + 1;
  }
  if (to < text.size()) {
    const size_t space = text.rfind(' ', to);
    if (space != std::string::npos && space > at + length) to = space;
  }
  // Never cut inside a UTF-8 character.
  const auto continuation = [&](size_t i) { return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80; };
  while (continuation(from)) ++from;
  while (to > from && continuation(to)) --to;
  std::string s = text.substr(from, to - from);
  for (char& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  return (from > 0 ? "…" : "") + s + (to < text.size() ? "…" : "");
}

}  // namespace

std::vector<SearchHit> search_lessons(const LessonSet& set, std::string_view query, size_t max_hits) {
  const std::vector<std::string> words = words_of(query);
  if (words.empty()) return {};
  std::string whole;  // the query as typed, its words joined by one space
  for (const std::string& w : words) whole += (whole.empty() ? "" : " ") + w;
  std::vector<SearchHit> title_hits, text_hits;
  for (size_t l = 0; l < set.lessons.size(); ++l) {
    const Lesson& lesson = set.lessons[l];
    const std::string lesson_title = lower(lesson.title);
    for (size_t s = 0; s < lesson.steps.size(); ++s) {
      const LessonStep& step = lesson.steps[s];
      const std::string step_title = lower(step.title);
      const std::string text = lower(step.markdown);
      const bool all = std::all_of(words.begin(), words.end(), [&](const std::string& w) {
        return lesson_title.find(w) != std::string::npos || step_title.find(w) != std::string::npos ||
               text.find(w) != std::string::npos;
      });
      if (!all) continue;
      SearchHit hit{static_cast<int>(l), static_cast<int>(s), ""};
      if (const size_t at = text.find(words.front()); at != std::string::npos)
        hit.snippet = snippet_around(step.markdown, at, words.front().size());
      const bool in_title = step_title.find(whole) != std::string::npos || lesson_title.find(whole) != std::string::npos;
      (in_title ? title_hits : text_hits).push_back(std::move(hit));
    }
  }
  title_hits.insert(title_hits.end(), text_hits.begin(), text_hits.end());
  if (title_hits.size() > max_hits) title_hits.resize(max_hits);
  return title_hits;
}

}  // namespace ts::viz
