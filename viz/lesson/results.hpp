#pragma once
// Exercise attempts, kept for the teacher: each committed answer is one JSON line appended to a
// results file (one per student, or one shared by a lab machine), so that nothing is lost when the
// app stops and files from many students can be read together (tilescope lessons --results).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "viz/lesson/quiz.hpp"

namespace ts::viz {

struct Attempt {
  std::string time_utc;        // "2026-11-23T14:02:11Z"
  std::string student;
  std::string lesson;          // lesson id
  int step = 0;                // 1-based, as the app shows it
  std::string exercise;
  uint64_t seed = 0;           // reproduces the question (with the lesson's ranges)
  QuizParams params;
  std::string question;
  std::string given;           // what the student typed
  double value = 0;            // as read
  double key = 0, tolerance = 0;
  std::string unit;
  bool right = false;
};

// Who is answering, and where attempts go: --student, $TILESCOPE_STUDENT, $USER; --results-file,
// $TILESCOPE_RESULTS, $XDG_DATA_HOME/tilescope/results.jsonl (~/.local/share/...).
std::string default_student();
std::filesystem::path default_results_file();

// Who uses the app and how: a student's attempts go to `results_file`; a teacher also sees the key
// and the attempts. `seed` 0 draws questions from the clock; a fixed seed draws the same ones
// (headless pictures, tests). `answer`: typed into every exercise as it opens (headless pictures of
// the feedback; nothing is recorded when `results_file` is empty).
struct Classroom {
  std::string student = default_student();
  std::filesystem::path results_file = default_results_file();
  bool teacher = false;
  uint64_t seed = 0;
  std::string answer;
  // For a projector: the whole frame drawn this many times larger (1 to 3), laid out as on a
  // screen that many times smaller.
  float zoom = 1;
};

Attempt make_attempt(const Question& q, const std::string& student, const std::string& lesson, int step,
                     const std::string& given, double value);

// Appends one line; throws std::runtime_error when the file cannot be written.
void append_attempt(const std::filesystem::path& file, const Attempt& a);

struct ResultsFile {
  std::vector<Attempt> attempts;
  std::vector<std::string> problems;  // "file:line: reason" for lines that are not attempts (skipped)
};
// A missing file is no attempts, no problem (nobody answered yet).
ResultsFile load_results(const std::vector<std::filesystem::path>& files);

struct LessonSet;

// Whether an attempt is what the lessons say: its seed, lesson, step and ranges draw the question
// again, whose key and verdict must match the record. `checked` false: the question drawn now is
// not the one recorded (the lesson changed since), so nothing can be said.
struct AttemptCheck {
  bool checked = false, agrees = false;
  std::string reason;
};
AttemptCheck check_attempt(const Attempt& a, const LessonSet& lessons);

// The export: every attempt, and per student and exercise the attempts, the right ones and the
// attempt number of the first right one (0: none), as one JSON document. With `lessons`, each
// attempt is checked (check_attempt): a record whose key or verdict the lessons contradict (an
// edited file) is marked "verified": false and counts as wrong.
std::string results_json(const ResultsFile& results, const std::vector<std::filesystem::path>& files,
                         const LessonSet* lessons = nullptr);

// The same tally as a gradebook: one row per student, "solved" and, per exercise of `lessons` in
// lesson order, "right/attempts" (contradicted records count as wrong).
std::string results_csv(const ResultsFile& results, const LessonSet& lessons);

}  // namespace ts::viz
