#pragma once
// The view of a user's own measured timeline (`tilescope --timeline F.json`, and `tilescope render
// --timeline F.json` for a picture): over the scene and text panels, the file's measured per-warp
// timeline above the simulation of the configuration it recorded, with the pipeline scene's rows,
// colours, legend, time axis, zoom and block picker (timeline_draw.hpp). Its state lives here, not
// in App, so that the frame code calls one function. Nothing here exposes ImGui, so the CLI opens
// it without ImGui's headers.
#include <functional>
#include <string>

#include "sim/timeline.hpp"

namespace ts::viz {

struct Fonts;
struct Rect;
class SimCache;

struct TimelineFile {
  std::string file;
  sim::Timeline measured;  // as read: source "measured"
  std::string error;       // "FILE: reason" when it could not be read: the view says so, in one line
  // Simulates the configuration the file recorded, as `tilescope compare --timeline` does (the
  // caller's code: viz does not depend on app/). Runs off the drawing thread; throws std::exception
  // with a one-line reason.
  std::function<sim::Timeline()> simulate;
};

struct TimelineViewOptions {
  int block = -1;              // the recorded block shown first (-1: the first recorded)
  bool one_iteration = false;  // start zoomed to one steady-state iteration of the first consumer warp
};

void open_timeline_view(TimelineFile file, TimelineViewOptions options = {});
void close_timeline_view();
bool timeline_view_open();
// The line the view shows about its last zoom to one iteration ("one iteration of warp 0: measured
// 1659 cycles, simulated 1078 (-35 %); ..."), empty before one: what a test can read of it.
std::string timeline_view_note();

// Draws the open view over `area` (its own ImGui window); false, drawing nothing, when none is open.
// `lesson` and `step` are the app's: when the user opens another lesson step, the view closes.
bool draw_timeline_window(const Fonts& fonts, SimCache& sims, int lesson, int step, const Rect& area);

}  // namespace ts::viz
