#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <memory>

#include "app/compare_timeline.hpp"
#include "app/lab_gui.hpp"
#include "app/lessons_folder.hpp"
#include "app/sim_runs.hpp"
#include "app/timeline_gui.hpp"
#ifdef TILESCOPE_HAVE_GUI
#include "viz/gui/gui.hpp"
#include "viz/gui/timeline_view.hpp"
#endif

namespace ts::app {

namespace {

// "1280x800" -> {1280, 800}.
std::pair<int, int> parse_size(const std::string& text) {
  const auto bad = [&] { return UsageError("--size '" + text + "' is not WIDTHxHEIGHT in pixels, e.g. 1280x800"); };
  const size_t x = text.find('x');
  if (x == std::string::npos) throw bad();
  int w = 0, h = 0;
  const char* end = text.data() + text.size();
  const auto rw = std::from_chars(text.data(), text.data() + x, w);
  const auto rh = std::from_chars(text.data() + x + 1, end, h);
  if (rw.ec != std::errc() || rw.ptr != text.data() + x || rh.ec != std::errc() || rh.ptr != end || w < 1 || h < 1)
    throw bad();
  return {w, h};
}

}  // namespace

void open_timeline_in_gui(const TimelineGuiArgs& a, bool strict) {
#ifdef TILESCOPE_HAVE_GUI
  viz::TimelineFile file;
  file.file = a.file;
  try {
    file.measured = read_measured_timeline(a.file);
  } catch (const UsageError& e) {
    if (strict) throw;
    std::cerr << "tilescope: " << e.what() << "\n";
    file.error = e.what();
  }
  if (file.error.empty()) {
    // The simulation records the SMs that ran the recorded blocks (the first wave's block b runs on SM b).
    uint32_t last_block = 0;
    for (const sim::Span& s : file.measured.spans) last_block = std::max(last_block, s.block);
    const sim::MachineSpec machine = machine_from("");
    const unsigned sms = std::clamp<unsigned>(last_block + 1, 4, static_cast<unsigned>(machine.sm_count.value));
    file.simulate = [measured = file.measured, name = a.file, machine, sms] {
      return simulate_recorded(measured, name, machine, sms, false);
    };
  }
  viz::open_timeline_view(std::move(file), {.block = a.block, .one_iteration = a.one_iteration});
#else
  (void)a;
  (void)strict;
  throw UsageError("this build has no GUI; `tilescope compare --timeline FILE` compares it as text");
#endif
}

VerbRun add_render_verb(CLI::App& cli) {
  struct Args {
    std::string lesson, out, size = "1280x800", lessons_dir, answer;
    int step = 1, frames = 15;
    double sim_wait = 300;
    bool teacher = false, present = false;
    uint64_t seed = 1;
    float zoom = 1;
    TimelineGuiArgs timeline;
    LabGuiArgs lab;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand("render", "Draw one lesson step, the whole app frame, to a PNG without a window");
  cmd->add_option("--lesson", args->lesson, "Lesson id (see: tilescope lessons); required unless --timeline or --lab");
  auto* step_option = cmd->add_option("--step", args->step, "Step number, from 1 (with --lesson)");
  cmd->add_option("--out", args->out, "PNG file to write")->required();
  cmd->add_option("--size", args->size, "WIDTHxHEIGHT in pixels")->capture_default_str();
  cmd->add_option("--frames", args->frames, "Frames timed after 3 warm-up frames")->capture_default_str();
  cmd->add_option("--lessons-dir", args->lessons_dir, "Folder of lesson files (default: $TILESCOPE_LESSONS_DIR, else lessons/)");
  cmd->add_option("--sim-wait", args->sim_wait, "Seconds to wait for the step's simulations (0: draw what is done)")
      ->capture_default_str();
  cmd->add_option("--answer", args->answer, "An exercise step: commit this answer and draw the feedback and the scene");
  cmd->add_flag("--teacher", args->teacher, "An exercise step: draw it as a teacher sees it (the key)");
  cmd->add_option("--seed", args->seed, "An exercise step: the seed its question is drawn with (not 0)")->capture_default_str();
  cmd->add_option("--zoom", args->zoom, "Draw everything this many times larger, as for a projector (1 to 3)")->capture_default_str();
  cmd->add_flag("--present", args->present, "Draw it in presentation mode (scene and text fill the frame), as the app's F5");
  cmd->add_option("--timeline", args->timeline.file,
                  "Draw the view of a measured timeline file (bench --timeline-measured) above the simulation of its "
                  "configuration, as `tilescope --timeline FILE` opens it, instead of a lesson step");
  cmd->add_option("--timeline-block", args->timeline.block, "--timeline: the recorded block to show (default: the first)");
  cmd->add_flag("--one-iteration", args->timeline.one_iteration,
                "--timeline: zoomed to one steady-state iteration of the first consumer warp, as its button does");
  cmd->add_option("--lab", args->lab.id, "Draw a kernel lab's view after checking your file, as the app's Labs section shows it");
  cmd->add_option("--file", args->lab.file, "--lab: the kernel file checked (default: ./ID.cpp)");
  return [cmd, args, step_option]() -> int {
    if (!cmd->parsed()) return -1;
    const bool timeline = !args->timeline.file.empty(), lab = !args->lab.id.empty();
    if (lab && (timeline || !args->lesson.empty())) throw UsageError("--lab draws a lab: give it without --lesson or --timeline");
    if (!lab && !args->lab.file.empty()) throw UsageError("--file goes with --lab ID");
    if (!timeline && !lab && args->lesson.empty()) throw UsageError("--lesson is required (or --timeline FILE, or --lab ID)");
    if (!timeline && !lab && step_option->count() == 0) throw UsageError("--step is required with --lesson");
    if (timeline && !args->lesson.empty()) throw UsageError("--timeline draws a timeline file, --lesson a lesson step: give one");
    if (!timeline && (args->timeline.block >= 0 || args->timeline.one_iteration))
      throw UsageError("--timeline-block and --one-iteration go with --timeline FILE");
#ifndef TILESCOPE_HAVE_GUI
    throw UsageError("this build has no GUI, so it cannot render (it needs GLFW, Dear ImGui, stb and md4c at build time)");
#endif
    // Bad input is refused before any window is opened, so it reads the same with or without a display.
    const auto [width, height] = parse_size(args->size);
    if (args->frames < 1 || args->frames > 1000) throw UsageError("--frames must be from 1 to 1000");
    if (!(args->sim_wait >= 0)) throw UsageError("--sim-wait must be 0 or more seconds");
    if (std::filesystem::path(args->out).extension() != ".png") throw UsageError("--out '" + args->out + "' must end in .png");
    viz::LessonSet set = load_lessons_or_usage_error(args->lessons_dir);
    // A timeline file's view is drawn over the first lesson's first step (the frame behind it).
    if (timeline || lab) {  // so is a lab's view
      if (set.lessons.empty()) throw UsageError(std::string(lab ? "--lab" : "--timeline") + " draws over the lesson app, and no lesson loaded");
      args->lesson = set.lessons.front().id, args->step = 1;
    }
    const int lesson = viz::find_lesson(set, args->lesson);
    if (lesson < 0) {
      std::string ids;
      for (const auto& l : set.lessons) ids += (ids.empty() ? "" : " ") + l.id;
      throw UsageError("unknown lesson '" + args->lesson + "' (lessons: " + (ids.empty() ? "none loaded" : ids) + ")");
    }
    const int steps = static_cast<int>(set.lessons[lesson].steps.size());
    if (args->step < 1 || args->step > steps)
      throw UsageError("lesson '" + args->lesson + "' has steps 1 to " + std::to_string(steps) + ", not " +
                       std::to_string(args->step));
#ifdef TILESCOPE_HAVE_GUI
    if (args->seed == 0) throw UsageError("--seed must not be 0");
    if (!(args->zoom >= 1 && args->zoom <= 3)) throw UsageError("--zoom must be from 1 to 3");
    if (timeline) open_timeline_in_gui(args->timeline, true);  // a bad file is refused before any window opens
    const std::string lab_result = lab ? open_lab_in_gui(args->lab) : "";  // the check runs before any window opens
    viz::HeadlessRenderer renderer(std::move(set));
    renderer.set_simulation_wait(args->sim_wait);
    viz::Classroom classroom;
    classroom.results_file.clear();  // a picture records no attempt
    classroom.seed = args->seed;
    classroom.teacher = args->teacher;
    classroom.answer = args->answer;
    classroom.zoom = args->zoom;
    renderer.set_classroom(classroom);
    renderer.set_presenting(args->present);
    if (width > renderer.max_size() || height > renderer.max_size())
      throw UsageError("--size " + args->size + " is larger than this OpenGL driver allows (" +
                       std::to_string(renderer.max_size()) + " pixels a side)");
    const viz::FrameCapture frame = renderer.render(lesson, args->step - 1, width, height, 3, args->frames);
    viz::write_png(args->out, frame);
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.2f", frame.median_ms);
    std::cout << "wrote " << args->out << " (" << width << "x" << height << "), "
              << (lab        ? "lab " + args->lab.id + " (" + lab_result + ")"
                  : timeline ? "timeline " + args->timeline.file
                             : "lesson " + args->lesson + " step " + std::to_string(args->step))
              << "; frame time " << ms << " ms (median of " << frame.frame_ms.size()
              << " frames after 3 warm-up frames, " << renderer.renderer_name() << ")\n";
    if (frame.simulations_pending)
      std::cout << "note: " << frame.simulations_pending << " simulation(s) still running after --sim-wait "
                << args->sim_wait << " s: the picture shows them as running\n";
#endif
    return 0;
  };
}

int run_lesson_gui(const std::string& lessons_dir, const GuiOptions& options) {
#ifdef TILESCOPE_HAVE_GUI
  viz::Classroom classroom;
  if (!options.student.empty()) classroom.student = options.student;
  if (!options.results_file.empty()) classroom.results_file = options.results_file;
  classroom.teacher = options.teacher;
  if (!(options.zoom >= 1 && options.zoom <= 3)) throw UsageError("--zoom must be from 1 to 3");
  classroom.zoom = options.zoom;
  return viz::run_gui(load_lessons_or_usage_error(lessons_dir), classroom,
                      {.present = options.present, .remember = !options.forget, .zoom_given = options.zoom_given});
#else
  (void)lessons_dir;
  (void)options;
  throw UsageError("this build has no GUI; run a verb (tilescope --help)");
#endif
}

}  // namespace ts::app
