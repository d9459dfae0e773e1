// The Labs section renders headless: a checked lab's task, report, timeline and bank view drawn
// over the scene and text panels (viz/gui/lab_view.*), and the same frame without the lab.
#include <catch2/catch.hpp>

#include <filesystem>
#include <unordered_set>

#include "viz/gui/gui.hpp"
#include "viz/gui/lab_view.hpp"
#include "viz/lesson/lab_check.hpp"

using namespace ts::viz;
namespace fs = std::filesystem;

namespace {

size_t colours(const FrameCapture& f) {
  std::unordered_set<uint32_t> seen;
  for (size_t i = 0; i + 3 < f.rgba.size(); i += 4) seen.insert(f.rgba[i] << 16 | f.rgba[i + 1] << 8 | f.rgba[i + 2]);
  return seen.size();
}

}  // namespace

TEST_CASE("a checked lab renders with its timeline and bank view", "[gui][labs]") {
  const fs::path labs = fs::path(TILESCOPE_TEST_LABS);
  const ts::lab::LabSpec spec = ts::lab::load_lab(labs / "swizzle-banks");
  // The starter: correct, with bank conflicts, so the bank view has a conflicting access to draw.
  const ts::lab::CheckResult result = ts::lab::check_lab(spec, spec.starter, {.with_reference = false});
  REQUIRE(result.status == ts::lab::Status::slow);
  REQUIRE(result.sim);
  REQUIRE(result.sim->conflicts > 0);

  HeadlessRenderer renderer(load_lessons(TILESCOPE_TEST_LESSONS));
  const FrameCapture lesson = renderer.render(0, 0, 1280, 800, 1, 1);
  open_lab(labs, "swizzle-banks", spec.starter, &result);
  const FrameCapture lab = renderer.render(0, 0, 1280, 800, 1, 1);
  close_lab();
  write_png(fs::temp_directory_path() / "tilescope-lab-view.png", lab);
  CHECK(lab.width == 1280);
  CHECK(lab.height == 800);
  CHECK(colours(lab) > 100);  // text, the timeline's bars, the banks' 32 colours
  CHECK(lab.rgba != lesson.rgba);
}
