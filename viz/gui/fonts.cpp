// Fonts and small drawing helpers shared by the scenes and the app.
#include <algorithm>
#include <filesystem>

#include "viz/gui/common.hpp"

namespace ts::viz {

namespace {
constexpr const char* kFontDir = "/usr/share/fonts/truetype/dejavu/";  // Debian's fonts-dejavu-core

ImFont* add_font(const char* file, float size, const ImWchar* ranges) {
  const std::string path = std::string(kFontDir) + file;
  if (!std::filesystem::exists(path)) return nullptr;
  return ImGui::GetIO().Fonts->AddFontFromFileTTF(path.c_str(), size, nullptr, ranges);
}

// A font rasterized `scale` times larger, its metrics brought back to the layout's size: the
// frame keeps its layout, and once drawn `scale` times larger each texel lands on one pixel.
void shrink_metrics(ImFont* font, float scale) {
  font->FontSize /= scale;
  font->Ascent /= scale;
  font->Descent /= scale;
  for (ImFontGlyph& g : font->Glyphs) {
    g.X0 /= scale;
    g.Y0 /= scale;
    g.X1 /= scale;
    g.Y1 /= scale;
    g.AdvanceX /= scale;
  }
  font->BuildLookupTable();  // the advance table and the fallback's width, from the glyphs
}
}  // namespace

Fonts load_fonts(float scale) {
  // Latin-1 plus the few symbols lessons use (x, approx, arrows, dashes, superscripts).
  static ImVector<ImWchar> ranges;
  if (ranges.empty()) {
    ImFontGlyphRangesBuilder builder;
    builder.AddRanges(ImGui::GetIO().Fonts->GetGlyphRangesDefault());
    builder.AddText("×≈≤≥→←↑↓–—…·•²³ᵀ√∞");
    builder.BuildRanges(&ranges);
  }
  scale = std::clamp(scale, 0.5f, 4.0f);
  Fonts f;
  f.body = add_font("DejaVuSans.ttf", 15.0f * scale, ranges.Data);
  f.bold = add_font("DejaVuSans-Bold.ttf", 15.0f * scale, ranges.Data);
  f.mono = add_font("DejaVuSansMono.ttf", 14.0f * scale, ranges.Data);
  f.heading = add_font("DejaVuSans-Bold.ttf", 19.0f * scale, ranges.Data);
  f.small = add_font("DejaVuSans.ttf", 12.0f * scale, ranges.Data);
  f.mono_small = add_font("DejaVuSansMono.ttf", 12.0f * scale, ranges.Data);
  ImFont* fallback = f.body;
  if (!fallback) {
    ImFontConfig cfg;
    cfg.SizePixels = 13.0f * scale;
    fallback = ImGui::GetIO().Fonts->AddFontDefault(&cfg);
  }
  for (ImFont** font : {&f.body, &f.bold, &f.mono, &f.heading, &f.small, &f.mono_small})
    if (!*font) *font = fallback;
  ImGui::GetIO().FontDefault = f.body ? f.body : fallback;
  if (scale != 1) {
    ImGui::GetIO().Fonts->Build();
    for (ImFont* font : ImGui::GetIO().Fonts->Fonts) shrink_metrics(font, scale);
  }
  f.scale = scale;
  return f;
}

ImU32 bank_colour(unsigned bank, float alpha) {
  // Step the hue by 11/32 of a turn so that banks next to each other differ strongly.
  const float hue = static_cast<float>((bank * 11) % 32) / 32.0f;
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(hue, 0.55f, 0.85f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, alpha));
}

void draw_highlight_frame(ImDrawList* dl, Rect r) {
  dl->AddRect(ImVec2(r.min.x - 4, r.min.y - 4), ImVec2(r.max.x + 4, r.max.y + 4), colour::highlight, 6.0f, 0, 3.0f);
}

bool has(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

void text_at(ImDrawList* dl, ImFont* font, ImVec2 pos, ImU32 col, std::string_view s) {
  dl->AddText(font, font->FontSize, pos, col, s.data(), s.data() + s.size());
}

ImVec2 text_size(ImFont* font, std::string_view s) {
  return font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, s.data(), s.data() + s.size());
}

}  // namespace ts::viz
