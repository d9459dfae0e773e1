// Presentation mode, the UI scale, PNG export, search and the saved state: the parts of the frame
// a teacher in front of a class and a student at home need (lecture.hpp says which is which).
#include "viz/gui/lecture.hpp"
#include "viz/gui/render_gl.hpp"

#include <GLFW/glfw3.h>  // key codes: ImGui 1.86's io.KeysDown is indexed by the platform's keys

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "viz/gui/app_parts.hpp"
#include "viz/gui/scenes.hpp"
#include "viz/lesson/quiz.hpp"
#include "viz/lesson/search.hpp"

namespace ts::viz {

namespace {

constexpr float kZooms[] = {1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};

bool pressed(int key) { return ImGui::IsKeyPressed(key, false); }

void go_to(App& app, int delta) {
  if (app.lesson < 0) return;
  const StepRef to = neighbour_step(app.lessons, {app.lesson, app.step}, delta);
  if (to != StepRef{app.lesson, app.step}) open_step(app, to.lesson, to.step);
}

std::string percent(float zoom) { return std::to_string(static_cast<int>(zoom * 100 + 0.5f)) + " %"; }

}  // namespace

float zoom_step(float zoom, int direction) {
  if (direction > 0) {
    for (float z : kZooms)
      if (z > zoom + 0.01f) return z;
    return kZooms[std::size(kZooms) - 1];
  }
  for (size_t i = std::size(kZooms); i-- > 0;)
    if (kZooms[i] < zoom - 0.01f) return kZooms[i];
  return kZooms[0];
}

void lecture_keys(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  if (pressed(GLFW_KEY_F5)) app.presenting = !app.presenting;
  if (app.presenting && pressed(GLFW_KEY_ESCAPE)) app.presenting = false;
  if (io.KeyCtrl) {
    if (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD)) app.classroom.zoom = zoom_step(app.classroom.zoom, +1);
    if (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT)) app.classroom.zoom = zoom_step(app.classroom.zoom, -1);
    if (pressed(GLFW_KEY_0) || pressed(GLFW_KEY_KP_0)) app.classroom.zoom = 1;
    if (pressed(GLFW_KEY_S)) app.export_requested = true;
    if (pressed(GLFW_KEY_F)) {
      app.presenting = false;
      app.focus_search = true;
    }
  }
  // A presenter's clicker sends Page Up / Page Down; typing in a box keeps its keys.
  if (!io.WantTextInput && !ImGui::IsAnyItemActive()) {
    if (pressed(GLFW_KEY_PAGE_UP)) go_to(app, -1);
    if (pressed(GLFW_KEY_PAGE_DOWN)) go_to(app, +1);
  }
}

void search_panel(App& app) {
  if (app.focus_search) {
    ImGui::SetKeyboardFocusHere();
    app.focus_search = false;
  }
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##search", "Search the lessons (Ctrl+F)", app.search.data(), app.search.size());
  if (app.search[0] == 0) return;
  const std::vector<SearchHit> hits = search_lessons(app.lessons, app.search.data(), 12);
  if (hits.empty()) {
    ImGui::TextDisabled("no step mentions that");
    return;
  }
  ImGui::PushFont(app.fonts.small);
  for (size_t i = 0; i < hits.size(); ++i) {
    const SearchHit& h = hits[i];
    const Lesson& lesson = app.lessons.lessons[h.lesson];
    const std::string label = std::to_string(h.lesson + 1) + "." + std::to_string(h.step + 1) + "  " +
                              lesson.steps[h.step].title;
    const std::string shown = ellipsize(ImGui::GetFont(), label, ImGui::GetContentRegionAvail().x - 4);
    ImGui::PushID(static_cast<int>(5000 + i));
    if (ImGui::Selectable(shown.c_str(), app.lesson == h.lesson && app.step == h.step)) open_step(app, h.lesson, h.step);
    ImGui::PopID();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s\n%s%s%s", lesson.title.c_str(), lesson.steps[h.step].title.c_str(), h.snippet.empty() ? "" : "\n",
                        h.snippet.c_str());
  }
  ImGui::PopFont();
  if (ImGui::SmallButton("Clear search")) app.search[0] = 0;
}

