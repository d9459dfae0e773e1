// The Labs section: lab list, and the open lab's task, file, check result, timeline and banks.
// Checks run on a detached worker thread that shares only a reference-counted slot with the frame
// code; the frame asks every time whether the watched file's modification time has changed.
#include "viz/gui/lab_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "viz/gui/markdown.hpp"
#include "viz/gui/scenes.hpp"
#include "viz/lesson/lab_view_model.hpp"

namespace ts::viz {

namespace fs = std::filesystem;

namespace {

// What a worker hands back: written under the mutex, read by the frame.
struct CheckSlot {
  std::mutex mutex;
  bool running = false;
  std::shared_ptr<const lab::CheckResult> result;
  std::string error;  // the check could not run at all (no build configuration, ...)
};

struct OpenLab {
  lab::LabSpec spec;
  fs::path file;
  MdDoc task;
  bool watch = true;
  fs::file_time_type checked_mtime{};
  bool checked_once = false;
  std::shared_ptr<CheckSlot> slot = std::make_shared<CheckSlot>();
  bool show_reference = false;
  // Derived from the result shown, recomputed when it changes.
  const lab::CheckResult* modelled = nullptr;
  bool modelled_reference = false;
  PipelineModel timeline;
  std::vector<LabSmemAccess> accesses;
};

struct LabsUi {
  bool loaded = false;
  lab::LabList list;
  std::string list_error;
  fs::path dir;
  std::optional<OpenLab> open;
  int lesson = -2, step = -2;  // the app's, last frame
};

LabsUi& ui() {
  static LabsUi u;
  return u;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

[[maybe_unused]] void load_list(LabsUi& u) {  // unused in the browser, which has no labs
  if (u.loaded) return;
  u.loaded = true;
  if (u.dir.empty()) u.dir = lab::default_labs_dir();
  try {
    u.list = lab::list_labs(u.dir);
  } catch (const std::exception& e) {
    u.list_error = e.what();
  }
}

void start_check(OpenLab& o) {
  {
    std::lock_guard lock(o.slot->mutex);
    if (o.slot->running) return;
    o.slot->running = true;
  }
  std::error_code ec;
  o.checked_mtime = fs::last_write_time(o.file, ec);
  o.checked_once = true;
  std::thread([slot = o.slot, spec = o.spec, file = o.file] {
    std::shared_ptr<const lab::CheckResult> r;
    std::string error;
    try {
      r = std::make_shared<const lab::CheckResult>(lab::check_lab(spec, file));
    } catch (const std::exception& e) {
      error = e.what();
    }
    std::lock_guard lock(slot->mutex);
    slot->running = false;
    if (r) slot->result = r;
    slot->error = error;
  }).detach();
}

ImU32 kind_colour(sim::OpKind k) {
  switch (k) {
    case sim::OpKind::tma_load: return colour::tma;
    case sim::OpKind::tma_store:
    case sim::OpKind::tma_store_wait: return colour::epilogue;
    case sim::OpKind::mma: return colour::mma;
    case sim::OpKind::wait:
    case sim::OpKind::mma_wait:
    case sim::OpKind::block_sync:
    case sim::OpKind::warpgroup_sync: return colour::waiting;
    case sim::OpKind::smem_load:
    case sim::OpKind::smem_store:
    case sim::OpKind::gmem_load:
    case sim::OpKind::gmem_store: return IM_COL32(200, 120, 230, 255);
    case sim::OpKind::math: return IM_COL32(230, 210, 90, 255);
    default: return colour::faint;
  }
}

// The per-warp Gantt rows of the pipeline model: one bar per span, coloured by what the warp does.
void draw_timeline(const PipelineModel& m, double clock_mhz, const Fonts& f, ImDrawList* dl, Rect area) {
  if (m.rows.empty() || m.last <= m.first) {
    text_at(dl, f.small, area.min, colour::dim_text, "no timeline");
    return;
  }
  const float label_w = 90, x0 = area.min.x + label_w, x1 = area.max.x - 4;
  const float row_h = std::clamp((area.height() - 20) / static_cast<float>(m.rows.size()), 6.0f, 22.0f);
  const auto x = [&](double t) { return x0 + static_cast<float>((t - m.first) / (m.last - m.first)) * (x1 - x0); };
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const float y = area.min.y + i * row_h;
    if (y + row_h > area.max.y - 18) break;
    text_at(dl, f.small, ImVec2(area.min.x, y + (row_h - 13) / 2), colour::text, m.rows[i].label);
    float last_px = -1;
    for (const GanttBar& b : m.rows[i].bars) {
      const float a = x(b.start), e = std::max(x(b.end), a + 1);
      if (e < last_px) continue;  // many spans in one pixel column: draw the first
      dl->AddRectFilled(ImVec2(a, y + 2), ImVec2(e, y + row_h - 2), kind_colour(b.kind));
      last_px = e;
    }
    dl->AddLine(ImVec2(x0, y + row_h - 1), ImVec2(x1, y + row_h - 1), colour::faint);
  }
  char axis[96];
  std::snprintf(axis, sizeof axis, "%.2f us of SM 0 (%.0f cycles)", (m.last - m.first) / clock_mhz, m.last - m.first);
  text_at(dl, f.small, ImVec2(x0, area.max.y - 16), colour::dim_text, axis);
  float lx = x0 + 200;
  for (auto [col, name] : {std::pair{colour::tma, "TMA"}, {colour::mma, "MMA"}, {colour::waiting, "waits"},
                           {IM_COL32(200, 120, 230, 255), "shared"}, {IM_COL32(230, 210, 90, 255), "math"},
                           {colour::epilogue, "store"}})
    lx = legend_item(dl, f, ImVec2(lx, area.max.y - 16), col, name);
}

void remodel(OpenLab& o, const lab::CheckResult* r) {
  if (o.modelled == r && o.modelled_reference == o.show_reference) return;
  o.modelled = r;
  o.modelled_reference = o.show_reference;
  o.timeline = {};
  o.accesses.clear();
  if (!r) return;
  const lab::SimSummary* s = o.show_reference && r->reference ? &*r->reference : r->sim ? &*r->sim : nullptr;
  if (!s) return;
  o.timeline = lab_timeline(*s);
  if (s->trace) o.accesses = lab_smem_accesses(*s->trace);
}

}  // namespace

void open_lab(const fs::path& labs_dir, const std::string& id, const fs::path& file, const lab::CheckResult* result) {
  LabsUi& u = ui();
  u.dir = labs_dir;
  u.loaded = false;
  load_list(u);
  OpenLab o;
  o.spec = lab::load_lab(labs_dir / id);
  o.file = file;
  o.task = parse_markdown(read_text(o.spec.task));
  if (result) {
    o.watch = false;
    o.slot->result = std::make_shared<const lab::CheckResult>(*result);
  }
  u.open = std::move(o);
}

void close_lab() { ui().open.reset(); }

void labs_section(const Fonts& f, int lesson, int step) {
  LabsUi& u = ui();
  if (u.open && u.lesson > -2 && (lesson != u.lesson || step != u.step)) u.open.reset();  // a lesson step was opened
  u.lesson = lesson, u.step = step;
  ImGui::Spacing();
  ImGui::PushFont(f.bold);
  ImGui::TextUnformatted("Labs");
  ImGui::PopFont();
  ImGui::Separator();
#ifdef __EMSCRIPTEN__
  // A lab compiles the student's file with this machine's compiler and runs it in a child process:
  // neither exists in a browser. One line, as the desktop's without a labs folder, so the sidebar
  // keeps the desktop's layout; the note under the page's canvas links the desktop set-up.
  ImGui::TextDisabled("labs: in the desktop app (note below)");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Labs compile and check a kernel you write, so they need the desktop app:\n"
                      "on Debian, clone TileScope and run scripts/run-gui (README, \"Set up (fresh Debian 12)\").");
  return;
#endif
  load_list(u);
  if (!u.list_error.empty()) ImGui::TextDisabled("%s", u.list_error.c_str());
  for (size_t i = 0; i < u.list.labs.size(); ++i) {
    const lab::LabSpec& l = u.list.labs[i];
    const bool selected = u.open && u.open->spec.id == l.id;
    const std::string label = std::to_string(i + 1) + ". " + l.title + "##lab" + l.id;
    if (ImGui::Selectable(label.c_str(), selected)) {
      try {
        open_lab(u.dir, l.id, fs::current_path() / (l.id + ".cpp"));
      } catch (const std::exception& e) {
        u.list_error = e.what();
      }
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", l.summary.c_str());
  }
  for (const auto& e : u.list.errors) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colour::error));
    ImGui::TextWrapped("%s", e.c_str());
    ImGui::PopStyleColor();
  }
}

