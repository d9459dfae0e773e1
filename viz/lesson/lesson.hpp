#pragma once
// Lessons: one Markdown file each under lessons/, read at run time so that a teacher edits them
// without recompiling. lessons/README.md documents the format; in short:
//
//   ---
//   id: banks-swizzles
//   title: Swizzled layouts and bank conflicts
//   scene: banks
//   ---
//
//   ## The plain tile
//   knobs: swizzle=none rows=16 cols=64 access=ldsm4
//   highlight: banks totals
//   source: kernels/gemm/gemm.cuh +2 using a_tile
//   exercise: bank-conflicts access=0,1 swizzle=0..3
//
//   Markdown prose of the step...
//
// A step's knobs start from the previous step's (the first step's from the scene's defaults).
// The parser is strict: the first problem in a file is reported as "file:line: reason".
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "viz/lesson/glossary.hpp"
#include "viz/lesson/quiz.hpp"
#include "viz/lesson/scenes.hpp"

namespace ts::viz {

struct KnobSetting {
  std::string name, value;
  int line = 0;
};

struct LessonStep {
  std::string title;
  int line = 0;                         // of its "## " heading
  std::vector<KnobSetting> knobs;       // as written in this step
  std::vector<std::string> highlights;  // this step only
  std::string markdown;                 // the prose, directive lines removed
  SceneState state;                     // the scene as this step opens it
  // The kernel source the step points at ("source: FILE [+N] TEXT"): the file under the source
  // root, the text that finds the line, the first line holding it (1-based) and how many lines
  // from there are highlighted. Empty file: the step points at no source.
  std::string source_file, source_text;
  int source_line = 0, source_lines = 1;
  // "exercise: ID [param=range ...]": the exercise (viz/lesson/quiz.hpp) this step ends with, and
  // the ranges the lesson gives its parameters (the others keep the exercise's defaults).
  std::string exercise;
  std::vector<QuizRange> exercise_ranges;
  int exercise_line = 0;
};

struct GlossaryLink {
  std::string slug;
  int line = 0;
};

struct Lesson {
  std::string id, title, file;
  int id_line = 0;
  SceneKind scene = SceneKind::roofline;
  // "objective: ..." lines of the front matter: what a student can do after the lesson.
  std::vector<std::string> objectives;
  std::vector<LessonStep> steps;
  std::vector<GlossaryLink> glossary_links;  // every [words](glossary:slug) of the text
};

struct LessonError {
  std::string file;
  int line = 0;
  std::string reason;
  std::string text() const { return file + ":" + std::to_string(line) + ": " + reason; }
};

// Parses one lesson's text; `file` is only used in error messages.
std::variant<Lesson, LessonError> parse_lesson(const std::string& text, const std::string& file);
std::variant<Lesson, LessonError> load_lesson_file(const std::filesystem::path& file);

struct LessonSet {
  std::vector<Lesson> lessons;      // in file-name order
  std::vector<LessonError> errors;  // one per file that failed (its lesson is left out)
  Glossary glossary;                // glossary.md of the folder (empty when it has none)
};

// Every lesson file of a folder: files named "<number>-<name>.md" (others, like README.md, are
// not lessons), ordered by that number, and the folder's glossary.md; a lesson that links a term
// the glossary lacks is refused (file:line of the link). Throws std::runtime_error if `dir` is
// not a folder.
LessonSet load_lessons(const std::filesystem::path& dir);

// Where lessons are read from when no folder is given: $TILESCOPE_LESSONS_DIR, then lessons/ of
// the source tree the binary was built from, then ./lessons.
std::filesystem::path default_lessons_dir();

// Index of the lesson with this id, or -1.
int find_lesson(const LessonSet& set, const std::string& id);

// Where Prev (delta -1) and Next (+1) lead from (lesson, step): the neighbouring step, crossing
// into the previous lesson's last step or the next lesson's first; unchanged at either end.
struct StepRef {
  int lesson = 0, step = 0;
  friend bool operator==(StepRef, StepRef) = default;
};
StepRef neighbour_step(const LessonSet& set, StepRef at, int delta);

}  // namespace ts::viz
