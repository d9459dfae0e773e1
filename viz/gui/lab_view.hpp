#pragma once
// The Labs section of the app: a list of the labs under the lessons, and, while a lab is open,
// its view over the scene and text panels: the task, the watched kernel file, the result of the
// last check (re-run on every save, off the drawing thread), the simulated per-warp timeline and
// the bank view of the kernel's shared-memory accesses. State lives here, not in App, so that the
// frame code only calls these two functions.
#include <filesystem>
#include <string>

#include "viz/gui/common.hpp"
#include "viz/lesson/lab_check.hpp"

namespace ts::viz {

// The "Labs" list, drawn in the left panel. `lesson` and `step` are the app's: when the user opens
// another lesson step, an open lab closes.
void labs_section(const Fonts& fonts, int lesson, int step);

// Draws the open lab over `area` (its own ImGui window); false, drawing nothing, when none is open.
bool draw_lab_window(const Fonts& fonts, Rect area);

// Opens lab `id` of `labs_dir`, watching `file` (a check runs at the next frame, and on each save).
// With `result`, shows that result and does not check or watch: for headless pictures and tests.
void open_lab(const std::filesystem::path& labs_dir, const std::string& id, const std::filesystem::path& file,
              const lab::CheckResult* result = nullptr);
void close_lab();

}  // namespace ts::viz
