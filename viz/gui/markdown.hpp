#pragma once
// A lesson step's Markdown, parsed by md4c into blocks of styled runs, and drawn with ImGui with
// word wrapping. Covers what lessons use: headings, paragraphs, bold, italic, code spans, code
// blocks, lists (nested, bulleted or numbered), block quotes, rules, tables (columns share the
// width, cells wrap), images (PNG files beside the lesson, scaled to fit) and links: drawn, not
// opened, except glossary links, whose definition shows while the pointer rests on them.
#include <string>
#include <string_view>
#include <vector>

#include "viz/gui/common.hpp"

namespace ts::viz {

enum MdStyle : unsigned { md_strong = 1, md_em = 2, md_code = 4, md_link = 8 };

struct MdRun {
  std::string text;  // may hold '\n' (hard breaks, code blocks)
  unsigned style = 0;
  std::string href;  // links: the target ("glossary:bank")
};

struct MdCell {
  std::vector<MdRun> runs;
  bool header = false;
};

struct MdBlock {
  enum class Kind { paragraph, heading, list_item, code, rule, table, image };
  Kind kind = Kind::paragraph;
  int level = 0;       // heading level
  int indent = 0;      // list and quote nesting
  std::string bullet;  // list items: "•" or "3."
  std::vector<MdRun> runs;                 // images: the alt text
  std::vector<std::vector<MdCell>> rows;   // tables: header row first
  std::string src;                         // images: the file, relative to the lesson
};

struct MdDoc {
  std::vector<MdBlock> blocks;
};

MdDoc parse_markdown(std::string_view text);

struct Glossary;

// Draws at the ImGui cursor, wrapping at `width` pixels, and moves the cursor below the text.
// `glossary` gives the definitions of glossary links; `base_dir` is where images are found.
void draw_markdown(const MdDoc& doc, const Fonts& fonts, float width, const Glossary* glossary = nullptr,
                   const std::string& base_dir = "");

}  // namespace ts::viz
