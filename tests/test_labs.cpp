// Lab specs and references, without compiling any kernel: every lab in labs/ loads, a broken spec
// names its file and line, and the reference functions compute what they say.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "viz/lesson/lab_reference.hpp"
#include "viz/lesson/lab_spec.hpp"

namespace fs = std::filesystem;
using namespace ts::lab;

TEST_CASE("every lab in labs/ loads, with its files and a reference function", "[labs]") {
  const LabList list = list_labs(fs::path(TILESCOPE_TEST_LABS));
  CHECK(list.errors.empty());
  REQUIRE(list.labs.size() >= 2);
  CHECK(list.labs.front().id == "tma-copy");
  for (const LabSpec& l : list.labs) {
    INFO(l.id);
    CHECK(fs::exists(l.starter));
    CHECK(fs::exists(l.solution));
    CHECK(!l.checks.empty());
    CHECK(!l.title.empty());
  }
}

TEST_CASE("a broken lab.json names the file and the line of the problem", "[labs]") {
  const fs::path dir = fs::temp_directory_path() / "tilescope-test-labs" / "broken";
  fs::create_directories(dir);
  for (const char* f : {"task.md", "starter.cpp", "solution.cpp"}) std::ofstream(dir / f) << "x\n";
  std::ofstream(dir / "lab.json") << "{\n  \"title\": \"t\",\n  \"params\": [\"M\"],\n  \"checks\": [{\"M\": 0}],\n}\n";
  CHECK_THROWS_WITH(load_lab(dir), Catch::Contains("lab.json:5: not valid JSON"));
  std::ofstream(dir / "lab.json") << "{\n  \"title\": \"t\",\n  \"params\": [\"M\"],\n  \"checks\": [{\"M\": 0}]\n}\n";
  CHECK_THROWS_WITH(load_lab(dir), Catch::Contains("lab.json:4: a shape of checks needs a positive integer for parameter 'M'"));
}

TEST_CASE("reference functions", "[labs]") {
  std::vector<Matrix> in = {Matrix{2, 3, {1, 2, 3, 4, 5, 6}}, Matrix{3, 2, {1, 0, 0, 1, 1, 1}}};
  std::vector<Matrix> out = {Matrix{2, 2, std::vector<double>(4)}};
  run_reference("matmul", in, out);
  CHECK(out[0].v == std::vector<double>{4, 5, 10, 11});
  std::vector<Matrix> t = {Matrix{3, 2, std::vector<double>(6)}};
  run_reference("transpose", {in[0]}, t);
  CHECK(t[0].v == std::vector<double>{1, 4, 2, 5, 3, 6});
  std::vector<Matrix> s = {Matrix{1, 2, std::vector<double>(2)}};
  run_reference("softmax_rows", {Matrix{1, 2, {0, std::log(3.0)}}}, s);
  CHECK(s[0].v[0] == Approx(0.25));
  CHECK_THROWS_WITH(run_reference("matmul", {in[0]}, out), Catch::Contains("takes A and B"));
  CHECK_THROWS_WITH(run_reference("teleport", in, out), Catch::Contains("unknown reference function"));
}
