#include "viz/gui/markdown.hpp"

#include <md4c.h>
#include <stb_image.h>

#include <algorithm>
#include <map>

#include "viz/gui/gl.hpp"
#include "viz/lesson/glossary.hpp"

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
  std::string href;   // of the open link
  bool in_cell = false;  // text goes into the last cell of the last table
  int image = -1;        // text goes into this image block (its alt text)

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
    std::vector<MdRun>* runs = nullptr;
    if (image >= 0) runs = &doc.blocks[image].runs;
    else if (in_cell) runs = &doc.blocks.back().rows.back().back().runs;
    else {
      if (current < 0) open(MdBlock::Kind::paragraph);
      runs = &doc.blocks[current].runs;
    }
    const std::string& link = (run_style & md_link) ? href : std::string();
    if (!runs->empty() && runs->back().style == run_style && runs->back().href == link)
      runs->back().text += s;
    else
      runs->push_back({std::string(s), run_style, link});
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
    case MD_BLOCK_TABLE:
      b.open(MdBlock::Kind::table);
      b.current = -1;
      break;
    case MD_BLOCK_TR: b.doc.blocks.back().rows.emplace_back(); break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      b.doc.blocks.back().rows.back().push_back({{}, type == MD_BLOCK_TH});
      b.in_cell = true;
      break;
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
    case MD_BLOCK_TH:
    case MD_BLOCK_TD: b.in_cell = false; break;
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

std::string attribute(const MD_ATTRIBUTE& a) { return a.text ? std::string(a.text, a.size) : std::string(); }

int enter_span(MD_SPANTYPE type, void* detail, void* user) {
  Builder& b = self(user);
  if (type == MD_SPAN_A) b.href = attribute(static_cast<MD_SPAN_A_DETAIL*>(detail)->href);
  if (type == MD_SPAN_IMG && !b.in_cell) {
    // An image is a block of its own; the paragraph around it goes on after it.
    // A paragraph holding only the image becomes the image.
    if (b.current >= 0 && b.doc.blocks[b.current].kind == MdBlock::Kind::paragraph && b.doc.blocks[b.current].runs.empty())
      b.doc.blocks[b.current].kind = MdBlock::Kind::image;
    else
      b.open(MdBlock::Kind::image);
    b.doc.blocks[b.current].src = attribute(static_cast<MD_SPAN_IMG_DETAIL*>(detail)->src);
    b.image = b.current;
    b.current = -1;
    return 0;
  }
  b.style |= span_style(type);
  return 0;
}

int leave_span(MD_SPANTYPE type, void*, void* user) {
  Builder& b = self(user);
  if (type == MD_SPAN_IMG && b.image >= 0) {
    b.image = -1;
    return 0;
  }
  b.style &= ~span_style(type);
  if (type == MD_SPAN_A) b.href.clear();
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

const Glossary* g_glossary = nullptr;  // of the draw_markdown call in progress

// The definition of a glossary link, while the pointer rests on one of its words.
void glossary_tooltip(const MdRun& run, ImVec2 a, ImVec2 b, const Fonts& fonts) {
  if (!g_glossary || !run.href.starts_with("glossary:") || !ImGui::IsMouseHoveringRect(a, b)) return;
  const GlossaryEntry* e = g_glossary->find(std::string_view(run.href).substr(9));
  if (!e) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
  ImGui::PushFont(fonts.bold);
  ImGui::TextUnformatted(e->term.c_str());
  ImGui::PopFont();
  ImGui::TextUnformatted(e->definition.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
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
      if (run.style & md_link) {
        // Glossary links are dotted, other links plain underlined.
        const bool term = run.href.starts_with("glossary:");
        for (float u = x; u < x + w; u += term ? 4 : w)
          dl->AddLine(ImVec2(u, y + font->FontSize), ImVec2(std::min(u + (term ? 2 : w), x + w), y + font->FontSize), col);
        glossary_tooltip(run, pos, ImVec2(x + w, y + font->FontSize + 2), fonts);
      }
      x += w;
      i = j;
    }
  }
  return y + line_h;
}

// The natural width of a cell's text on one line.
float runs_width(const Fonts& fonts, const MdBlock& block, const std::vector<MdRun>& runs, unsigned extra) {
  float w = 0;
  for (const MdRun& r : runs) w += text_size(font_for(fonts, block, r.style | extra), r.text).x;
  return w;
}

