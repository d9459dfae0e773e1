// ImGui's draw lists drawn with OpenGL 3.3 / WebGL 2. Same pixels as ImGui's own OpenGL 3 backend
// (imgui_impl_opengl3, which this replaces), less work for a software rasterizer: the lesson app's
// frame budget is measured under Mesa's llvmpipe at 2560x1600 (data/measured/viz-lessons-timing.txt),
// the page's under Chromium's SwiftShader, and there nearly all of a frame is rasterization, a
// fragment shader run per 4x4 block of pixels each triangle touches. Two things make it cheaper:
//
// - No texture fetch where none is needed. ImGui draws every fill, frame and bar with the font
//   atlas's white texel (texture times colour); a software rasterizer pays a filtered fetch per
//   pixel for that 1.0. Triangles whose three vertices all sit on the white texel are drawn by a
//   program that only interpolates the colour (with no fetch at all, a frame of the pipelining
//   lesson's took 37 % less CPU time at 2560x1600).
// - No blending where a fill is opaque. A triangle whose three vertices have alpha 1 comes out the
//   same with blending off (ImGui's blend function then keeps the source), and llvmpipe draws it
//   without reading the pixels below; where it covers a whole 64x64 tile of a framebuffer with no
//   depth buffer (the headless one), llvmpipe also drops what was binned for that tile before, so a
//   window's background no longer costs a pass over everything it hides.
// - A one-channel atlas. The glyphs are white with coverage in alpha; an R8 texture (alpha read
//   from red) is a quarter of the texels to fetch and filter of ImGui's RGBA one, same values.
// (Cutting draws so that llvmpipe might draw ImGui's rectangles whole, as pairs of triangles in
// its "linear" mode, was tried: the same instructions per frame under callgrind, so not kept.)
//
// Draw order is kept exactly (blending depends on it), so a frame may switch programs often; a
// short run of fills between glyphs is drawn with the glyph program (correct, the white texel reads
// 1.0) when that saves a switch.
#include "viz/gui/render_gl.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include "viz/gui/gl.hpp"
#endif

namespace ts::viz {

namespace {

// The entry points past OpenGL 1.1: looked up through GLFW on the desktop (gl.hpp says why),
// linked directly in the browser.
#define TS_GL_FUNCTIONS(X)                                                       \
  X(ActiveTexture, ACTIVETEXTURE)                                                \
  X(AttachShader, ATTACHSHADER)                                                  \
  X(BindAttribLocation, BINDATTRIBLOCATION)                                      \
  X(BindBuffer, BINDBUFFER)                                                      \
  X(BindVertexArray, BINDVERTEXARRAY)                                            \
  X(BlendEquation, BLENDEQUATION)                                                \
  X(BlendFuncSeparate, BLENDFUNCSEPARATE)                                        \
  X(BufferData, BUFFERDATA)                                                      \
  X(BufferSubData, BUFFERSUBDATA)                                                \
  X(CompileShader, COMPILESHADER)                                                \
  X(CreateProgram, CREATEPROGRAM)                                                \
  X(CreateShader, CREATESHADER)                                                  \
  X(DeleteBuffers, DELETEBUFFERS)                                                \
  X(DeleteProgram, DELETEPROGRAM)                                                \
  X(DeleteShader, DELETESHADER)                                                  \
  X(DeleteVertexArrays, DELETEVERTEXARRAYS)                                      \
  X(EnableVertexAttribArray, ENABLEVERTEXATTRIBARRAY)                            \
  X(GenBuffers, GENBUFFERS)                                                      \
  X(GenVertexArrays, GENVERTEXARRAYS)                                            \
  X(GetProgramInfoLog, GETPROGRAMINFOLOG)                                        \
  X(GetProgramiv, GETPROGRAMIV)                                                  \
  X(GetShaderInfoLog, GETSHADERINFOLOG)                                          \
  X(GetShaderiv, GETSHADERIV)                                                    \
  X(GetUniformLocation, GETUNIFORMLOCATION)                                      \
  X(LinkProgram, LINKPROGRAM)                                                    \
  X(ShaderSource, SHADERSOURCE)                                                  \
  X(Uniform1i, UNIFORM1I)                                                        \
  X(UniformMatrix4fv, UNIFORMMATRIX4FV)                                          \
  X(UseProgram, USEPROGRAM)                                                      \
  X(VertexAttribPointer, VERTEXATTRIBPOINTER)

struct GlApi {
#ifdef __EMSCRIPTEN__
#define TS_GL_MEMBER(name, upper) decltype(&gl##name) name = nullptr;
#else
#define TS_GL_MEMBER(name, upper) PFNGL##upper##PROC name = nullptr;
  PFNGLDRAWELEMENTSBASEVERTEXPROC DrawElementsBaseVertex = nullptr;
#endif
  TS_GL_FUNCTIONS(TS_GL_MEMBER)
#undef TS_GL_MEMBER

