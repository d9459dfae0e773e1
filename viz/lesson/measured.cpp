#include "viz/lesson/measured.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "sim/machine.hpp"
#include "viz/lesson/json_fields.hpp"
#include "tiles/sched/block_order.hpp"

namespace ts::viz {

namespace {

using nlohmann::json;

kernels::GemmConfig config_of(const json& row) {
  kernels::GemmConfig cfg;
  cfg.stages = static_cast<int>(integer_or(row, "stages", 4));
  cfg.block_n = static_cast<int>(integer_or(row, "block_n", 256));
  cfg.consumers = static_cast<int>(integer_or(row, "consumers", 2));  // rows from before the knob existed had two
  cfg.cluster = static_cast<int>(integer_or(row, "cluster", 1));      // ... and no clusters
  cfg.split_k = static_cast<int>(integer_or(row, "split_k", 1));      // ... and no split-K
  cfg.tail_split = static_cast<int>(integer_or(row, "tail_split", 1));  // ... nor a split tail
  // "in": "fp8" for the FP8 GEMM's rows; absent (or "bf16") for every row from before it existed.
  const std::string in = row.value("in", std::string("bf16"));
  if (in != "bf16" && in != "fp8") throw std::runtime_error("row with \"in\": \"" + in + "\" (bf16 or fp8)");
  cfg.in = in == "fp8" ? kernels::InType::fp8 : kernels::InType::bf16;
  cfg.persistent = row.value("persistent", true);
  cfg.b_row_major = row.value("b_row_major", true);
  cfg.out = row.value("out", std::string("bf16")) == "bf16" ? kernels::OutType::bf16 : kernels::OutType::fp32;
  cfg.order = sched::parse_order(row.value("order", std::string("grouped"))).value_or(sched::OrderSpec{});
  if (cfg.order.order == sched::Order::grouped) cfg.order.group = static_cast<int>(integer_or(row, "group_size", 8));
  return cfg;
}

kernels::GemmShape shape_of(const json& row) { return {integer_at(row, "m"), integer_at(row, "n"), integer_at(row, "k")}; }

bool read_json(const std::string& path, json& doc, std::vector<std::string>& problems) {
  std::ifstream in(path);
  if (!in) {
    problems.push_back("cannot read " + path);
    return false;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    doc = json::parse(text);
    return true;
  } catch (const json::parse_error& e) {
    // "file:line: reason", the line where the parser stopped (its byte is one past it).
    const size_t at = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
    problems.push_back(path + ":" + std::to_string(line) + ": " + e.what());
    return false;
  } catch (const std::exception& e) {
    problems.push_back(path + ": " + e.what());
    return false;
  }
}

std::string data_file(const char* relative, std::vector<std::string>& problems) {
  try {
    return sim::find_data_path(relative).string();
  } catch (const std::exception& e) {
    problems.push_back(e.what());
    return "";
  }
}

}  // namespace

namespace {

// The rows of one `tilescope bench gemm` file, appended to `rows`; none of them if any is malformed.
// The file's name, device and date go where they are asked for (nullptr: not kept).
struct GemmFile {
  std::string *file = nullptr, *device = nullptr, *date = nullptr;
};
void read_gemm_rows(const std::string& file, std::vector<MeasuredGemm>& rows, MeasuredData& d, GemmFile keep) {
  json doc;
  if (file.empty() || !read_json(file, doc, d.problems)) return;
  const size_t before = rows.size();
  try {
    if (keep.file) *keep.file = file;
    if (keep.device) *keep.device = doc.value("device", "?");
    if (keep.date) *keep.date = doc.value("date", "?");
    for (const auto& row : doc.at("rows"))
      rows.push_back({row.value("group", ""), shape_of(row), config_of(row), row.at("tflops").get<double>(),
                      row.value("median_ms", 0.0), row.value("cublas_tflops", 0.0), row.value("sm_clock_mhz", 0.0),
                      row.value("date", "")});
  } catch (const std::exception& e) {
    d.problems.push_back(file + ": " + e.what());
    rows.resize(before);
  }
}

}  // namespace

MeasuredData load_measured(const std::string& gemm_json, const std::string& dram_json, const std::string& holdout_json,
                           const std::string& cluster_json, const std::string& splitk_json, const std::string& fp8_json,
                           const std::string& tail_json) {
  MeasuredData d;
  json doc;
  read_gemm_rows(gemm_json, d.gemm, d, {&d.gemm_file, &d.device, &d.date});
  read_gemm_rows(holdout_json, d.gemm, d, {});
  read_gemm_rows(cluster_json, d.cluster, d, {&d.cluster_file, &d.cluster_device, &d.cluster_date});
  read_gemm_rows(splitk_json, d.splitk, d, {&d.splitk_file, &d.splitk_device, &d.splitk_date});
  read_gemm_rows(fp8_json, d.fp8, d, {&d.fp8_file, &d.fp8_device, &d.fp8_date});
  read_gemm_rows(tail_json, d.tail, d, {&d.tail_file, &d.tail_device, &d.tail_date});
  if (!dram_json.empty() && read_json(dram_json, doc, d.problems)) {
    try {
      d.dram_file = dram_json;
      d.dram_device = doc.value("device", "?");
      for (const auto& run : doc.value("runs", json::array()))
        d.dram_date = std::max(d.dram_date, run.value("date_utc", std::string()).substr(0, 10));
      if (doc.contains("summary")) {
        for (const auto& row : doc.at("summary"))
          d.dram.push_back({shape_of(row), config_of(row), row.at("dram_bytes_read_mean").get<double>(),
                            row.at("dram_bytes_read_min").get<double>(), row.at("dram_bytes_read_max").get<double>(),
                            row.at("dram_bytes_write_mean").get<double>(), static_cast<int>(integer_or(row, "runs", 1)), 0});
      } else {
        // No summary yet: one entry per launch.
        for (const auto& row : doc.at("rows")) {
          const double r = row.at("dram_bytes_read").get<double>();
          d.dram.push_back({shape_of(row), config_of(row), r, r, r, row.at("dram_bytes_write").get<double>(), 1, 0});
        }
      }
      // The launches' kernel times, for bandwidths: the mean over the rows of each configuration.
      for (auto& entry : d.dram) {
        double sum = 0;
        int count = 0;
        for (const auto& row : doc.value("rows", json::array()))
          if (row.contains("gpu_time_ns_under_ncu") && same_shape(shape_of(row), entry.shape) &&
              same_config(config_of(row), entry.cfg))
            sum += row.at("gpu_time_ns_under_ncu").get<double>(), ++count;
        entry.time_ns = count ? sum / count : 0;
      }
    } catch (const std::exception& e) {
      d.problems.push_back(dram_json + ": " + e.what());
      d.dram.clear();
    }
  }
  return d;
}

const MeasuredData& measured_data() {
  static const MeasuredData data = [] {
    std::vector<std::string> problems;
    const std::string gemm = data_file("measured/h100/gemm.json", problems);
    const std::string dram = data_file("measured/h100/gemm_dram.json", problems);
    const std::string holdout = data_file("measured/h100/gemm-holdout.json", problems);
    const std::string cluster = data_file("measured/h100/gemm-cluster.json", problems);
    const std::string splitk = data_file("measured/h100/gemm-splitk.json", problems);
    const std::string fp8 = data_file("measured/h100/gemm-fp8.json", problems);
    const std::string tail = data_file("measured/h100/gemm-tail.json", problems);
    MeasuredData d = load_measured(gemm, dram, holdout, cluster, splitk, fp8, tail);
    d.problems.insert(d.problems.end(), problems.begin(), problems.end());
    return d;
  }();
  return data;
}

bool same_config(const kernels::GemmConfig& a, const kernels::GemmConfig& b) {
  if (a.order.order != b.order.order) return false;
  if (a.order.order == sched::Order::grouped && a.order.group != b.order.group) return false;
  if (a.split_k != 0 && b.split_k != 0 && a.split_k != b.split_k) return false;
  if (a.tail_split != 0 && b.tail_split != 0 && a.tail_split != b.tail_split) return false;
  return a.in == b.in && a.stages == b.stages && a.block_n == b.block_n && a.consumers == b.consumers && a.cluster == b.cluster &&
         a.persistent == b.persistent && a.b_row_major == b.b_row_major && a.out == b.out;
}

bool same_shape(const kernels::GemmShape& a, const kernels::GemmShape& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k;
}

const MeasuredGemm* find_measured(const MeasuredData& d, const kernels::GemmShape& shape, const kernels::GemmConfig& cfg) {
  if (cfg.in == kernels::InType::fp8) {
    for (const auto& row : d.fp8)
      if (same_shape(row.shape, shape) && same_config(row.cfg, cfg)) return &row;
    return nullptr;
  }
  for (const auto& row : d.gemm)
    if (same_shape(row.shape, shape) && same_config(row.cfg, cfg)) return &row;
  if (cfg.cluster > 1)
    if (const MeasuredGemm* row = find_measured_cluster(d, shape, cfg)) return row;
  for (const auto* rows : {&d.splitk, &d.tail})
    for (const auto& row : *rows)
      if (same_shape(row.shape, shape) && same_config(row.cfg, cfg)) return &row;
  return nullptr;
}

std::vector<const MeasuredGemm*> find_measured_splits(const MeasuredData& d, const kernels::GemmShape& shape,
                                                      const kernels::GemmConfig& cfg) {
  kernels::GemmConfig any = cfg;
  any.split_k = 0;
  std::vector<const MeasuredGemm*> out;
  for (const auto& row : d.splitk)
    if (same_shape(row.shape, shape) && same_config(row.cfg, any)) out.push_back(&row);
  std::stable_sort(out.begin(), out.end(), [](const MeasuredGemm* a, const MeasuredGemm* b) { return a->cfg.split_k < b->cfg.split_k; });
  return out;
}

const MeasuredGemm* find_measured_cluster(const MeasuredData& d, const kernels::GemmShape& shape,
                                          const kernels::GemmConfig& cfg) {
  for (const auto& row : d.cluster)
    if (same_shape(row.shape, shape) && same_config(row.cfg, cfg)) return &row;
  return nullptr;
}

const MeasuredDram* find_measured_dram(const MeasuredData& d, const kernels::GemmShape& shape,
                                       const kernels::GemmConfig& cfg) {
  for (const auto& row : d.dram)
    if (same_shape(row.shape, shape) && same_config(row.cfg, cfg)) return &row;
  return nullptr;
}

const std::string& measured_date(const MeasuredData& d, const MeasuredGemm& row) {
  if (!row.date.empty()) return row.date;  // measured again after the rest of its file
  for (const auto& r : d.cluster)
    if (&r == &row) return d.cluster_date;
  for (const auto& r : d.splitk)
    if (&r == &row) return d.splitk_date;
  for (const auto& r : d.fp8)
    if (&r == &row) return d.fp8_date;
  for (const auto& r : d.tail)
    if (&r == &row) return d.tail_date;
  return d.date;
}

std::string short_config(const kernels::GemmConfig& cfg) {
  std::string order = sched::order_name(cfg.order.order);
  if (cfg.order.order == sched::Order::grouped) order += ":" + std::to_string(cfg.order.group);
  return std::string(cfg.in == kernels::InType::fp8 ? "fp8, " : "") + std::to_string(64 * cfg.consumers) + "x" +
         std::to_string(cfg.block_n) + ", " + std::to_string(cfg.stages) +
         " stage" + (cfg.stages > 1 ? "s" : "") +
         ", " + order + (cfg.persistent ? ", persistent" : ", one block per tile") +
         (cfg.cluster > 1 ? ", cluster " + std::to_string(cfg.cluster) : "") +
         (cfg.split_k > 1 ? ", " + std::to_string(cfg.split_k) + " K ranges" : "") +
         (cfg.b_row_major ? "" : ", B col-major") + (cfg.out == kernels::OutType::bf16 ? "" : ", C fp32");
}

}  // namespace ts::viz
