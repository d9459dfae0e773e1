// The page's entry point (Emscripten): the lesson app of viz/ in a browser canvas. The lessons,
// machine files, data/measured and the kernel sources the source views quote are packaged into
// the page's file system under /tilescope (web/CMakeLists.txt); the fonts where the desktop finds them.
//
// Each animation frame: the simulation lanes run for a slice (viz/lesson/web_workers.hpp), then one
// frame of the same app the desktop draws (viz/gui/app.hpp). A few C functions let the page's
// script open a step from the URL and let the browser test read back what the app shows.
#include <emscripten.h>
#include <emscripten/html5.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <nlohmann/json.hpp>

#include <GLFW/glfw3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <utility>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "viz/gui/app.hpp"
#include "viz/gui/common.hpp"
#include "viz/gui/render_gl.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/web_workers.hpp"

namespace {

using namespace ts::viz;

// The simulations' share of a frame: with the frame's own drawing, about 30 frames a second.
constexpr double kSliceMs = 16;

struct Page {
  GLFWwindow* window = nullptr;
  std::unique_ptr<App> app;
  double frame_ms = 0;  // the last frame's own time (slice excluded)
  long frames = 0;
  // The last frames' own times: their median is a step's frame time once it has settled, which one
  // frame (a garbage collection, the browser's own work on a loaded machine) does not say alone.
  std::array<double, 8> recent_ms{};
  // What the page's script asked for, done at the start of the next frame: opening a step or
  // answering may trace a kernel, which switches fibers, and a fiber switch must start from the
  // frame loop, never from a call out of JavaScript (Asyncify would leave that call unfinished).
  std::vector<std::function<void()>> requests;
  std::string status;  // ts_web_status's JSON, made at the end of each frame
  std::string reason;  // ts_web_set_knob's answer, kept alive for the caller
};
Page page;

// What the app shows, as JSON: the open lesson and step, the scene's simulation (queued or its
// cycles), the exercise's state, the last frame's time. The key only in teacher mode (?teacher).
std::string status_json() {
  const App& app = *page.app;
  nlohmann::json j;
  j["frames"] = page.frames;
  j["frame_ms"] = page.frame_ms;
  {
    const size_t n = std::min<size_t>(page.frames, page.recent_ms.size());
    auto r = page.recent_ms;
    std::sort(r.begin(), r.begin() + n);
    j["frame_ms_median"] = n ? r[n / 2] : 0.0;  // of the last (up to) 8 frames
  }
  j["lessons"] = nlohmann::json::array();
  for (const auto& l : app.lessons.lessons) j["lessons"].push_back({{"id", l.id}, {"steps", l.steps.size()}});
  j["load_errors"] = app.lessons.errors.size();
  if (app.lesson >= 0) {
    j["lesson"] = app.lessons.lessons[app.lesson].id;
    j["step"] = app.step + 1;
  }
  j["simulations_pending"] = app.sims->pending();
  if (const auto run = scene_run(app.state)) {
    j["sim"]["key"] = run->key();
    if (const auto sim = app.sims->get(*run)) {
      j["sim"]["cycles"] = sim->report.cycles;
      j["sim"]["error"] = sim->error;
      j["sim"]["wall_ms"] = sim->wall_ms;
      j["sim"]["cpu_ms"] = sim->cpu_ms;  // the lane's own running time (web_workers.hpp)
    }
  }
  if (app.attempt) {
    j["exercise"]["question"] = app.attempt->question.text;
    j["exercise"]["answered"] = app.attempt->answered;
    if (app.attempt->answered) j["exercise"]["right"] = app.attempt->record.right;
    if (app.classroom.teacher) j["exercise"]["key"] = app.attempt->question.answer;
  }
  return j.dump();
}

void frame() {
  // The canvas follows the browser window, less the note below it (web/shell.html).
  const int w = EM_ASM_INT({ return window.innerWidth; });
  const int h = EM_ASM_INT({ return window.innerHeight - document.getElementById('note').offsetHeight; });
  int cw = 0, ch = 0;
  glfwGetWindowSize(page.window, &cw, &ch);
  if (w > 0 && h > 0 && (w != cw || h != ch)) glfwSetWindowSize(page.window, w, h);

  for (auto& request : std::exchange(page.requests, {})) request();
  web::run_workers(kSliceMs);
  const auto t0 = std::chrono::steady_clock::now();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  draw_app_frame(*page.app);
  ImGui::Render();
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(page.window, &fw, &fh);
  glViewport(0, 0, fw, fh);
  glClearColor(kBackground.r, kBackground.g, kBackground.b, kBackground.a);
  glClear(GL_COLOR_BUFFER_BIT);
  renderer_draw(ImGui::GetDrawData());
  page.frame_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  page.recent_ms[page.frames % page.recent_ms.size()] = page.frame_ms;
  ++page.frames;
  page.status = status_json();
}

}  // namespace

