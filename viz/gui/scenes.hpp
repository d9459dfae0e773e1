#pragma once
// The two scenes. Each is a draw function (state in, pixels out; every number comes from
// viz/lesson's models, which take them from sim/ and tiles/) and a knob editor (ImGui widgets
// that change the state; returns true when something changed).
#include <string>
#include <vector>

#include "sim/machine.hpp"
#include "viz/gui/common.hpp"
#include "viz/lesson/scenes.hpp"

namespace ts::viz {

void draw_roofline(const RooflineState& s, const sim::MachineSpec& machine, const std::vector<std::string>& highlights,
                   const Fonts& fonts, ImDrawList* dl, Rect area);
bool edit_roofline_knobs(RooflineState& s);

void draw_banks(const BanksState& s, const std::vector<std::string>& highlights, const Fonts& fonts, ImDrawList* dl,
                Rect area);
bool edit_banks_knobs(BanksState& s);

// "1365", "16", "2.5": as many digits as a reader needs.
std::string short_number(double v);

}  // namespace ts::viz