// Columns share the width: each gets its natural width when all fit, else a share of the width
// by its natural width (at least a narrow minimum), and cells wrap inside their column.
float draw_table(ImDrawList* dl, const Fonts& fonts, const MdBlock& table, float left, float right, float y) {
  size_t cols = 0;
  for (const auto& row : table.rows) cols = std::max(cols, row.size());
  if (!cols) return y;
  constexpr float pad = 8;
  std::vector<float> natural(cols, 0);
  for (const auto& row : table.rows)
    for (size_t c = 0; c < row.size(); ++c)
      natural[c] = std::max(natural[c], runs_width(fonts, table, row[c].runs, row[c].header ? md_strong : 0) + 2 * pad + 2);
  float total = 0;
  for (float w : natural) total += w;
  const float avail = right - left;
  std::vector<float> width = natural;
  if (total > avail)
    for (size_t c = 0; c < cols; ++c) width[c] = std::max(std::min(natural[c], 60.0f), avail * natural[c] / total);
  for (const auto& row : table.rows) {
    float x = left, bottom = y;
    const bool header = !row.empty() && row[0].header;
    for (size_t c = 0; c < row.size(); ++c) {
      MdBlock cell;
      cell.runs = row[c].runs;
      if (header)
        for (auto& r : cell.runs) r.style |= md_strong;
      bottom = std::max(bottom, draw_runs(dl, fonts, cell, x + pad, x + width[c] - pad, y + 3));
      x += width[c];
    }
    dl->AddLine(ImVec2(left, bottom + 2), ImVec2(x, bottom + 2), header ? colour::dim_text : colour::faint, 1.0f);
    y = bottom + 4;
  }
  return y;
}

struct Texture {
  GLuint id = 0;
  int w = 0, h = 0;
};

// PNG files are read once and kept as textures for the life of the app (a lesson has few).
const Texture& texture(const std::string& path) {
  static std::map<std::string, Texture> cache;
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  Texture t;
  int n = 0;
  if (unsigned char* pixels = stbi_load(path.c_str(), &t.w, &t.h, &n, 4)) {
    glGenTextures(1, &t.id);
    glBindTexture(GL_TEXTURE_2D, t.id);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, t.w, t.h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    stbi_image_free(pixels);
  }
  return cache.emplace(path, t).first->second;
}

float draw_image(ImDrawList* dl, const Fonts& fonts, const MdBlock& block, const std::string& base_dir, float left,
                 float right, float y) {
  const std::string path = base_dir.empty() ? block.src : base_dir + "/" + block.src;
  const Texture& t = texture(path);
  if (!t.id) {
    text_at(dl, fonts.body, ImVec2(left, y), colour::error, "[image " + block.src + " could not be read]");
    return y + fonts.body->FontSize * 1.5f;
  }
  const float scale = std::min(1.0f, (right - left) / float(t.w));
  dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(t.id)), ImVec2(left, y),
               ImVec2(left + t.w * scale, y + t.h * scale));
  float bottom = y + t.h * scale + 4;
  if (!block.runs.empty()) {  // the alt text, as a caption
    MdBlock caption;
    caption.runs = block.runs;
    for (auto& r : caption.runs) r.style |= md_em;
    bottom = draw_runs(dl, fonts, caption, left, right, bottom);
  }
  return bottom;
}

}  // namespace

MdDoc parse_markdown(std::string_view source) {
  MD_PARSER parser{};
  parser.abi_version = 0;
  parser.flags = MD_FLAG_NOHTML | MD_FLAG_STRIKETHROUGH | MD_FLAG_TABLES;
  parser.enter_block = enter_block;
  parser.leave_block = leave_block;
  parser.enter_span = enter_span;
  parser.leave_span = leave_span;
  parser.text = text;
  Builder b;
  md_parse(source.data(), static_cast<MD_SIZE>(source.size()), &parser, &b);
  return std::move(b.doc);
}

void draw_markdown(const MdDoc& doc, const Fonts& fonts, float width, const Glossary* glossary, const std::string& base_dir) {
  g_glossary = glossary;
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
      case MdBlock::Kind::paragraph:
        if (!block.runs.empty()) y = draw_runs(dl, fonts, block, left, right, y) + gap;
        break;
      case MdBlock::Kind::table: y = draw_table(dl, fonts, block, left, right, y) + gap; break;
      case MdBlock::Kind::image: y = draw_image(dl, fonts, block, base_dir, left, right, y) + gap; break;
    }
  }
  ImGui::Dummy(ImVec2(width, y - origin.y));
}

}  // namespace ts::viz
