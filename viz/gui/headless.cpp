// Headless rendering: the same app frame as the window, drawn by a hidden window's OpenGL context
// into a framebuffer object of exactly the asked size, read back, and written as PNG.
#include <algorithm>
#include <chrono>

#include <stb_image_write.h>

#include "viz/gui/app.hpp"
#include "viz/gui/gl.hpp"
#include "viz/gui/gui.hpp"
#include "viz/gui/lecture.hpp"
#include "viz/gui/render_gl.hpp"

namespace ts::viz {

struct HeadlessRenderer::Impl {
  GLFWwindow* window = nullptr;
  GlFramebufferApi fb;
  int max_size = 0;
  App app;
  double simulation_wait = 300;
  Impl() {
    // Pictures are reproducible and record nothing: a fixed seed, no results file.
    app.classroom.seed = 1;
    app.classroom.results_file.clear();
  }
};

HeadlessRenderer::HeadlessRenderer(LessonSet lessons) : impl_(std::make_unique<Impl>()) {
  // The window is never shown and its own framebuffer never used: it only carries the context.
  impl_->window = open_gl_window(64, 64, "TileScope (headless)", false);
  impl_->fb.load();
  GLint texture_max = 0, viewport_max[2] = {0, 0};
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &texture_max);
  glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport_max);
  impl_->max_size = std::min({texture_max, viewport_max[0], viewport_max[1]});
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  init_app(impl_->app, std::move(lessons));
  renderer_init("#version 330 core");
}

HeadlessRenderer::~HeadlessRenderer() {
  renderer_shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(impl_->window);
  glfwTerminate();
}

const LessonSet& HeadlessRenderer::lessons() const { return impl_->app.lessons; }

void HeadlessRenderer::set_lessons(LessonSet lessons) { use_lessons(impl_->app, std::move(lessons)); }
int HeadlessRenderer::max_size() const { return impl_->max_size; }
void HeadlessRenderer::set_simulation_wait(double seconds) { impl_->simulation_wait = seconds; }
void HeadlessRenderer::allow_slow_simulations(bool allow) { impl_->app.sims->slow_allowed = allow; }
void HeadlessRenderer::set_classroom(Classroom classroom) { impl_->app.classroom = std::move(classroom); }
void HeadlessRenderer::set_presenting(bool presenting) { impl_->app.presenting = presenting; }
std::string HeadlessRenderer::renderer_name() const {
  const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return name ? name : "unknown";
}

