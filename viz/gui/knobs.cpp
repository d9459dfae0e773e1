// Knob editor for the scenes that describe their knobs with KnobSpecs, and small helpers that
// several scenes share.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/gui/scenes.hpp"

namespace ts::viz {

bool edit_knobs(SceneState& state) {
  bool changed = false;
  for (KnobSpec& k : knob_specs(state)) {
    const std::string value = k.get();
    if (!k.choices.empty()) {
      if (ImGui::BeginCombo(k.name.c_str(), value.c_str())) {
        for (const auto& choice : k.choices)
          if (ImGui::Selectable(choice.c_str(), choice == value) && choice != value) changed |= k.set(choice).empty();
        ImGui::EndCombo();
      }
    } else {
      int v = std::stoi(value);
      const int lo = static_cast<int>(k.lo), hi = static_cast<int>(k.hi), step = static_cast<int>(k.step);
      if (ImGui::SliderInt(k.name.c_str(), &v, lo, hi, "%d", ImGuiSliderFlags_AlwaysClamp)) {
        v = lo + (v - lo) / step * step;
        if (std::to_string(v) != value) changed |= k.set(std::to_string(v)).empty();
      }
    }
    if (ImGui::IsItemHovered() && !k.help.empty()) ImGui::SetTooltip("%s", k.help.c_str());
  }
  if (const std::string problem = validate(state); !problem.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colour::error));
    ImGui::TextWrapped("%s", problem.c_str());
    ImGui::PopStyleColor();
  }
  return changed;
}

std::string ellipsize(ImFont* font, std::string_view text, float max_w) {
  if (text_size(font, text).x <= max_w) return std::string(text);
  const std::string_view dots = "…";
  std::string cut(text);
  while (!cut.empty() && text_size(font, cut + std::string(dots)).x > max_w) {
    cut.pop_back();
    while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back();  // whole UTF-8 characters
    if (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0x80)) cut.pop_back();
  }
  return cut + std::string(dots);
}

// Sizes in binary units (lesson 1 states the convention: sizes binary, rates decimal).
std::string bytes_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
  return short_number(bytes) + " " + units[u];
}

std::string rate_text(double bytes_per_second) {
  const char* units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  int u = 0;
  while (bytes_per_second >= 1000 && u < 4) bytes_per_second /= 1000, ++u;
  return short_number(bytes_per_second) + " " + units[u];
}

std::string sim_status(const GemmRun& run, const GemmSim* sim, const SimCache& sims) {
  const std::string shape =
      std::to_string(run.shape.m) + "x" + std::to_string(run.shape.n) + "x" + std::to_string(run.shape.k);
  if (sims.refused(run)) return "not simulated here: " + shape + " takes seconds (slow simulations are off)";
  if (!sim) return "simulating " + shape + (run.quick() ? "..." : " in the background (seconds)...");
  if (!sim->error.empty()) return "the simulator refused " + shape + ": " + sim->error;
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.0f", sim->wall_ms);
  return "simulated " + shape + " (" + short_config(run.cfg) + ") in " + ms + " ms on this machine, " +
         std::to_string(sim->report.ops) + " ops, kept for the next visit";
}

double nice_step(double range, int ticks) {
  if (range <= 0) return 1;
  const double raw = range / ticks, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * power) return m * power;
  return 10 * power;
}

float legend_item(ImDrawList* dl, const Fonts& f, ImVec2 at, ImU32 col, std::string_view label) {
  dl->AddRectFilled(ImVec2(at.x, at.y + 3), ImVec2(at.x + 12, at.y + 13), col);
  text_at(dl, f.small, ImVec2(at.x + 16, at.y), colour::dim_text, label);
  return at.x + 16 + text_size(f.small, label).x + 14;
}

}  // namespace ts::viz
