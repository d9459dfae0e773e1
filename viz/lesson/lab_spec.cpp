// Loading a lab's spec (labs/<id>/lab.json) with errors that name the file and line.
#include "viz/lesson/lab_spec.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "viz/lesson/lab_reference.hpp"

namespace ts::lab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  if (!f) throw std::runtime_error(p.string() + ": cannot read");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int line_of(const std::string& text, std::size_t byte) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(byte, text.size())), '\n'));
}

// The line of the first occurrence of "key" in the text: good enough to point a teacher at a field.
int line_of_key(const std::string& text, const std::string& key) {
  const auto at = text.find("\"" + key + "\"");
  return at == std::string::npos ? 1 : line_of(text, at);
}

Params params_from(const json& j, const std::vector<std::string>& names, const std::string& what) {
  if (!j.is_object()) throw std::invalid_argument(what + " must be an object of parameter values");
  Params p;
  for (const auto& n : names) {
    if (!j.contains(n) || !j[n].is_number_integer() || j[n].get<int>() <= 0)
      throw std::invalid_argument(what + " needs a positive integer for parameter '" + n + "'");
    p[n] = j[n].get<int>();
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(names.begin(), names.end(), it.key()) == names.end())
      throw std::invalid_argument(what + " names '" + it.key() + "', which is not in params");
  return p;
}

TensorSpec tensor_from(const json& j, bool output) {
  TensorSpec t;
  t.name = j.at("name").get<std::string>();
  t.dtype = j.value("dtype", std::string("bf16"));
  if (t.dtype != "bf16" && t.dtype != "f32") throw std::invalid_argument("tensor '" + t.name + "': dtype must be bf16 or f32");
  const json& s = j.at("shape");
  if (!s.is_array() || s.size() != 2) throw std::invalid_argument("tensor '" + t.name + "': shape must be [rows, cols]");
  for (const auto& d : s) t.shape.push_back(d.is_number_integer() ? std::to_string(d.get<int>()) : d.get<std::string>());
  if (output && j.contains("tile")) {
    t.tile_rows = j["tile"].at(0);
    t.tile_cols = j["tile"].at(1);
  }
  return t;
}

}  // namespace

std::pair<int, int> resolve_shape(const TensorSpec& t, const Params& p, const std::string& where) {
  int v[2];
  for (int i = 0; i < 2; ++i) {
    const std::string& d = t.shape[i];
    if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) v[i] = std::stoi(d);
    else if (auto it = p.find(d); it != p.end()) v[i] = it->second;
    else throw std::invalid_argument(where + ": tensor '" + t.name + "' has dimension '" + d + "', which is not a parameter");
  }
  return {v[0], v[1]};
}

LabSpec load_lab(const fs::path& dir) {
  const fs::path file = dir / "lab.json";
  const std::string text = read_text(file);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(file.string() + ":" + std::to_string(line_of(text, e.byte)) + ": not valid JSON (" + e.what() + ")");
  }
  std::string key = "title";
  try {
    LabSpec s;
    s.id = dir.filename().string();
    s.dir = dir;
    s.title = j.at("title").get<std::string>();
    key = "summary";
    s.summary = j.value("summary", std::string());
    s.order = j.value("order", 0);
    s.task = dir / j.value("task", std::string("task.md"));
    s.starter = dir / j.value("starter", std::string("starter.cpp"));
    s.solution = dir / j.value("solution", std::string("solution.cpp"));
    for (const auto& f : {s.task, s.starter, s.solution})
      if (!fs::exists(f)) throw std::invalid_argument("missing file " + f.filename().string());
    key = "params";
    s.params = j.at("params").get<std::vector<std::string>>();
    key = "checks";
    for (const auto& c : j.at("checks")) s.checks.push_back(params_from(c, s.params, "a shape of checks"));
    if (s.checks.empty()) throw std::invalid_argument("checks needs at least one shape");
    key = "simulate";
    s.simulate = params_from(j.at("simulate"), s.params, "simulate");
    key = "inputs";
    for (const auto& t : j.at("inputs")) s.inputs.push_back(tensor_from(t, false));
    key = "outputs";
    for (const auto& t : j.at("outputs")) s.outputs.push_back(tensor_from(t, true));
    if (s.outputs.empty()) throw std::invalid_argument("outputs needs at least one tensor");
    for (const auto& set : {s.inputs, s.outputs})
      for (const auto& t : set) {
        for (const auto& p : s.checks) resolve_shape(t, p, "checks");
        resolve_shape(t, s.simulate, "simulate");
      }
    key = "reference";
    s.reference = j.at("reference").get<std::string>();
    bool known = false;
    for (const auto& [name, what] : reference_functions()) known |= name == s.reference;
    if (!known) throw std::invalid_argument("unknown reference function '" + s.reference + "' (labs/README.md lists them)");
    key = "tolerance";
    if (j.contains("tolerance")) {
      s.abs_tol = j["tolerance"].value("abs", 0.0);
      s.rel_tol = j["tolerance"].value("rel", 0.0);
    }
    key = "input_scale";
    s.input_scale = j.value("input_scale", 1.0);
    key = "target_cycles";
    s.target_cycles = j.value("target_cycles", 0.0);
    key = "time_limit_s";
    s.time_limit_s = j.value("time_limit_s", 20.0);
    if (s.time_limit_s <= 0 || s.time_limit_s > 600) throw std::invalid_argument("time_limit_s must be in (0, 600]");
    key = "hints";
    if (j.contains("hints"))
      for (const auto& h : j["hints"]) {
        Hint x{h.at("when").get<std::string>(), h.at("text").get<std::string>()};
        if (x.when != "wrong" && x.when != "slow" && x.when != "conflicts")
          throw std::invalid_argument("a hint's when must be wrong, slow or conflicts, not '" + x.when + "'");
        s.hints.push_back(x);
      }
    return s;
  } catch (const json::exception& e) {
    throw std::runtime_error(file.string() + ":" + std::to_string(line_of_key(text, key)) + ": " + key + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(file.string() + ":" + std::to_string(line_of_key(text, key)) + ": " + e.what());
  }
}

LabList list_labs(const fs::path& labs_dir) {
  LabList out;
  if (!fs::is_directory(labs_dir)) throw std::runtime_error(labs_dir.string() + ": no such folder of labs");
  for (const auto& e : fs::directory_iterator(labs_dir)) {
    if (!e.is_directory() || !fs::exists(e.path() / "lab.json")) continue;
    try {
      out.labs.push_back(load_lab(e.path()));
    } catch (const std::exception& ex) {
      out.errors.push_back(ex.what());
    }
  }
  std::sort(out.labs.begin(), out.labs.end(), [](const LabSpec& a, const LabSpec& b) {
    return a.order != b.order ? a.order < b.order : a.id < b.id;
  });
  std::sort(out.errors.begin(), out.errors.end());
  return out;
}

fs::path default_labs_dir() {
  if (const char* d = std::getenv("TILESCOPE_LABS_DIR"); d && *d) return d;
#ifdef TILESCOPE_SOURCE_DIR
  if (fs::is_directory(fs::path(TILESCOPE_SOURCE_DIR) / "labs")) return fs::path(TILESCOPE_SOURCE_DIR) / "labs";
#endif
  return "labs";
}

}  // namespace ts::lab
