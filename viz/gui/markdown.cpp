#include "viz/gui/markdown.hpp"

#include <md4c.h>

namespace ts::viz {

namespace {

struct Builder {
  MdDoc doc;
  struct List {
    bool ordered;
    unsigned next;
  };
  std::vector<List> lists;
  int quote_depth = 0;
  int current = -1;  // index of the open block that text goes into, -1 if none
  unsigned style = 0;

  int indent() const { return static_cast<int>(lists.size()) + quote_depth; }

  MdBlock& open(MdBlock::Kind kind) {
    MdBlock b;
    b.kind = kind;
    b.indent = indent();
    doc.blocks.push_back(std::move(b));
    current = static_cast<int>(doc.blocks.size()) - 1;
    return doc.blocks.back();
  }

  void add_text(std::string_view s, unsigned run_style) {
    if (current < 0) open(MdBlock::Kind::paragraph);
    auto& runs = doc.blocks[current].runs;
    if (!runs.empty() && runs.back().style == run_style)
      runs.back().text += s;
    else
      runs.push_back({std::string(s), run_style});
  }
};

Builder& self(void* user) { return *static_cast<Builder*>(user); }

int enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
  Builder& b = self(user);
  switch (type) {
    case MD_BLOCK_UL: b.lists.push_back({false, 1}); break;
    case MD_BLOCK_OL: b.lists.push_back({true, static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start}); break;
    case MD_BLOCK_LI: {
      // Items sit one level in from the list's own indent.
      MdBlock& item = b.open(MdBlock::Kind::list_item);
      auto& list = b.lists.back();
      item.bullet = list.ordered ? std::to_string(list.next++) + "." : "•";
      break;
    }
    case MD_BLOCK_P:
      // A loose list item wraps its text in a paragraph: keep it in the item.
      if (b.current < 0 || b.doc.blocks[b.current].kind != MdBlock::Kind::list_item ||
          !b.doc.blocks[b.current].runs.empty())
        b.open(MdBlock::Kind::paragraph);
      break;
    case MD_BLOCK_H: b.open(MdBlock::Kind::heading).level = static_cast<MD_BLOCK_H_DETAIL*>(detail)->level; break;
    case MD_BLOCK_CODE: b.open(MdBlock::Kind::code); break;
    case MD_BLOCK_HR:
      b.open(MdBlock::Kind::rule);
      b.current = -1;
      break;
    case MD_BLOCK_QUOTE: ++b.quote_depth; break;
    default: break;
  }
  return 0;
}

int leave_block(MD_BLOCKTYPE type, void*, void* user) {
  Builder& b = self(user);
  switch (type) {
    case MD_BLOCK_UL:
    case MD_BLOCK_OL: b.lists.pop_back(); break;
    case MD_BLOCK_QUOTE: --b.quote_depth; break;
    case MD_BLOCK_P:
    case MD_BLOCK_H:
    case MD_BLOCK_LI:
    case MD_BLOCK_CODE: b.current = -1; break;
    default: break;
  }
  return 0;
}

unsigned span_style(MD_SPANTYPE type) {
  switch (type) {
    case MD_SPAN_STRONG: return md_strong;
    case MD_SPAN_EM: return md_em;
    case MD_SPAN_CODE: return md_code;
    case MD_SPAN_A: return md_link;
    default: return 0;
  }
}

int enter_span(MD_SPANTYPE type, void*, void* user) {
  self(user).style |= span_style(type);
  return 0;
}

int leave_span(MD_SPANTYPE type, void*, void* user) {
  self(user).style &= ~span_style(type);
  return 0;
}

std::string_view decode_entity(std::string_view e) {
  if (e == "&amp;") return "&";
  if (e == "&lt;") return "<";
  if (e == "&gt;") return ">";
  if (e == "&quot;") return "\"";
  if (e == "&nbsp;") return " ";
  return e;
}

int text(MD_TEXTTYPE type, const MD_CHAR* data, MD_SIZE size, void* user) {
  Builder& b = self(user);
  const std::string_view s(data, size);
  switch (type) {
    case MD_TEXT_SOFTBR: b.add_text(" ", b.style); break;
    case MD_TEXT_BR: b.add_text("\n", b.style); break;
    case MD_TEXT_ENTITY: b.add_text(decode_entity(s), b.style); break;
    case MD_TEXT_CODE: b.add_text(s, b.style | md_code); break;
    case MD_TEXT_NULLCHAR: break;
    default: b.add_text(s, b.style); break;
  }
  return 0;
}

// ---- drawing --------------------------------------------------------------------------------

constexpr float kIndentPx = 20.0f;

ImFont* font_for(const Fonts& f, const MdBlock& block, unsigned style) {
  if (block.kind == MdBlock::Kind::heading) return block.level <= 2 ? f.heading : f.bold;
  if (block.kind == MdBlock::Kind::code || (style & md_code)) return f.mono;
  if (style & md_strong) return f.bold;
  return f.body;
}

ImU32 colour_for(const MdBlock& block, unsigned style) {
  if (block.kind == MdBlock::Kind::heading) return colour::white;
  if (style & md_link) return IM_COL32(120, 180, 255, 255);
  if (style & md_code) return IM_COL32(255, 190, 120, 255);
  if (style & md_em) return IM_COL32(180, 220, 255, 255);
  if (style & md_strong) return colour::white;
  return colour::text;
}

// Lays out one block's runs word by word inside [left, right]; returns the y below it.
float draw_runs(ImDrawList* dl, const Fonts& fonts, const MdBlock& block, float left, float right, float y) {
  const float line_h = font_for(fonts, block, 0)->FontSize * 1.45f;
  float x = left;
  for (const MdRun& run : block.runs) {
    ImFont* font = font_for(fonts, block, run.style);
    const ImU32 col = colour_for(block, run.style);
    const float baseline_shift = (font_for(fonts, block, 0)->FontSize - font->FontSize) * 0.6f;
    size_t i = 0;
    const std::string& t = run.text;
    while (i < t.size()) {
      if (t[i] == '\n') {
        x = left;
        y += line_h;
        ++i;
        continue;
      }
      size_t j = i;
      if (t[i] == ' ') {
        ++j;
      } else {
        while (j < t.size() && t[j] != ' ' && t[j] != '\n') ++j;
      }
      const std::string_view word(t.data() + i, j - i);
      const float w = text_size(font, word).x;
      if (word == " ") {
        if (x > left) x += w;  // no space at the start of a line
        i = j;
        continue;
      }
      if (x + w > right && x > left) {
        x = left;
        y += line_h;
      }
      const ImVec2 pos(x, y + baseline_shift);
      if (run.style & md_code)
        dl->AddRectFilled(ImVec2(pos.x - 2, pos.y - 1), ImVec2(pos.x + w + 2, pos.y + font->FontSize + 1),
                          IM_COL32(55, 58, 68, 255), 3.0f);
      text_at(dl, font, pos, col, word);
      if (run.style & md_link) dl->AddLine(ImVec2(x, y + font->FontSize), ImVec2(x + w, y + font->FontSize), col);
      x += w;
      i = j;
    }
  }
  return y + line_h;
}

}  // namespace

