#pragma once
// A lesson step's Markdown, parsed by md4c into blocks of styled runs, and drawn with ImGui with
// word wrapping. Covers what lessons use: headings, paragraphs, bold, italic, code spans, code
// blocks, lists (nested, bulleted or numbered), block quotes, rules and links (drawn, not opened).
#include <string>
#include <string_view>
#include <vector>

#include "viz/gui/common.hpp"

namespace ts::viz {

enum MdStyle : unsigned { md_strong = 1, md_em = 2, md_code = 4, md_link = 8 };

struct MdRun {
  std::string text;  // may hold '\n' (hard breaks, code blocks)
  unsigned style = 0;
};

struct MdBlock {
  enum class Kind { paragraph, heading, list_item, code, rule };
  Kind kind = Kind::paragraph;
  int level = 0;       // heading level
  int indent = 0;      // list and quote nesting
  std::string bullet;  // list items: "•" or "3."
  std::vector<MdRun> runs;
};

struct MdDoc {
  std::vector<MdBlock> blocks;
};

MdDoc parse_markdown(std::string_view text);

// Draws at the ImGui cursor, wrapping at `width` pixels, and moves the cursor below the text.
void draw_markdown(const MdDoc& doc, const Fonts& fonts, float width);

}  // namespace ts::viz