  void load() {
#ifdef __EMSCRIPTEN__
#define TS_GL_LOAD(name, upper) name = &gl##name;
#else
#define TS_GL_LOAD(name, upper) name = reinterpret_cast<PFNGL##upper##PROC>(get("gl" #name));
    const auto get = [](const char* name) {
      GLFWglproc p = glfwGetProcAddress(name);
      if (!p) throw std::runtime_error(std::string("OpenGL function ") + name + " is missing");
      return p;
    };
    DrawElementsBaseVertex = reinterpret_cast<PFNGLDRAWELEMENTSBASEVERTEXPROC>(get("glDrawElementsBaseVertex"));
#endif
    TS_GL_FUNCTIONS(TS_GL_LOAD)
#undef TS_GL_LOAD
  }
};

// Vertex attributes at fixed locations, so that one vertex array serves every program.
enum Attribute : GLuint { kPosition = 0, kUv = 1, kColour = 2 };

struct Program {
  GLuint id = 0;
  GLint projection = -1, texture = -1;
};

// kOpaque is drawn by the fill program with blending off (program_of).
enum Kind { kSolid = 0, kGlyphs = 1, kImage = 2, kOpaque = 3 };

// One draw call of a frame: a program over a range of the rebuilt index buffer.
struct Draw {
  Kind kind;
  ImTextureID texture;
  int scissor[4];
  size_t first, count;  // indices into the draw list's index buffer
  unsigned vertex_offset;
};

struct Renderer {
  GlApi gl;
  std::string version;
  Program programs[3];  // by Kind, but for kOpaque
  GLuint vao = 0, vbo = 0, ebo = 0, font_texture = 0;
  size_t vbo_size = 0, ebo_size = 0;  // bytes allocated
  std::vector<Draw> draws;
};

Renderer* renderer = nullptr;

const Program& program_of(const Renderer& r, Kind kind) { return r.programs[kind == kOpaque ? kSolid : kind]; }

// A run of fills this short between glyph runs is drawn with the glyph program: two program
// switches cost more than the texture fetches saved on a few small triangles.
constexpr size_t kMinSolidTriangles = 8;
// An opaque run covering less than this many pixels is drawn blended with the fills around it:
// turning blending off and on again costs more than it saves on a small area. (Under llvmpipe at
// 2560x1600, 2026-11-27: with a 64x64 threshold, one llvmpipe tile, the clusters lesson's grid
// drew 2-4 ms faster but a TMA lesson step 1-2 ms slower; with 256x256 the first gain stayed and
// the second loss halved: data/measured/viz-lessons-timing.txt.)
constexpr float kMinOpaquePixels = 256.0f * 256.0f;

GLuint compile(const GlApi& gl, GLenum type, const std::string& source, const char* what) {
  const GLuint shader = gl.CreateShader(type);
  const char* text = source.c_str();
  gl.ShaderSource(shader, 1, &text, nullptr);
  gl.CompileShader(shader);
  GLint ok = 0;
  gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    gl.GetShaderInfoLog(shader, sizeof log, nullptr, log);
    throw std::runtime_error(std::string("the ") + what + " shader does not compile: " + log);
  }
  return shader;
}

Program link(const GlApi& gl, const std::string& header, const char* vertex, const char* fragment, const char* what) {
  const GLuint vs = compile(gl, GL_VERTEX_SHADER, header + vertex, what);
  const GLuint fs = compile(gl, GL_FRAGMENT_SHADER, header + fragment, what);
  Program p;
  p.id = gl.CreateProgram();
  gl.AttachShader(p.id, vs);
  gl.AttachShader(p.id, fs);
  gl.BindAttribLocation(p.id, kPosition, "Position");
  gl.BindAttribLocation(p.id, kUv, "UV");
  gl.BindAttribLocation(p.id, kColour, "Color");
  gl.LinkProgram(p.id);
  gl.DeleteShader(vs);
  gl.DeleteShader(fs);
  GLint ok = 0;
  gl.GetProgramiv(p.id, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    gl.GetProgramInfoLog(p.id, sizeof log, nullptr, log);
    throw std::runtime_error(std::string("the ") + what + " program does not link: " + log);
  }
  p.projection = gl.GetUniformLocation(p.id, "ProjMtx");
  p.texture = gl.GetUniformLocation(p.id, "Texture");
  return p;
}

// ImGui's own shaders, the fill one without the texture.
constexpr const char* kVertexTextured =
    "uniform mat4 ProjMtx;\n"
    "in vec2 Position;\nin vec2 UV;\nin vec4 Color;\n"
    "out vec2 Frag_UV;\nout vec4 Frag_Color;\n"
    "void main() { Frag_UV = UV; Frag_Color = Color; gl_Position = ProjMtx * vec4(Position.xy, 0, 1); }\n";
constexpr const char* kVertexSolid =
    "uniform mat4 ProjMtx;\n"
    "in vec2 Position;\nin vec4 Color;\n"
    "out vec4 Frag_Color;\n"
    "void main() { Frag_Color = Color; gl_Position = ProjMtx * vec4(Position.xy, 0, 1); }\n";
constexpr const char* kFragmentSolid =
    "in vec4 Frag_Color;\nout vec4 Out_Color;\n"
    "void main() { Out_Color = Frag_Color; }\n";
constexpr const char* kFragmentGlyphs =
    "uniform sampler2D Texture;\nin vec2 Frag_UV;\nin vec4 Frag_Color;\nout vec4 Out_Color;\n"
    "void main() { Out_Color = vec4(Frag_Color.rgb, Frag_Color.a * texture(Texture, Frag_UV.st).r); }\n";
constexpr const char* kFragmentImage =
    "uniform sampler2D Texture;\nin vec2 Frag_UV;\nin vec4 Frag_Color;\nout vec4 Out_Color;\n"
    "void main() { Out_Color = Frag_Color * texture(Texture, Frag_UV.st); }\n";

void upload(const GlApi& gl, GLenum target, size_t& allocated, const void* data, size_t bytes) {
  if (bytes > allocated) gl.BufferData(target, static_cast<GLsizeiptr>(allocated = bytes), nullptr, GL_STREAM_DRAW);
  gl.BufferSubData(target, 0, static_cast<GLsizeiptr>(bytes), data);
}

// One command's triangles as draws: runs of fills (solid program; large opaque runs with blending
// off) and of the rest (glyph program).
void split_command(Renderer& r, const ImDrawList& list, const ImDrawCmd& cmd, const int scissor[4], ImVec2 white,
                   float clip_scale) {
  const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
  const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
  const size_t triangles = cmd.ElemCount / 3;
  const auto on_white = [&](ImDrawIdx i) { return vtx[i].uv.x == white.x && vtx[i].uv.y == white.y; };
  const auto opaque = [&](ImDrawIdx i) { return (vtx[i].col & IM_COL32_A_MASK) == IM_COL32_A_MASK; };
  const auto area = [&](const ImDrawIdx* tri) {  // in display units squared, as min_opaque_area below
    const ImVec2 a = vtx[tri[0]].pos, b = vtx[tri[1]].pos, c = vtx[tri[2]].pos;
    return 0.5f * std::abs((b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y));
  };
  const bool glyph_texture = cmd.GetTexID() == reinterpret_cast<ImTextureID>(static_cast<intptr_t>(r.font_texture));

  // Runs of one kind, short fill runs folded into the glyph runs around them.
  struct Run {
    Kind kind;
    size_t first, count;  // triangles
    float area;           // of an opaque run
  };
  std::vector<Run> runs;
  for (size_t t = 0; t < triangles; ++t) {
    const ImDrawIdx* tri = idx + 3 * t;
    const bool fill = on_white(tri[0]) && on_white(tri[1]) && on_white(tri[2]);
    const Kind kind = !glyph_texture ? kImage
                      : !fill        ? kGlyphs
                      : opaque(tri[0]) && opaque(tri[1]) && opaque(tri[2]) ? kOpaque
                                                                         : kSolid;
    if (runs.empty() || runs.back().kind != kind) runs.push_back({kind, t, 0, 0.0f});
    ++runs.back().count;
    if (kind == kOpaque) runs.back().area += area(tri);
  }
  const float min_opaque_area = kMinOpaquePixels / (clip_scale * clip_scale);
  std::vector<Run> merged;
  for (Run run : runs) {
    if (run.kind == kOpaque && run.area < min_opaque_area) run.kind = kSolid;
    if (run.kind == kSolid && run.count < kMinSolidTriangles && !merged.empty() && merged.back().kind == kGlyphs) run.kind = kGlyphs;
    if (!merged.empty() && merged.back().kind == run.kind) merged.back().count += run.count;
    else merged.push_back(run);
  }
  // A short fill run that came first folds into the glyph run after it.
  for (size_t k = 0; k + 1 < merged.size(); ++k)
    if (merged[k].kind == kSolid && merged[k].count < kMinSolidTriangles && merged[k + 1].kind == kGlyphs) {
      merged[k + 1].first = merged[k].first, merged[k + 1].count += merged[k].count;
      merged.erase(merged.begin() + k);
      break;
    }

  for (const Run& run : merged)
    r.draws.push_back({run.kind, cmd.GetTexID(), {scissor[0], scissor[1], scissor[2], scissor[3]},
                       cmd.IdxOffset + 3 * run.first, 3 * run.count, cmd.VtxOffset});
}

}  // namespace

