#include "viz/lesson/lesson.hpp"

#include "viz/lesson/quiz.hpp"
#include "viz/lesson/source_view.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace ts::viz {

namespace fs = std::filesystem;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // files saved on Windows
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) words.push_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

std::string join(const std::vector<std::string_view>& words) {
  std::string s;
  for (auto w : words) s += (s.empty() ? "" : " ") + std::string(w);
  return s;
}

// "key: value" with a lower-case key, as directive lines and front matter are written.
// Returns the key, or nothing if the line does not look like one.
std::optional<std::string_view> directive_key(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (std::islower(static_cast<unsigned char>(line[i])) || line[i] == '_')) ++i;
  if (i == 0 || i >= line.size() || line[i] != ':') return std::nullopt;
  if (i + 1 < line.size() && line[i + 1] != ' ' && line[i + 1] != '\t') return std::nullopt;  // "http://"
  return line.substr(0, i);
}

bool is_fence(std::string_view line) {
  const auto t = trim(line);
  return t.starts_with("```") || t.starts_with("~~~");
}

bool valid_id(std::string_view id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char ch) {
    return std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '-';
  });
}

struct ParseFailure {
  LessonError error;
};

class Parser {
 public:
  Parser(const std::string& text, const std::string& file) : file_(file), lines_(split_lines(text)) {}

  Lesson parse() {
    const size_t body = parse_front_matter();
    parse_body(body);
    return std::move(lesson_);
  }

 private:
  [[noreturn]] void fail(int line, std::string reason) const { throw ParseFailure{{file_, line, std::move(reason)}}; }

  // Returns the index of the first line after the closing "---".
  size_t parse_front_matter() {
    if (lines_.empty() || trim(lines_[0]) != "---")
      fail(1, "a lesson begins with front matter: a '---' line, then id:, title: and scene:, then '---'");
    std::map<std::string, std::pair<std::string, int>> keys;
    size_t i = 1;
    for (; i < lines_.size(); ++i) {
      const auto t = trim(lines_[i]);
      const int line = static_cast<int>(i) + 1;
      if (t == "---") break;
      if (t.empty()) continue;
      const size_t colon = t.find(':');
      if (colon == std::string_view::npos) fail(line, "front matter line is not 'key: value'");
      const std::string key(trim(t.substr(0, colon)));
      const std::string value(trim(t.substr(colon + 1)));
      if (key != "id" && key != "title" && key != "scene" && key != "objective")
        fail(line, "unknown front matter key '" + key + "' (expected id, title, scene, objective)");
      if (value.empty()) fail(line, "front matter key '" + key + "' has no value");
      if (key == "objective") {  // one per line, as many as the lesson has
        lesson_.objectives.push_back(value);
        continue;
      }
      if (keys.count(key)) fail(line, "front matter key '" + key + "' given twice");
      keys[key] = {value, line};
    }
    if (i == lines_.size()) fail(static_cast<int>(lines_.size()), "front matter is not closed by a '---' line");
    const int close_line = static_cast<int>(i) + 1;
    for (auto key : {"id", "title", "scene"})
      if (!keys.count(key)) fail(close_line, std::string("front matter has no '") + key + ":'");

    const auto& [id, id_line] = keys["id"];
    if (!valid_id(id)) fail(id_line, "id '" + id + "' may only use a-z, 0-9 and '-'");
    const auto& [scene, scene_line] = keys["scene"];
    const SceneInfo* info = find_scene(scene);
    if (!info) {
      std::string names;
      for (const auto& s : scenes()) names += (names.empty() ? "" : " ") + std::string(s.name);
      fail(scene_line, "unknown scene '" + scene + "' (scenes: " + names + ")");
    }
    lesson_.id = id;
    lesson_.id_line = id_line;
    lesson_.title = keys["title"].first;
    lesson_.file = file_;
    lesson_.scene = info->kind;
    state_ = default_state(info->kind);
    return i + 1;
  }

