// The exercises assess: every shipped exercise draws its parameters per attempt, its key is right
// (checked against the models the scenes draw), and it rejects the answers a student could get
// without understanding: the numbers printed elsewhere in the lesson, the answer to the lesson's
// own worked example (what the step's knobs show), a classmate's answer to other parameters, and
// always typing the most common answer. Also: the lesson syntax for ranges, and the results export.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "viz/lesson/barriers_model.hpp"
#include "viz/lesson/gemm_sim.hpp"
#include "viz/lesson/lesson.hpp"
#include "viz/lesson/quiz.hpp"
#include "viz/lesson/results.hpp"

using namespace ts::viz;
namespace fs = std::filesystem;

namespace {

const LessonSet& shipped() {
  static const LessonSet set = load_lessons(fs::path(TILESCOPE_TEST_LESSONS));
  return set;
}

struct ExerciseStep {
  const Lesson* lesson;
  const LessonStep* step;
};

std::vector<ExerciseStep> exercise_steps() {
  std::vector<ExerciseStep> v;
  for (const Lesson& l : shipped().lessons)
    for (const LessonStep& s : l.steps)
      if (!s.exercise.empty()) v.push_back({&l, &s});
  return v;
}

std::vector<Question> draws(const ExerciseStep& e, int n, uint64_t first_seed = 1) {
  std::vector<Question> qs;
  const QuizInfo* info = find_quiz(e.step->exercise);
  REQUIRE(info);
  for (int i = 0; i < n; ++i) qs.push_back(draw_question(*info, e.step->exercise_ranges, e.step->state, first_seed + i));
  return qs;
}

// Every number written in a lesson's prose, all steps: what a student can copy without thinking.
std::set<double> numbers_in(const Lesson& l) {
  std::set<double> out;
  for (const LessonStep& s : l.steps)
    for (double v : numbers_in_text(s.markdown)) out.insert(v);
  return out;
}

double share_accepted(const std::vector<Question>& qs, double value) {
  int n = 0;
  for (const Question& q : qs) n += accepts(q, value);
  return double(n) / double(qs.size());
}

}  // namespace

TEST_CASE("every lesson ends with at least one exercise, ten or more in all", "[quiz][lessons]") {
  REQUIRE(shipped().errors.empty());
  std::set<std::string> lessons_with, ids;
  for (const auto& e : exercise_steps()) lessons_with.insert(e.lesson->id), ids.insert(e.step->exercise);
  CHECK(lessons_with.size() == shipped().lessons.size());
  CHECK(exercise_steps().size() >= 10);
  CHECK(ids.size() >= 10);
  for (const auto& q : quizzes()) CHECK(ids.count(std::string(q.id)));  // no exercise is left unused
}

TEST_CASE("each shipped exercise draws valid, varied questions whose text never holds the key", "[quiz][lessons]") {
  for (const auto& e : exercise_steps()) {
    INFO(e.lesson->id << ": " << e.step->title << " (" << e.step->exercise << ")");
    const auto qs = draws(e, 200);
    std::map<double, int> keys;
    for (const Question& q : qs) {
      REQUIRE(q.error.empty());
      REQUIRE_FALSE(q.text.empty());
      CHECK(accepts(q, q.answer));
      CHECK_FALSE(accepts(q, q.answer + std::max(1.0, std::fabs(q.answer) * 0.05)));
      CHECK_FALSE(accepts(q, q.answer - std::max(1.0, std::fabs(q.answer) * 0.05)));
      CHECK(kind_of(q.reveal) == e.lesson->scene);
      // Never the configuration the step's knobs already show (read off, or swept to, before answering).
      if (e.lesson->scene != SceneKind::source && e.lesson->scene != SceneKind::accuracy)
        CHECK(knob_values(q.reveal) != knob_values(e.step->state));
      CHECK(validate(q.reveal).empty());
      // No number printed in the question is accepted as its answer.
      CHECK_FALSE(gives_away(q));
      ++keys[q.answer];
    }
    // Varied: several different keys, and no key right for more than 40 % of attempts, so always
    // typing the most common answer fails most of the time.
    CHECK(keys.size() >= 5);
    int most = 0;
    for (const auto& [k, n] : keys) most = std::max(most, n);
    CHECK(most <= 0.4 * qs.size());
  }
}

