#pragma once
// The rows of a bench file (`tilescope bench` wrote it: data/measured/h100/gemm.json,
// attention.json, and their like) as the jobs `tilescope compare` simulates. Bench files are edited
// and merged by hand, so the reader takes nothing on trust: a row without a field, with a field of
// the wrong kind, or one the kernels refuse, is a UsageError naming the file and the row.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/sim_job.hpp"

namespace ts::app {

struct CompareRow {
  std::string group, shape, config;
  double measured = 0, simulated = 0;  // TFLOPS
  SimJob job;
  double clock_mhz = 0;  // the SM clock the row ran at (0: the machine's sustained clock)
};

// `doc`: the parsed file (its "kernel" says gemm or attention; gemm when absent); `file` names it
// in errors.
std::vector<CompareRow> compare_rows(const nlohmann::json& doc, const std::string& file);

}  // namespace ts::app
