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
  dl->PushClipRect(ImVec2(area.min.x, top), area.max, true);
  for (int i = 0; i < fit && start + i <= total; ++i) {
    const int n = start + i;
    const float y = top + i * line_h;
    const bool lit = first > 0 && n >= first && n < first + count;
    if (lit) {
      dl->AddRectFilled(ImVec2(area.min.x, y - 1), ImVec2(area.max.x, y + line_h - 1), IM_COL32(255, 210, 60, 45));
      dl->AddRectFilled(ImVec2(area.min.x, y - 1), ImVec2(area.min.x + 3, y + line_h - 1), colour::highlight);
    }
    const std::string number = std::to_string(n);
    text_at(dl, mono, ImVec2(area.min.x + gutter - 6 - text_size(mono, number).x, y), colour::dim_text, number);
    text_at(dl, mono, ImVec2(area.min.x + gutter, y), lit ? colour::white : colour::text, src->lines[n - 1]);
  }
  dl->PopClipRect();
  if (framed) draw_highlight_frame(dl, area);
}

}  // namespace ts::viz
