#pragma once
// The scenes. Each is a draw function (state in, pixels out; every number comes from viz/lesson's
// models, which take them from sim/, tiles/, kernels/ and data/) and a knob editor (ImGui widgets
// that change the state; returns true when something changed).
#include <string>
#include <vector>

#include "sim/machine.hpp"
#include "viz/gui/common.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/measured.hpp"
#include "viz/lesson/scenes.hpp"

namespace ts::viz {

void draw_roofline(const RooflineState& s, const sim::MachineSpec& machine, const std::vector<std::string>& highlights,
                   const Fonts& fonts, ImDrawList* dl, Rect area);
bool edit_roofline_knobs(RooflineState& s);

void draw_banks(const BanksState& s, const std::vector<std::string>& highlights, const Fonts& fonts, ImDrawList* dl,
                Rect area);
bool edit_banks_knobs(BanksState& s);

// What the newer scenes draw with: the simulations (computed off the drawing thread), the
// measurements and the machine they simulate.
struct SceneContext {
  const Fonts& fonts;
  const std::vector<std::string>& highlights;
  ImDrawList* dl;
  SimCache& sims;
  const MeasuredData& measured;
  const sim::MachineSpec& machine;
  bool lit(std::string_view name) const { return has(highlights, name); }
};

void draw_fragments(const FragmentsState& s, const SceneContext& c, Rect area);
void draw_pipeline(const PipelineState& s, const SceneContext& c, Rect area);
void draw_grid(const GridState& s, const SceneContext& c, Rect area);
void draw_accuracy(const AccuracyState& s, const SceneContext& c, Rect area);
void draw_barriers(const BarriersState& s, const SceneContext& c, Rect area);
void draw_registers(const RegistersState& s, const SceneContext& c, Rect area);
// The attention scenes (scene_attention_*.cpp).
void draw_attention(const SoftmaxState& s, const SceneContext& c, Rect area);
void draw_attention(const AttnFlowState& s, const SceneContext& c, Rect area);
void draw_attention(const OverlapState& s, const SceneContext& c, Rect area);
void draw_attention(const CausalState& s, const SceneContext& c, Rect area);
void draw_attention(const AttnBackwardState& s, const SceneContext& c, Rect area);
void draw_attention(const AttnTrustState& s, const SceneContext& c, Rect area);

// The kernel's source: `first` .. `first + count - 1` (1-based) highlighted, `context` lines shown
// above them. Used as the source scene and as the panel beside any scene.
void draw_source(const std::string& file, int first, int count, int context, const Fonts& fonts, bool framed,
                 ImDrawList* dl, Rect area);

// Any scene's knobs from its KnobSpecs: sliders for numbers, combos for choices.
bool edit_knobs(SceneState& state);

// "1365", "16", "2.5": as many digits as a reader needs.
std::string short_number(double v);
// "12.3 GiB", "456 MiB", "7.8 KiB".
std::string bytes_text(double bytes);       // binary: KiB, MiB, GiB
// `text` cut to fit `max_w` pixels in `font`, ending in "…" when cut (show the whole in a tooltip).
std::string ellipsize(ImFont* font, std::string_view text, float max_w);
std::string rate_text(double bytes_per_second);  // decimal: GB/s, TB/s
// One line saying where a simulation stands: running, refused, failed, or how long it took.
std::string sim_status(const GemmRun& run, const GemmSim* sim, const SimCache& sims);
// A round step for axis ticks: about `ticks` of them over `range` (1, 2 or 5 times a power of 10).
double nice_step(double range, int ticks);
// A small legend entry: a swatch and its label; returns the x after it.
float legend_item(ImDrawList* dl, const Fonts& f, ImVec2 at, ImU32 col, std::string_view label);

}  // namespace ts::viz
