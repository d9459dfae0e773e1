#pragma once
// One frame of the lesson app, the same whether it goes to a window or to a PNG: the lesson and
// step lists with Prev/Next and the knobs on the left, the scene, and the step's text below it.
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "sim/machine.hpp"
#include "viz/gui/common.hpp"
#include "viz/gui/markdown.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/lesson.hpp"
#include "viz/lesson/measured.hpp"
#include "viz/lesson/results.hpp"
#include "viz/lesson/saved_state.hpp"

namespace ts::viz {

// The open step's exercise: its question, what the student types, and once committed, the record.
struct ExerciseAttempt {
  Question question;
  std::array<char, 64> input{};  // what the student types (ImGui edits it in place)
  bool answered = false;
  Attempt record;
  std::string error;  // the record could not be written
};

struct App {
  LessonSet lessons;
  Fonts fonts;
  int lesson = -1;  // -1 when no lesson loaded
  int step = 0;
  SceneState state;     // what the scene shows: the step's knobs plus the user's changes
  bool edited = false;  // the user changed a knob since the step opened
  MdDoc text;           // the step's prose, parsed when the step opens
  std::map<std::string, std::variant<sim::MachineSpec, std::string>> machines;  // id -> spec or error
  std::unique_ptr<SimCache> sims = std::make_unique<SimCache>();  // the GEMM scenes' simulations
  const MeasuredData* measured = &measured_data();
  Classroom classroom;
  std::optional<ExerciseAttempt> attempt;  // when the open step ends with an exercise
  uint64_t questions_drawn = 0;            // this session: each new question gets the next seed
  std::vector<Attempt> session;            // attempts committed in this session (teacher view)

  // In a lecture hall and at home (lecture.cpp): presentation mode (F5), the UI scale
  // (classroom.zoom, Ctrl +/-), the scene saved as PNG (Ctrl+S), search, and what is remembered
  // between runs.
  bool presenting = false;
  bool export_requested = false;  // the window saves the scene once this frame is drawn
  Rect scene_rect{};              // where the scene panel was drawn this frame, in layout units
  std::string status;             // one line for the user: where a picture went, a warning
  std::array<char, 96> search{};  // the search box's text
  bool focus_search = false;
  std::filesystem::path state_file;  // empty: nothing is remembered (headless pictures, tests)
  SavedState saved;                  // as last written (or read at start)
};

// Sets up ImGui's style and the fonts; call once the ImGui context exists, before the renderer
// backend builds its font texture.
void init_app(App& app, LessonSet lessons);

// Replaces the lessons and opens the first step of the first one (if any loaded).
void use_lessons(App& app, LessonSet lessons);

// Opens a step: its knobs replace whatever the user had changed; an exercise draws a new question.
void open_step(App& app, int lesson, int step);

// Commits the student's answer to the open exercise: records it and reveals the scene.
void answer_exercise(App& app, const std::string& typed);
// Draws another question for the open exercise.
void new_question(App& app);

// Builds the whole frame for io.DisplaySize, between ImGui::NewFrame() and ImGui::Render().
void draw_app_frame(App& app);

}  // namespace ts::viz