  void parse_body(size_t first) {
    bool in_fence = false, in_directives = false;
    int fence_line = 0;
    for (size_t i = first; i < lines_.size(); ++i) {
      const std::string& raw = lines_[i];
      const auto t = trim(raw);
      const int line = static_cast<int>(i) + 1;
      if (!in_fence && (raw.starts_with("## ") || trim(raw) == "##")) {
        finish_step();
        const auto title = trim(std::string_view(raw).substr(2));
        if (title.empty()) fail(line, "a step heading needs a title: '## Title'");
        LessonStep step;
        step.title = std::string(title);
        step.line = line;
        lesson_.steps.push_back(std::move(step));
        knob_names_.clear();
        last_knob_line_ = 0;
        in_directives = true;
        continue;
      }
      if (lesson_.steps.empty()) {
        if (t.empty()) continue;
        fail(line, "text before the first step: begin each step with a '## Title' line");
      }
      LessonStep& step = lesson_.steps.back();
      if (in_directives && !in_fence) {
        if (t.empty()) continue;
        if (const auto key = directive_key(t)) {
          if (*key == "knobs") {
            parse_knobs(step, t.substr(6), line);
            continue;
          }
          if (*key == "highlight") {
            parse_highlights(step, t.substr(10), line);
            continue;
          }
          if (*key == "source") {
            parse_source(step, t.substr(7), line);
            continue;
          }
          if (*key == "exercise") {
            parse_exercise(step, t.substr(9), line);
            continue;
          }
          fail(line, "unknown step key '" + std::string(*key) +
                         ":' (a step may begin with knobs:, highlight:, source: and exercise: lines)");
        }
        in_directives = false;
      } else if (!in_fence) {
        if (const auto key = directive_key(t);
            key && (*key == "knobs" || *key == "highlight" || *key == "source" || *key == "exercise"))
          fail(line, "'" + std::string(*key) + ":' must come right after the step heading, before the step's text");
      }
      if (is_fence(raw)) {
        in_fence = !in_fence;
        fence_line = line;
      }
      if (!in_fence) {
        for (auto& slug : glossary_links(raw)) lesson_.glossary_links.push_back({std::move(slug), line});
        check_images(raw, line);
      }
      step.markdown += raw + "\n";
    }
    if (in_fence) fail(fence_line, "code block opened here is not closed");
    finish_step();
    if (lesson_.steps.empty())
      fail(static_cast<int>(lines_.size()), "a lesson needs at least one step: a '## Title' line");
  }

  // "![alt](file.png)": the file must exist beside the lesson, so that a missing picture is a
  // load error with its line rather than a hole in the text.
  void check_images(std::string_view line, int line_no) const {
    for (size_t at = line.find("!["); at != std::string_view::npos; at = line.find("![", at + 2)) {
      const size_t open = line.find("](", at);
      const size_t close = open == std::string_view::npos ? open : line.find(')', open);
      if (close == std::string_view::npos) continue;
      const std::string src(line.substr(open + 2, close - open - 2));
      const fs::path path = fs::path(file_).parent_path() / src;
      if (src.find("://") == std::string::npos && !fs::is_regular_file(path))
        fail(line_no, "image '" + src + "' not found (looked for " + path.string() + ")");
    }
  }

  void parse_knobs(LessonStep& step, std::string_view rest, int line) {
    const auto words = split_words(rest);
    if (words.empty()) fail(line, "'knobs:' lists no knob (write knobs: name=value ...)");
    for (auto word : words) {
      const size_t eq = word.find('=');
      if (eq == std::string_view::npos || eq == 0 || eq + 1 == word.size())
        fail(line, "knob '" + std::string(word) + "' is not written name=value");
      const std::string name(word.substr(0, eq)), value(word.substr(eq + 1));
      if (std::find(knob_names_.begin(), knob_names_.end(), name) != knob_names_.end())
        fail(line, "knob '" + name + "' set twice in this step");
      knob_names_.push_back(name);
      if (auto reason = set_knob(state_, name, value); !reason.empty()) fail(line, reason);
      step.knobs.push_back({name, value, line});
    }
    last_knob_line_ = line;
  }

