#pragma once
// The reference functions a lab's spec names ("reference": "matmul"): plain loops in double over
// the inputs' values (as the kernel saw them, after rounding to their element type). They run in
// the check's child process beside the student's kernel.
#include <string>
#include <vector>

namespace ts::lab {

struct Matrix {
  int rows = 0, cols = 0;
  std::vector<double> v;  // row-major
  double& at(int r, int c) { return v[static_cast<std::size_t>(r) * cols + c]; }
  double at(int r, int c) const { return v[static_cast<std::size_t>(r) * cols + c]; }
};

// Fills `out` (already sized as the spec says) from `in`; throws std::invalid_argument for an
// unknown name or for shapes the function cannot take (a broken spec, named in the message).
void run_reference(const std::string& name, const std::vector<Matrix>& in, std::vector<Matrix>& out);

// The names run_reference knows, with one line each on what they compute (labs/README.md lists them too).
std::vector<std::pair<std::string, std::string>> reference_functions();

}  // namespace ts::lab