void renderer_init(const char* glsl_version) {
  renderer = new Renderer;
  Renderer& r = *renderer;
  GlApi& gl = r.gl;
  gl.load();
  std::string header = std::string(glsl_version) + "\n";
  if (header.find(" es") != std::string::npos) header += "precision mediump float;\n";
  r.programs[kSolid] = link(gl, header, kVertexSolid, kFragmentSolid, "fill");
  r.programs[kGlyphs] = link(gl, header, kVertexTextured, kFragmentGlyphs, "glyph");
  r.programs[kImage] = link(gl, header, kVertexTextured, kFragmentImage, "image");
  gl.GenVertexArrays(1, &r.vao);
  gl.GenBuffers(1, &r.vbo);
  gl.GenBuffers(1, &r.ebo);
  gl.BindVertexArray(r.vao);
  gl.BindBuffer(GL_ARRAY_BUFFER, r.vbo);
  gl.EnableVertexAttribArray(kPosition);
  gl.EnableVertexAttribArray(kUv);
  gl.EnableVertexAttribArray(kColour);
  gl.VertexAttribPointer(kPosition, 2, GL_FLOAT, GL_FALSE, sizeof(ImDrawVert), reinterpret_cast<void*>(IM_OFFSETOF(ImDrawVert, pos)));
  gl.VertexAttribPointer(kUv, 2, GL_FLOAT, GL_FALSE, sizeof(ImDrawVert), reinterpret_cast<void*>(IM_OFFSETOF(ImDrawVert, uv)));
  gl.VertexAttribPointer(kColour, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(ImDrawVert), reinterpret_cast<void*>(IM_OFFSETOF(ImDrawVert, col)));
  gl.BindVertexArray(0);

  ImGuiIO& io = ImGui::GetIO();
  io.BackendRendererName = "tilescope_gl";
#ifndef __EMSCRIPTEN__
  io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;  // WebGL 2 has no glDrawElementsBaseVertex
#endif
  renderer_upload_fonts();
}

