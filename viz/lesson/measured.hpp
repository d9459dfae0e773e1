#pragma once
// What the H100 measured, read at run time from data/measured/h100/ (the files `tilescope bench`
// and scripts/measure-gemm-dram write), so that a scene shows the committed figures and never a
// number typed into the code. A configuration with no row is "not measured".
#include <string>
#include <vector>

#include "kernels/gemm/gemm_api.hpp"

namespace ts::viz {

struct MeasuredGemm {
  std::string sweep;  // the bench's group: size, skinny, stages, order, layout, tile
  kernels::GemmShape shape{};
  kernels::GemmConfig cfg{};
  double tflops = 0, median_ms = 0;
  double cublas_tflops = 0;
  double sm_clock_mhz = 0;  // the SM clock while it ran (0: not recorded)
  std::string date;         // the row's own date where it was measured after the rest of its file, else empty
};

// HBM traffic of one configuration under Nsight Compute, over several launches.
struct MeasuredDram {
  kernels::GemmShape shape{};
  kernels::GemmConfig cfg{};
  double read_mean = 0, read_min = 0, read_max = 0;  // bytes
  double write_mean = 0;
  int runs = 0;
  double time_ns = 0;  // mean kernel time of those launches under Nsight Compute (0: not recorded)
};

struct MeasuredData {
  std::string gemm_file, device, date;  // data/measured/h100/gemm.json (and gemm-holdout.json's rows)
  std::vector<MeasuredGemm> gemm;
  std::string dram_file, dram_device, dram_date;  // data/measured/h100/gemm_dram.json
  std::vector<MeasuredDram> dram;
  // data/measured/h100/gemm-cluster.json: the cluster sweep, clusters of 2 beside the plain kernel
  // in the same run (kept apart from `gemm`, whose rows the accuracy scene plots).
  std::string cluster_file, cluster_device, cluster_date;
  std::vector<MeasuredGemm> cluster;
  // data/measured/h100/gemm-splitk.json: the split-K sweep, each shape with 1, 2, 4 or 8 K ranges
  // (cfg.split_k: the ranges the launch ran), each beside cuBLAS in the same run.
  std::string splitk_file, splitk_device, splitk_date;
  std::vector<MeasuredGemm> splitk;
  // data/measured/h100/gemm-fp8.json: the FP8 GEMM (cfg.in fp8, B N x K), each row beside
  // cuBLASLt's FP8 GEMM in the same run (cublas_tflops is cuBLASLt's there).
  std::string fp8_file, fp8_device, fp8_date;
  std::vector<MeasuredGemm> fp8;
  // data/measured/h100/gemm-tail.json: the split tail, each shape off, chosen and asked for
  // (cfg.tail_split: the ranges the tail ran in, 1 off), each beside cuBLAS in the same run.
  std::string tail_file, tail_device, tail_date;
  std::vector<MeasuredGemm> tail;
  std::vector<std::string> problems;  // files that are missing or unreadable, for people
};

// Loaded once, on first use.
const MeasuredData& measured_data();
// Parses the two files (either path may be empty); used by measured_data() and the tests.
// holdout_json: more rows of the same kind (the bench's holdout sweep), optional; cluster_json:
// the cluster sweep's rows (MeasuredData::cluster), optional; splitk_json: the split-K sweep's
// (MeasuredData::splitk), optional; fp8_json: the FP8 GEMM's rows (MeasuredData::fp8), optional;
// tail_json: the split tail's rows (MeasuredData::tail), optional.
MeasuredData load_measured(const std::string& gemm_json, const std::string& dram_json, const std::string& holdout_json = "",
                           const std::string& cluster_json = "", const std::string& splitk_json = "",
                           const std::string& fp8_json = "", const std::string& tail_json = "");

// The same kernel configuration as far as the measurements tell them apart. K ranges: a row
// without split_k ran unsplit (1); a configuration's split_k 0 ("auto", not yet resolved for a
// shape) matches any. Input types: a row without "in" ran bf16.
bool same_config(const kernels::GemmConfig& a, const kernels::GemmConfig& b);
bool same_shape(const kernels::GemmShape& a, const kernels::GemmShape& b);

// A configuration with clusters is looked up in the cluster sweep when gemm.json lacks it, and
// any configuration in the split-K sweep and then the split-tail sweep when neither has it; an fp8 configuration only in
// gemm-fp8.json.
const MeasuredGemm* find_measured(const MeasuredData& d, const kernels::GemmShape& shape, const kernels::GemmConfig& cfg);
// Only the cluster sweep's rows: a clustered run and its plain twin timed in the same run.
const MeasuredGemm* find_measured_cluster(const MeasuredData& d, const kernels::GemmShape& shape,
                                          const kernels::GemmConfig& cfg);
// Only the split-K sweep's rows at this shape, fewest K ranges first (the same configuration but
// for split_k): what the H100 ran with each number of ranges.
std::vector<const MeasuredGemm*> find_measured_splits(const MeasuredData& d, const kernels::GemmShape& shape,
                                                      const kernels::GemmConfig& cfg);
const MeasuredDram* find_measured_dram(const MeasuredData& d, const kernels::GemmShape& shape,
                                       const kernels::GemmConfig& cfg);

// The date of the run a row comes from (gemm.json's, the cluster sweep's, the split-K sweep's or
// the FP8 run's).
const std::string& measured_date(const MeasuredData& d, const MeasuredGemm& row);

// "order grouped:8, persistent": the parts of a configuration a reader needs to tell rows apart.
std::string short_config(const kernels::GemmConfig& cfg);

}  // namespace ts::viz
