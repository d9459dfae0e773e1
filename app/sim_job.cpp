#include "app/sim_job.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

#include "app/verbs.hpp"
#include "kernels/attention/attention_layout.hpp"
#include "kernels/gemm/gemm_trace.hpp"

namespace ts::app {

// Measured by scripts/sim-speed (the commands sim_job.hpp names) on the 2-core development machine,
// RelWithDebInfo, one core, best of 3, 2026-11-26 with the bucket event queue and 16-op trace
// batches: gemm 8192^3 replayed 12.7 M ops in 1.13 s (11.3 M ops/s); attention forward B1 H16
// N16384 D128 41.5 M ops in 4.46 s (9.3 M ops/s). The slower of the two, rounded down: attention's
// register math costs the engine more per op.
const double kSimOpsPerSecond = 9e6;

std::string SimJob::title() const {
  if (attention) return kernels::describe(attention_shape) + (backward ? " backward" : " forward");
  return "gemm " + std::to_string(gemm_shape.m) + "x" + std::to_string(gemm_shape.n) + "x" + std::to_string(gemm_shape.k) + " " +
         kernels::describe(gemm);
}

void add_job_options(CLI::App* cmd, JobArgs& a, bool kernel_required) {
  // `--h` (heads) and the help flag's `-h` share the name "h": CLI11 2.1 lets them be, newer releases
  // (2.4 on the GPU machine) throw OptionAlreadyAdded when the app is built, so every verb crashed.
  // These verbs take help as --help only (main() turns a -h into --help).
  cmd->set_help_flag("--help", "Print this help message and exit");
  // Named KERNEL, not kernel: CLI11 2.4 takes a positional "kernel" and compare's --kernel for one name.
  auto* kernel = cmd->add_option("KERNEL", a.kernel, "Kernel: gemm or attention");
  if (kernel_required) kernel->required();
  cmd->add_option("--m", a.m, "gemm: rows of A and C");
  cmd->add_option("--n", a.n, "gemm: columns of B and C; attention: sequence length");
  cmd->add_option("--k", a.k, "gemm: columns of A, rows of B");
  cmd->add_option("--stages", a.stages, "gemm: pipeline stages, 1..4 (default 3)");
  cmd->add_option("--block-n", a.block_n, "gemm: output tile width, 128 or 256");
  cmd->add_option("--consumers", a.consumers,
                  "Consumer warpgroups of 64 rows (gemm: 1 or 2, default 2; attention forward: 2 or 3, default per head size)");
  cmd->add_option("--cluster", a.cluster, "gemm: CTAs per cluster along M, 1 or 2 (2: each B slice read once per cluster, by TMA multicast)");
  cmd->add_option("--split-k", a.split_k,
                  "gemm: K cut into this many ranges (1..64), summed into C after: fills the SMs when tiles are few and K is long; 0 (default): chosen per shape");
  cmd->add_option("--tail-split", a.tail_split,
                  "gemm: the tiles past the last whole wave of the grid in this many K ranges (2..16), summed into C after; 1: never; 0 (default): chosen per shape");
  cmd->add_option("--order", a.order, "gemm: block order: row, col, grouped, grouped:G");
  cmd->add_option("--persistent", a.persistent,
                  "on: one block per SM looping over tiles; off: one block per tile (default: on; a causal attention forward then runs a schedule made before the launch)");
  cmd->add_flag("--b-col-major", a.b_col_major, "gemm: B stored N x K");
  cmd->add_option("--in", a.in, "gemm: element type of A and B, bf16 or fp8 (e4m3, fp32 accumulation; B stored N x K, 128x256 tiles)");
  cmd->add_option("--scale-a", a.scale_a, "gemm --in fp8: A's per-tensor scale (C = scale_a scale_b A B)");
  cmd->add_option("--scale-b", a.scale_b, "gemm --in fp8: B's per-tensor scale");
  cmd->add_option("--b", a.batch, "attention: batch");
  cmd->add_option("--h", a.heads, "attention: query heads");
  cmd->add_option("--hkv", a.heads_kv, "attention: key/value heads (default: --h)");
  cmd->add_option("--d", a.dim, "attention: head dimension, 64 or 128");
  cmd->add_flag("--causal", a.causal, "attention: causal mask");
  cmd->add_flag("--bwd", a.bwd, "attention: the backward pass (its three launches) instead of the forward");
  cmd->add_option("--overlap", a.overlap, "attention forward: 1: each warpgroup overlaps its softmax with its previous P V; 0: not");
}

namespace {
const char* const kJobOptions[] = {"--m", "--n", "--k", "--stages", "--block-n", "--consumers", "--cluster", "--split-k", "--tail-split", "--order", "--persistent",
                                   "--b-col-major", "--in", "--scale-a", "--scale-b", "--b", "--h", "--hkv", "--d", "--causal", "--bwd", "--overlap"};
}

bool any_job_option(const CLI::App* cmd) {
  for (const char* name : kJobOptions)
    if (cmd->count(name) > 0) return true;
  return false;
}

nlohmann::json job_args_json(const JobArgs& a) {
  nlohmann::json j{{"kernel", a.kernel}, {"m", a.m},        {"n", a.n},           {"k", a.k},           {"stages", a.stages},
          {"block_n", a.block_n}, {"consumers", a.consumers}, {"cluster", a.cluster}, {"split_k", a.split_k}, {"tail_split", a.tail_split}, {"order", a.order},
          {"b_col_major", a.b_col_major}, {"b", a.batch}, {"h", a.heads}, {"hkv", a.heads_kv}, {"d", a.dim},
          {"causal", a.causal}, {"bwd", a.bwd}, {"overlap", a.overlap}, {"in", a.in}, {"scale_a", a.scale_a}, {"scale_b", a.scale_b}};
  if (!a.persistent.empty()) j["persistent"] = a.persistent;  // absent: the kernel's default
  return j;
}

JobArgs job_args_from_json(const nlohmann::json& j) {
  JobArgs a;
  if (!j.is_object()) throw UsageError("the configuration is not a JSON object");
  const auto get = [&](const char* key, auto& field) {
    if (!j.contains(key)) return;
    try {
      field = j.at(key).get<std::decay_t<decltype(field)>>();
    } catch (const nlohmann::json::exception&) {
      throw UsageError(std::string("configuration key '") + key + "' has the wrong type");
    }
  };
  a.tail_split = 1;  // a configuration recorded before the split tail existed ran without one
  get("kernel", a.kernel), get("m", a.m), get("n", a.n), get("k", a.k), get("stages", a.stages), get("block_n", a.block_n);
  get("consumers", a.consumers), get("cluster", a.cluster), get("split_k", a.split_k), get("tail_split", a.tail_split), get("order", a.order), get("persistent", a.persistent), get("b_col_major", a.b_col_major);
  get("b", a.batch), get("h", a.heads), get("hkv", a.heads_kv), get("d", a.dim), get("causal", a.causal), get("bwd", a.bwd);
  get("overlap", a.overlap), get("in", a.in), get("scale_a", a.scale_a), get("scale_b", a.scale_b);
  return a;
}

SimJob job_from(const JobArgs& a) {
  if (a.kernel != "gemm" && a.kernel != "attention")
    throw UsageError("unknown kernel '" + a.kernel + "' (expected: gemm or attention)");
  if (!a.persistent.empty() && a.persistent != "on" && a.persistent != "off") throw UsageError("--persistent takes on or off");
  SimJob job;
  job.attention = a.kernel == "attention";
  if (!job.attention) {
    job.gemm_shape = {a.m, a.n, a.k};
    job.gemm.stages = a.stages;
    job.gemm.block_n = a.block_n;
    job.gemm.consumers = a.consumers == 0 ? 2 : a.consumers;
    job.gemm.cluster = a.cluster;
    job.gemm.split_k = a.split_k;
    job.gemm.tail_split = a.tail_split;
    job.gemm.b_row_major = !a.b_col_major;
    if (a.in != "bf16" && a.in != "fp8") throw UsageError("unknown input type '" + a.in + "' (expected bf16 or fp8)");
    if (a.in == "fp8") {
      job.gemm.in = kernels::InType::fp8;
      job.gemm.b_row_major = false;  // the only layout fp8 wgmma reads
    }
    job.gemm.scale_a = a.scale_a, job.gemm.scale_b = a.scale_b;
    const auto order = sched::parse_order(a.order);
    if (!order) throw UsageError("unknown order '" + a.order + "' (expected row, col, grouped or grouped:G)");
    job.gemm.order = *order;
    job.gemm.persistent = a.persistent != "off";
    return job;
  }
  kernels::AttentionShape& s = job.attention_shape;
  s.batch = a.batch, s.heads_q = a.heads, s.heads_kv = a.heads_kv == 0 ? a.heads : a.heads_kv;
  s.seq = a.n, s.dim = a.dim, s.causal = a.causal;
  job.attention_cfg = {a.consumers, a.overlap, a.persistent.empty() ? -1 : a.persistent == "on"};
  job.backward = a.bwd;
  if (a.bwd && (a.consumers != 0 || a.overlap != -1 || !a.persistent.empty()))
    throw UsageError("--consumers, --overlap and --persistent are knobs of the attention forward");
  return job;
}

namespace {

// The kernels index tiles and blocks with int (gemm.cuh's num_tiles, the grouped order's
// group * tiles_n, attention's num_tiles): a count past INT_MAX wraps, and the run would replay
// a wrong grid or never end. Refused here with the count.
void check_int(int64_t count, const std::string& what, const SimJob& job) {
  if (count > INT_MAX)
    throw UsageError(job.title() + ": " + what + " is " + std::to_string(count) + ", more than the kernel's 32-bit index holds (" +
                     std::to_string(INT_MAX) + ")");
}

}  // namespace

std::vector<kernels::TracedLaunch> trace_job(const SimJob& job, uint32_t sms) {
  std::vector<kernels::TracedLaunch> launches;
  try {
    if (!job.attention) {
      const kernels::GemmShape& s = job.gemm_shape;
      const kernels::GemmConfig& cfg = job.gemm;
      if (const std::string why = kernels::validate(s, cfg); !why.empty()) throw UsageError(why);
      const int64_t tiles_m = kernels::ceil_div(s.m, 64 * cfg.consumers), tiles_n = kernels::ceil_div(s.n, cfg.block_n);
      check_int(tiles_m * tiles_n, "the output tile count", job);
      if (cfg.order.order == sched::Order::grouped) check_int(cfg.order.group * tiles_n, "the grouped order's tiles per group", job);
      launches = kernels::gemm_grid_traces(s, cfg, static_cast<int>(sms));
    } else {
      const kernels::AttentionShape& s = job.attention_shape;
      if (const std::string why = kernels::validate(s); !why.empty()) throw UsageError(why);
      if (job.backward) {
        check_int(kernels::backward_blocks(s), "the backward's block count", job);
        check_int(kernels::backward_row_tiles(s), "the backward's per-row tile count", job);
      } else {
        check_int(kernels::forward_tiles(s, kernels::resolve(s, job.attention_cfg)), "the tile count", job);
      }
      launches = kernels::attention_grid_traces(s, job.backward, job.attention_cfg, static_cast<int>(sms));
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return launches;
}

namespace {

// Trace ops of block `index`, drained warp by warp (trace mode runs each warp on its own: a wait
// never blocks), stopping once `cap` is reached.
double drain_block(sim::GridTrace& grid, uint32_t index, double cap, bool& capped) {
  sim::BlockTrace block = grid.block(index);
  double ops = 0;
  for (auto& warp : block.warps)
    for (auto batch = warp->next_batch(); !batch.empty(); batch = warp->next_batch()) {
      ops += double(batch.size());
      if (ops >= cap) {
        capped = true;
        return ops;  // the block's fibers unwind as `block` goes
      }
    }
  return ops;
}

}  // namespace

OpEstimate estimate_ops(sim::GridTrace& grid, double cap, EstimateSample sample) {
  const uint32_t blocks = grid.blocks();
  if (blocks == 0) return {};
  // Blocks are drained in a well-spread order (steps of about 0.618 of the grid, coprime to it, so
  // every block once) until the sample is reached: a small grid exactly, a large one by the mean
  // of a sample that a pattern repeating every few blocks (causal attention's ramp over each head's
  // query blocks) does not alias. Trace mode alone makes ops far faster than the engine replays
  // them (about 100 M ops/s here). A block that reaches twice its share of `cap` stops the count:
  // the estimate is then a bound of at least `cap`.
  const double per_block = std::max({1.0, std::ceil(2 * cap / blocks), sample.ops});
  uint64_t step = std::max<uint64_t>(1, uint64_t(0.6180339887498949 * blocks));
  while (std::gcd(step, uint64_t{blocks}) != 1) ++step;
  bool capped = false;
  double drained = 0;
  uint32_t sampled = 0;
  do {
    drained += drain_block(grid, static_cast<uint32_t>(sampled * step % blocks), per_block, capped);
    ++sampled;
  } while (!capped && sampled < blocks && sampled < sample.blocks && drained < sample.ops);
  const double mean = capped ? std::max(drained / sampled, per_block / 2) : drained / sampled;
  return {mean * blocks, capped};
}

std::vector<OpEstimate> estimate_ops(std::vector<kernels::TracedLaunch>& launches, double cap, EstimateSample sample) {
  std::vector<OpEstimate> out;
  double left = cap;
  for (auto& launch : launches) {
    out.push_back(estimate_ops(*launch.grid, std::max(left, 1.0), sample));
    left -= out.back().ops;
  }
  return out;
}

std::string human_count(double n) {
  char buf[32];
  if (n < 1e6) std::snprintf(buf, sizeof buf, "%.0f", n);
  else if (n < 1e9) std::snprintf(buf, sizeof buf, "%.0f million", n / 1e6);
  else if (n < 1e12) std::snprintf(buf, sizeof buf, "%.1f billion", n / 1e9);
  else std::snprintf(buf, sizeof buf, "%.1f trillion", n / 1e12);
  return buf;
}

std::string human_seconds(double s) {
  char buf[32];
  if (s < 90) std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 5400) std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else if (s < 2 * 86400) std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else std::snprintf(buf, sizeof buf, "%.1f days", s / 86400);
  return buf;
}

void refuse_if_too_long(const SimJob& job, const std::vector<OpEstimate>& estimates) {
  double ops = 0;
  bool lower_bound = false;
  for (const OpEstimate& e : estimates) ops += e.ops, lower_bound |= e.lower_bound;
  const double seconds = ops / kSimOpsPerSecond;
  if (seconds <= kRefuseSeconds) return;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s would replay %s%s ops: %s%s at the simulator's %.0f million ops/s; add --force to simulate it anyway",
                job.title().c_str(), lower_bound ? "more than " : "about ", human_count(ops).c_str(), lower_bound ? "more than " : "about ",
                human_seconds(seconds).c_str(), kSimOpsPerSecond / 1e6);
  throw UsageError(buf);
}

}  // namespace ts::app
