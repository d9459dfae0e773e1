#include "viz/gui/timeline_view.hpp"

#include <cstdio>
#include <memory>
#include <optional>

#include "viz/gui/timeline_draw.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/pipeline_model.hpp"
#include "viz/lesson/timeline_view.hpp"

namespace ts::viz {

namespace {

struct Simulated {
  sim::Timeline timeline;
  std::string error;
};

struct View {
  std::optional<TimelineFile> file;
  TimelineZoom zoom;
  std::string sim_key;
  int lesson = -2, step = -2;  // the app's step when the view was first drawn
  // The picked block's rows, rebuilt when the block changes or the simulation arrives.
  uint32_t model_block = ~0u;
  bool model_has_sim = false;
  PipelineModel measured, simulated;
  std::optional<RecordedBlock> simulated_block;
};

View& view() {
  static View v;
  return v;
}

std::string fixed(const char* format, double a, double b = 0) {
  char text[160];
  std::snprintf(text, sizeof text, format, a, b);
  return text;
}

}  // namespace

void open_timeline_view(TimelineFile file, TimelineViewOptions options) {
  View& v = view();
  v = View{};
  const auto blocks = recorded_blocks(file.measured.spans);
  v.zoom.key = file.file;
  v.zoom.block = blocks.empty() ? 0 : blocks.front().block;
  for (const RecordedBlock& b : blocks)
    if (options.block >= 0 && b.block == static_cast<uint32_t>(options.block)) v.zoom.block = b.block;
  v.zoom.iteration = options.one_iteration;
  // The simulation is kept per file and configuration: reopening the same file costs nothing.
  v.sim_key = "timeline-view " + file.file + " " + file.measured.job.dump() + fixed(" %.3f", file.measured.clock_mhz);
  v.file = std::move(file);
}

void close_timeline_view() { view() = View{}; }
bool timeline_view_open() { return view().file.has_value(); }
std::string timeline_view_note() { return view().zoom.note; }

bool draw_timeline_window(const Fonts& f, SimCache& sims, int lesson, int step, const Rect& area) {
  View& v = view();
  if (!v.file) return false;
  if (v.lesson > -2 && (lesson != v.lesson || step != v.step)) {  // the user opened a lesson step
    close_timeline_view();
    return false;
  }
  v.lesson = lesson, v.step = step;
  const TimelineFile& tf = *v.file;

  ImGui::SetNextWindowPos(area.min);
  ImGui::SetNextWindowSize(ImVec2(area.width(), area.height()));
  ImGui::Begin("##timeline", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollbar |
                   ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PushFont(f.heading);
  ImGui::TextUnformatted("Your measured timeline beside the simulation");
  ImGui::PopFont();
  ImGui::TextDisabled("%s", tf.file.c_str());
  ImGui::SameLine();
  const bool back = ImGui::SmallButton("Back to the lessons");
  if (!tf.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colour::error));
    ImGui::TextUnformatted(tf.error.c_str());
    ImGui::PopStyleColor();
    ImGui::TextDisabled("A measured timeline is what `tilescope bench gemm|attention ... --timeline-measured F.json` writes on a GPU.");
    ImGui::End();
    if (back) close_timeline_view();
    return true;
  }
  const sim::Timeline& m = tf.measured;
  const auto blocks = recorded_blocks(m.spans);
  std::string about = m.title + ": " + std::to_string(blocks.size()) + " block" + (blocks.size() == 1 ? "" : "s") +
                      " recorded, " + std::to_string(m.spans.size()) + " spans, SM clock " + fixed("%.0f MHz", m.clock_mhz);
  if (m.plain_ms > 0)
    about += fixed(", recording cost %+.0f %% over the plain build's %.3f ms", 100 * (m.kernel_ms / m.plain_ms - 1), m.plain_ms);
  if (const std::string left_out = sim::unrecorded_kinds(m); !left_out.empty())
    about += "; a lighter recording: no " + left_out + " stamped (gaps in its rows)";
  ImGui::TextWrapped("%s", about.c_str());
  if (m.dropped > 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colour::memory_bound));
    ImGui::Text("%llu records did not fit: their warps' rows stop early", static_cast<unsigned long long>(m.dropped));
    ImGui::PopStyleColor();
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("Both in Perfetto: tilescope compare --timeline %s --timeline-out both.json, then open both.json in ui.perfetto.dev",
                     tf.file.c_str());
  ImGui::PopStyleColor();

  // The simulation of the recorded configuration, off the drawing thread.
  const auto simulate = tf.simulate;
  const auto result = std::static_pointer_cast<const Simulated>(sims.get_job(v.sim_key, true, [simulate] {
    auto out = std::make_shared<Simulated>();
    try {
      if (!simulate) throw std::runtime_error("this build cannot simulate it");
      out->timeline = simulate();
    } catch (const std::exception& e) {
      out->error = e.what();
    }
    return std::shared_ptr<const void>(out);
  }));

  if (v.model_block != v.zoom.block || v.model_has_sim != (result != nullptr)) {
    v.model_block = v.zoom.block;
    v.model_has_sim = result != nullptr;
    v.measured = pipeline_model(block_spans(m.spans, v.zoom.block, 0), 0);
    v.simulated_block.reset();
    v.simulated = {};
    if (result && result->error.empty()) {
      for (const RecordedBlock& b : recorded_blocks(result->timeline.spans))
        if (b.block == v.zoom.block) v.simulated_block = b;
      if (v.simulated_block) v.simulated = pipeline_model(block_spans(result->timeline.spans, v.zoom.block, 0), 0);
    }
  }
  TimelinePair pair;
  pair.measured = &v.measured;
  pair.measured_clock = m.clock_mhz;
  pair.blocks = blocks;
  for (const RecordedBlock& b : blocks)
    if (b.block == v.zoom.block)
      pair.measured_title = "measured: block " + std::to_string(b.block) + " on SM " + std::to_string(b.sm);
  if (!result) {
    pair.simulated_title = "simulated";
    pair.simulated_note = "simulating " + m.title + " on the H100's model...";
    pair.simulated_pending = true;
  } else if (!result->error.empty()) {
    pair.simulated_title = "simulated";
    pair.simulated_note = "not simulated: " + result->error;
  } else if (!v.simulated_block) {
    pair.simulated_title = "simulated";
    pair.simulated_note = "the simulation has no spans of block " + std::to_string(v.zoom.block) + " (it records the first SMs' blocks)";
  } else {
    pair.simulated = &v.simulated;
    pair.simulated_clock = result->timeline.clock_mhz;
    pair.simulated_title = "simulated: block " + std::to_string(v.simulated_block->block) + " on SM " +
                           std::to_string(v.simulated_block->sm) + fixed(" (timed at the recorded %.0f MHz)", pair.simulated_clock);
  }
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 end(area.max.x - ImGui::GetStyle().WindowPadding.x, area.max.y - ImGui::GetStyle().WindowPadding.y);
  const std::vector<std::string> no_highlights;
  const TimelineStyle st{f, ImGui::GetWindowDrawList(), no_highlights};
  if (!v.measured.rows.empty()) draw_timeline_pair(pair, v.zoom, st, {ImVec2(at.x, at.y + 4), end}, 0);
  else ImGui::TextUnformatted("the file has no spans to draw");
  ImGui::End();
  if (back) close_timeline_view();
  return true;
}

}  // namespace ts::viz
