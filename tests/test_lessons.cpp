#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h>

#include "viz/lesson/banks_model.hpp"
#include "viz/lesson/lesson.hpp"
#include "viz/lesson/roofline_model.hpp"

using namespace ts::viz;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(TILESCOPE_TEST_FIXTURES) / "lessons";
const fs::path kLessons = fs::path(TILESCOPE_TEST_LESSONS);

const std::string kHeader = "---\nid: t\ntitle: T\nscene: banks\n---\n";

// The error text for a lesson that must fail, or "" if it parsed.
std::string error_of(const std::string& text) {
  const auto result = parse_lesson(text, "t.md");
  if (const auto* e = std::get_if<LessonError>(&result)) return e->text();
  return "";
}

Lesson parsed(const std::string& text) {
  auto result = parse_lesson(text, "t.md");
  if (const auto* e = std::get_if<LessonError>(&result)) FAIL(e->text());
  return std::get<Lesson>(std::move(result));
}

const BanksState& banks(const LessonStep& step) { return std::get<BanksState>(step.state); }

}  // namespace

TEST_CASE("a lesson: front matter, steps, knobs carried from step to step, highlights, prose", "[lessons]") {
  const Lesson l = parsed(kHeader +
                          "\n## First\nknobs: rows=32 swizzle=128B\nhighlight: tile banks\n\nSome **text**.\n\n"
                          "## Second\n\nknobs: access=col32 c=2\n\nMore text.\n```\n## not a step\nknobs: not=read\n```\n");
  CHECK(l.id == "t");
  CHECK(l.title == "T");
  CHECK(l.scene == SceneKind::banks);
  REQUIRE(l.steps.size() == 2);
  CHECK(l.steps[0].title == "First");
  CHECK(l.steps[0].line == 7);
  CHECK(l.steps[0].highlights == std::vector<std::string>{"tile", "banks"});
  CHECK(l.steps[0].markdown == "Some **text**.\n");
  CHECK(banks(l.steps[0]).rows == 32);
  CHECK(banks(l.steps[0]).swizzle == SwizzleKnob::b128);
  // The second step keeps rows and swizzle, and changes the access.
  CHECK(banks(l.steps[1]).rows == 32);
  CHECK(banks(l.steps[1]).swizzle == SwizzleKnob::b128);
  CHECK(banks(l.steps[1]).access == Access::col32);
  CHECK(l.steps[1].highlights.empty());
  CHECK(l.steps[1].markdown == "More text.\n```\n## not a step\nknobs: not=read\n```\n");
  REQUIRE(l.steps[1].knobs.size() == 2);
  CHECK(l.steps[1].knobs[1].name == "c");
  CHECK(l.steps[1].knobs[1].line == 15);
}

TEST_CASE("the first step starts from the scene's defaults", "[lessons]") {
  const Lesson l = parsed("---\nid: r\ntitle: R\nscene: roofline\n---\n## Only\nText\n");
  const auto& s = std::get<RooflineState>(l.steps[0].state);
  CHECK(s.machine == "h100-sxm");
  CHECK(s.gemm == 4096);
  CHECK(s.attn_rows == 16);
  CHECK(s.head_dim == 64);
}