bool draw_lab_window(const Fonts& f, Rect area) {
  LabsUi& u = ui();
  if (!u.open) return false;
  OpenLab& o = *u.open;
  std::error_code ec;
  const bool exists = fs::exists(o.file, ec);
  if (o.watch && exists) {
    const auto mtime = fs::last_write_time(o.file, ec);
    if (!o.checked_once || mtime != o.checked_mtime) start_check(o);  // a save: check again
  }
  bool running = false;
  std::shared_ptr<const lab::CheckResult> result;
  std::string error;
  {
    std::lock_guard lock(o.slot->mutex);
    running = o.slot->running;
    result = o.slot->result;
    error = o.slot->error;
  }

  ImGui::SetNextWindowPos(area.min);
  ImGui::SetNextWindowSize(ImVec2(area.width(), area.height()));
  ImGui::Begin("##lab", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  ImGui::PushFont(f.heading);
  ImGui::TextUnformatted(o.spec.title.c_str());
  ImGui::PopFont();
  ImGui::TextDisabled("watching %s", o.file.string().c_str());
  if (!exists) {
    ImGui::TextWrapped("No file yet. Start copies the lab's starter there (an existing file is never replaced).");
    if (ImGui::Button("Start")) {
      fs::create_directories(o.file.parent_path(), ec);
      if (!fs::exists(o.file)) fs::copy_file(o.spec.starter, o.file, ec);
    }
  } else {
    if (ImGui::Button("Check now") && !running) start_check(o);
  }
  ImGui::SameLine();
  if (ImGui::Button("Back to the lessons")) {
    ImGui::End();
    u.open.reset();
    return false;
  }
  if (running) {
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colour::highlight), "compiling and checking...");
  }
  if (!error.empty()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colour::error), "%s", error.c_str());

  const float task_w = std::floor(area.width() * 0.38f);
  ImGui::BeginChild("##task", ImVec2(task_w, 0), true);
  draw_markdown(o.task, f, task_w - 24, nullptr, o.spec.dir.string());
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("##result", ImVec2(0, 0), true);
  if (result) {
    const bool pass = result->status == lab::Status::pass;
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pass ? colour::good : colour::error), "%s",
                       pass ? "PASS" : ("FAIL: " + lab::status_name(result->status)).c_str());
    if (result->reference) {
      ImGui::SameLine();
      if (!pass) ImGui::BeginDisabled();
      ImGui::Checkbox("show the reference solution's timeline", &o.show_reference);
      if (!pass) {
        ImGui::EndDisabled();
        o.show_reference = false;
      }
    }
    ImGui::PushFont(f.mono);
    const float text_h = std::min(ImGui::GetContentRegionAvail().y * 0.4f, 260.0f);
    ImGui::BeginChild("##report", ImVec2(0, text_h), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted(lab::format_text(*result).c_str());
    ImGui::EndChild();
    ImGui::PopFont();
    remodel(o, result.get());
    const ImVec2 at = ImGui::GetCursorScreenPos(), avail = ImGui::GetContentRegionAvail();
    const float timeline_h = std::floor(avail.y * 0.5f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const lab::SimSummary* s = o.show_reference && result->reference ? &*result->reference : result->sim ? &*result->sim : nullptr;
    if (s) {
      text_at(dl, f.bold, at, colour::white, o.show_reference ? "Timeline of the reference solution (simulated)" : "Timeline (simulated)");
      draw_timeline(o.timeline, s->clock_mhz, f, dl, {ImVec2(at.x, at.y + 20), ImVec2(at.x + avail.x, at.y + timeline_h)});
      const float by = at.y + timeline_h + 6;
      text_at(dl, f.bold, ImVec2(at.x, by), colour::white, "Shared-memory accesses (block 0) and their banks");
      float ty = by + 20;
      for (size_t i = 0; i < o.accesses.size() && i < 4; ++i) {
        const auto& a = o.accesses[i];
        char line[256];
        std::snprintf(line, sizeof line, "%s: %llu instructions, %llu wavefronts, %llu conflicts", a.text.c_str(),
                      static_cast<unsigned long long>(a.instructions), static_cast<unsigned long long>(a.wavefronts),
                      static_cast<unsigned long long>(a.conflicts));
        text_at(dl, f.small, ImVec2(at.x, ty), a.conflicts ? colour::error : colour::text, line);
        ty += text_size(f.small, line).y + 3;
      }
      if (o.accesses.empty()) text_at(dl, f.small, ImVec2(at.x, ty), colour::dim_text, "no register <-> shared moves (TMA and wgmma do not pass through the banks)");
      const std::optional<BanksState> banks = o.accesses.empty() ? std::nullopt : lab_banks_state(o.accesses.front());
      // The banks scene's own picture of the worst access (its first subtile), below the list.
      if (banks && at.y + avail.y - ty > 120)
        draw_banks(*banks, {}, f, dl, {ImVec2(at.x, ty + 12), ImVec2(at.x + avail.x, at.y + avail.y)});
    }
  } else if (!running && exists) {
    ImGui::TextDisabled("not checked yet");
  }
  ImGui::EndChild();
  ImGui::End();
  return true;
}

}  // namespace ts::viz
