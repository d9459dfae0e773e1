// The kernel's own source, read at run time (viz/lesson/source_view), with the lines a lesson
// step is about highlighted: as the "source" scene, and as a panel beside any other scene.
#include <algorithm>

#include "viz/gui/scenes.hpp"
#include "viz/lesson/source_view.hpp"

namespace ts::viz {

void draw_source(const std::string& file, int first, int count, int context, const Fonts& f, bool framed,
                 ImDrawList* dl, Rect area) {
  const auto src = source_file(file);
  const std::string where =
      file + (first > 0 ? ", line " + std::to_string(first) + (count > 1 ? "-" + std::to_string(first + count - 1) : "") : "");
  text_at(dl, f.bold, area.min, colour::white, where);
  if (!src->error.empty()) {
    text_at(dl, f.small, ImVec2(area.min.x, area.min.y + 22), colour::error, src->error);
    return;
  }
  ImFont* mono = f.mono_small;
  const float line_h = mono->FontSize + 3, top = area.min.y + 24;
  const int fit = std::max(1, static_cast<int>((area.max.y - top) / line_h));
  const int total = static_cast<int>(src->lines.size());
  // Start `context` lines above the highlight, but never leave the highlight below the panel.
  int start = std::max(1, first - context);
  if (first > 0 && first + count - 1 >= start + fit) start = std::max(1, first + count - fit);
  start = std::max(1, std::min(start, total - fit + 1));
  const float gutter = text_size(mono, std::to_string(total)).x + 10;
  // Long lines wrap (the continuation marked in the gutter) instead of running off the panel:
  // the mono font has one width for every character.
  const float char_w = std::max(1.0f, text_size(mono, "M").x);
  const size_t per_row = std::max<size_t>(16, static_cast<size_t>((area.width() - gutter - 4) / char_w));
  const auto rows_of = [&](int n) { return std::max<size_t>(1, (src->lines[n - 1].size() + per_row - 1) / per_row); };
  // Wrapping may push the highlight's end below the panel: start later until it fits.
  const auto rows_between = [&](int from, int to) {
    size_t r = 0;
    for (int n = from; n <= to && n <= total; ++n) r += rows_of(n);
    return r;
  };
  if (first > 0)
    while (start < first && rows_between(start, first + count - 1) > static_cast<size_t>(fit)) ++start;
  dl->PushClipRect(ImVec2(area.min.x, top), area.max, true);
  int row = 0;
  for (int n = start; n <= total && row < fit; ++n) {
    const bool lit = first > 0 && n >= first && n < first + count;
    const std::string& line = src->lines[n - 1];
    for (size_t part = 0; part * per_row < std::max<size_t>(line.size(), 1) && row < fit; ++part, ++row) {
      const float y = top + row * line_h;
      if (lit) {
        dl->AddRectFilled(ImVec2(area.min.x, y - 1), ImVec2(area.max.x, y + line_h - 1), IM_COL32(255, 210, 60, 45));
        dl->AddRectFilled(ImVec2(area.min.x, y - 1), ImVec2(area.min.x + 3, y + line_h - 1), colour::highlight);
      }
      const std::string number = part == 0 ? std::to_string(n) : "»";
      text_at(dl, mono, ImVec2(area.min.x + gutter - 6 - text_size(mono, number).x, y), colour::dim_text, number);
      text_at(dl, mono, ImVec2(area.min.x + gutter, y), lit ? colour::white : colour::text,
              line.size() > part * per_row ? line.substr(part * per_row, per_row) : std::string());
    }
  }
  dl->PopClipRect();
  if (framed) draw_highlight_frame(dl, area);
}

}  // namespace ts::viz
