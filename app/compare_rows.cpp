#include "app/compare_rows.hpp"

#include <cmath>
#include <cstdio>

#include "app/verbs.hpp"
#include "kernels/attention/attention_api.hpp"
#include "kernels/gemm/gemm_api.hpp"
#include "tiles/sched/block_order.hpp"

namespace ts::app {

namespace {

using nlohmann::json;

// A field that must be a whole number (a float such as 1e300 is not cast: out of range, that is
// undefined behaviour) or, with a fallback, may be absent.
int64_t whole(const json& row, const char* name) {
  const json& v = row.at(name);
  if (!v.is_number_integer()) throw UsageError(std::string("\"") + name + "\" is not a whole number");
  return v.get<int64_t>();
}
int64_t whole_or(const json& row, const char* name, int64_t fallback) { return row.contains(name) ? whole(row, name) : fallback; }
int small(int64_t v, const char* name) {
  if (v < -(1 << 30) || v > (1 << 30)) throw UsageError(std::string("\"") + name + "\" is out of range");
  return static_cast<int>(v);
}
double number(const json& row, const char* name, double fallback, bool required) {
  if (!row.contains(name)) {
    if (required) throw UsageError(std::string("no \"") + name + "\"");
    return fallback;
  }
  const json& v = row.at(name);
  if (!v.is_number() || !std::isfinite(v.get<double>())) throw UsageError(std::string("\"") + name + "\" is not a number");
  return v.get<double>();
}

CompareRow gemm_row(const json& row) {
  kernels::GemmConfig cfg;
  cfg.cluster = small(whole_or(row, "cluster", 1), "cluster");
  cfg.split_k = small(whole_or(row, "split_k", 1), "split_k");
  cfg.tail_split = small(whole_or(row, "tail_split", 1), "tail_split");  // rows measured before the split tail existed ran without
  cfg.stages = small(whole(row, "stages"), "stages");
  cfg.block_n = small(whole(row, "block_n"), "block_n");
  cfg.consumers = small(whole_or(row, "consumers", 2), "consumers");
  cfg.persistent = row.at("persistent").get<bool>();
  cfg.b_row_major = row.at("b_row_major").get<bool>();
  cfg.out = row.at("out").get<std::string>() == "bf16" ? kernels::OutType::bf16 : kernels::OutType::fp32;
  cfg.in = row.value("in", std::string("bf16")) == "fp8" ? kernels::InType::fp8 : kernels::InType::bf16;
  const auto order = sched::parse_order(row.at("order").get<std::string>());
  if (!order) throw UsageError("\"order\" is not a block order");
  cfg.order = *order;
  if (cfg.order.order == sched::Order::grouped) cfg.order.group = small(whole_or(row, "group_size", 8), "group_size");
  const kernels::GemmShape shape{whole(row, "m"), whole(row, "n"), whole(row, "k")};
  if (const std::string why = kernels::validate(shape, cfg); !why.empty()) throw UsageError(why);
  char s[72];
  std::snprintf(s, sizeof s, "%lldx%lldx%lld", (long long)shape.m, (long long)shape.n, (long long)shape.k);
  CompareRow r;
  r.group = row.value("group", ""), r.shape = s, r.config = kernels::describe(cfg);
  r.job.gemm_shape = shape, r.job.gemm = cfg;
  return r;
}

CompareRow attention_row(const json& row) {
  kernels::AttentionShape s;
  s.batch = whole(row, "b"), s.heads_q = whole(row, "h_q"), s.heads_kv = whole(row, "h_kv");
  s.seq = whole(row, "n"), s.dim = whole(row, "d"), s.causal = row.at("causal").get<bool>();
  if (const std::string why = kernels::validate(s); !why.empty()) throw UsageError(why);
  const std::string pass = row.at("pass").get<std::string>();
  if (pass != "fwd" && pass != "bwd") throw UsageError("\"pass\" is neither fwd nor bwd");
  const bool bwd = pass == "bwd";
  char shape[96];
  std::snprintf(shape, sizeof shape, "B%lld H%lld N%lld D%lld", (long long)s.batch, (long long)s.heads_q, (long long)s.seq,
                (long long)s.dim);
  CompareRow r;
  r.group = row.value("group", ""), r.shape = shape, r.config = std::string(bwd ? "backward" : "forward") + (s.causal ? " causal" : "");
  r.job.attention = true, r.job.attention_shape = s, r.job.backward = bwd;
  return r;
}

}  // namespace

std::vector<CompareRow> compare_rows(const json& doc, const std::string& file) {
  std::vector<CompareRow> rows;
  const bool attention = doc.value("kernel", "gemm") == "attention";
  const json& all = doc.at("rows");
  if (!all.is_array()) throw UsageError(file + ": \"rows\" is not a list");
  for (size_t i = 0; i < all.size(); ++i) {
    const json& row = all[i];
    try {
      CompareRow r = attention ? attention_row(row) : gemm_row(row);
      r.measured = number(row, "tflops", 0, true);
      if (!(r.measured > 0)) throw UsageError("\"tflops\" is not above 0");
      // The simulator counts cycles; a row that recorded the clock it ran at is timed at that clock.
      r.clock_mhz = number(row, "sm_clock_mhz", 0, false);
      if (r.clock_mhz < 0 || r.clock_mhz > 10000) throw UsageError("\"sm_clock_mhz\" is not a clock");
      rows.push_back(std::move(r));
    } catch (const std::exception& e) {  // UsageError and nlohmann's own: one line, the row named
      throw UsageError(file + ": row " + std::to_string(i + 1) + ": " + e.what());
    }
  }
  return rows;
}

}  // namespace ts::app