TEST_CASE("answers copied from the lesson or a classmate are rejected", "[quiz][lessons]") {
  for (const auto& e : exercise_steps()) {
    INFO(e.lesson->id << ": " << e.step->exercise);
    const auto qs = draws(e, 200);
    // Any number the lesson prints is right for at most 40 % of attempts.
    for (double v : numbers_in(*e.lesson)) {
      INFO("the lesson prints " << v);
      CHECK(share_accepted(qs, v) <= 0.4);
    }
    // A classmate's key (the next seed's question) is right for this attempt rarely.
    int copied = 0;
    for (size_t i = 1; i < qs.size(); ++i) copied += accepts(qs[i], qs[i - 1].answer);
    CHECK(copied <= 0.4 * qs.size());
  }
}

TEST_CASE("the lesson's own worked answers are never the key", "[quiz]") {
  // What a student reads off the step's knobs, or finds by sweeping the scene of the lesson's
  // example, is excluded from the draws.
  const auto drawn = [](const char* lesson, const char* id) {
    for (const auto& e : exercise_steps())
      if (e.lesson->id == lesson && e.step->exercise == id) return draws(e, 300);
    FAIL("no exercise " << id << " in " << lesson);
    return std::vector<Question>{};
  };
  for (const Question& q : drawn("memory-roofline", "gemm-intensity")) CHECK_FALSE(accepts(q, 4096.0 / 3));
  for (const Question& q : drawn("warp-specialization", "consumer-registers")) CHECK_FALSE(accepts(q, 232));
  for (const Question& q : drawn("tiles-fragments", "owner-lane")) CHECK_FALSE((q.params.at("view") == 2 && q.params.at("row") == 9 && q.params.at("col") == 5));
  for (const Question& q : drawn("persistent-skinny", "last-wave")) CHECK_FALSE((q.params.at("m") == 4096 && q.params.at("n") == 4096 && q.params.at("block_n") == 256));
}

TEST_CASE("exercise keys agree with the scenes and the kernel", "[quiz]") {
  const SceneState none = RooflineState{};
  CHECK(make_question("gemm-intensity", {{"n", 3072}}, none).answer == Approx(1024));
  // Lesson 5's own numbers: a 1,800-cycle load and 1,024-cycle slices need three stages.
  const Question s = make_question("stages-needed", {{"load", 1800}, {"block_n", 256}}, PipelineState{});
  CHECK(s.answer == 3);
  CHECK(make_question("stages-needed", {{"load", 1024}, {"block_n", 256}}, PipelineState{}).answer == 2);
  CHECK(make_question("consumer-registers", {{"producer", 24}}, RegistersState{}).answer == 240);
  CHECK(make_question("last-wave", {{"m", 4096}, {"n", 8192}, {"block_n", 256}}, GridState{}).answer == 1024 % 132);
  CHECK(make_question("last-wave", {{"m", 4224}, {"n", 4096}, {"block_n", 128}}, GridState{}).answer == 132);  // 33 x 32 = 1056 = 8 x 132
  // The kernel's own store_cols: the whole 64 x BlockN part of C where it fits beside the stages, else 16 KiB chunks.
  // Fills per output tile (C = one 128 x BlockN or 64 x BlockN tile).
  const auto fills = [](int bn, int consumers, int stages, int out) {
    return make_question("store-chunks", {{"m", 64 * consumers}, {"n", bn}, {"block_n", bn}, {"consumers", consumers},
                                          {"stages", stages}, {"out_bytes", out}},
                         SourceState{}).answer;
  };
  CHECK(fills(256, 2, 4, 2) == 4);  // 4 x 48 KiB + 64 KiB of C: chunks of 128 bf16 columns
  CHECK(fills(256, 2, 3, 2) == 2);  // 3 x 48 KiB + 64 KiB: the whole tile at once
  CHECK(fills(256, 2, 3, 4) == 8);  // fp32 C, 128 KiB: chunks of 64 columns
  CHECK(fills(256, 2, 2, 4) == 2);  // 2 x 48 KiB + 128 KiB fits
  CHECK(fills(128, 1, 4, 4) == 1);
  CHECK(make_question("store-chunks", {{"m", 256}, {"n", 512}, {"block_n", 192}, {"consumers", 2}, {"stages", 4}, {"out_bytes", 2}},
                      SourceState{}).error == "block_n must be 128 or 256, got 192");
  CHECK(make_question("clock-tflops", {{"n", 4096}, {"kcycles", 300}, {"mhz", 1500}}, AccuracyState{}).answer ==
        Approx(2.0 * 4096 * 4096 * 4096 / (300000 / 1.5e9) / 1e12));
  // The ring's bytes are what the simulated producer announces per stage, times the stages.
  for (uint32_t bn : {128u, 256u}) {
    BarriersState b;
    b.gemm = {256, 2 * bn, 256, 3, bn};
    const auto sim = simulate_gemm_run(gemm_run(b.gemm));
    REQUIRE(sim->error.empty());
    const BarriersModel m = barriers_model(*sim, b);
    REQUIRE(m.error.empty());
    const Question q = make_question("ring-bytes", {{"block_n", bn}, {"stages", 3}}, BarriersState{});
    CHECK(q.answer == 3.0 * m.stage_bytes);
  }
}

