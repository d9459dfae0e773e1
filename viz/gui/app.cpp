#include "viz/gui/app.hpp"
#include "viz/gui/lab_view.hpp"
#include "viz/gui/timeline_view.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "viz/gui/app_parts.hpp"
#include "viz/gui/lecture.hpp"
#include "viz/gui/scenes.hpp"

namespace ts::viz {

const LessonStep* current_step(const App& app) {
  if (app.lesson < 0) return nullptr;
  return &app.lessons.lessons[app.lesson].steps[app.step];
}

void section(const Fonts& f, const char* title) {
  ImGui::Spacing();
  ImGui::PushFont(f.bold);
  ImGui::TextUnformatted(title);
  ImGui::PopFont();
  ImGui::Separator();
}

namespace {

// Panels draw no background of their own: the frame is cleared to the same colour first, and on
// a software renderer three blended full-window fills cost more than all the rest of the frame.
constexpr ImGuiWindowFlags kPanel = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                    ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoBackground;

// Moves by one step, crossing into the neighbouring lesson at either end.
void go(App& app, int delta) {
  if (app.lesson < 0) return;
  const StepRef to = neighbour_step(app.lessons, {app.lesson, app.step}, delta);
  if (to != StepRef{app.lesson, app.step}) open_step(app, to.lesson, to.step);
}

const sim::MachineSpec* machine(App& app, const std::string& id, std::string& error) {
  auto it = app.machines.find(id);
  if (it == app.machines.end()) {
    try {
      it = app.machines.emplace(id, sim::load_machine(id)).first;
    } catch (const std::exception& e) {
      it = app.machines.emplace(id, std::string(e.what())).first;
    }
  }
  if (const auto* spec = std::get_if<sim::MachineSpec>(&it->second)) return spec;
  error = std::get<std::string>(it->second);
  return nullptr;
}

// A list entry cut to the panel's width with "…", the whole title in a tooltip: a long title
// neither runs under the next panel nor wraps the list out of shape.
bool fitted_selectable(const std::string& label, bool selected, size_t id) {
  const std::string shown = ellipsize(ImGui::GetFont(), label, ImGui::GetContentRegionAvail().x - 4);
  ImGui::PushID(static_cast<int>(id));
  const bool clicked = ImGui::Selectable(shown.c_str(), selected);
  ImGui::PopID();
  if (shown != label && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", label.c_str());
  return clicked;
}

// Every term of the glossary, in one scrolling window over the app.
void glossary_popup(App& app) {
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(std::min(640.0f, size.x * 0.6f), size.y * 0.8f));
  ImGui::SetNextWindowPos(ImVec2(size.x * 0.5f, size.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopup("glossary")) return;
  for (const GlossaryEntry& e : app.lessons.glossary.entries) {
    ImGui::PushFont(app.fonts.bold);
    ImGui::TextUnformatted(e.term.c_str());
    ImGui::PopFont();
    ImGui::TextWrapped("%s", e.definition.c_str());
    ImGui::Spacing();
  }
  ImGui::EndPopup();
}

void lesson_panel(App& app) {
  const Fonts& f = app.fonts;
  ImGui::PushFont(f.heading);
  ImGui::TextUnformatted("TileScope");
  ImGui::PopFont();
  ImGui::TextDisabled("GPU kernel design on Hopper");
  search_panel(app);

  section(f, "Lessons");
  for (size_t i = 0; i < app.lessons.lessons.size(); ++i) {
    const std::string label = std::to_string(i + 1) + ". " + app.lessons.lessons[i].title;
    if (fitted_selectable(label, app.lesson == static_cast<int>(i), i)) open_step(app, static_cast<int>(i), 0);
  }
  if (!app.lessons.errors.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colour::error));
    // The file name is enough here (all are in the one lessons folder); hover for the full path.
    for (const auto& e : app.lessons.errors) {
      LessonError short_name = e;
      short_name.file = std::filesystem::path(e.file).filename().string();
      ImGui::TextWrapped("%s", short_name.text().c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.text().c_str());
    }
    ImGui::PopStyleColor();
  }
  labs_section(f, app.lesson, app.step);  // kernel labs (lab_view.cpp)
  if (app.lesson < 0) return;

  const Lesson& lesson = app.lessons.lessons[app.lesson];
  section(f, "Steps");
  for (size_t i = 0; i < lesson.steps.size(); ++i) {
    const std::string label = std::to_string(i + 1) + ". " + lesson.steps[i].title;
    if (fitted_selectable(label, app.step == static_cast<int>(i), 1000 + i)) open_step(app, app.lesson, static_cast<int>(i));
  }
  ImGui::Spacing();
  if (ImGui::Button("< Prev")) go(app, -1);
  ImGui::SameLine();
  if (ImGui::Button("Next >")) go(app, +1);
  ImGui::SameLine();
  ImGui::TextDisabled("%d / %zu   (← → keys)", app.step + 1, lesson.steps.size());
  if (!app.lessons.glossary.entries.empty() && ImGui::SmallButton("Glossary: every term")) ImGui::OpenPopup("glossary");
  glossary_popup(app);

