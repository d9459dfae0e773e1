// The exercise of the open step, in the app frame: the question card in place of the scene until
// the student answers, then the verdict above the revealed scene; the left panel's part; and the
// teacher's view (the key, this session's attempts). The questions themselves are
// viz/lesson/quiz*; this file only draws them and records the answers.
#include <chrono>
#include <cstdio>
#include <random>

#include "viz/gui/app.hpp"
#include "viz/gui/app_parts.hpp"
#include "viz/gui/scenes.hpp"
#include "viz/lesson/quiz.hpp"

namespace ts::viz {

namespace {

void coloured_text(ImU32 col, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(col));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

std::string params_text(const QuizParams& p) {
  std::string s;
  for (const auto& [name, value] : p) s += (s.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return s;
}

// The key, for a teacher only.
void teacher_key(const App& app) {
  if (!app.classroom.teacher || !app.attempt) return;
  const Question& q = app.attempt->question;
  coloured_text(colour::highlight, "Teacher: the key is " + key_text(q) + " (" + q.explanation + "); seed " +
                                       std::to_string(q.seed) + ", " + params_text(q.params));
}

// The open exercise before the answer: the question and a box for the number, in place of the
// scene (which would show the answer).
}  // namespace

void question_card(App& app) {
  ExerciseAttempt& at = *app.attempt;
  const QuizInfo* info = find_quiz(at.question.exercise);
  ImGui::PushFont(app.fonts.heading);
  ImGui::TextUnformatted("Exercise: predict, then see");
  ImGui::PopFont();
  if (info) ImGui::TextDisabled("%s", std::string(info->title).c_str());
  ImGui::Spacing();
  if (!at.question.error.empty()) {
    coloured_text(colour::error, "This exercise has no question for the lesson's ranges: " + at.question.error);
    return;
  }
  ImGui::PushFont(app.fonts.bold);
  ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x * 0.92f);
  ImGui::TextWrapped("%s", at.question.text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopFont();
  ImGui::Spacing();
  ImGui::SetNextItemWidth(180);
  const bool enter = ImGui::InputText("##answer", at.input.data(), at.input.size(), ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  ImGui::TextUnformatted(at.question.unit.c_str());
  ImGui::SameLine();
  if (ImGui::Button("Answer") || enter) answer_exercise(app, at.input.data());
  if (!at.error.empty()) coloured_text(colour::error, at.error);
  ImGui::Spacing();
  ImGui::TextDisabled("The scene appears once you have answered: it would show the answer. Each attempt draws new numbers.");
  teacher_key(app);
}

// After the answer: the verdict above the revealed scene.
void answer_banner(App& app) {
  const ExerciseAttempt& at = *app.attempt;
  const Attempt& r = at.record;
  ImGui::PushFont(app.fonts.bold);
  coloured_text(r.right ? colour::good : colour::error,
                (r.right ? "Right: " + key_text(at.question) : "Not right: you answered " + r.given + "; the key is " + key_text(at.question)));
  ImGui::PopFont();
  ImGui::TextWrapped("%s. Below: the scene for this question.", at.question.explanation.c_str());
  if (!at.error.empty()) coloured_text(colour::error, at.error);
  if (ImGui::Button("New question")) new_question(app);
  ImGui::SameLine();
  if (app.classroom.results_file.empty()) ImGui::TextDisabled("attempt of %s (not recorded here)", r.student.c_str());
  else if (at.error.empty()) ImGui::TextDisabled("attempt saved for %s", r.student.c_str());
  ImGui::Separator();
}

// The left panel's part of the exercise: where to answer, and for a teacher this session's attempts.
void exercise_panel(App& app) {
  if (!app.attempt) return;
  section(app.fonts, "Exercise");
  const QuizInfo* info = find_quiz(app.attempt->question.exercise);
  ImGui::TextWrapped("%s: %s", info ? std::string(info->title).c_str() : "?",
                     app.attempt->answered ? "answered (New question for another)" : "answer in the scene panel");
  if (!app.classroom.teacher) return;
  section(app.fonts, "Attempts (teacher)");
  ImGui::PushFont(app.fonts.small);
  ImGui::TextDisabled("results: %s", app.classroom.results_file.string().c_str());
  const size_t shown = std::min<size_t>(app.session.size(), 8);
  for (size_t i = app.session.size() - shown; i < app.session.size(); ++i) {
    const Attempt& a = app.session[i];
    char key[32];
    std::snprintf(key, sizeof key, "%.4g", a.key);
    coloured_text(a.right ? colour::good : colour::error,
                  a.student + ", " + a.exercise + ": " + a.given + (a.right ? " (right)" : " (key " + std::string(key) + ")"));
  }
  if (app.session.empty()) ImGui::TextDisabled("none in this session; tilescope lessons --results exports them all");
  ImGui::PopFont();
}


void new_question(App& app) {
  const LessonStep* step = current_step(app);
  const QuizInfo* info = step ? find_quiz(step->exercise) : nullptr;
  if (!info) return;
  // A fixed seed gives the same questions in the same order (pictures, tests); otherwise every
  // attempt, of every student, draws its own.
  const uint64_t seed = app.classroom.seed
                            ? app.classroom.seed + app.questions_drawn
                            : (uint64_t(std::random_device{}()) << 32) ^
                                  uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^ app.questions_drawn;
  ++app.questions_drawn;
  app.attempt = ExerciseAttempt{};
  app.attempt->question = draw_question(*info, step->exercise_ranges, step->state, seed);
  app.state = step->state;
  app.edited = false;
  if (!app.classroom.answer.empty()) answer_exercise(app, app.classroom.answer);
}

void answer_exercise(App& app, const std::string& typed) {
  if (!app.attempt || app.attempt->answered || !app.attempt->question.error.empty()) return;
  ExerciseAttempt& at = *app.attempt;
  double value = 0;
  if (!parse_answer(typed, value)) {
    at.error = "'" + typed + "' is not a number: type one (1365, 1,365 and 12.5 all work)";
    return;
  }
  at.error.clear();
  const Lesson& lesson = app.lessons.lessons[app.lesson];
  at.record = make_attempt(at.question, app.classroom.student, lesson.id, app.step + 1, typed, value);
  if (!app.classroom.results_file.empty()) {
    try {
      append_attempt(app.classroom.results_file, at.record);
    } catch (const std::exception& e) {
      at.error = std::string(e.what()) + ": this attempt is not saved";
    }
  }
  app.session.push_back(at.record);
  at.answered = true;
  app.state = at.question.reveal;
}

}  // namespace ts::viz
