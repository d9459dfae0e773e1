#pragma once
// The GUI's view of a user's own measured timeline (viz/gui/timeline_view.hpp), opened from the
// command line: `tilescope --timeline F.json` and `tilescope render --timeline F.json`. The file is
// read and its configuration simulated by compare --timeline's code (compare_timeline.hpp).
#include <string>

namespace ts::app {

struct TimelineGuiArgs {
  std::string file;
  int block = -1;              // the recorded block shown first (-1: the first)
  bool one_iteration = false;  // start zoomed to one steady-state iteration
};

// Opens the view for the next frame. A file that cannot be read is a UsageError ("FILE: reason")
// when `strict` (render); otherwise its line goes to stderr and the view shows it, the app running on.
// In a build without the GUI, a UsageError.
void open_timeline_in_gui(const TimelineGuiArgs& a, bool strict);

}  // namespace ts::app
