#include "viz/lesson/attention_measured.hpp"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/machine.hpp"
#include "viz/lesson/json_fields.hpp"

namespace ts::viz {

namespace {

std::string data_file(const char* relative, std::vector<std::string>& problems) {
  try {
    return sim::find_data_path(relative).string();
  } catch (const std::exception& e) {
    problems.push_back(e.what());
    return "";
  }
}

// "sweep   B16 H16 N1024 D64      forward causal      298.4     344.7    15.5%": the shape is four
// words, the config the words up to the three numbers.
bool parse_compare_line(const std::string& line, CompareRow& out) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  if (w.size() < 8 || w[1].empty() || w[1][0] != 'B' || w.back().empty() || w.back().back() != '%') return false;
  try {
    out.shape = w[1] + " " + w[2] + " " + w[3] + " " + w[4];
    out.config.clear();
    for (size_t i = 5; i + 3 < w.size(); ++i) out.config += (out.config.empty() ? "" : " ") + w[i];
    out.measured = std::stod(w[w.size() - 3]);
    out.simulated = std::stod(w[w.size() - 2]);
    out.error_percent = std::stod(w.back().substr(0, w.back().size() - 1));
  } catch (const std::exception&) {
    return false;
  }
  out.backward = out.config.find("backward") != std::string::npos;
  out.causal = out.config.find("causal") != std::string::npos;
  return true;
}

}  // namespace

AttentionMeasurements load_attention_measurements(const std::string& json_file, const std::string& compare_file) {
  AttentionMeasurements m;
  m.file = json_file;
  m.compare_file = compare_file;
  if (!json_file.empty()) {
    try {
      std::ifstream in(json_file);
      if (!in) throw std::runtime_error("cannot be read");
      const auto doc = nlohmann::json::parse(in);
      m.device = doc.value("device", std::string());
      m.date = doc.value("date", std::string());
      for (const auto& r : doc.at("rows")) {
        MeasuredAttention a;
        a.pass = r.at("pass").get<std::string>();
        a.b = integer_at(r, "b"), a.h_q = integer_at(r, "h_q"), a.h_kv = integer_or(r, "h_kv", a.h_q);
        a.n = integer_at(r, "n"), a.d = integer_at(r, "d"), a.causal = r.at("causal").get<bool>();
        a.median_ms = r.at("median_ms").get<double>(), a.tflops = r.at("tflops").get<double>();
        a.cudnn_tflops = r.value("cudnn_tflops", 0.0), a.fa2_tflops = r.value("fa2_tflops", 0.0);
        a.sm_clock_mhz = r.value("sm_clock_mhz", 0.0);
        m.rows.push_back(a);
      }
    } catch (const std::exception& e) {
      m.problems.push_back(json_file + ": " + e.what());
      m.rows.clear();
    }
  }
  if (!compare_file.empty()) {
    std::ifstream in(compare_file);
    if (!in) m.problems.push_back(compare_file + ": cannot be read");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("#", 0) == 0) {
        m.compare_header = line.substr(line.find_first_not_of("# "));
        continue;
      }
      if (line.rfind("MAPE", 0) == 0) m.compare_summary = line;
      CompareRow row;
      if (parse_compare_line(line, row)) m.compare.push_back(row);
    }
  }
  return m;
}

const AttentionMeasurements& attention_measurements() {
  static const AttentionMeasurements m = [] {
    std::vector<std::string> problems;
    const std::string json = data_file("measured/h100/attention.json", problems);
    const std::string compare = data_file("measured/h100/sim-attention/compare-attention.txt", problems);
    AttentionMeasurements out = load_attention_measurements(json, compare);
    out.problems.insert(out.problems.end(), problems.begin(), problems.end());
    return out;
  }();
  return m;
}

const MeasuredAttention* find_measured_attention(const AttentionMeasurements& m, bool backward, int64_t b, int64_t h,
                                                 int64_t n, int64_t d, bool causal) {
  for (const auto& r : m.rows)
    if ((r.pass == "bwd") == backward && r.b == b && r.h_q == h && r.n == n && r.d == d && r.causal == causal) return &r;
  return nullptr;
}

}  // namespace ts::viz
