// The parts of the exercises every exercise shares: parameter ranges, drawing a question for a
// seed, reading and checking an answer. The exercises themselves are in quiz_bank.cpp.
#include "viz/lesson/quiz.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <random>

namespace ts::viz {

std::vector<int64_t> QuizParamSpec::allowed() const {
  std::vector<int64_t> v;
  for (int64_t x = lo; x <= hi; x += std::max<int64_t>(step, 1)) v.push_back(x);
  return v;
}

const QuizInfo* find_quiz(std::string_view id) {
  for (const auto& q : quizzes())
    if (q.id == id) return &q;
  return nullptr;
}

namespace {

bool parse_int(std::string_view s, int64_t& v) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
}

bool in_allowed(const QuizParamSpec& p, int64_t v) {
  if (!p.defaults.empty() && p.step == 0) {  // a list exercise: only its listed values
    for (int64_t d : p.defaults)
      if (d == v) return true;
    return false;
  }
  return v >= p.lo && v <= p.hi && (v - p.lo) % std::max<int64_t>(p.step, 1) == 0;
}

std::string allowed_text(const QuizParamSpec& p) {
  if (!p.defaults.empty() && p.step == 0) {
    std::string s;
    for (int64_t d : p.defaults) s += (s.empty() ? "" : ",") + std::to_string(d);
    return s;
  }
  return std::to_string(p.lo) + ".." + std::to_string(p.hi) + (p.step > 1 ? "/" + std::to_string(p.step) : "");
}

std::vector<int64_t> default_values(const QuizParamSpec& p) { return p.defaults.empty() ? p.allowed() : p.defaults; }

}  // namespace

std::string parse_quiz_range(const QuizInfo& quiz, std::string_view word, QuizRange& out) {
  const size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == word.size())
    return "exercise parameter '" + std::string(word) + "' is not written name=lo..hi[/step] or name=a,b,c";
  const std::string name(word.substr(0, eq));
  const QuizParamSpec* spec = nullptr;
  for (const auto& p : quiz.params)
    if (p.name == name) spec = &p;
  if (!spec) {
    std::string names;
    for (const auto& p : quiz.params) names += (names.empty() ? "" : " ") + p.name;
    return "exercise '" + std::string(quiz.id) + "' has no parameter '" + name + "' (parameters: " + names + ")";
  }
  const std::string_view value = word.substr(eq + 1);
  out.name = name;
  out.values.clear();
  const std::string refused = "exercise parameter " + name + "='" + std::string(value) + "' is not within " + allowed_text(*spec);
  if (const size_t dots = value.find(".."); dots != std::string_view::npos) {
    std::string_view hi_part = value.substr(dots + 2);
    int64_t lo = 0, hi = 0, step = std::max<int64_t>(spec->step, 1);
    if (const size_t slash = hi_part.find('/'); slash != std::string_view::npos) {
      if (!parse_int(hi_part.substr(slash + 1), step) || step <= 0) return refused;
      hi_part = hi_part.substr(0, slash);
    }
    if (!parse_int(value.substr(0, dots), lo) || !parse_int(hi_part, hi) || hi < lo) return refused;
    for (int64_t v = lo; v <= hi; v += step) {
      if (!in_allowed(*spec, v)) return refused;
      out.values.push_back(v);
    }
  } else {
    size_t at = 0;
    while (at <= value.size()) {
      const size_t comma = std::min(value.find(',', at), value.size());
      int64_t v = 0;
      if (!parse_int(value.substr(at, comma - at), v) || !in_allowed(*spec, v)) return refused;
      out.values.push_back(v);
      at = comma + 1;
    }
  }
  if (out.values.empty()) return refused;
  return "";
}

Question draw_question(const QuizInfo& quiz, const std::vector<QuizRange>& ranges, const SceneState& base, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Question q;
  // Some draws make no question (a layout the access cannot use, the lesson's own worked example):
  // draw again from the same generator, so one seed always gives one question.
  for (int tries = 0; tries < 200; ++tries) {
    QuizParams params;
    for (const auto& spec : quiz.params) {
      std::vector<int64_t> values = default_values(spec);
      for (const auto& r : ranges)
        if (r.name == spec.name) values = r.values;
      params[spec.name] = values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
    }
    q = make_question(quiz.id, params, base);
    if (q.error.empty() && gives_away(q)) q.error = "the question's text would show its answer";
    // A question about exactly what the step's knobs already show could be answered by reading
    // (or sweeping) the scene of the lesson's own example. (The source and accuracy scenes show
    // the same code and table for every question: nothing of the question to read off.)
    const bool scene_poses_it = quiz.scene != SceneKind::source && quiz.scene != SceneKind::accuracy;
    if (q.error.empty() && scene_poses_it && knob_values(q.reveal) == knob_values(base))
      q.error = "the step's own configuration";
    if (q.error.empty()) break;
  }
  q.seed = seed;
  return q;
}

namespace {

// A comma followed by exactly three digits: a thousands separator, not a list ("2, 3").
bool thousands_comma(std::string_view t, size_t at) {
  const auto digit = [&](size_t i) { return i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); };
  return digit(at + 1) && digit(at + 2) && digit(at + 3) && !digit(at + 4);
}

}  // namespace

std::vector<double> numbers_in_text(std::string_view text) {
  std::vector<double> out;
  size_t i = 0;
  while (i < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    // Digits, with thousands commas ("1,365") and one decimal point ("12.5") inside the number.
    size_t j = i;
    std::string digits;
    while (j < text.size()) {
      const char c = text[j];
      const bool inside = j + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[j + 1]));
      if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
      else if (c == ',' && thousands_comma(text, j))
        ;  // "1,365": the comma is part of the number
      else if (c == '.' && inside && digits.find('.') == std::string::npos) digits += c;
      else break;
      ++j;
    }
    // A number glued to letters is part of a name ("m64n256k16", "16x16", "sm_90"), not a figure.
    const auto letter = [&](size_t k) { return k < text.size() && (std::isalpha(static_cast<unsigned char>(text[k])) || text[k] == '_'); };
    if (!(i > 0 && letter(i - 1)) && !letter(j)) out.push_back(std::strtod(digits.c_str(), nullptr));
    i = j;
  }
  return out;
}

bool gives_away(const Question& q) {
  for (double v : numbers_in_text(q.text))
    if (accepts(q, v)) return true;
  return false;
}

bool parse_answer(std::string_view text, double& value) {
  std::string s;
  for (char c : text)
    if (c != ',' && c != ' ' && c != '\t' && c != '_') s += c;
  if (s.empty()) return false;
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(value);
}

bool accepts(const Question& q, double value) {
  if (q.tolerance <= 0) return std::fabs(value - q.answer) < 1e-9;
  return std::fabs(value - q.answer) <= q.tolerance * std::fabs(q.answer);
}

std::string key_text(const Question& q) {
  char buf[64];
  if (q.tolerance <= 0) std::snprintf(buf, sizeof buf, "%.0f", q.answer);
  else std::snprintf(buf, sizeof buf, "%.4g (within %.0f %%)", q.answer, 100 * q.tolerance);
  return std::string(buf) + (q.unit.empty() ? "" : " " + q.unit);
}

}  // namespace ts::viz