extern "C" {

// Opens step `step` (1-based, as the app and the URL show it) of lesson `id` at the next frame;
// 0 when there is no such step.
EMSCRIPTEN_KEEPALIVE int ts_web_open(const char* id, int step) {
  App& app = *page.app;
  const int lesson = find_lesson(app.lessons, id);
  if (lesson < 0 || step < 1 || step > static_cast<int>(app.lessons.lessons[lesson].steps.size())) return 0;
  page.requests.push_back([lesson, step] {
    App& a = *page.app;
    if (lesson != a.lesson || step - 1 != a.step) open_step(a, lesson, step - 1);
  });
  return 1;
}

// Sets a knob of the open scene as a lesson file spells it, at the next frame; "" or the reason
// it is refused.
EMSCRIPTEN_KEEPALIVE const char* ts_web_set_knob(const char* name, const char* value) {
  SceneState next = page.app->state;
  page.reason = set_knob(next, name, value);
  if (page.reason.empty()) page.reason = validate(next);
  if (page.reason.empty())
    page.requests.push_back([n = std::string(name), v = std::string(value)] {
      App& a = *page.app;
      if (set_knob(a.state, n, v).empty()) a.edited = true;
    });
  return page.reason.c_str();
}

// Commits an answer to the open step's exercise at the next frame, as the Answer button does.
EMSCRIPTEN_KEEPALIVE void ts_web_answer(const char* text) {
  page.requests.push_back([t = std::string(text)] {
    if (page.app->attempt) answer_exercise(*page.app, t);
  });
}

// The status as of the last frame (status_json).
EMSCRIPTEN_KEEPALIVE const char* ts_web_status() { return page.status.c_str(); }

// Requests (open, knob, answer) the next frame will carry out: while there are any, the status
// is older than what the page asked for.
EMSCRIPTEN_KEEPALIVE int ts_web_requests_pending() { return static_cast<int>(page.requests.size()); }

}  // extern "C"

int main() {
  // Where the packaged files are (web/CMakeLists.txt), for every part that looks them up.
  setenv("TILESCOPE_LESSONS_DIR", "/tilescope/lessons", 1);
  setenv("TILESCOPE_DATA_DIR", "/tilescope/data", 1);
  setenv("TILESCOPE_SOURCE_ROOT", "/tilescope", 1);

  if (!glfwInit()) {
    std::fprintf(stderr, "tilescope: cannot start GLFW in this browser\n");
    return 1;
  }
  page.window = glfwCreateWindow(1280, 800, "TileScope", nullptr, nullptr);
  if (!page.window) {
    std::fprintf(stderr, "tilescope: this browser gives no WebGL 2 context\n");
    return 1;
  }
  glfwMakeContextCurrent(page.window);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // nothing to remember between visits
  page.app = std::make_unique<App>();
  page.app->classroom.teacher = EM_ASM_INT({ return new URLSearchParams(location.search).has('teacher') ? 1 : 0; });
  // ?slow=off: the 16384^3 simulations (seconds natively, minutes in a page) are not run and their
  // scenes say so, as `tilescope render` and the desktop's lesson tests do; for slow machines and
  // for web/test-browser.py's walk through every step.
  page.app->sims->slow_allowed = EM_ASM_INT({ return new URLSearchParams(location.search).get('slow') === 'off' ? 0 : 1; });
  page.app->classroom.results_file = "/tmp/tilescope-results.jsonl";  // this visit only
  init_app(*page.app, load_lessons("/tilescope/lessons"));
  ImGui_ImplGlfw_InitForOpenGL(page.window, true);
  renderer_init("#version 300 es");
  EM_ASM({ if (Module.onAppReady) Module.onAppReady(); });
  emscripten_set_main_loop(frame, 0, false);
  return 0;
}