void view_panel(App& app) {
  section(app.fonts, "View");
  if (ImGui::Button("Present (F5)")) app.presenting = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Scene and text fill the window; F5 or Esc to come back, ← → or Page Up/Down to move");
  ImGui::SameLine();
  if (ImGui::Button("Save scene as PNG")) app.export_requested = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+S; the picture goes to %s", picture_path(app).parent_path().string().c_str());
  if (ImGui::Button(" - ")) app.classroom.zoom = zoom_step(app.classroom.zoom, -1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl -");
  ImGui::SameLine();
  ImGui::Text("text and UI %s", percent(app.classroom.zoom).c_str());
  ImGui::SameLine();
  if (ImGui::Button(" + ")) app.classroom.zoom = zoom_step(app.classroom.zoom, +1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl + (Ctrl 0: 100 %%)");
  if (!app.status.empty()) {
    ImGui::PushFont(app.fonts.small);
    ImGui::TextWrapped("%s", app.status.c_str());
    ImGui::PopFont();
  }
}

void presentation_hint(const App& app) {
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  const std::string hint = "F5: leave presentation   ← →: steps" + (app.status.empty() ? "" : "   " + app.status);
  const ImVec2 t = text_size(app.fonts.small, hint);
  text_at(ImGui::GetForegroundDrawList(), app.fonts.small, ImVec2(size.x - t.x - 8, size.y - t.y - 4), colour::faint, hint);
}

void restore_saved_state(App& app, bool zoom_given) {
  if (app.state_file.empty()) return;
  std::string warning;
  app.saved = load_saved_state(app.state_file, warning);
  if (!warning.empty()) {
    std::fprintf(stderr, "tilescope: warning: %s (ignored: starting afresh)\n", warning.c_str());
    app.status = warning + " (ignored)";
  }
  if (!zoom_given && app.saved.zoom >= 1) app.classroom.zoom = app.saved.zoom;
  const int l = find_lesson(app.lessons, app.saved.lesson);
  if (l >= 0) open_step(app, l, std::clamp(app.saved.step, 0, static_cast<int>(app.lessons.lessons[l].steps.size()) - 1));
}

bool remember_state(App& app) {
  SavedState now = app.saved;
  if (app.lesson >= 0) {
    const Lesson& lesson = app.lessons.lessons[app.lesson];
    now.lesson = lesson.id;
    now.step = app.step;
    // Once answered, what was committed (the box may have been edited since, or never typed in).
    if (const auto& at = app.attempt; at && at->question.error.empty())
      now.exercises[exercise_key(lesson.id, app.step)] = {at->question.seed, at->answered ? at->record.given : at->input.data(),
                                                          at->answered};
  }
  now.zoom = app.classroom.zoom;
  if (now == app.saved) return false;
  app.saved = std::move(now);
  return true;
}

void restore_exercise(App& app) {
  if (!app.attempt || app.lesson < 0) return;
  const Lesson& lesson = app.lessons.lessons[app.lesson];
  const auto it = app.saved.exercises.find(exercise_key(lesson.id, app.step));
  if (it == app.saved.exercises.end()) return;
  const LessonStep& step = lesson.steps[app.step];
  const QuizInfo* info = find_quiz(step.exercise);
  if (!info) return;
  const SavedExercise& saved = it->second;
  ExerciseAttempt at;
  at.question = draw_question(*info, step.exercise_ranges, step.state, saved.seed);
  std::strncpy(at.input.data(), saved.typed.c_str(), at.input.size() - 1);
  app.attempt = std::move(at);
  app.state = step.state;
  double value = 0;
  // The verdict is worked out again (the attempt was recorded when it was made, not now).
  if (saved.answered && app.attempt->question.error.empty() && parse_answer(saved.typed, value)) {
    app.attempt->record = make_attempt(app.attempt->question, app.classroom.student, lesson.id, app.step + 1, saved.typed, value);
    app.attempt->answered = true;
    app.state = app.attempt->question.reveal;
  }
}

std::filesystem::path picture_path(const App& app) {
  namespace fs = std::filesystem;
  fs::path dir = ".";
  std::error_code ec;
  if (const char* d = std::getenv("TILESCOPE_PICTURES_DIR"); d && *d) dir = d;
  else if (const char* h = std::getenv("HOME"); h && *h && fs::is_directory(fs::path(h) / "Pictures", ec))
    dir = fs::path(h) / "Pictures";
  dir = fs::absolute(dir, ec);
  const std::string base = "tilescope-" + (app.lesson >= 0 ? app.lessons.lessons[app.lesson].id + "-step" + std::to_string(app.step + 1) : "app");
  fs::path p = dir / (base + ".png");
  for (int n = 2; fs::exists(p, ec) && n < 10000; ++n) p = dir / (base + "-" + std::to_string(n) + ".png");
  return p;
}

void rebuild_fonts(App& app, float scale, bool upload) {
  ImGui::GetIO().Fonts->Clear();
  app.fonts = load_fonts(scale);
  if (upload) renderer_upload_fonts();
}

}  // namespace ts::viz