FrameCapture HeadlessRenderer::render(int lesson, int step, int width, int height, int warmup, int timed) {
  App& app = impl_->app;
  const auto& all = app.lessons.lessons;
  if (lesson < 0 || lesson >= static_cast<int>(all.size())) throw std::invalid_argument("no such lesson");
  if (step < 0 || step >= static_cast<int>(all[lesson].steps.size()))
    throw std::invalid_argument("lesson '" + all[lesson].id + "' has no step " + std::to_string(step + 1));
  if (width < 1 || height < 1 || width > impl_->max_size || height > impl_->max_size)
    throw std::invalid_argument("size " + std::to_string(width) + "x" + std::to_string(height) +
                                " is outside 1.." + std::to_string(impl_->max_size));
  if (timed < 1) throw std::invalid_argument("at least one timed frame is needed");
  app.questions_drawn = 0;  // the same question for the same step, render after render
  open_step(app, lesson, step);

  const GlFramebufferApi& fb = impl_->fb;
  GLuint framebuffer = 0, colour = 0;
  fb.GenFramebuffers(1, &framebuffer);
  fb.BindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  // A texture, not a renderbuffer: its pixel data given as BGRA makes Mesa store it as BGRA, as a
  // window's colour buffer is under X (a GL_RGBA8 renderbuffer is stored RGBA), so that the frame
  // is drawn and timed as the window's is (llvmpipe chooses some of its paths by that format).
  glGenTextures(1, &colour);
  glBindTexture(GL_TEXTURE_2D, colour);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
  fb.FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, colour, 0);
  if (fb.CheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("the OpenGL driver refused a " + std::to_string(width) + "x" + std::to_string(height) +
                             " framebuffer");

  ImGuiIO& io = ImGui::GetIO();
  // As the window does with a zoom (a projector): laid out smaller, drawn larger, the glyphs
  // rasterized at the larger size.
  const float zoom = app.classroom.zoom;
  if (zoom != app.fonts.scale) rebuild_fonts(app, zoom, true);
  io.DisplaySize = ImVec2(static_cast<float>(width) / zoom, static_cast<float>(height) / zoom);
  io.DisplayFramebufferScale = ImVec2(zoom, zoom);
  io.DeltaTime = 1.0f / 60.0f;
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no mouse: no hover effects or tooltips
  FrameCapture out;
  out.width = width;
  out.height = height;
  const auto draw_frame = [&] {
    ImGui::NewFrame();
    draw_app_frame(app);
    ImGui::Render();
    glViewport(0, 0, width, height);
    glClearColor(kBackground.r, kBackground.g, kBackground.b, kBackground.a);
    glClear(GL_COLOR_BUFFER_BIT);
    renderer_draw(ImGui::GetDrawData());
    glFinish();  // count the drawing, not only handing it to the driver
  };
  // A frame asks for the scene's simulations; a PNG shows them finished. A finished one may lead
  // to further asks (a checker's comparisons), hence the rounds.
  const auto settle_start = std::chrono::steady_clock::now();
  for (int round = 0; round < 8; ++round) {
    draw_frame();
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - settle_start).count();
    if (app.sims->pending() == 0 || !app.sims->wait_idle(std::max(0.0, impl_->simulation_wait - spent))) break;
  }
  out.settle_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - settle_start).count();
  out.simulations_pending = app.sims->pending();
  // Warm-up frames let ImGui settle its layout and the driver compile its shaders.
  for (int frame = 0; frame < warmup + timed; ++frame) {
    const auto start = std::chrono::steady_clock::now();
    draw_frame();
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    if (frame >= warmup) out.frame_ms.push_back(took.count());
  }
  std::vector<double> sorted = out.frame_ms;
  std::sort(sorted.begin(), sorted.end());
  out.median_ms = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                    : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;

  out.rgba = read_pixels(0, 0, width, height, height).rgba;

  fb.BindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteTextures(1, &colour);
  fb.DeleteFramebuffers(1, &framebuffer);
  return out;
}

FrameCapture read_pixels(int x, int y, int width, int height, int framebuffer_height) {
  FrameCapture out;
  out.width = width;
  out.height = height;
  // OpenGL's rows start at the bottom; PNG's at the top.
  std::vector<uint8_t> upside_down(size_t(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(x, framebuffer_height - y - height, width, height, GL_RGBA, GL_UNSIGNED_BYTE, upside_down.data());
  out.rgba.resize(upside_down.size());
  const size_t row = size_t(width) * 4;
  for (int r = 0; r < height; ++r)
    std::copy_n(upside_down.data() + (height - 1 - r) * row, row, out.rgba.data() + r * row);
  return out;
}

void write_png(const std::filesystem::path& file, const FrameCapture& frame) {
  // RGB: the frame is opaque, and a PNG without alpha is smaller.
  std::vector<uint8_t> rgb(size_t(frame.width) * frame.height * 3);
  for (size_t i = 0, n = size_t(frame.width) * frame.height; i < n; ++i)
    std::copy_n(frame.rgba.data() + 4 * i, 3, rgb.data() + 3 * i);
  if (!stbi_write_png(file.string().c_str(), frame.width, frame.height, 3, rgb.data(), frame.width * 3))
    throw std::runtime_error("cannot write " + file.string());
}

}  // namespace ts::viz
