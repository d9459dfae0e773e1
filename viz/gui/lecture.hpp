#pragma once
// The app in a lecture hall and at home: presentation mode, the UI scale, the scene saved as PNG,
// search over the lessons, and what is remembered between runs. app.cpp places these in the
// frame; window.cpp owns what needs the window (fonts at the new scale, reading the pixels back).
#include <filesystem>

#include "viz/gui/app.hpp"

namespace ts::viz {

// F5 presentation on/off, Esc leaves it, Ctrl + / Ctrl - / Ctrl 0 the UI scale, Ctrl+S saves the
// scene as PNG, Ctrl+F the search box, Page Up / Page Down the previous / next step (a clicker).
void lecture_keys(App& app);
// The left panel's search box, and under it the steps that match (a click opens one).
void search_panel(App& app);
// The left panel's "View" section: presentation, UI scale, save picture, and the status line.
void view_panel(App& app);
// Presentation mode: a faint line in the bottom right corner saying how to leave.
void presentation_hint(const App& app);

// The next UI scale up (+1) or down (-1) from `zoom`: 100 % to 300 % in steps.
float zoom_step(float zoom, int direction);

// Reads app.state_file: opens the step last open and, unless the zoom was given on the command
// line, the last UI scale; a bad file is one warning line (stderr and the status line).
void restore_saved_state(App& app, bool zoom_given);
// Brings app.saved up to date with the app; true when something changed (then save it).
bool remember_state(App& app);
// After open_step drew the step's question: the question, typed answer and verdict saved for it.
void restore_exercise(App& app);

// Where a picture of the open step goes: $TILESCOPE_PICTURES_DIR, else ~/Pictures when it exists,
// else the current folder; tilescope-LESSON-stepN.png, with -2, -3... when taken.
std::filesystem::path picture_path(const App& app);

// Rebuilds the font atlas rasterized `scale` times larger (fonts.cpp); with `upload`, also
// replaces the renderer's font texture (renderer_init must have run).
void rebuild_fonts(App& app, float scale, bool upload);

}  // namespace ts::viz
