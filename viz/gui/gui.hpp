#pragma once
// The lesson app's entry points: the interactive window, and headless rendering to PNG.
// Nothing here exposes ImGui or GLFW, so the CLI links it without their headers.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "viz/lesson/lesson.hpp"
#include "viz/lesson/results.hpp"

namespace ts::viz {

// How the window starts: in presentation mode, remembering (reading and writing the saved state
// under the user's config folder, viz/lesson/saved_state.hpp) or not, and whether classroom.zoom
// was given on the command line (it then wins over the remembered scale).
struct WindowOptions {
  bool present = false;
  bool remember = true;
  bool zoom_given = false;
};

// Opens the window and runs until it is closed. Throws std::runtime_error when no OpenGL 3.3
// window can be opened (no display, no driver).
int run_gui(LessonSet lessons, Classroom classroom = {}, WindowOptions options = {});

struct FrameCapture {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;     // top row first
  std::vector<double> frame_ms;  // each timed frame: UI, draw, and glFinish
  double median_ms = 0;
  double settle_ms = 0;          // waiting for the step's simulations before the first frame
  size_t simulations_pending = 0;  // still running when the frame was taken (the wait ran out)
};

// A hidden GLFW window whose context draws app frames into an offscreen framebuffer of any size.
class HeadlessRenderer {
 public:
  explicit HeadlessRenderer(LessonSet lessons);  // throws std::runtime_error without a display
  ~HeadlessRenderer();
  HeadlessRenderer(const HeadlessRenderer&) = delete;
  HeadlessRenderer& operator=(const HeadlessRenderer&) = delete;

  const LessonSet& lessons() const;
  // Replaces the lessons (same window and context): one renderer can draw several folders.
  void set_lessons(LessonSet lessons);
  // The largest width or height the driver's framebuffers allow.
  int max_size() const;
  // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)": frame times mean little without it.
  std::string renderer_name() const;
  // A step whose scene simulates the GEMM is drawn once its simulations are done, waiting at most
  // this long (default 300 s); slow simulations (16384^3, seconds each) may be turned off, and the
  // scene then says "not simulated here".
  void set_simulation_wait(double seconds);
  void allow_slow_simulations(bool allow);
  // The exercise settings for the next render (seed, teacher, an answer to commit; no results file
  // unless one is given).
  void set_classroom(Classroom classroom);
  // Presentation mode (the app's F5): no lesson panel, the scene and text fill the frame.
  void set_presenting(bool presenting);
  // Draws `warmup` frames, then `timed` frames of the lesson's step (both 0-based), and returns the
  // last one's pixels and the timed frames' durations. Throws std::invalid_argument for a lesson,
  // step or size that does not exist.
  FrameCapture render(int lesson, int step, int width, int height, int warmup = 3, int timed = 15);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Throws std::runtime_error if the file cannot be written.
void write_png(const std::filesystem::path& file, const FrameCapture& frame);

// The pixels of a rectangle of the current OpenGL read framebuffer, `x`, `y` from its top left
// corner, top row first (no frame times): what render() and the window's "Save scene" write.
FrameCapture read_pixels(int x, int y, int width, int height, int framebuffer_height);

}  // namespace ts::viz