TEST_CASE("malformed lessons are refused with file:line: reason", "[lessons]") {
  CHECK(error_of("## Step\n") == "t.md:1: a lesson begins with front matter: a '---' line, then id:, title: and scene:, then '---'");
  CHECK(error_of("---\nid: t\ntitle: T\n") == "t.md:3: front matter is not closed by a '---' line");
  CHECK(error_of("---\nid: t\ntitle: T\nscene: banks\nauthor: me\n---\n## S\n") ==
        "t.md:5: unknown front matter key 'author' (expected id, title, scene, objective)");
  CHECK(error_of("---\nid: t\nid: u\n---\n") == "t.md:3: front matter key 'id' given twice");
  CHECK(error_of("---\nid: Bad Id\ntitle: T\nscene: banks\n---\n## S\n") ==
        "t.md:2: id 'Bad Id' may only use a-z, 0-9 and '-'");
  CHECK(error_of("---\nid: t\ntitle: T\nscene: banks\n---\n") == "t.md:5: a lesson needs at least one step: a '## Title' line");
  CHECK(error_of(kHeader + "Intro text\n## S\n") == "t.md:6: text before the first step: begin each step with a '## Title' line");
  CHECK(error_of(kHeader + "## \n") == "t.md:6: a step heading needs a title: '## Title'");
  CHECK(error_of(kHeader + "## S\nknob: rows=8\n") ==
        "t.md:7: unknown step key 'knob:' (a step may begin with knobs:, highlight:, source: and exercise: lines)");
  CHECK(error_of(kHeader + "## S\nText first.\nknobs: rows=8\n") ==
        "t.md:8: 'knobs:' must come right after the step heading, before the step's text");
  CHECK(error_of(kHeader + "## S\nknobs: rows\n") == "t.md:7: knob 'rows' is not written name=value");
  CHECK(error_of(kHeader + "## S\nknobs: rows=8 rows=16\n") == "t.md:7: knob 'rows' set twice in this step");
  CHECK(error_of(kHeader + "## S\nknobs: colour=red\n") ==
        "t.md:7: unknown knob 'colour' for scene 'banks' (knobs: dtype rows cols swizzle pad access r c phase)");
  CHECK(error_of(kHeader + "## S\nknobs: rows=abc\n") == "t.md:7: knob 'rows' value 'abc' is not an integer from 1 to 256");
  CHECK(error_of(kHeader + "## S\nknobs: rows=0\n") == "t.md:7: knob 'rows' value '0' is not an integer from 1 to 256");
  CHECK(error_of(kHeader + "## S\nknobs: pad=6\n") == "t.md:7: knob 'pad' value '6' is not a multiple of 4 bytes (one bank word)");
  CHECK(error_of(kHeader + "## S\nhighlight: everything\n") ==
        "t.md:7: unknown highlight 'everything' for scene 'banks' (highlights: tile lanes banks totals)");
  // Knobs that parse one by one but not together are reported at the step's last knobs line.
  CHECK(error_of(kHeader + "## S\nknobs: dtype=fp32\n") == "t.md:7: ldmatrix moves 16-bit elements: set dtype=bf16");
  CHECK(error_of(kHeader + "## S\nknobs: swizzle=128B pad=16\n") ==
        "t.md:7: row padding only applies without a swizzle (swizzle=none)");
  CHECK(error_of(kHeader + "## S\nknobs: phase=4\n") == "t.md:7: phase 4 does not exist: ldsm4 has 4 phase(s) here, 0 to 3");
  CHECK(error_of(kHeader + "## S\n```\ncode\n") == "t.md:7: code block opened here is not closed");
  CHECK_THAT(error_of("---\nid: t\ntitle: T\nscene: roofline\n---\n## S\nknobs: machine=a100\n"),
             Catch::StartsWith("t.md:7: knob 'machine' value 'a100' names no machine file"));
}

TEST_CASE("the malformed fixtures name the exact file and line", "[lessons]") {
  const auto error = [](const char* name) {
    const auto result = load_lesson_file(kFixtures / "malformed" / name);
    REQUIRE(std::holds_alternative<LessonError>(result));
    return std::get<LessonError>(result).text();
  };
  const std::string dir = (kFixtures / "malformed").string() + "/";
  CHECK(error("01-missing-id.md") == dir + "01-missing-id.md:4: front matter has no 'id:'");
  CHECK(error("02-unknown-scene.md") == dir + "02-unknown-scene.md:4: unknown scene 'hologram' (scenes: roofline banks fragments pipeline grid accuracy barriers registers source softmax attn-flow overlap causal "
        "attn-backward attn-trust)");
  CHECK(error("03-bad-knob.md") ==
        dir + "03-bad-knob.md:13: knob 'swizzle' value '96B' is not one of: none 32B 64B 128B auto");
}