void renderer_shutdown() {
  if (!renderer) return;
  Renderer& r = *renderer;
  for (Program& p : r.programs) r.gl.DeleteProgram(p.id);
  r.gl.DeleteVertexArrays(1, &r.vao);
  r.gl.DeleteBuffers(1, &r.vbo);
  r.gl.DeleteBuffers(1, &r.ebo);
  if (r.font_texture) glDeleteTextures(1, &r.font_texture);
  ImGui::GetIO().Fonts->SetTexID(nullptr);
  delete renderer;
  renderer = nullptr;
}

void renderer_upload_fonts() {
  Renderer& r = *renderer;
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  io.Fonts->GetTexDataAsAlpha8(&pixels, &width, &height);
  if (r.font_texture) glDeleteTextures(1, &r.font_texture);
  glGenTextures(1, &r.font_texture);
  glBindTexture(GL_TEXTURE_2D, r.font_texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, width, height, 0, GL_RED, GL_UNSIGNED_BYTE, pixels);
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(r.font_texture)));
}

void renderer_draw(const ImDrawData* data) {
  Renderer& r = *renderer;
  const GlApi& gl = r.gl;
  const int fb_width = static_cast<int>(data->DisplaySize.x * data->FramebufferScale.x);
  const int fb_height = static_cast<int>(data->DisplaySize.y * data->FramebufferScale.y);
  if (fb_width <= 0 || fb_height <= 0) return;

  glEnable(GL_BLEND);
  gl.BlendEquation(GL_FUNC_ADD);
  gl.BlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glEnable(GL_SCISSOR_TEST);
  glViewport(0, 0, fb_width, fb_height);
  const float L = data->DisplayPos.x, R = data->DisplayPos.x + data->DisplaySize.x;
  const float T = data->DisplayPos.y, B = data->DisplayPos.y + data->DisplaySize.y;
  const float projection[4][4] = {
      {2.0f / (R - L), 0.0f, 0.0f, 0.0f},
      {0.0f, 2.0f / (T - B), 0.0f, 0.0f},
      {0.0f, 0.0f, -1.0f, 0.0f},
      {(R + L) / (L - R), (T + B) / (B - T), 0.0f, 1.0f},
  };
  for (const Program& p : r.programs) {
    gl.UseProgram(p.id);
    gl.UniformMatrix4fv(p.projection, 1, GL_FALSE, &projection[0][0]);
    if (p.texture >= 0) gl.Uniform1i(p.texture, 0);
  }
  gl.ActiveTexture(GL_TEXTURE0);
  gl.BindVertexArray(r.vao);
  gl.BindBuffer(GL_ARRAY_BUFFER, r.vbo);
  gl.BindBuffer(GL_ELEMENT_ARRAY_BUFFER, r.ebo);

  const ImVec2 white = ImGui::GetIO().Fonts->TexUvWhitePixel;
  const ImVec2 clip_off = data->DisplayPos, clip_scale = data->FramebufferScale;
  GLuint program = 0;
  ImTextureID bound = nullptr;
  bool blending = true;
  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList& list = *data->CmdLists[n];
    r.draws.clear();
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback) {
        // The app adds none; ImGui's own reset callback needs nothing here (the state is not changed).
        if (cmd.UserCallback != ImDrawCallback_ResetRenderState) cmd.UserCallback(&list, &cmd);
        continue;
      }
      const ImVec2 lo((cmd.ClipRect.x - clip_off.x) * clip_scale.x, (cmd.ClipRect.y - clip_off.y) * clip_scale.y);
      const ImVec2 hi((cmd.ClipRect.z - clip_off.x) * clip_scale.x, (cmd.ClipRect.w - clip_off.y) * clip_scale.y);
      if (hi.x <= lo.x || hi.y <= lo.y) continue;
      const int scissor[4] = {static_cast<int>(lo.x), static_cast<int>(fb_height - hi.y), static_cast<int>(hi.x - lo.x),
                              static_cast<int>(hi.y - lo.y)};
      split_command(r, list, cmd, scissor, white, clip_scale.x);
    }
    // The buffers only grow: a new size each time would have the driver allocate (and the system
    // fault in) fresh memory for every draw list of every frame.
    upload(gl, GL_ARRAY_BUFFER, r.vbo_size, list.VtxBuffer.Data, size_t(list.VtxBuffer.Size) * sizeof(ImDrawVert));
    upload(gl, GL_ELEMENT_ARRAY_BUFFER, r.ebo_size, list.IdxBuffer.Data, size_t(list.IdxBuffer.Size) * sizeof(ImDrawIdx));
    int scissor[4] = {-1, -1, -1, -1};
    for (const Draw& d : r.draws) {
      if (program_of(r, d.kind).id != program) gl.UseProgram(program = program_of(r, d.kind).id);
      if ((d.kind != kOpaque) != blending) {
        if ((blending = d.kind != kOpaque)) glEnable(GL_BLEND);
        else glDisable(GL_BLEND);
      }
      const ImTextureID texture = d.kind == kSolid || d.kind == kOpaque ? bound : d.texture;
      if (texture != bound) glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(reinterpret_cast<intptr_t>(bound = texture)));
      if (std::equal(d.scissor, d.scissor + 4, scissor) == false) {
        std::copy(d.scissor, d.scissor + 4, scissor);
        glScissor(scissor[0], scissor[1], scissor[2], scissor[3]);
      }
      const GLenum type = sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT;
      void* offset = reinterpret_cast<void*>(d.first * sizeof(ImDrawIdx));
#ifdef __EMSCRIPTEN__
      glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(d.count), type, offset);
#else
      gl.DrawElementsBaseVertex(GL_TRIANGLES, static_cast<GLsizei>(d.count), type, offset, static_cast<GLint>(d.vertex_offset));
#endif
    }
  }
  gl.BindVertexArray(0);
  glEnable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
}

}  // namespace ts::viz