TEST_CASE("one seed, one question; the lesson's ranges bound the draws", "[quiz][lessons]") {
  const std::string text = "---\nid: q\ntitle: Q\nscene: roofline\n---\n\n## Ask\nexercise: gemm-intensity n=512..1024/256\n\nText.\n";
  const auto parsed = parse_lesson(text, "q.md");
  REQUIRE(std::holds_alternative<Lesson>(parsed));
  const LessonStep& step = std::get<Lesson>(parsed).steps[0];
  REQUIRE(step.exercise_ranges.size() == 1);
  CHECK(step.exercise_ranges[0].values == std::vector<int64_t>{512, 768, 1024});
  const QuizInfo& info = *find_quiz("gemm-intensity");
  std::set<int64_t> seen;
  for (uint64_t seed = 1; seed < 60; ++seed) {
    const Question q = draw_question(info, step.exercise_ranges, step.state, seed);
    seen.insert(q.params.at("n"));
    CHECK(q.text == draw_question(info, step.exercise_ranges, step.state, seed).text);
  }
  CHECK(seen == std::set<int64_t>{512, 768, 1024});

  const auto refused = [](const std::string& line) {
    const auto r = parse_lesson("---\nid: q\ntitle: Q\nscene: roofline\n---\n\n## Ask\n" + line + "\n\nText.\n", "q.md");
    REQUIRE(std::holds_alternative<LessonError>(r));
    CHECK(std::get<LessonError>(r).line == 8);
    return std::get<LessonError>(r).reason;
  };
  CHECK(refused("exercise: gemm-intensity n=1..5").find("not within 128..16384/128") != std::string::npos);
  CHECK(refused("exercise: gemm-intensity size=512").find("has no parameter 'size'") != std::string::npos);
  CHECK(refused("exercise: gemm-intensity n=512 n=1024").find("given twice") != std::string::npos);
  CHECK(refused("exercise: bank-conflicts").find("belongs to scene 'banks'") != std::string::npos);
  CHECK(refused("exercise: nope").find("unknown exercise") != std::string::npos);
}

TEST_CASE("answers are read as people type them", "[quiz]") {
  double v = 0;
  CHECK((parse_answer("1,365", v) && v == 1365));
  CHECK((parse_answer(" 12.5 ", v) && v == 12.5));
  CHECK_FALSE(parse_answer("about 12", v));
  CHECK_FALSE(parse_answer("", v));
  Question q;
  q.answer = 100, q.tolerance = 0.02;
  CHECK(accepts(q, 101.9));
  CHECK_FALSE(accepts(q, 102.1));
  q.tolerance = 0;
  CHECK_FALSE(accepts(q, 100.4));
}

