#pragma once
// What the GUI's pieces share: fonts, colours, rectangles. ImGui only; no model logic here.
#include <string>
#include <string_view>
#include <vector>

#include <imgui.h>

namespace ts::viz {

struct Fonts {
  ImFont* body = nullptr;
  ImFont* bold = nullptr;
  ImFont* mono = nullptr;
  ImFont* heading = nullptr;
  ImFont* small = nullptr;
  ImFont* mono_small = nullptr;  // kernel source beside a scene
  float scale = 1;               // rasterized this many times larger than laid out (fonts.cpp)
};
// Adds the fonts to the current context's atlas (DejaVu when installed, ImGui's own otherwise).
// `scale`: the frame is drawn that many times larger (zoom, HiDPI): the glyphs are rasterized at
// that size, so that they stay crisp, and keep their layout size.
Fonts load_fonts(float scale = 1);

struct Rect {
  ImVec2 min, max;
  float width() const { return max.x - min.x; }
  float height() const { return max.y - min.y; }
};

// The app's background: the colour each frame is cleared to (panels draw no fill of their own).
struct Rgba {
  float r, g, b, a;
};
inline constexpr Rgba kBackground{0.09f, 0.10f, 0.12f, 1.0f};

namespace colour {
inline constexpr ImU32 text = IM_COL32(225, 228, 235, 255);
inline constexpr ImU32 dim_text = IM_COL32(150, 156, 168, 255);
inline constexpr ImU32 faint = IM_COL32(70, 75, 86, 255);
inline constexpr ImU32 panel = IM_COL32(30, 33, 40, 255);
inline constexpr ImU32 highlight = IM_COL32(255, 210, 60, 255);
inline constexpr ImU32 error = IM_COL32(255, 95, 95, 255);
inline constexpr ImU32 good = IM_COL32(110, 220, 130, 255);
inline constexpr ImU32 memory_bound = IM_COL32(255, 150, 70, 255);
inline constexpr ImU32 compute_bound = IM_COL32(90, 170, 255, 255);
inline constexpr ImU32 white = IM_COL32(255, 255, 255, 255);
inline constexpr ImU32 black = IM_COL32(0, 0, 0, 255);
// What a warp is doing, in the timeline scenes.
inline constexpr ImU32 tma = IM_COL32(90, 170, 255, 255);
inline constexpr ImU32 mma = IM_COL32(110, 220, 130, 255);
inline constexpr ImU32 waiting = IM_COL32(120, 124, 136, 255);
inline constexpr ImU32 epilogue = IM_COL32(235, 150, 70, 255);
inline constexpr ImU32 idle = IM_COL32(255, 95, 95, 255);
inline constexpr ImU32 measured = IM_COL32(255, 210, 60, 255);
inline constexpr ImU32 simulated = IM_COL32(90, 200, 255, 255);
}  // namespace colour

// 32 hues around the colour wheel, neighbouring banks far apart in hue so stripes read clearly.
ImU32 bank_colour(unsigned bank, float alpha = 1.0f);

// A yellow frame around what a lesson step points at.
void draw_highlight_frame(ImDrawList* dl, Rect r);

bool has(const std::vector<std::string>& list, std::string_view item);

// Text drawn with a given font at its own size.
void text_at(ImDrawList* dl, ImFont* font, ImVec2 pos, ImU32 col, std::string_view s);
ImVec2 text_size(ImFont* font, std::string_view s);

}  // namespace ts::viz
