#pragma once
// Exercises that assess: a step that ends with "exercise: ID [param=range ...]" asks a question
// whose parameters are drawn at random for each attempt, from ranges the lesson gives (or the
// exercise's defaults). The student commits a number first; only then does the scene show the
// effect (the question's "reveal" state), so neither moving a knob until the picture agrees nor a
// classmate's answer (to other parameters) works. Each exercise is a plain function from its drawn
// parameters to a question, its answer and the scene that shows it; the answer comes from the
// same models the scenes draw (bank model, fragment maps, machine file, block orders).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "viz/lesson/scenes.hpp"

namespace ts::viz {

// The values one parameter is drawn from: lo..hi in steps of `step`, or a list.
struct QuizRange {
  std::string name;
  std::vector<int64_t> values;  // expanded, in order; never empty once valid
  int line = 0;                 // where a lesson set it (0: the exercise's default)
};

// A parameter an exercise takes, with the widest range a lesson may give it.
struct QuizParamSpec {
  std::string name;
  std::string help;
  int64_t lo = 0, hi = 0, step = 1;  // the allowed range (and the default range, unless `defaults`)
  std::vector<int64_t> defaults;     // default values when not lo..hi/step
  std::vector<int64_t> allowed() const;
};

using QuizParams = std::map<std::string, int64_t>;

struct Question {
  std::string exercise;
  uint64_t seed = 0;
  QuizParams params;
  std::string text;         // the question as the student reads it: never the answer
  std::string unit;         // of the answer, e.g. "FLOP per byte", "conflicts"
  double answer = 0;        // the key
  double tolerance = 0;     // relative; 0: the exact integer
  std::string explanation;  // how the key follows from the question: after the answer, and for teachers
  SceneState reveal;        // the scene once the student has answered
  std::vector<std::string> reveal_highlights;
  std::string error;        // set when the parameters give no valid question
};

struct QuizInfo {
  std::string_view id;
  SceneKind scene;
  std::string_view title;  // one line, for lists and the results export
  std::vector<QuizParamSpec> params;
};

const std::vector<QuizInfo>& quizzes();
const QuizInfo* find_quiz(std::string_view id);

// Parses one "name=lo..hi[/step]" or "name=a,b,c" for exercise `quiz`. Returns "" or the reason
// the range is refused (unknown parameter, outside the allowed range, empty).
std::string parse_quiz_range(const QuizInfo& quiz, std::string_view word, QuizRange& out);

// The question for `seed`: each parameter drawn uniformly from the lesson's range (else the
// default); `base` is the step's scene, which the reveal starts from.
Question draw_question(const QuizInfo& quiz, const std::vector<QuizRange>& ranges, const SceneState& base, uint64_t seed);

// The question for given parameters (tests, and a teacher reproducing an attempt).
Question make_question(std::string_view id, const QuizParams& params, const SceneState& base);

// Every number written in `text` ("1,365", "12.5", the 64 of "m64n256k16"), in order.
std::vector<double> numbers_in_text(std::string_view text);
// True when a number printed in the question would be accepted as its answer: such draws are
// drawn again, so the question's own view never shows the key.
bool gives_away(const Question& q);

// Reads what a student typed: "1365", "1,365", " 12.5 ". Nothing for text that is not a number.
bool parse_answer(std::string_view text, double& value);
// Within the question's tolerance of the key.
bool accepts(const Question& q, double value);
// The key as the app prints it after the answer (and in teacher mode).
std::string key_text(const Question& q);

}  // namespace ts::viz
