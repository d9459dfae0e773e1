// The interactive lesson app: a window, the ImGui GLFW and OpenGL 3 backends, and the frame loop.
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cfloat>

#include "viz/gui/app.hpp"
#include "viz/gui/gl.hpp"
#include "viz/gui/gui.hpp"

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

}  // namespace

int run_gui(LessonSet lessons, Classroom classroom) {
  GLFWwindow* window = open_gl_window(1280, 800, "TileScope", true);
  glfwSwapInterval(1);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  App app;
  app.classroom = std::move(classroom);
  init_app(app, std::move(lessons));
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  while (!glfwWindowShouldClose(window)) {
    // Sleep until input arrives (or 50 ms pass): an idle lesson costs no CPU.
    glfwWaitEventsTimeout(0.05);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    apply_zoom(app.classroom.zoom);
    ImGui::NewFrame();
    draw_app_frame(app);
    ImGui::Render();
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    glViewport(0, 0, width, height);
    glClearColor(kBackground.r, kBackground.g, kBackground.b, kBackground.a);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glfwSwapBuffers(window);
  }

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}

}  // namespace ts::viz