  section(f, "Knobs");
  ImGui::PushItemWidth(-80);
  bool changed = false;
  if (auto* roof = std::get_if<RooflineState>(&app.state)) changed = edit_roofline_knobs(*roof);
  else if (auto* banks = std::get_if<BanksState>(&app.state)) changed = edit_banks_knobs(*banks);
  else changed = edit_knobs(app.state);
  ImGui::PopItemWidth();
  app.edited |= changed;
  if (app.edited && ImGui::Button("Reset to this step's knobs")) {
    if (app.attempt) {  // keep the question: back to its scene (or the step's, before the answer)
      app.state = app.attempt->answered ? app.attempt->question.reveal : app.lessons.lessons[app.lesson].steps[app.step].state;
      app.edited = false;
    } else {
      open_step(app, app.lesson, app.step);
    }
  }
  exercise_panel(app);
  view_panel(app);
}

void scene_panel(App& app, Rect area) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const LessonStep* step = current_step(app);
  if (app.attempt && !app.attempt->answered) {
    question_card(app);
    return;
  }
  // Once answered, the banner takes the top of the panel and the scene the rest, with the
  // question's highlights.
  std::vector<std::string> highlights = step ? step->highlights : std::vector<std::string>{};
  if (app.attempt) {
    answer_banner(app);
    area.min.y = ImGui::GetCursorScreenPos().y + 4;
    highlights = app.attempt->question.reveal_highlights;
  }
  if (!step) {
    text_at(dl, app.fonts.heading, area.min, colour::error, "No lesson could be loaded.");
    text_at(dl, app.fonts.body, ImVec2(area.min.x, area.min.y + 28), colour::text,
            "The lesson list on the left says why. Lessons are Markdown files in lessons/ (see lessons/README.md).");
    return;
  }
  if (const auto* roof = std::get_if<RooflineState>(&app.state)) {
    std::string error;
    if (const sim::MachineSpec* spec = machine(app, roof->machine, error))
      draw_roofline(*roof, *spec, highlights, app.fonts, dl, area);
    else
      text_at(dl, app.fonts.bold, area.min, colour::error, error);
    return;
  }
  if (const auto* banks = std::get_if<BanksState>(&app.state)) {
    draw_banks(*banks, highlights, app.fonts, dl, area);
    return;
  }
  if (const auto* src = std::get_if<SourceState>(&app.state)) {
    const std::string file = step->source_file.empty() ? "kernels/gemm/gemm.cuh" : step->source_file;
    draw_source(file, step->source_line, step->source_lines, static_cast<int>(src->context), app.fonts,
                has(highlights, "code"), dl, area);
    return;
  }
  // The GEMM scenes simulate on the machine the measurements were taken on.
  std::string error;
  const sim::MachineSpec* spec = machine(app, "h100-sxm", error);
  if (!spec) {
    text_at(dl, app.fonts.bold, area.min, colour::error, error);
    return;
  }
  const SceneContext c{app.fonts, highlights, dl, *app.sims, *app.measured, *spec};
  std::visit(
      [&](const auto& s) {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, FragmentsState>) draw_fragments(s, c, area);
        else if constexpr (std::is_same_v<S, PipelineState>) draw_pipeline(s, c, area);
        else if constexpr (std::is_same_v<S, GridState>) draw_grid(s, c, area);
        else if constexpr (std::is_same_v<S, AccuracyState>) draw_accuracy(s, c, area);
        else if constexpr (std::is_same_v<S, BarriersState>) draw_barriers(s, c, area);
        else if constexpr (std::is_same_v<S, RegistersState>) draw_registers(s, c, area);
        else if constexpr (requires { draw_attention(s, c, area); }) draw_attention(s, c, area);
      },
      app.state);
}

// The step's source lines beside its text (the source scene shows them itself).
bool shows_source_panel(const App& app) {
  const LessonStep* step = current_step(app);
  return step && !step->source_file.empty() && !std::holds_alternative<SourceState>(app.state);
}