  void parse_highlights(LessonStep& step, std::string_view rest, int line) {
    const auto words = split_words(rest);
    if (words.empty()) fail(line, "'highlight:' lists nothing");
    const auto& allowed = scene_info(lesson_.scene).highlights;
    for (auto word : words) {
      if (std::find(allowed.begin(), allowed.end(), word) == allowed.end())
        fail(line, "unknown highlight '" + std::string(word) + "' for scene '" +
                       std::string(scene_info(lesson_.scene).name) + "' (highlights: " + join(allowed) + ")");
      step.highlights.emplace_back(word);
    }
  }

  // "source: FILE [+N] TEXT": the first line of FILE holding TEXT, and N more after it. The file
  // is read now, so that a lesson whose line has gone from the kernel fails to load.
  void parse_source(LessonStep& step, std::string_view rest, int line) {
    if (!step.source_file.empty()) fail(line, "'source:' given twice in this step");
    rest = trim(rest);
    const size_t file_end = std::min(rest.find_first_of(" \t"), rest.size());
    const std::string file(rest.substr(0, file_end));
    if (file.empty()) fail(line, "'source:' names no file (write source: FILE [+N] TEXT)");
    rest = trim(rest.substr(file_end));
    int extra = 0;
    if (rest.starts_with('+')) {
      const size_t end = std::min(rest.find_first_of(" \t"), rest.size());
      const auto digits = rest.substr(1, end - 1);
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), extra);
      if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || extra < 0 || extra > 60)
        fail(line, "'source:' line count '" + std::string(rest.substr(0, end)) + "' is not +0 to +60");
      rest = trim(rest.substr(end));
    }
    const auto src = source_file(file);
    if (!src->error.empty()) fail(line, "source file '" + file + "': " + src->error);
    int found = 1;
    if (!rest.empty()) {
      found = find_source_line(*src, rest);
      if (found == 0) fail(line, "no line of " + file + " contains '" + std::string(rest) + "'");
    }
    step.source_file = file;
    step.source_text = std::string(rest);
    step.source_line = found;
    step.source_lines = std::min(1 + extra, static_cast<int>(src->lines.size()) - found + 1);
  }

  // "exercise: ID [name=lo..hi[/step] | name=a,b,c ...]": the exercise and the ranges its
  // parameters are drawn from (each checked against what the exercise allows).
  void parse_exercise(LessonStep& step, std::string_view rest, int line) {
    if (!step.exercise.empty()) fail(line, "'exercise:' given twice in this step");
    const auto words = split_words(rest);
    if (words.empty()) fail(line, "'exercise:' names no exercise (write exercise: ID [name=lo..hi ...])");
    const std::string_view id = words[0];
    const QuizInfo* info = find_quiz(id);
    if (!info) {
      std::string ids;
      for (const auto& e : quizzes()) ids += (ids.empty() ? "" : " ") + std::string(e.id);
      fail(line, "unknown exercise '" + std::string(id) + "' (exercises: " + ids + ")");
    }
    if (info->scene != lesson_.scene)
      fail(line, "exercise '" + std::string(id) + "' belongs to scene '" + std::string(scene_info(info->scene).name) +
                     "', not '" + std::string(scene_info(lesson_.scene).name) + "'");
    for (size_t i = 1; i < words.size(); ++i) {
      QuizRange range;
      if (auto reason = parse_quiz_range(*info, words[i], range); !reason.empty()) fail(line, reason);
      for (const auto& r : step.exercise_ranges)
        if (r.name == range.name) fail(line, "exercise parameter '" + range.name + "' given twice");
      range.line = line;
      step.exercise_ranges.push_back(std::move(range));
    }
    step.exercise = std::string(id);
    step.exercise_line = line;
  }

  // The step's knobs are all read: check them together and freeze the scene it opens with.
  void finish_step() {
    if (lesson_.steps.empty()) return;
    LessonStep& step = lesson_.steps.back();
    if (auto reason = validate(state_); !reason.empty()) fail(last_knob_line_ ? last_knob_line_ : step.line, reason);
    step.state = state_;
    // Keep the prose without the blank lines around it.
    auto& md = step.markdown;
    const size_t start = md.find_first_not_of(" \t\n");
    md = start == std::string::npos ? "" : md.substr(start, md.find_last_not_of(" \t\n") - start + 1) + "\n";
  }

  std::string file_;
  std::vector<std::string> lines_;
  Lesson lesson_;
  SceneState state_;
  std::vector<std::string> knob_names_;  // set in the current step
  int last_knob_line_ = 0;
};

