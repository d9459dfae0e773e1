#include "viz/lesson/results.hpp"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "viz/lesson/lesson.hpp"

namespace ts::viz {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string now_utc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}

json to_json(const Attempt& a) {
  return {{"time_utc", a.time_utc}, {"student", a.student},   {"lesson", a.lesson},       {"step", a.step},
          {"exercise", a.exercise}, {"seed", a.seed},         {"params", a.params},       {"question", a.question},
          {"given", a.given},       {"value", a.value},       {"key", a.key},             {"tolerance", a.tolerance},
          {"unit", a.unit},         {"right", a.right}};
}

Attempt from_json(const json& j) {
  Attempt a;
  a.time_utc = j.at("time_utc").get<std::string>();
  a.student = j.at("student").get<std::string>();
  a.lesson = j.at("lesson").get<std::string>();
  a.step = j.at("step").get<int>();
  a.exercise = j.at("exercise").get<std::string>();
  a.seed = j.at("seed").get<uint64_t>();
  a.params = j.at("params").get<QuizParams>();
  a.question = j.value("question", "");
  a.given = j.value("given", "");
  a.value = j.at("value").get<double>();
  a.key = j.at("key").get<double>();
  a.tolerance = j.value("tolerance", 0.0);
  a.unit = j.value("unit", "");
  a.right = j.at("right").get<bool>();
  return a;
}

}  // namespace

std::string default_student() {
  if (auto s = env("TILESCOPE_STUDENT"); !s.empty()) return s;
  if (auto s = env("USER"); !s.empty()) return s;
  return "student";
}

fs::path default_results_file() {
  if (auto f = env("TILESCOPE_RESULTS"); !f.empty()) return f;
  if (auto d = env("XDG_DATA_HOME"); !d.empty()) return fs::path(d) / "tilescope" / "results.jsonl";
  if (auto h = env("HOME"); !h.empty()) return fs::path(h) / ".local" / "share" / "tilescope" / "results.jsonl";
  return "tilescope-results.jsonl";
}

Attempt make_attempt(const Question& q, const std::string& student, const std::string& lesson, int step,
                     const std::string& given, double value) {
  Attempt a;
  a.time_utc = now_utc();
  a.student = student;
  a.lesson = lesson;
  a.step = step;
  a.exercise = q.exercise;
  a.seed = q.seed;
  a.params = q.params;
  a.question = q.text;
  a.given = given;
  a.value = value;
  a.key = q.answer;
  a.tolerance = q.tolerance;
  a.unit = q.unit;
  a.right = accepts(q, value);
  return a;
}

void append_attempt(const fs::path& file, const Attempt& a) {
  std::error_code ec;
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
  std::ofstream out(file, std::ios::app);
  if (!out) throw std::runtime_error("cannot write the results file " + file.string());
  out << to_json(a).dump() << "\n";
  if (!out) throw std::runtime_error("cannot write the results file " + file.string());
}

ResultsFile load_results(const std::vector<fs::path>& files) {
  ResultsFile r;
  for (const auto& file : files) {
    std::ifstream in(file);
    if (!in) {
      if (fs::exists(file)) r.problems.push_back(file.string() + ":1: cannot read the file");
      continue;
    }
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        r.attempts.push_back(from_json(json::parse(line)));
      } catch (const std::exception& e) {
        r.problems.push_back(file.string() + ":" + std::to_string(line_no) + ": not an attempt (" + e.what() + ")");
      }
    }
  }
  return r;
}

AttemptCheck check_attempt(const Attempt& a, const LessonSet& lessons) {
  const int l = find_lesson(lessons, a.lesson);
  if (l < 0) return {false, false, "no lesson '" + a.lesson + "' now"};
  const auto& steps = lessons.lessons[l].steps;
  if (a.step < 1 || a.step > static_cast<int>(steps.size()) || steps[a.step - 1].exercise != a.exercise)
    return {false, false, "step " + std::to_string(a.step) + " of '" + a.lesson + "' no longer asks " + a.exercise};
  const LessonStep& step = steps[a.step - 1];
  const Question q = draw_question(*find_quiz(step.exercise), step.exercise_ranges, step.state, a.seed);
  if (q.text != a.question || q.params != a.params) return {false, false, "the exercise's question has changed since"};
  if (std::fabs(q.answer - a.key) > 1e-9 * std::max(1.0, std::fabs(q.answer)))
    return {true, false, "the recorded key is not the question's"};
  if (accepts(q, a.value) != a.right) return {true, false, "the recorded verdict is not the key's"};
  return {true, true, ""};
}