MdDoc parse_markdown(std::string_view source) {
  MD_PARSER parser{};
  parser.abi_version = 0;
  parser.flags = MD_FLAG_NOHTML | MD_FLAG_STRIKETHROUGH;
  parser.enter_block = enter_block;
  parser.leave_block = leave_block;
  parser.enter_span = enter_span;
  parser.leave_span = leave_span;
  parser.text = text;
  Builder b;
  md_parse(source.data(), static_cast<MD_SIZE>(source.size()), &parser, &b);
  return std::move(b.doc);
}

void draw_markdown(const MdDoc& doc, const Fonts& fonts, float width) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float right = origin.x + width;
  const float gap = fonts.body->FontSize * 0.6f;
  float y = origin.y;
  for (const MdBlock& block : doc.blocks) {
    const float left = origin.x + kIndentPx * block.indent;
    switch (block.kind) {
      case MdBlock::Kind::rule:
        dl->AddLine(ImVec2(left, y + gap), ImVec2(right, y + gap), colour::faint, 1.0f);
        y += 2 * gap;
        break;
      case MdBlock::Kind::code: {
        const float top = y;
        const float code_y = draw_runs(dl, fonts, block, left + 8, right - 8, y + 6) + 2;
        // A frame rather than a fill: the text is already drawn and a fill would cover it.
        dl->AddRect(ImVec2(left, top), ImVec2(right, code_y), colour::faint, 4.0f);
        y = code_y + gap;
        break;
      }
      case MdBlock::Kind::list_item:
        text_at(dl, fonts.body, ImVec2(left - kIndentPx + 6, y), colour::dim_text, block.bullet);
        y = draw_runs(dl, fonts, block, left + (block.bullet.size() > 2 ? 8 : 0), right, y) + gap * 0.4f;
        break;
      case MdBlock::Kind::heading:
        y += gap * 0.5f;
        y = draw_runs(dl, fonts, block, left, right, y) + gap * 0.3f;
        break;
      case MdBlock::Kind::paragraph: y = draw_runs(dl, fonts, block, left, right, y) + gap; break;
    }
  }
  ImGui::Dummy(ImVec2(width, y - origin.y));
}

}  // namespace ts::viz
