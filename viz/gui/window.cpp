// The interactive lesson app: a window, the ImGui GLFW and OpenGL 3 backends, and the frame loop.
#include <imgui_impl_glfw.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "viz/gui/app.hpp"
#include "viz/gui/gl.hpp"
#include "viz/gui/gui.hpp"
#include "viz/gui/lecture.hpp"
#include "viz/gui/render_gl.hpp"

namespace ts::viz {

namespace {

// The frame laid out for a display `zoom` times smaller and drawn `zoom` times larger: every
// text, line and scene grows alike (a projector at the back of a room), the mouse follows.
void apply_zoom(float zoom) {
  if (zoom == 1) return;
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(io.DisplaySize.x / zoom, io.DisplaySize.y / zoom);
  io.DisplayFramebufferScale = ImVec2(io.DisplayFramebufferScale.x * zoom, io.DisplayFramebufferScale.y * zoom);
  if (io.MousePos.x > -FLT_MAX) io.MousePos = ImVec2(io.MousePos.x / zoom, io.MousePos.y / zoom);
}

// The scene panel of the frame just drawn, from the back buffer to a PNG; says where it went.
void export_scene(App& app, int fb_width, int fb_height) {
  const ImGuiIO& io = ImGui::GetIO();
  const float sx = static_cast<float>(fb_width) / io.DisplaySize.x, sy = static_cast<float>(fb_height) / io.DisplaySize.y;
  const int x = std::clamp(static_cast<int>(std::lround(app.scene_rect.min.x * sx)), 0, fb_width - 1);
  const int y = std::clamp(static_cast<int>(std::lround(app.scene_rect.min.y * sy)), 0, fb_height - 1);
  const int w = std::clamp(static_cast<int>(std::lround(app.scene_rect.width() * sx)), 1, fb_width - x);
  const int h = std::clamp(static_cast<int>(std::lround(app.scene_rect.height() * sy)), 1, fb_height - y);
  try {
    const std::filesystem::path file = picture_path(app);
    write_png(file, read_pixels(x, y, w, h, fb_height));
    app.status = "Saved the scene to " + file.string() + " (" + std::to_string(w) + "x" + std::to_string(h) + ")";
    std::printf("tilescope: %s\n", app.status.c_str());
  } catch (const std::exception& e) {
    app.status = std::string("Not saved: ") + e.what();
  }
}

void save_quietly(App& app) {
  try {
    save_state(app.state_file, app.saved);
  } catch (const std::exception& e) {
    app.status = std::string("Cannot remember this session: ") + e.what();
  }
}

}  // namespace

int run_gui(LessonSet lessons, Classroom classroom, WindowOptions options) {
  GLFWwindow* window = open_gl_window(1280, 800, "TileScope", true);
  glfwSwapInterval(1);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  App app;
  app.classroom = std::move(classroom);
  app.presenting = options.present;
  if (options.remember) app.state_file = default_state_file();
  init_app(app, std::move(lessons));
  restore_saved_state(app, options.zoom_given);
  remember_state(app);  // what was read counts as saved
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  renderer_init("#version 330 core");
  bool unsaved = false;
  auto last_save = std::chrono::steady_clock::now();

  while (!glfwWindowShouldClose(window)) {
    // Sleep until input arrives (or 50 ms pass): an idle lesson costs no CPU.
    glfwWaitEventsTimeout(0.05);
    ImGui_ImplGlfw_NewFrame();
    apply_zoom(app.classroom.zoom);
    // Glyphs rasterized at the size they are drawn (zoom and HiDPI): crisp, not stretched.
    const float scale = ImGui::GetIO().DisplayFramebufferScale.x;
    if (scale > 0 && std::abs(scale - app.fonts.scale) > 0.01f) rebuild_fonts(app, scale, true);
    ImGui::NewFrame();
    draw_app_frame(app);
    ImGui::Render();
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    glViewport(0, 0, width, height);
    glClearColor(kBackground.r, kBackground.g, kBackground.b, kBackground.a);
    glClear(GL_COLOR_BUFFER_BIT);
    renderer_draw(ImGui::GetDrawData());
    if (app.export_requested) {
      app.export_requested = false;
      export_scene(app, width, height);
    }
    glfwSwapBuffers(window);
    // What to remember: written at most once a second, and once more on the way out.
    if (!app.state_file.empty()) {
      unsaved |= remember_state(app);
      const auto now = std::chrono::steady_clock::now();
      if (unsaved && now - last_save > std::chrono::seconds(1)) {
        save_quietly(app);
        unsaved = false;
        last_save = now;
      }
    }
  }
  if (unsaved) save_quietly(app);

  renderer_shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}

}  // namespace ts::viz
