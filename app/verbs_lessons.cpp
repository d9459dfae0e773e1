#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include "app/lessons_folder.hpp"
#include "viz/lesson/attention_models.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/measured.hpp"
#include "viz/lesson/results.hpp"

namespace ts::app {

viz::LessonSet load_lessons_or_usage_error(const std::string& dir) {
  const std::filesystem::path path = dir.empty() ? viz::default_lessons_dir() : std::filesystem::path(dir);
  try {
    return viz::load_lessons(path);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

// Exit status: 0 when every lesson file loads; 1 when some do not (the others are still listed,
// each failure is one "file:line: reason" line on stderr), so that a teacher's script can check a
// folder; 2 for bad input (no such folder, or a folder with no lesson files).
namespace {

// How long the simulator takes for each step's configuration, GEMM or attention: what a knob change
// that leads to a new configuration costs before the scene can redraw (every run is fresh here, no
// cache).
int print_sim_timing(const viz::LessonSet& set) {
  struct Timing {
    double wall_ms, cpu_ms;
    uint64_t ops;
  };
  std::vector<double> quick_wall, quick_cpu;
  std::map<std::string, Timing> seen;  // run key -> its timing
  // A run's timing, simulated the first time its key comes up (GEMM and attention keys differ).
  const auto timing = [&](const std::string& key, bool quick, const auto& simulate) -> const Timing& {
    auto it = seen.find(key);
    if (it == seen.end()) {
      it = seen.emplace(key, simulate()).first;
      if (quick) quick_wall.push_back(it->second.wall_ms), quick_cpu.push_back(it->second.cpu_ms);
    }
    return it->second;
  };
  std::printf("%-20s %4s  %-52s %8s %8s %10s\n", "lesson", "step", "simulated configuration", "wall ms", "cpu ms", "ops");
  for (const auto& lesson : set.lessons)
    for (size_t s = 0; s < lesson.steps.size(); ++s) {
      const auto row = [&](const std::string& what, const Timing& t, bool quick) {
        std::printf("%-20s %4zu  %-52s %8.1f %8.1f %10llu%s\n", lesson.id.c_str(), s + 1, what.substr(0, 52).c_str(), t.wall_ms,
                    t.cpu_ms, (unsigned long long)t.ops, quick ? "" : "  (slow: in the background)");
      };
      const auto refuse = [&](const std::string& error) {
        if (!error.empty()) throw std::runtime_error(lesson.id + " step " + std::to_string(s + 1) + ": " + error);
      };
      // The attention scenes' runs (each forward or backward pass: its launches together).
      for (const viz::AttentionRun& arun : viz::scene_attention_runs(lesson.steps[s].state)) {
        const Timing& t = timing(arun.key(), arun.quick(), [&] {
          const auto sim = viz::simulate_attention_run(arun);
          refuse(sim->error);
          uint64_t ops = 0;
          for (const auto& l : sim->launches) ops += l.report.ops;
          return Timing{sim->wall_ms, sim->cpu_ms, ops};
        });
        row(kernels::describe(arun.shape) + (arun.backward ? " bwd" : " fwd") +
                (arun.cfg.consumers > 0 ? " c" + std::to_string(arun.cfg.consumers) : "") +
                (arun.cfg.overlap >= 0 ? " overlap " + std::to_string(arun.cfg.overlap) : ""),
            t, arun.quick());
      }
      const auto run = viz::scene_run(lesson.steps[s].state);
      if (!run) continue;
      const Timing& t = timing(run->key(), run->quick(), [&] {
        const auto sim = viz::simulate_gemm_run(*run);
        refuse(sim->error);
        return Timing{sim->wall_ms, sim->cpu_ms, sim->report.ops};
      });
      // The key without the machine and the fixed parts: shape, stages, order, persistence.
      row(std::to_string(run->shape.m) + "x" + std::to_string(run->shape.n) + "x" + std::to_string(run->shape.k) + " " +
              viz::short_config(run->cfg),
          t, run->quick());
    }
  if (quick_wall.empty()) return 0;
  const auto summary = [](std::vector<double> v, const char* what) {
    std::sort(v.begin(), v.end());
    const auto over = std::count_if(v.begin(), v.end(), [](double ms) { return ms > 100; });
    std::printf("%s: median %.1f ms, max %.1f ms, %ld of %zu over 100 ms\n", what, v[v.size() / 2], v.back(),
                static_cast<long>(over), v.size());
  };
  std::printf("\ndistinct quick configurations (re-simulated when a knob changes):\n");
  summary(quick_wall, "  wall time");
  summary(quick_cpu, "  CPU time ");
  return 0;
}

}  // namespace

VerbRun add_lessons_verb(CLI::App& cli) {
  auto dir = std::make_shared<std::string>();
  auto timing = std::make_shared<bool>(false);
  auto results = std::make_shared<bool>(false);
  auto key = std::make_shared<bool>(false);
  auto csv = std::make_shared<bool>(false);
  auto seeds = std::make_shared<std::vector<uint64_t>>();
  auto results_files = std::make_shared<std::vector<std::string>>();
  auto* cmd = cli.add_subcommand("lessons", "List the lessons and their steps, and check the lesson files");
  cmd->add_option("--dir,--lessons-dir", *dir, "Folder of lesson files (default: $TILESCOPE_LESSONS_DIR, else lessons/)");
  cmd->add_flag("--sim-timing", *timing, "Time the simulation behind each step's scene instead of listing the steps");
  cmd->add_flag("--results", *results,
                "Print the exercise attempts as JSON (every attempt, and per student and exercise: attempts, right, first right)");
  cmd->add_option("--results-file", *results_files,
                  "With --results: a results file to read, repeatable (default: $TILESCOPE_RESULTS, else "
                  "~/.local/share/tilescope/results.jsonl)");
  cmd->add_flag("--key", *key,
                "Print every exercise's question and key for the given seeds (an attempt's seed, from the results, "
                "gives exactly the question that student saw)");
  cmd->add_option("--seed", *seeds, "With --key: seeds to draw with, repeatable (default 1)");
  cmd->add_flag("--csv", *csv, "With --results: a gradebook instead, one CSV row per student, right/attempts per exercise");
  return [cmd, dir, timing, results, results_files, key, seeds, csv]() -> int {
    if (!cmd->parsed()) return -1;
    if (!seeds->empty() && !*key) throw UsageError("--seed needs --key");
    if (*csv && !*results) throw UsageError("--csv needs --results");
    if (*key) {
      const viz::LessonSet set = load_lessons_or_usage_error(*dir);
      const std::vector<uint64_t> draw = seeds->empty() ? std::vector<uint64_t>{1} : *seeds;
      for (const auto& l : set.lessons)
        for (size_t s = 0; s < l.steps.size(); ++s) {
          const viz::LessonStep& step = l.steps[s];
          if (step.exercise.empty()) continue;
          const viz::QuizInfo* info = viz::find_quiz(step.exercise);
          for (uint64_t seed : draw) {
            const viz::Question q = viz::draw_question(*info, step.exercise_ranges, step.state, seed);
            std::cout << l.id << " step " << s + 1 << ", " << step.exercise << ", seed " << seed << "\n  " << q.text
                      << "\n  key: " << viz::key_text(q) << " (" << q.explanation << ")\n";
          }
        }
      for (const auto& e : set.errors) std::cerr << e.text() << "\n";
      return set.errors.empty() ? 0 : 1;
    }
    if (!results_files->empty() && !*results) throw UsageError("--results-file needs --results");
    if (*results) {
      std::vector<std::filesystem::path> files(results_files->begin(), results_files->end());
      if (files.empty()) files.push_back(viz::default_results_file());
      const viz::ResultsFile r = viz::load_results(files);
      // Each attempt is checked against the lessons (its seed draws the question again).
      const viz::LessonSet lessons = load_lessons_or_usage_error(*dir);
      std::cout << (*csv ? viz::results_csv(r, lessons) : viz::results_json(r, files, &lessons) + "\n");
      for (const auto& p : r.problems) std::cerr << p << "\n";
      return r.problems.empty() ? 0 : 1;
    }
    const viz::LessonSet set = load_lessons_or_usage_error(*dir);
    if (*timing) {  // the lessons that load are timed; the others named as in the listing, exit 1
      const int rc = print_sim_timing(set);
      for (const auto& e : set.errors) std::cerr << e.text() << "\n";
      return set.errors.empty() ? rc : 1;
    }
    if (set.lessons.empty() && set.errors.empty())
      throw UsageError("no lesson files (named like 01-name.md) in '" + (dir->empty() ? viz::default_lessons_dir().string() : *dir) + "'");
    for (size_t i = 0; i < set.lessons.size(); ++i) {
      const viz::Lesson& l = set.lessons[i];
      std::cout << i + 1 << ". " << l.title << "  [id " << l.id << ", scene " << viz::scene_info(l.scene).name
                << ", " << l.file << "]\n";
      for (size_t s = 0; s < l.steps.size(); ++s) {
        std::cout << "   " << s + 1 << ". " << l.steps[s].title;
        std::string knobs;
        for (const auto& k : l.steps[s].knobs) knobs += " " + k.name + "=" + k.value;
        if (!knobs.empty()) std::cout << "   (knobs:" << knobs << ")";
        if (!l.steps[s].exercise.empty()) std::cout << "   [exercise: " << l.steps[s].exercise << "]";
        std::cout << "\n";
      }
    }
    for (const auto& e : set.errors) std::cerr << e.text() << "\n";
    return set.errors.empty() ? 0 : 1;
  };
}

}  // namespace ts::app