TEST_CASE("a folder with one good and one broken lesson gives one lesson and one error", "[lessons]") {
  const LessonSet set = load_lessons(kFixtures / "mixed");  // its README.md is not a lesson
  REQUIRE(set.lessons.size() == 1);
  CHECK(set.lessons[0].id == "good");
  REQUIRE(set.errors.size() == 1);
  CHECK(set.errors[0].text() == (kFixtures / "mixed" / "02-broken.md").string() +
                                    ":8: the 16x16 subtile at (r=8, c=0) does not fit a 16x64 tile");
  CHECK_THROWS_WITH(load_lessons(kFixtures / "no-such-folder"), Catch::Contains("does not exist"));
}

TEST_CASE("the shipped lessons load, in file-name order", "[lessons]") {
  const LessonSet set = load_lessons(kLessons);
  for (const auto& e : set.errors) FAIL(e.text());
  REQUIRE(set.lessons.size() >= 2);
  CHECK(set.lessons[0].id == "memory-roofline");
  CHECK(set.lessons[0].title == "The memory hierarchy and the roofline");
  CHECK(set.lessons[1].id == "banks-swizzles");
  CHECK(set.lessons[1].title == "Swizzled layouts and bank conflicts");
  for (const auto& l : set.lessons) {
    INFO(l.id);
    CHECK(l.steps.size() >= 4);
    CHECK(l.steps.size() <= 10);
    for (const auto& s : l.steps) CHECK_FALSE(s.markdown.empty());
  }
}

TEST_CASE("Prev and Next walk the steps and cross between lessons", "[lessons]") {
  const LessonSet set = load_lessons(kLessons);
  REQUIRE(set.lessons.size() >= 2);
  const int last0 = static_cast<int>(set.lessons[0].steps.size()) - 1;
  const int last_lesson = static_cast<int>(set.lessons.size()) - 1;
  const int last = static_cast<int>(set.lessons[last_lesson].steps.size()) - 1;
  CHECK(neighbour_step(set, {0, 0}, +1) == StepRef{0, 1});
  CHECK(neighbour_step(set, {0, 1}, -1) == StepRef{0, 0});
  CHECK(neighbour_step(set, {0, last0}, +1) == StepRef{1, 0});
  CHECK(neighbour_step(set, {1, 0}, -1) == StepRef{0, last0});
  CHECK(neighbour_step(set, {0, 0}, -1) == StepRef{0, 0});
  CHECK(neighbour_step(set, {last_lesson, last}, +1) == StepRef{last_lesson, last});
}

// The figures the lessons' prose states, computed by the same models the scenes draw.
TEST_CASE("the banks lesson's figures are what the bank model says", "[lessons][banks]") {
  const LessonSet set = load_lessons(kLessons);
  const int at = find_lesson(set, "banks-swizzles");
  REQUIRE(at >= 0);
  const auto& steps = set.lessons[at].steps;
  const auto totals = [&](size_t step) {
    const BanksAnalysis a = analyze_banks_scene(banks(steps.at(step)));
    REQUIRE(a.error.empty());
    return std::pair{a.report->wavefronts, a.report->conflicts};
  };
  CHECK(totals(0) == std::pair{4u, 0u});    // row-order 128-bit reads of the plain tile
  CHECK(totals(1) == std::pair{32u, 28u});  // ldmatrix.x4, plain 128-byte pitch: 8-way
  CHECK(totals(2) == std::pair{32u, 28u});  // the same, shown on phase 1
  CHECK(totals(3) == std::pair{4u, 0u});    // one 16-byte chunk of padding per row
  CHECK(totals(4) == std::pair{4u, 0u});    // 128B swizzle
  CHECK(resolve_swizzle(banks(steps.at(5))) == ts::layout::Swizzle::b128);  // auto on a 128-byte row
  CHECK(totals(6) == std::pair{4u, 0u});    // 64B swizzle: ldmatrix still conflict-free...
  BanksState rows = banks(steps.at(6));
  rows.access = Access::row128;
  CHECK(analyze_banks_scene(rows).report->wavefronts == 8);  // ...but a row read now costs 2-way
  rows.swizzle = SwizzleKnob::b32;
  CHECK(analyze_banks_scene(rows).report->wavefronts == 16);
}

