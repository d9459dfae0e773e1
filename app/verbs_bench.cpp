#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/sim_job.hpp"
#include "app/verbs.hpp"
#include "sim/stamps.hpp"
#include "sim/timeline.hpp"
#include "kernels/gemm/gemm_bench.hpp"  // the sweep names; the bench itself needs CUDA
#include "kernels/stamps/recorded.hpp"
#if TILESCOPE_HAVE_CUDA
#include "kernels/gpu.hpp"
#endif

namespace ts::app {

namespace {

// The attention bench compares against cuDNN and FlashAttention-2, which only PyTorch puts in one
// process with ours, so it is python/bench_attention.py. Runs it with `args` (argv, no shell, so
// nothing needs quoting) and returns its exit status.
int run_attention_bench(const std::vector<std::string>& args) {
  const std::string script = std::string(TILESCOPE_SOURCE_DIR) + "/python/bench_attention.py";
  if (!std::filesystem::is_regular_file(script)) throw UsageError("bench attention: " + script + " not found");
  std::vector<std::string> words = {"python3", script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  static const char missing[] = "tilescope: bench attention needs python3 with PyTorch (see python/README.md)\n";

  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    execvp("python3", argv.data());
    [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, missing, sizeof missing - 1);
    _exit(2);
  }
  // Ctrl-C reaches the script too (same process group): let it end its own way, then report its status.
  struct sigaction ignore {}, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  int status = 0;
  pid_t r;
  while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (r < 0) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

// `--record-warps`: all, leaders (warps 0, 4, 8, ...: the first of each warpgroup), or a list.
uint32_t parse_record_warps(const std::string& text) {
  if (text == "all") return ~0u;
  if (text == "leaders") return 0x11111111u;
  uint32_t mask = 0;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string word = text.substr(at, comma - at);
    char* end = nullptr;
    const unsigned long w = word.empty() ? 32 : std::strtoul(word.c_str(), &end, 10);
    if (word.empty() || *end != '\0' || w >= 32)
      throw UsageError("--record-warps takes all, leaders, or warp numbers 0-31 separated by commas, e.g. 0,4,8 (not '" + text + "')");
    mask |= 1u << w;
    at = comma + 1;
  }
  return mask;
}

}  // namespace

#if TILESCOPE_HAVE_CUDA
// `--timeline-measured`: one recorded launch of the job's kernel (the instrumented build), its spans
// written as a timeline file beside the simulated ones, and the cost of recording stated.
static int record_timeline(const SimJob& job, const JobArgs& args, const std::string& path, const kernels::RecordOptions& opt) {
  const kernels::RecordedRun run = job.attention ? kernels::record_attention(job.attention_shape, job.attention_cfg, job.backward, opt)
                                                 : kernels::record_gemm(job.gemm_shape, job.gemm, opt);
  const sim::MeasuredSpans m = sim::spans_from_stamps(run.recording);
  sim::Timeline t;
  t.source = "measured";
  t.title = job.title();
  t.job = job_args_json(args);
  t.clock_mhz = m.clock_mhz;
  t.spans = m.spans;
  t.dropped = m.dropped;
  t.kernel_ms = run.recorded_ms;
  t.plain_ms = run.plain_ms;
  t.recorded_kinds = m.kinds;
  std::ofstream out(path);
  if (!out) throw UsageError("cannot write " + path);
  out << sim::timeline_json(t);
  if (!out.flush()) throw std::runtime_error("writing " + path + " failed");
  const stamp::Plan& p = run.recording.plan;
  std::printf("%s\n", run.title.c_str());
  std::printf("recorded blocks %u of %u (from %u, every %u), %u warps in all, %zu spans, %llu records dropped\n", p.blocks,
              run.grid_blocks, p.first, p.stride, m.warps, m.spans.size(), static_cast<unsigned long long>(m.dropped));
  if (const std::string left_out = sim::unrecorded_kinds(t); !left_out.empty())
    std::printf("this build stamps no %s (TILESCOPE_STAMP_KINDS)\n", left_out.c_str());
  if (run.plain_ms > 0)
    std::printf("plain %.4f ms, recording %.4f ms (%+.1f %%), SM clock %.0f MHz\n", run.plain_ms, run.recorded_ms,
                100.0 * (run.recorded_ms / run.plain_ms - 1.0), m.clock_mhz);
  std::printf("wrote %s\n  beside the simulation of the same configuration: tilescope --timeline %s\n"
              "  both in Perfetto: tilescope compare --timeline %s --timeline-out both.json\n",
              path.c_str(), path.c_str(), path.c_str());
  return 0;
}
#endif

VerbRun add_bench_verb(CLI::App& cli) {
  struct Args {
    std::string json, only, timeline, record_blocks, record_warps;
    std::vector<std::string> shapes;
    bool quick = false;
    uint32_t capacity = 0;
    int reps = 20;
    JobArgs job;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = cli.add_subcommand(
      "bench", "Time a kernel against its reference library on this GPU (gemm: ours vs cuBLAS; attention: ours vs cuDNN and "
               "FlashAttention-2 through PyTorch, python/bench_attention.py): the sweeps, or one configuration named by the "
               "same options as `tilescope sim`");
  add_job_options(cmd, args->job, true);
  cmd->add_flag("--quick", args->quick, "A few rows instead of the full sweep");
  cmd->add_option("--json", args->json,
                  "Write the results here (default data/measured/h100/gemm.json or attention.json for the full sweep)");
  cmd->add_option("--only", args->only,
                  "gemm: one sweep: size, skinny, stages, order, layout, tile, cluster (clusters of 2 beside the default), splitk (split-K on shapes with few tiles), shapes (non-square shapes, the default beside other group sizes, clusters and 128-wide tiles), fp8 (e4m3 inputs against cuBLASLt's FP8 GEMM), holdout (configurations off the main "
                  "sweep), epilogue (the default's whole-tile staging of C beside 4 stages in chunks) or tail (the split tail, off, chosen and asked for); attention: one pass, fwd or bwd");
  cmd->add_option("--shape", args->shapes, "attention: time B,H,N,D[,causal][,hkv=K] instead of the sweep (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--timeline-measured", args->timeline,
                  "Record what every warp did (the instrumented build of the kernel) and write it here as a timeline "
                  "(Chrome trace: Perfetto opens it; `tilescope compare --timeline` reads it)");
  cmd->add_option("--record-blocks", args->record_blocks,
                  "With --timeline-measured: the blocks that record, FIRST:STRIDE:COUNT (default: every block that fits in 1 GiB)");
  cmd->add_option("--record-warps", args->record_warps,
                  "With --timeline-measured: the warps of a block that record: all (default), leaders (the first warp of "
                  "each warpgroup: recording costs the kernel less), or a list such as 0,4,8");
  cmd->add_option("--record-capacity", args->capacity, "With --timeline-measured: records per warp (default: as many as the run needs)");
  cmd->add_option("--reps", args->reps, "With --timeline-measured: timed launches of the plain and the recording build (0: none)")
      ->check(CLI::Range(0, 1000));
  cmd->allow_extras();  // bench attention hands whatever else it is given to the script
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    const JobArgs& ja = args->job;
    const bool one_config = any_job_option(cmd) || !args->timeline.empty();
    const SimJob job = job_from(ja);  // validates the kernel name and knob values
    if (one_config && (args->quick || !args->only.empty() || !args->shapes.empty()))
      throw UsageError("name one configuration (--m/--n/... or --timeline-measured) or a sweep (--quick, --only, --shape), not both");
    if (args->timeline.empty() && (!args->record_blocks.empty() || !args->record_warps.empty() || args->capacity != 0))
      throw UsageError("--record-blocks, --record-warps and --record-capacity go with --timeline-measured");
    if (!cmd->remaining().empty() && (ja.kernel == "gemm" || one_config))
      throw UsageError("unexpected argument '" + cmd->remaining().front() + "'");
    kernels::RecordOptions opt;
    opt.capacity = args->capacity;
    opt.timing_reps = args->reps;
    if (!args->record_blocks.empty()) {
      unsigned first = 0, stride = 0, count = 0;
      char tail = 0;
      if (std::sscanf(args->record_blocks.c_str(), "%u:%u:%u%c", &first, &stride, &count, &tail) != 3 || stride == 0 || count == 0)
        throw UsageError("--record-blocks takes FIRST:STRIDE:COUNT with STRIDE and COUNT at least 1, e.g. 0:1:4");
      opt.first = first, opt.stride = stride, opt.blocks = count;
    }
    if (!args->record_warps.empty()) opt.warp_mask = parse_record_warps(args->record_warps);
    if (ja.kernel == "attention") {
      if (!args->only.empty() && args->only != "fwd" && args->only != "bwd")
        throw UsageError("unknown pass '" + args->only + "' (expected fwd or bwd)");
      if (args->timeline.empty() && (ja.consumers != 0 || ja.overlap != -1 || !ja.persistent.empty()))
        throw UsageError("bench attention times the default forward against cuDNN; --consumers, --overlap and --persistent go with --timeline-measured");
    } else {
      if (!args->shapes.empty()) throw UsageError("--shape is for bench attention (bench gemm takes --m, --n, --k)");
      if (!args->only.empty() && !kernels::is_gemm_sweep(args->only)) throw UsageError(kernels::unknown_gemm_sweep(args->only));
    }
#if TILESCOPE_HAVE_CUDA
    if (const std::string why = kernels::hopper_unavailable("bench " + ja.kernel); !why.empty()) throw UsageError(why);
    try {
      if (!args->timeline.empty()) return record_timeline(job, ja, args->timeline, opt);
      if (ja.kernel == "gemm") {
        if (one_config) return kernels::run_gemm_bench_config(job.gemm_shape, job.gemm, args->json);
        std::string json = args->json;
        if (json.empty() && !args->quick && args->only.empty()) json = std::string(TILESCOPE_SOURCE_DIR) + "/data/measured/h100/gemm.json";
        return kernels::run_gemm_bench(args->quick, json, args->only);
      }
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
#else
    if (!args->timeline.empty() || ja.kernel == "gemm")
      throw UsageError("bench " + ja.kernel + " needs our CUDA kernels, and this build has none (nvcc was not found at configure time)");
#endif
    // Attention against cuDNN and FlashAttention-2: only PyTorch has them in one process with ours.
    std::vector<std::string> fwd;
    if (args->quick) fwd.push_back("--quick");
    if (one_config) {
      const kernels::AttentionShape& s = job.attention_shape;
      std::string shape = std::to_string(s.batch) + "," + std::to_string(s.heads_q) + "," + std::to_string(s.seq) + "," +
                          std::to_string(s.dim) + (s.causal ? ",causal" : "");
      if (s.heads_kv != s.heads_q) shape += ",hkv=" + std::to_string(s.heads_kv);
      fwd.insert(fwd.end(), {"--shape", shape, "--only", job.backward ? "bwd" : "fwd"});
    } else if (!args->only.empty()) {
      fwd.insert(fwd.end(), {"--only", args->only});
    }
    if (!args->json.empty()) fwd.insert(fwd.end(), {"--json", args->json});
    for (const auto& s : args->shapes) fwd.insert(fwd.end(), {"--shape", s});
    for (const auto& extra : cmd->remaining()) fwd.push_back(extra);
    return run_attention_bench(fwd);
  };
}

}  // namespace ts::app
