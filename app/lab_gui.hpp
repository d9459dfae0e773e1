#pragma once
// `tilescope render --lab ID [--file F]`: the lab's check, then the GUI's Labs section opened on its
// result, so that the headless frame (app/verbs_render.cpp) draws the lab view as the app would.
#include <string>

namespace ts::app {

struct LabGuiArgs {
  std::string id;    // the lab (empty: no lab)
  std::string file;  // the kernel file (default ./ID.cpp)
  std::string labs_dir;
};

// Checks the file on the CPU (throws UsageError for an unknown lab or a missing file) and opens the
// lab in the GUI over its result; returns the check's last line ("result PASS ..."). Throws
// UsageError in a build without the GUI.
std::string open_lab_in_gui(const LabGuiArgs& a);

}  // namespace ts::app