TEST_CASE("the roofline lesson's figures are what the roofline model says", "[lessons][roofline]") {
  const auto h100 = ts::sim::load_machine("h100-sxm");
  const auto h200 = ts::sim::load_machine("h200");
  const RooflinePoint gemm = gemm_point(h100, 4096);
  CHECK(gemm.intensity == Approx(1365.33).epsilon(0.0001));
  CHECK(gemm.flops == Approx(137.4e9).epsilon(0.001));
  CHECK_FALSE(gemm.memory_bound);
  CHECK(gemm.attainable_tflops == Approx(989.4));
  const RooflinePoint attn = attention_point(h100, 16, 16, 64);
  CHECK(attn.flops == 32768);
  CHECK(attn.bytes == 2048);
  CHECK(attn.intensity == 16);
  CHECK(attn.memory_bound);
  CHECK(attn.attainable_tflops == Approx(53.6));
  CHECK(attention_point(h100, 16, 16, 128).intensity == 16);  // the head dimension cancels
  CHECK(gemm_point(h100, 880).memory_bound);  // n/3 below the ridge of ~295
  CHECK_FALSE(gemm_point(h100, 900).memory_bound);
  CHECK(attention_point(h100, 256, 16, 64).memory_bound);
  CHECK_FALSE(attention_point(h200, 256, 16, 64).memory_bound);
  CHECK(h100.bf16_dense_tflops.value / 3.0 == Approx(330).epsilon(0.001));  // the seed material's rounding
}

TEST_CASE("banks scene accesses land where tiles/layout puts them", "[banks]") {
  BanksState s;
  s.rows = 32;
  s.access = Access::col32;
  s.c = 2;
  BanksAnalysis a = analyze_banks_scene(s);
  REQUIRE(a.error.empty());
  REQUIRE(a.lanes.size() == 32);
  CHECK(a.lanes[5].row == 5);
  CHECK(a.lanes[5].byte_offset == 5 * 128 + 4);
  CHECK(a.report->wavefronts == 32);  // 32 rows, one bank
  s.pad = 4;
  CHECK(analyze_banks_scene(s).report->wavefronts == 1);  // a one-word pad fixes 32-bit columns
  s.pad = 0;
  s.rows = 16;  // lanes 16-31 wrap to rows 0-15 and read the same words: free
  CHECK(analyze_banks_scene(s).report->wavefronts == 16);
  // A 4-byte pad breaks the 16-byte alignment ldmatrix needs: the model says so.
  BanksState ld;
  ld.pad = 4;
  CHECK_THAT(analyze_banks_scene(ld).error, Catch::Contains("not aligned to 16 bytes"));
  // One row: every lane reads the same 16 bytes, a paired 128-bit load, which the bank model runs
  // as 2 phases of 16 lanes; the scene's phase knob follows the model.
  BanksState same;
  same.rows = 1;
  same.access = Access::col128;
  REQUIRE(analyze_banks_scene(same).report->phases() == 2);
  same.phase = 1;
  CHECK(validate(SceneState{same}).empty());
  same.phase = 2;
  CHECK_THAT(validate(SceneState{same}), Catch::Contains("has 2 phase(s) here"));
  // Chunk reads walk the rows in order across the end of a row.
  BanksState rowwise;
  rowwise.access = Access::row128;
  rowwise.c = 32;
  a = analyze_banks_scene(rowwise);
  REQUIRE(a.error.empty());
  CHECK(a.lanes[3].row == 0);
  CHECK(a.lanes[3].col == 56);
  CHECK(a.lanes[4].row == 1);
  CHECK(a.lanes[4].col == 0);
}

TEST_CASE("every shipped lesson states its objectives; every glossary link names an entry", "[lessons][glossary]") {
  const LessonSet set = load_lessons(kLessons);
  for (const auto& e : set.errors) FAIL(e.text());
  REQUIRE(set.glossary.entries.size() >= 30);
  std::set<std::string> linked;
  for (const auto& l : set.lessons) {
    INFO(l.id);
    CHECK(l.objectives.size() >= 2);
    CHECK(l.objectives.size() <= 5);
    CHECK(l.glossary_links.size() >= 1);
    for (const auto& link : l.glossary_links) {
      CHECK(set.glossary.find(link.slug) != nullptr);
      linked.insert(link.slug);
    }
  }
  // The glossary holds what the lessons use: every entry is linked from some lesson.
  for (const auto& e : set.glossary.entries) {
    INFO(e.term);
    CHECK(linked.count(e.slug));
  }
}

