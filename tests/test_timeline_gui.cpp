// The view of a user's own measured timeline (viz/gui/timeline_view.hpp), drawn headless: the
// committed GEMM timeline above the simulation of its configuration (compare --timeline's code),
// the whole run and zoomed to one iteration, and a file that cannot be read. Its own binary: the
// app's frame and ImGui's context are one per process (test_render.cpp keeps its own).
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>

#include "app/compare_timeline.hpp"
#include "viz/gui/gui.hpp"
#include "viz/gui/timeline_view.hpp"

using namespace ts;
namespace fs = std::filesystem;

namespace {

const fs::path kTimelines = fs::path(TILESCOPE_SOURCE_DIR) / "data/measured/h100/timelines";

viz::TimelineFile committed(const std::string& name) {
  viz::TimelineFile f;
  f.file = (kTimelines / name).string();
  f.measured = app::read_measured_timeline(f.file);
  const sim::MachineSpec machine = sim::load_machine("h100-sxm");
  f.simulate = [m = f.measured, file = f.file, machine] { return app::simulate_recorded(m, file, machine, 4, false); };
  return f;
}

struct Rgb {
  uint8_t r, g, b;
};
constexpr Rgb kMma{110, 220, 130};   // colour::mma: wgmma groups and busy tensor cores

// Pixels of exactly `c` in rows [y0, y1) right of x0.
size_t count(const viz::FrameCapture& f, Rgb c, int y0, int y1, int x0) {
  size_t n = 0;
  for (int y = std::max(0, y0); y < std::min(f.height, y1); ++y)
    for (int x = x0; x < f.width; ++x) {
      const uint8_t* p = &f.rgba[(size_t(y) * f.width + x) * 4];
      n += p[0] == c.r && p[1] == c.g && p[2] == c.b;
    }
  return n;
}

// Pixels of red text (anti-aliased glyphs blend into the background; their hue stays red).
size_t count_red(const viz::FrameCapture& f, int y0, int y1, int x0) {
  size_t n = 0;
  for (int y = std::max(0, y0); y < std::min(f.height, y1); ++y)
    for (int x = x0; x < f.width; ++x) {
      const uint8_t* p = &f.rgba[(size_t(y) * f.width + x) * 4];
      n += p[0] > 150 && p[0] > p[1] + 80 && p[0] > p[2] + 80;
    }
  return n;
}

viz::HeadlessRenderer& renderer() {
  static viz::HeadlessRenderer r(viz::load_lessons(TILESCOPE_TEST_LESSONS));
  return r;
}

constexpr int kW = 1280, kH = 800, kLeft = 340;  // the lesson list is at most 340 px wide

}  // namespace

TEST_CASE("a measured timeline file opens above the simulation of its configuration, and zooms to one iteration", "[gui]") {
  viz::HeadlessRenderer& r = renderer();
  REQUIRE(!r.lessons().lessons.empty());
  // Asked to start at one iteration, the view waits for the simulation (the first frames draw
  // before it is done) and then zooms both panels, each to its own.
  viz::open_timeline_view(committed("gemm-4096-s4.json"), {.block = -1, .one_iteration = true});
  const viz::FrameCapture zoomed = r.render(0, 0, kW, kH, 1, 3);
  CHECK(zoomed.simulations_pending == 0);
  INFO(viz::timeline_view_note());
  CHECK(viz::timeline_view_note().find("one iteration of warp 0: measured") == 0);
  CHECK(viz::timeline_view_note().find(", simulated ") != std::string::npos);
  viz::write_png(fs::temp_directory_path() / "tilescope-timeline-view-iteration.png", zoomed);
  CHECK(count(zoomed, kMma, 100, kH * 45 / 100, kLeft) > 2000);
  CHECK(count(zoomed, kMma, kH * 55 / 100, kH, kLeft) > 2000);

  viz::open_timeline_view(committed("gemm-4096-s4.json"));
  const viz::FrameCapture whole = r.render(0, 0, kW, kH, 1, 3);
  CHECK(viz::timeline_view_note().empty());
  CHECK(whole.simulations_pending == 0);
  CHECK(viz::timeline_view_open());
  viz::write_png(fs::temp_directory_path() / "tilescope-timeline-view.png", whole);
  // wgmma groups and busy tensor cores, green, in the measured panel (upper) and the simulated one
  // (lower): the simulation finished and both drew.
  const size_t upper = count(whole, kMma, 100, kH * 45 / 100, kLeft), lower = count(whole, kMma, kH * 55 / 100, kH, kLeft);
  CHECK(upper > 2000);
  CHECK(lower > 2000);
  WARN("timeline view at 1280x800: median frame " << whole.median_ms << " ms (" << r.renderer_name() << ")");

  // Zoomed to one iteration the rows differ from the whole run's: count the pixels that changed.
  size_t changed = 0, all = 0;
  for (int y = 100; y < kH; ++y)
    for (int x = kLeft; x < kW; ++x, ++all)
      changed += std::memcmp(&whole.rgba[(size_t(y) * kW + x) * 4], &zoomed.rgba[(size_t(y) * kW + x) * 4], 3) != 0;
  CHECK(changed > all / 10);
  viz::close_timeline_view();
  CHECK(!viz::timeline_view_open());
}

TEST_CASE("a timeline file that cannot be read says so in one line and draws no timeline", "[gui]") {
  viz::HeadlessRenderer& r = renderer();
  viz::TimelineFile bad;
  bad.file = "broken.json";
  bad.error = "broken.json: not JSON (parse error at byte 1)";
  viz::open_timeline_view(bad);
  const viz::FrameCapture frame = r.render(0, 0, kW, kH, 1, 1);
  viz::write_png(fs::temp_directory_path() / "tilescope-timeline-view-bad.png", frame);
  CHECK(count_red(frame, 0, 120, kLeft) > 100);     // the red line
  CHECK(count(frame, kMma, 0, kH, kLeft) == 0);       // and nothing else of a timeline
  viz::close_timeline_view();
  // The app goes on: the lesson step draws again.
  const viz::FrameCapture lesson = r.render(0, 0, kW, kH, 1, 1);
  CHECK(!viz::timeline_view_open());
  size_t changed = 0;
  for (size_t i = 0; i < frame.rgba.size(); i += 4) changed += std::memcmp(&frame.rgba[i], &lesson.rgba[i], 3) != 0;
  CHECK(changed > frame.rgba.size() / 4 / 10);
}
