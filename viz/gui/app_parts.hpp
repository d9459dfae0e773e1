#pragma once
// The pieces of the app frame that live in files of their own (app.cpp assembles the frame).
#include "viz/gui/app.hpp"

namespace ts::viz {

// app.cpp
const LessonStep* current_step(const App& app);
void section(const Fonts& f, const char* title);  // a bold heading and a rule

// exercise_panel.cpp: the open step's exercise
void question_card(App& app);   // in place of the scene, before the answer
void answer_banner(App& app);   // above the revealed scene, after it
void exercise_panel(App& app);  // the left panel's part (and the teacher's attempts)

}  // namespace ts::viz