// "12-name.md" -> 12; other names are not lesson files.
std::optional<long> lesson_number(const std::string& name) {
  size_t i = 0;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
  if (i == 0 || i > 9 || i >= name.size() || name[i] != '-' || !name.ends_with(".md") || name.size() <= i + 4)
    return std::nullopt;
  return std::strtol(name.substr(0, i).c_str(), nullptr, 10);
}

const GlossaryLink* unknown_glossary_link(const Lesson& lesson, const Glossary& glossary) {
  for (const auto& link : lesson.glossary_links)
    if (!glossary.find(link.slug)) return &link;
  return nullptr;
}

}  // namespace

std::variant<Lesson, LessonError> parse_lesson(const std::string& text, const std::string& file) {
  try {
    return Parser(text, file).parse();
  } catch (const ParseFailure& f) {
    return f.error;
  }
}

std::variant<Lesson, LessonError> load_lesson_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return LessonError{file.string(), 1, "cannot read the file"};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_lesson(text.str(), file.string());
}

LessonSet load_lessons(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw std::runtime_error("lessons folder '" + dir.string() + "' does not exist");
  std::vector<std::pair<long, std::string>> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (const auto number = lesson_number(name); number && entry.is_regular_file()) files.emplace_back(*number, name);
  }
  std::sort(files.begin(), files.end());
  LessonSet set;
  if (const fs::path g = dir / "glossary.md"; fs::is_regular_file(g)) {
    std::ifstream in(g, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    auto parsed = parse_glossary(text.str(), g.string());
    if (auto* error = std::get_if<LessonError>(&parsed)) set.errors.push_back(std::move(*error));
    else set.glossary = std::move(std::get<Glossary>(parsed));
  }
  for (const auto& [number, name] : files) {
    auto result = load_lesson_file(dir / name);
    if (auto* error = std::get_if<LessonError>(&result)) {
      set.errors.push_back(std::move(*error));
      continue;
    }
    auto& lesson = std::get<Lesson>(result);
    if (const auto* link = unknown_glossary_link(lesson, set.glossary)) {
      set.errors.push_back({lesson.file, link->line,
                            "no glossary entry '" + link->slug + "'" +
                                (set.glossary.file.empty() ? " (the folder has no glossary.md)"
                                                           : " in " + set.glossary.file + " (write it as '## term')")});
      continue;
    }
    if (const int other = find_lesson(set, lesson.id); other >= 0) {
      set.errors.push_back({lesson.file, lesson.id_line,
                            "lesson id '" + lesson.id + "' is already used by " + set.lessons[other].file});
      continue;
    }
    set.lessons.push_back(std::move(lesson));
  }
  return set;
}

fs::path default_lessons_dir() {
  if (const char* env = std::getenv("TILESCOPE_LESSONS_DIR"); env && *env) return env;
#ifdef TILESCOPE_SOURCE_DIR
  if (const fs::path source = fs::path(TILESCOPE_SOURCE_DIR) / "lessons"; fs::is_directory(source)) return source;
#endif
  return "lessons";
}

int find_lesson(const LessonSet& set, const std::string& id) {
  for (size_t i = 0; i < set.lessons.size(); ++i)
    if (set.lessons[i].id == id) return static_cast<int>(i);
  return -1;
}

StepRef neighbour_step(const LessonSet& set, StepRef at, int delta) {
  const auto steps = [&](int lesson) { return static_cast<int>(set.lessons[lesson].steps.size()); };
  const int target = at.step + delta;
  if (target >= 0 && target < steps(at.lesson)) return {at.lesson, target};
  if (target < 0 && at.lesson > 0) return {at.lesson - 1, steps(at.lesson - 1) - 1};
  if (target >= steps(at.lesson) && at.lesson + 1 < static_cast<int>(set.lessons.size())) return {at.lesson + 1, 0};
  return at;
}

}  // namespace ts::viz