void text_panel(App& app) {
  const LessonStep* step = current_step(app);
  if (!step) return;
  const Lesson& lesson = app.lessons.lessons[app.lesson];
  ImGui::PushFont(app.fonts.small);
  ImGui::TextDisabled("%s  -  step %d of %zu", lesson.title.c_str(), app.step + 1, lesson.steps.size());
  ImGui::PopFont();
  ImGui::PushFont(app.fonts.heading);
  ImGui::TextWrapped("%s", step->title.c_str());
  ImGui::PopFont();
  ImGui::Spacing();
  // The lesson's objectives open its first step.
  if (app.step == 0 && !lesson.objectives.empty()) {
    ImGui::PushFont(app.fonts.bold);
    ImGui::TextUnformatted("In this lesson you learn to:");
    ImGui::PopFont();
    for (const std::string& o : lesson.objectives) {
      ImGui::Bullet();
      ImGui::TextWrapped("%s", o.c_str());
    }
    ImGui::Spacing();
  }
  const std::string base_dir = std::filesystem::path(lesson.file).parent_path().string();
  draw_markdown(app.text, app.fonts, ImGui::GetContentRegionAvail().x - 8, &app.lessons.glossary, base_dir);
}

}  // namespace

void init_app(App& app, LessonSet lessons) {
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is fixed: nothing to remember between runs
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0;
  style.WindowBorderSize = 1;
  style.FrameRounding = 3;
  style.Colors[ImGuiCol_WindowBg] = ImVec4(kBackground.r, kBackground.g, kBackground.b, kBackground.a);
  style.Colors[ImGuiCol_Border] = ImVec4(0.22f, 0.24f, 0.28f, 1.0f);
  app.fonts = load_fonts();
  use_lessons(app, std::move(lessons));
}

void use_lessons(App& app, LessonSet lessons) {
  app.lessons = std::move(lessons);
  app.lesson = -1;
  if (!app.lessons.lessons.empty()) open_step(app, 0, 0);
}

void open_step(App& app, int lesson, int step) {
  app.lesson = lesson;
  app.step = step;
  const LessonStep& s = app.lessons.lessons[lesson].steps[step];
  app.state = s.state;
  app.edited = false;
  app.text = parse_markdown(s.markdown);
  app.attempt.reset();
  if (!s.exercise.empty()) new_question(app);
  restore_exercise(app);  // the question and answer of an earlier run, if remembered
}

void draw_app_frame(App& app) {
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 size = io.DisplaySize;
  if (!ImGui::IsAnyItemActive() && !io.WantTextInput) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) go(app, -1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) go(app, +1);
  }
  lecture_keys(app);
  // Presenting: no lesson panel, the scene and the text take the whole width.
  const float left_w = app.presenting ? 0.0f : std::floor(std::clamp(size.x * 0.24f, 250.0f, 340.0f));
  const float scene_h = std::floor(size.y * 0.63f);

  if (!app.presenting) {
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(left_w, size.y));
    ImGui::Begin("##lessons", nullptr, kPanel);
    lesson_panel(app);
    ImGui::End();
  }
  app.scene_rect = {ImVec2(left_w, 0), ImVec2(size.x, scene_h)};
  if (!app.presenting && draw_lab_window(app.fonts, {ImVec2(left_w, 0), size})) return;  // an open lab covers the rest
  // A measured timeline file (tilescope --timeline F.json) covers the rest too (timeline_view.cpp).
  if (!app.presenting && draw_timeline_window(app.fonts, *app.sims, app.lesson, app.step, Rect{ImVec2(left_w, 0), size})) return;

  ImGui::SetNextWindowPos(ImVec2(left_w, 0));
  ImGui::SetNextWindowSize(ImVec2(size.x - left_w, scene_h));
  ImGui::Begin("##scene", nullptr, kPanel | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  scene_panel(app, {at, ImVec2(at.x + avail.x, at.y + avail.y)});
  ImGui::End();

  const bool source = shows_source_panel(app);
  const float text_w = source ? std::floor((size.x - left_w) * 0.55f) : size.x - left_w;
  ImGui::SetNextWindowPos(ImVec2(left_w, scene_h));
  ImGui::SetNextWindowSize(ImVec2(text_w, size.y - scene_h));
  ImGui::Begin("##text", nullptr, kPanel);
  text_panel(app);
  ImGui::End();

  if (source) {
    ImGui::SetNextWindowPos(ImVec2(left_w + text_w, scene_h));
    ImGui::SetNextWindowSize(ImVec2(size.x - left_w - text_w, size.y - scene_h));
    ImGui::Begin("##source", nullptr, kPanel | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    const ImVec2 at = ImGui::GetCursorScreenPos(), avail = ImGui::GetContentRegionAvail();
    const LessonStep* step = current_step(app);
    draw_source(step->source_file, step->source_line, step->source_lines, 4, app.fonts, false,
                ImGui::GetWindowDrawList(), {at, ImVec2(at.x + avail.x, at.y + avail.y)});
    ImGui::End();
  }
  if (app.presenting) presentation_hint(app);
}

}  // namespace ts::viz
