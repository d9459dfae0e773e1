// The lecture-hall parts of the app that need ImGui but no window: fonts rebuilt for a zoom, and
// where a saved picture goes. (Presentation mode and zoomed frames are drawn by cli_lecture_tests.)
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "viz/gui/app.hpp"
#include "viz/gui/common.hpp"
#include "viz/gui/lecture.hpp"

using namespace ts::viz;
namespace fs = std::filesystem;

namespace {

// Its own ImGui context (the render tests keep theirs current): made current, then put back.
struct Context {
  ImGuiContext* previous = ImGui::GetCurrentContext();
  ImGuiContext* ctx = ImGui::CreateContext();
  Context() { ImGui::SetCurrentContext(ctx); }
  ~Context() {
    ImGui::DestroyContext(ctx);
    ImGui::SetCurrentContext(previous);
  }
};

struct Atlas {
  float text_w = 0, line_h = 0;
  int texels = 0;
};

Atlas fonts_at(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const Fonts f = load_fonts(scale);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  return {text_size(f.body, "Shared memory has 32 banks").x, f.body->FontSize, w * h};
}

}  // namespace

TEST_CASE("fonts rebuilt for a zoom keep the layout and carry the texels to draw it crisp", "[gui][zoom]") {
  Context context;
  const Atlas one = fonts_at(1), two = fonts_at(2), three = fonts_at(3);
  // The same layout (within a pixel: rounding of the larger glyphs' metrics)...
  CHECK(two.line_h == Approx(one.line_h));
  CHECK(two.text_w == Approx(one.text_w).margin(1.5));
  CHECK(three.text_w == Approx(one.text_w).margin(1.5));
  // ...from glyphs rasterized at the drawn size: about 4 and 9 times the texels (not stretched).
  CHECK(two.texels >= 3 * one.texels);
  CHECK(three.texels >= 6 * one.texels);
}

TEST_CASE("the UI scale steps from 100 % to 300 % and stops there", "[gui][zoom]") {
  CHECK(zoom_step(1, +1) == 1.25f);
  CHECK(zoom_step(1.25f, -1) == 1.0f);
  CHECK(zoom_step(1, -1) == 1.0f);
  CHECK(zoom_step(3, +1) == 3.0f);
  CHECK(zoom_step(1.6f, +1) == 1.75f);  // a --zoom between steps goes to the next one
  CHECK(zoom_step(1.6f, -1) == 1.5f);
}

TEST_CASE("a saved picture is named after the step and never overwrites one", "[gui][export]") {
  const fs::path dir = fs::temp_directory_path() / ("tilescope-pictures-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::setenv("TILESCOPE_PICTURES_DIR", dir.c_str(), 1);
  App app;
  app.lessons = load_lessons(TILESCOPE_TEST_LESSONS);
  REQUIRE(app.lessons.lessons.size() >= 2);
  app.lesson = 1;
  app.step = 2;
  const fs::path first = picture_path(app);
  CHECK(first == dir / ("tilescope-" + app.lessons.lessons[1].id + "-step3.png"));
  std::ofstream(first) << "taken";
  CHECK(picture_path(app) == dir / ("tilescope-" + app.lessons.lessons[1].id + "-step3-2.png"));
  ::unsetenv("TILESCOPE_PICTURES_DIR");
  fs::remove_all(dir);
}

namespace {

// The first step of the lessons that ends with an exercise, as (lesson, step).
std::pair<int, int> first_exercise(const LessonSet& set) {
  for (size_t l = 0; l < set.lessons.size(); ++l)
    for (size_t s = 0; s < set.lessons[l].steps.size(); ++s)
      if (!set.lessons[l].steps[s].exercise.empty()) return {static_cast<int>(l), static_cast<int>(s)};
  return {-1, -1};
}

}  // namespace

TEST_CASE("the next run opens the last step with the same question, answer and verdict", "[gui][state]") {
  const fs::path file = fs::temp_directory_path() / ("tilescope-state-" + std::to_string(::getpid())) / "state.json";
  fs::remove_all(file.parent_path());
  SavedState written;
  {
    App app;
    app.classroom.results_file.clear();  // nothing recorded by this test
    app.lessons = load_lessons(TILESCOPE_TEST_LESSONS);
    const auto [l, s] = first_exercise(app.lessons);
    REQUIRE(l >= 0);
    open_step(app, l, s);
    REQUIRE(app.attempt);
    answer_exercise(app, "123");
    REQUIRE(app.attempt->answered);
    CHECK(remember_state(app));
    CHECK_FALSE(remember_state(app));  // nothing new since
    save_state(file, app.saved);
    written = app.saved;
  }
  App next;
  next.classroom.results_file.clear();
  next.lessons = load_lessons(TILESCOPE_TEST_LESSONS);
  open_step(next, 0, 0);
  next.state_file = file;
  restore_saved_state(next, false);
  const auto [l, s] = first_exercise(next.lessons);
  CHECK(next.lesson == l);
  CHECK(next.step == s);
  CHECK(next.status.empty());
  REQUIRE(next.attempt);
  const SavedExercise& e = written.exercises.at(exercise_key(next.lessons.lessons[l].id, s));
  CHECK(next.attempt->question.seed == e.seed);
  CHECK(std::string(next.attempt->input.data()) == "123");
  CHECK(next.attempt->answered);
  CHECK(next.attempt->record.given == "123");
  CHECK(next.session.empty());  // restoring records no new attempt

  // A corrupt file: one warning line, and the app starts where it would have.
  std::ofstream(file) << "{\"lesson\": ";
  App fresh;
  fresh.lessons = load_lessons(TILESCOPE_TEST_LESSONS);
  open_step(fresh, 0, 0);
  fresh.state_file = file;
  restore_saved_state(fresh, false);
  CHECK(fresh.lesson == 0);
  CHECK(fresh.step == 0);
  CHECK(fresh.status.rfind(file.string() + ":1: not valid JSON", 0) == 0);
  fs::remove_all(file.parent_path());
}
