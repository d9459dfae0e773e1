#pragma once
// What the H100 measured for the attention kernel, read at run time: data/measured/h100/attention.json
// (the bench's rows: ours, cuDNN's and FlashAttention-2's times) and
// data/measured/h100/sim-attention/compare-attention.txt (`tilescope compare` of those rows against
// the simulator, as committed). A shape with no row is "not measured"; nothing is typed in.
#include <string>
#include <vector>

namespace ts::viz {

struct MeasuredAttention {
  std::string pass;  // "fwd" or "bwd"
  int64_t b = 0, h_q = 0, h_kv = 0, n = 0, d = 0;
  bool causal = false;
  double median_ms = 0, tflops = 0, cudnn_tflops = 0, fa2_tflops = 0, sm_clock_mhz = 0;
};

// One row of compare-attention.txt: measured and simulated TFLOPS and the error the file gives.
struct CompareRow {
  std::string shape, config;  // "B16 H16 N1024 D64", "forward causal"
  double measured = 0, simulated = 0, error_percent = 0;
  bool backward = false, causal = false;
};

struct AttentionMeasurements {
  std::string file, device, date;
  std::vector<MeasuredAttention> rows;
  std::string compare_file, compare_header, compare_summary;  // the file's first and last lines
  std::vector<CompareRow> compare;
  std::vector<std::string> problems;  // files missing or unreadable, for people
};

// Loaded once, on first use.
const AttentionMeasurements& attention_measurements();
// Parses the two files (either may be empty): used by attention_measurements() and the tests.
AttentionMeasurements load_attention_measurements(const std::string& json_file, const std::string& compare_file);

const MeasuredAttention* find_measured_attention(const AttentionMeasurements& m, bool backward, int64_t b, int64_t h,
                                                 int64_t n, int64_t d, bool causal);

}  // namespace ts::viz