std::string results_json(const ResultsFile& results, const std::vector<fs::path>& files, const LessonSet* lessons) {
  json doc;
  doc["files"] = json::array();
  for (const auto& f : files) doc["files"].push_back(f.string());
  doc["problems"] = results.problems;
  doc["attempts"] = json::array();
  struct Tally {
    int attempts = 0, right = 0, first_right = 0, contradicted = 0;
    std::string lesson;
  };
  std::map<std::string, std::map<std::string, Tally>> by_student;  // student -> exercise -> tally
  for (const Attempt& a : results.attempts) {
    json j = to_json(a);
    bool counts = a.right;
    Tally& t = by_student[a.student][a.exercise];
    if (lessons) {
      const AttemptCheck c = check_attempt(a, *lessons);
      j["verified"] = c.checked ? json(c.agrees) : json(nullptr);
      if (!c.reason.empty()) j["verified_note"] = c.reason;
      if (c.checked && !c.agrees) counts = false, ++t.contradicted;
    }
    doc["attempts"].push_back(std::move(j));
    t.lesson = a.lesson;
    ++t.attempts;
    if (counts) {
      ++t.right;
      if (!t.first_right) t.first_right = t.attempts;
    }
  }
  doc["students"] = json::array();
  for (const auto& [student, exercises] : by_student) {
    json s = {{"student", student}, {"exercises", json::array()}};
    int solved = 0;
    for (const auto& [exercise, t] : exercises) {
      s["exercises"].push_back({{"exercise", exercise}, {"lesson", t.lesson}, {"attempts", t.attempts}, {"right", t.right},
                                {"first_right_attempt", t.first_right}, {"contradicted", t.contradicted}});
      solved += t.right > 0;
    }
    s["solved"] = solved;
    doc["students"].push_back(std::move(s));
  }
  return doc.dump(2);
}

std::string results_csv(const ResultsFile& results, const LessonSet& lessons) {
  // The exercises in lesson order: the gradebook's columns.
  std::vector<std::string> columns;
  for (const Lesson& l : lessons.lessons)
    for (size_t i = 0; i < l.steps.size(); ++i)
      if (!l.steps[i].exercise.empty()) columns.push_back(l.id + "/" + std::to_string(i + 1) + " " + l.steps[i].exercise);
  std::map<std::string, std::map<std::string, std::pair<int, int>>> tally;  // student -> column -> (right, attempts)
  for (const Attempt& a : results.attempts) {
    const AttemptCheck c = check_attempt(a, lessons);
    auto& [right, attempts] = tally[a.student][a.lesson + "/" + std::to_string(a.step) + " " + a.exercise];
    ++attempts;
    right += a.right && !(c.checked && !c.agrees);
  }
  // Names may hold commas or quotes: quoted as CSV quotes them.
  const auto cell = [](const std::string& v) {
    if (v.find_first_of(",\"\n") == std::string::npos) return v;
    std::string q = "\"";
    for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  std::string out = "student,solved";
  for (const auto& c : columns) out += "," + cell(c);
  out += "\n";
  for (const auto& [student, cols] : tally) {
    int solved = 0;
    std::string row;
    for (const auto& c : columns) {
      const auto it = cols.find(c);
      if (it == cols.end()) {
        row += ",";
        continue;
      }
      solved += it->second.first > 0;
      row += "," + std::to_string(it->second.first) + "/" + std::to_string(it->second.second);
    }
    out += cell(student) + "," + std::to_string(solved) + row + "\n";
  }
  return out;
}

}  // namespace ts::viz