TEST_CASE("objectives, glossary links and images in a lesson file", "[lessons][glossary]") {
  const Lesson l = parsed("---\nid: t\ntitle: T\nscene: banks\nobjective: Count wavefronts\nobjective: Pick a swizzle\n---\n"
                          "\n## Step\nA [bank](glossary:bank) and a [wavefront](glossary:wavefront).\n");
  CHECK(l.objectives == std::vector<std::string>{"Count wavefronts", "Pick a swizzle"});
  REQUIRE(l.glossary_links.size() == 2);
  CHECK(l.glossary_links[1].slug == "wavefront");
  CHECK(l.glossary_links[1].line == 10);
  CHECK(error_of("---\nid: t\ntitle: T\nscene: banks\nobjective:\n---\n\n## S\nx\n") ==
        "t.md:5: front matter key 'objective' has no value");
  CHECK(error_of(kHeader + "\n## S\nSee ![a picture](no-such-picture.png).\n").starts_with(
      "t.md:8: image 'no-such-picture.png' not found"));
  CHECK(glossary_slug("Bank conflict") == "bank-conflict");
  CHECK(glossary_slug("expect_bytes") == "expect-bytes");
}

TEST_CASE("the glossary file is strict, and a link to no entry refuses its lesson", "[lessons][glossary]") {
  const auto g = parse_glossary("# Glossary\n\n## bank\nA slice.\n\n## Bank\nAgain.\n", "glossary.md");
  REQUIRE(std::holds_alternative<LessonError>(g));
  CHECK(std::get<LessonError>(g).text() == "glossary.md:6: glossary term 'Bank' is already defined at line 3");
  const auto empty = parse_glossary("## bank\n\n## lane\nA thread.\n", "glossary.md");
  REQUIRE(std::holds_alternative<LessonError>(empty));
  CHECK(std::get<LessonError>(empty).text() == "glossary.md:1: glossary term 'bank' has no definition");

  const fs::path dir = fs::temp_directory_path() / ("tilescope-glossary-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "glossary.md") << "# Glossary\n\n## bank\nOne of 32 slices.\n";
  std::ofstream(dir / "01-good.md") << kHeader << "\n## S\nA [bank](glossary:bank).\n";
  std::ofstream(dir / "02-bad.md") << "---\nid: bad\ntitle: B\nscene: banks\n---\n\n## S\nText.\n\nA [lane](glossary:lane).\n";
  const LessonSet set = load_lessons(dir);
  REQUIRE(set.lessons.size() == 1);
  REQUIRE(set.errors.size() == 1);
  CHECK(set.errors[0].text() == (dir / "02-bad.md").string() + ":10: no glossary entry 'lane' in " +
                                    (dir / "glossary.md").string() + " (write it as '## term')");
  fs::remove_all(dir);
}

TEST_CASE("tilescope banks draws each step of the banks lesson as text, with the scene's totals", "[lessons][banks]") {
  const LessonSet set = load_lessons(kLessons);
  const int l = find_lesson(set, "banks-swizzles");
  REQUIRE(l >= 0);
  for (const LessonStep& step : set.lessons[l].steps) {
    INFO(step.title);
    const BanksState& s = banks(step);
    const BanksAnalysis a = analyze_banks_scene(s);
    REQUIRE(a.report);
    const std::string picture = banks_picture(s);
    CHECK(picture.find("wavefronts " + std::to_string(a.report->wavefronts) + ", conflicts " +
                       std::to_string(a.report->conflicts)) != std::string::npos);
    CHECK(picture.find(banks_layout_text(s, a.tile)) == 0);
    // Every lane of the shown phase reads a chunk marked [..]; the tile has a line per row.
    CHECK(picture.find('[') != std::string::npos);
    CHECK(std::count(picture.begin(), picture.end(), '\n') >= s.rows + 8);
  }
}
