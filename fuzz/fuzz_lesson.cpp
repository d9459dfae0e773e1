// Fuzz target: the lesson file parser (viz/lesson/lesson.cpp), what a teacher edits by hand.
// Any input gives a lesson or a "file:line: reason" error; never a crash, a hang or a sanitizer report.
#include <stdexcept>
#include <string>
#include <variant>

#include "fuzz/fuzz_input.hpp"
#include "viz/lesson/lesson.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto result = ts::viz::parse_lesson(ts::fuzz::text_of(data, size), "fuzz.md");
  if (const auto* err = std::get_if<ts::viz::LessonError>(&result)) {
    // The promise to the teacher: the error names the file and a line of it.
    if (err->file != "fuzz.md" || err->line < 0 || err->reason.empty()) throw std::logic_error("unhelpful lesson error: " + err->text());
  }
  return 0;
}
