#pragma once
// Draws Dear ImGui's frames with OpenGL 3.3 or WebGL 2, in place of ImGui's own OpenGL 3 renderer
// backend: the same pixels, for much less work on a software rasterizer (render_gl.cpp says how).
#include <imgui.h>

namespace ts::viz {

// With the context current: programs, buffers and the font texture. `glsl_version` is the first
// line of every shader ("#version 330 core", or "#version 300 es" in the browser).
void renderer_init(const char* glsl_version);
void renderer_shutdown();
// After the font atlas was rebuilt (a new UI scale): its glyphs, uploaded again.
void renderer_upload_fonts();
// Draws the frame into the bound framebuffer (viewport, blending and scissor set here).
void renderer_draw(const ImDrawData* data);

}  // namespace ts::viz
