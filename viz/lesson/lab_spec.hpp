#pragma once
// A lab as data: labs/<id>/lab.json (the spec), task.md (the task, Markdown), starter.cpp (the
// kernel file a student starts from) and solution.cpp (the reference solution). labs/README.md
// describes the format; load_lab checks it and names the file (and line) of the first problem.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ts::lab {

struct TensorSpec {
  std::string name, dtype;        // dtype: "bf16" or "f32"
  std::vector<std::string> shape;  // two entries, each a parameter name or a number
  int tile_rows = 64, tile_cols = 64;  // outputs: the tile a first difference is reported in
};

struct Hint {
  std::string when;  // "wrong", "slow", "conflicts"
  std::string text;
};

using Params = std::map<std::string, int>;

struct LabSpec {
  std::string id, title, summary;
  int order = 0;
  std::filesystem::path dir, task, starter, solution;
  std::vector<std::string> params;
  std::vector<Params> checks;  // shapes checked on real data
  Params simulate;             // the shape timed in trace mode
  std::vector<TensorSpec> inputs, outputs;
  std::string reference;
  double abs_tol = 0, rel_tol = 0, input_scale = 1;
  double target_cycles = 0;  // the simulated time to beat; 0: none
  double time_limit_s = 20;  // the child process's limit (functional checks and trace together)
  std::vector<Hint> hints;
};

// Reads labs/<id>/ (dir is that folder). Throws std::runtime_error "FILE:LINE: reason" on a broken lab.
LabSpec load_lab(const std::filesystem::path& dir);

struct LabList {
  std::vector<LabSpec> labs;     // in `order`, then id order
  std::vector<std::string> errors;  // one line per folder that failed to load
};
LabList list_labs(const std::filesystem::path& labs_dir);

// labs/ of the source tree this binary was built from, or $TILESCOPE_LABS_DIR.
std::filesystem::path default_labs_dir();

// rows x cols of a tensor for a parameter set (throws on an unknown parameter).
std::pair<int, int> resolve_shape(const TensorSpec& t, const Params& p, const std::string& where);

}  // namespace ts::lab
