#pragma once
// The course glossary: lessons/glossary.md, one "## term" heading per entry followed by its
// definition in Markdown. Lesson text links a term as [words](glossary:slug), the slug being the
// term in lower case with '-' for spaces ("bank conflict" -> bank-conflict); the app shows the
// definition when the pointer rests on the link, and the loader refuses a link to no entry.
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ts::viz {

struct LessonError;

struct GlossaryEntry {
  std::string term;        // as written in the heading
  std::string slug;        // what links name
  std::string definition;  // Markdown
  int line = 0;            // of the heading
};

struct Glossary {
  std::string file;  // empty: no glossary file
  std::vector<GlossaryEntry> entries;
  const GlossaryEntry* find(std::string_view slug) const;
};

std::string glossary_slug(std::string_view term);

// Strict like the lesson loader: the first problem is "file:line: reason".
std::variant<Glossary, LessonError> parse_glossary(const std::string& text, const std::string& file);

// Every "](glossary:slug)" in a line of text, in order.
std::vector<std::string> glossary_links(std::string_view line);

}  // namespace ts::viz
