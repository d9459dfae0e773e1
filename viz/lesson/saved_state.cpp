#include "viz/lesson/saved_state.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ts::viz {

namespace fs = std::filesystem;
using nlohmann::json;

std::string exercise_key(const std::string& lesson_id, int step) { return lesson_id + "/" + std::to_string(step + 1); }

fs::path default_state_file() {
  if (const char* f = std::getenv("TILESCOPE_STATE_FILE"); f && *f) return f;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return fs::path(x) / "tilescope" / "state.json";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".config" / "tilescope" / "state.json";
  return {};
}

namespace {

// The 1-based line of byte offset `at` in `text`.
int line_of(const std::string& text, size_t at) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(at, text.size())), '\n'));
}

// A key as a warning shows it: on one line (control characters, such as an escaped newline, as '?').
std::string shown(std::string key) {
  for (char& c : key)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return key;
}

}  // namespace

SavedState parse_saved_state(const std::string& text, const std::string& file, std::string& warning) {
  warning.clear();
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann's byte is one past the offending character (1-based).
    warning = file + ":" + std::to_string(line_of(text, e.byte > 0 ? e.byte - 1 : 0)) + ": not valid JSON";
    return {};
  } catch (const json::exception& e) {
    // A number too large for a double (out_of_range) carries no position: the line that holds it.
    const std::string what = e.what();
    const size_t open = what.find('\''), close = open == std::string::npos ? open : what.find('\'', open + 1);
    const size_t at = close == std::string::npos ? std::string::npos : text.find(what.substr(open + 1, close - open - 1));
    warning = file + ":" + std::to_string(line_of(text, at == std::string::npos ? 0 : at)) + ": not valid JSON";
    return {};
  }
  // The file is small and ours: a wrong shape anywhere is reported on the line of the first key
  // that is off, found by its quoted name.
  const auto fail = [&](const std::string& key, const std::string& reason) {
    const size_t at = key.empty() ? 0 : text.find("\"" + key + "\"");
    warning = file + ":" + std::to_string(line_of(text, at == std::string::npos ? 0 : at)) + ": " + reason;
    return SavedState{};
  };
  if (!doc.is_object()) return fail("", "not a JSON object");
  SavedState s;
  if (doc.contains("lesson")) {
    if (!doc["lesson"].is_string()) return fail("lesson", "'lesson' is not a string");
    s.lesson = doc["lesson"].get<std::string>();
  }
  if (doc.contains("step")) {
    if (!doc["step"].is_number_integer() || doc["step"].get<int64_t>() < 1 || doc["step"].get<int64_t>() > 100000)
      return fail("step", "'step' is not a step number");
    s.step = static_cast<int>(doc["step"].get<int64_t>()) - 1;
  }
  if (doc.contains("zoom")) {
    if (!doc["zoom"].is_number() || !(doc["zoom"].get<double>() >= 1 && doc["zoom"].get<double>() <= 3))
      return fail("zoom", "'zoom' is not a number from 1 to 3");
    s.zoom = doc["zoom"].get<float>();
  }
  if (doc.contains("exercises")) {
    if (!doc["exercises"].is_object()) return fail("exercises", "'exercises' is not an object");
    for (const auto& [key, e] : doc["exercises"].items()) {
      if (!e.is_object() || !e.contains("seed") || !e["seed"].is_number_unsigned())
        return fail(key, "exercise '" + shown(key) + "' has no seed");
      SavedExercise x;
      x.seed = e["seed"].get<uint64_t>();
      if (e.contains("typed")) {
        if (!e["typed"].is_string()) return fail(key, "exercise '" + shown(key) + "': 'typed' is not a string");
        x.typed = e["typed"].get<std::string>();
      }
      if (e.contains("answered")) {
        if (!e["answered"].is_boolean()) return fail(key, "exercise '" + shown(key) + "': 'answered' is not true or false");
        x.answered = e["answered"].get<bool>();
      }
      s.exercises[key] = std::move(x);
    }
  }
  return s;
}

SavedState load_saved_state(const fs::path& file, std::string& warning) {
  warning.clear();
  std::error_code ec;
  if (file.empty() || !fs::exists(file, ec)) return {};
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    warning = file.string() + ":1: cannot read";
    return {};
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_saved_state(text.str(), file.string(), warning);
}

std::string saved_state_json(const SavedState& s) {
  json doc = json::object();
  if (!s.lesson.empty()) {
    doc["lesson"] = s.lesson;
    doc["step"] = s.step + 1;
  }
  if (s.zoom >= 1) doc["zoom"] = std::round(s.zoom * 100) / 100;
  json ex = json::object();
  for (const auto& [key, e] : s.exercises) ex[key] = {{"seed", e.seed}, {"typed", e.typed}, {"answered", e.answered}};
  doc["exercises"] = ex;
  return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

void save_state(const fs::path& file, const SavedState& s) {
  if (file.empty()) return;
  std::error_code ec;
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
  const fs::path tmp = file.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << saved_state_json(s);
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot write " + tmp.string());
    }
  }
  fs::rename(tmp, file, ec);  // atomic on one file system: a reader sees the old file or the new
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot replace " + file.string() + ": " + ec.message());
  }
}

}  // namespace ts::viz