TEST_CASE("attempts are appended, read back from several files, and exported as JSON", "[quiz][results]") {
  const fs::path dir = fs::temp_directory_path() / ("tilescope-results-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Question q = make_question("gemm-intensity", {{"n", 3072}}, RooflineState{});
  append_attempt(dir / "ada.jsonl", make_attempt(q, "ada", "memory-roofline", 8, "1000", 1000));
  append_attempt(dir / "ada.jsonl", make_attempt(q, "ada", "memory-roofline", 8, "1,024", 1024));
  append_attempt(dir / "bob.jsonl", make_attempt(q, "bob", "memory-roofline", 8, "1365", 1365));
  { std::ofstream(dir / "bob.jsonl", std::ios::app) << "not json\n"; }
  const std::vector<fs::path> files = {dir / "ada.jsonl", dir / "bob.jsonl", dir / "nobody.jsonl"};
  const ResultsFile r = load_results(files);
  REQUIRE(r.attempts.size() == 3);
  CHECK(r.attempts[1].right);
  CHECK_FALSE(r.attempts[2].right);
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].find("bob.jsonl:2:") != std::string::npos);
  const auto doc = nlohmann::json::parse(results_json(r, files));
  CHECK(doc["attempts"].size() == 3);
  REQUIRE(doc["students"].size() == 2);
  const auto& ada = doc["students"][0];
  CHECK(ada["student"] == "ada");
  CHECK(ada["solved"] == 1);
  CHECK(ada["exercises"][0]["attempts"] == 2);
  CHECK(ada["exercises"][0]["first_right_attempt"] == 2);
  CHECK(doc["students"][1]["solved"] == 0);
  CHECK(doc["attempts"][0]["params"]["n"] == 3072);
  fs::remove_all(dir);
}

TEST_CASE("the export checks each attempt against the lessons: an edited verdict is caught", "[quiz][results]") {
  const auto steps = exercise_steps();
  REQUIRE_FALSE(steps.empty());
  const ExerciseStep& e = steps[0];
  int step_no = 0;
  for (size_t i = 0; i < e.lesson->steps.size(); ++i)
    if (&e.lesson->steps[i] == e.step) step_no = static_cast<int>(i) + 1;
  const Question q = draw_question(*find_quiz(e.step->exercise), e.step->exercise_ranges, e.step->state, 42);
  ResultsFile r;
  r.attempts.push_back(make_attempt(q, "ada", e.lesson->id, step_no, "1", 1));          // wrong, honestly recorded
  r.attempts.push_back(make_attempt(q, "bob", e.lesson->id, step_no, "1", 1));
  r.attempts.back().right = true;                                                    // edited to right
  r.attempts.push_back(make_attempt(q, "cy", e.lesson->id, step_no, std::to_string(q.answer), q.answer));  // right
  CHECK(check_attempt(r.attempts[0], shipped()).agrees);
  CHECK_FALSE(check_attempt(r.attempts[1], shipped()).agrees);
  CHECK(check_attempt(r.attempts[1], shipped()).checked);
  CHECK(check_attempt(r.attempts[2], shipped()).agrees);
  Attempt moved = r.attempts[2];
  moved.seed = 43;  // another seed draws another question: nothing can be said
  CHECK_FALSE(check_attempt(moved, shipped()).checked);

  const auto doc = nlohmann::json::parse(results_json(r, {}, &shipped()));
  CHECK(doc["attempts"][1]["verified"] == false);
  CHECK(doc["attempts"][2]["verified"] == true);
  const auto& bob = doc["students"][1];
  CHECK(bob["student"] == "bob");
  CHECK(bob["solved"] == 0);  // the edited verdict does not count
  CHECK(bob["exercises"][0]["contradicted"] == 1);
  CHECK(doc["students"][2]["solved"] == 1);

  // The gradebook: a row per student, right/attempts under the exercise's column.
  const std::string csv = results_csv(r, shipped());
  const std::string column = e.lesson->id + "/" + std::to_string(step_no) + " " + e.step->exercise;
  CHECK(csv.rfind("student,solved," + column, 0) == 0);
  CHECK(csv.find("\nada,0,0/1") != std::string::npos);
  CHECK(csv.find("\nbob,0,0/1") != std::string::npos);  // the edited verdict does not count
  CHECK(csv.find("\ncy,1,1/1") != std::string::npos);
}
