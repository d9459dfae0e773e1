#pragma once
// The few OpenGL calls the app makes itself besides its renderer (render_gl.cpp loads its own). OpenGL 1.x entry
// points come from libGL; the framebuffer-object ones (GL 3.0) are looked up through GLFW, the
// portable way, once a context is current.
#include <stdexcept>
#include <string>

#define GLFW_INCLUDE_GLEXT
#include <GLFW/glfw3.h>

namespace ts::viz {

struct GlFramebufferApi {
  PFNGLGENFRAMEBUFFERSPROC GenFramebuffers = nullptr;
  PFNGLDELETEFRAMEBUFFERSPROC DeleteFramebuffers = nullptr;
  PFNGLBINDFRAMEBUFFERPROC BindFramebuffer = nullptr;
  PFNGLFRAMEBUFFERTEXTURE2DPROC FramebufferTexture2D = nullptr;
  PFNGLCHECKFRAMEBUFFERSTATUSPROC CheckFramebufferStatus = nullptr;

  void load() {
    const auto get = [](const char* name) {
      GLFWglproc p = glfwGetProcAddress(name);
      if (!p) throw std::runtime_error(std::string("OpenGL function ") + name + " is missing");
      return p;
    };
    GenFramebuffers = reinterpret_cast<PFNGLGENFRAMEBUFFERSPROC>(get("glGenFramebuffers"));
    DeleteFramebuffers = reinterpret_cast<PFNGLDELETEFRAMEBUFFERSPROC>(get("glDeleteFramebuffers"));
    BindFramebuffer = reinterpret_cast<PFNGLBINDFRAMEBUFFERPROC>(get("glBindFramebuffer"));
    FramebufferTexture2D = reinterpret_cast<PFNGLFRAMEBUFFERTEXTURE2DPROC>(get("glFramebufferTexture2D"));
    CheckFramebufferStatus = reinterpret_cast<PFNGLCHECKFRAMEBUFFERSTATUSPROC>(get("glCheckFramebufferStatus"));
  }
};

// GLFW reports errors through a callback; keep the last one so that a failure can say why.
inline std::string& last_glfw_error() {
  static std::string text;
  return text;
}

// glfwInit plus an OpenGL 3.3 core window (hidden or not). Throws std::runtime_error, one line.
inline GLFWwindow* open_gl_window(int width, int height, const char* title, bool visible) {
  glfwSetErrorCallback([](int, const char* description) { last_glfw_error() = description; });
  if (!glfwInit())
    throw std::runtime_error("cannot open an OpenGL window: " + last_glfw_error() +
                             " (run it from a desktop session, or headless under xvfb-run)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(width, height, title, nullptr, nullptr);
  if (!window) {
    const std::string why = last_glfw_error();
    glfwTerminate();
    throw std::runtime_error("cannot create an OpenGL 3.3 core context: " + why);
  }
  glfwMakeContextCurrent(window);
  return window;
}

}  // namespace ts::viz
