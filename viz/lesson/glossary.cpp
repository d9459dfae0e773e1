#include "viz/lesson/glossary.hpp"

#include <cctype>
#include <sstream>

#include "viz/lesson/lesson.hpp"

namespace ts::viz {

const GlossaryEntry* Glossary::find(std::string_view slug) const {
  for (const auto& e : entries)
    if (e.slug == slug) return &e;
  return nullptr;
}

std::string glossary_slug(std::string_view term) {
  std::string s;
  for (char c : term) {
    if (std::isalnum(static_cast<unsigned char>(c))) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if ((c == ' ' || c == '-' || c == '_') && !s.empty() && s.back() != '-') s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s;
}

std::variant<Glossary, LessonError> parse_glossary(const std::string& text, const std::string& file) {
  Glossary g;
  g.file = file;
  std::istringstream in(text);
  int line_no = 0;
  bool title_seen = false;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("# ") && !title_seen && g.entries.empty()) {  // the file's own title
      title_seen = true;
      continue;
    }
    if (line.starts_with("## ")) {
      GlossaryEntry e;
      e.term = line.substr(3);
      while (!e.term.empty() && std::isspace(static_cast<unsigned char>(e.term.back()))) e.term.pop_back();
      e.slug = glossary_slug(e.term);
      e.line = line_no;
      if (e.slug.empty()) return LessonError{file, line_no, "a glossary entry needs a term: '## term'"};
      if (const GlossaryEntry* other = g.find(e.slug))
        return LessonError{file, line_no, "glossary term '" + e.term + "' is already defined at line " + std::to_string(other->line)};
      g.entries.push_back(std::move(e));
      continue;
    }
    if (g.entries.empty()) {
      if (line.find_first_not_of(" \t") == std::string::npos || title_seen) continue;
      return LessonError{file, line_no, "text before the first entry: begin each entry with a '## term' line"};
    }
    g.entries.back().definition += line + "\n";
  }
  for (auto& e : g.entries) {
    const size_t a = e.definition.find_first_not_of(" \t\n");
    if (a == std::string::npos) return LessonError{file, e.line, "glossary term '" + e.term + "' has no definition"};
    e.definition = e.definition.substr(a, e.definition.find_last_not_of(" \t\n") - a + 1);
  }
  return g;
}

std::vector<std::string> glossary_links(std::string_view line) {
  std::vector<std::string> out;
  constexpr std::string_view key = "](glossary:";
  for (size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
    const size_t start = at + key.size(), end = line.find(')', start);
    out.emplace_back(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
  }
  return out;
}

}  // namespace ts::viz
