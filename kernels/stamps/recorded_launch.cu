// The instrumented build of our kernels: the same launch code as gemm_launch.cu and
// attention_launch.cu, compiled again with every op stamping its start and end
// (tiles/backend/device/stamp.cuh). The plain build is untouched: stamps are on in this
// translation unit only, and its kernels have internal linkage.
#define TILESCOPE_STAMPS 1

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/attention/attention_launch.cuh"
#include "kernels/gemm/gemm_bench.hpp"  // random_bf16
#include "kernels/gemm/gemm_launch.cuh"
#include "kernels/stamps/recorded.hpp"
#include "kernels/timing.cuh"

namespace ts::kernels {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { check(cudaMalloc(&p, std::max<size_t>(bytes, 16)), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

constexpr uint64_t kSlotOverhead = sizeof(stamp::WarpHeader);

// The blocks to record and the room per warp, within the budget.
stamp::Plan plan_for(uint32_t grid, uint32_t warps, uint32_t capacity, const RecordOptions& opt) {
  stamp::Plan p;
  p.warps_per_block = warps;
  p.warp_mask = opt.warp_mask;
  if (stamp::recorded_warps(p) == 0)
    throw std::invalid_argument("recording: none of the warps named records (the kernel's blocks have " + std::to_string(warps) + " warps)");
  p.capacity = capacity;
  p.first = std::min(opt.first, grid - 1);
  p.stride = std::max(1u, opt.stride);
  const uint64_t slot_bytes = uint64_t{capacity} * sizeof(stamp::Record) + kSlotOverhead;
  const uint64_t fit = std::max<uint64_t>(1, opt.budget_bytes / (slot_bytes * stamp::recorded_warps(p)));  // blocks that fit
  const uint32_t available = (grid - p.first + p.stride - 1) / p.stride;
  if (opt.blocks > 0) {
    p.blocks = std::min(opt.blocks, available);
    if (p.blocks > fit)
      throw std::invalid_argument("recording " + std::to_string(p.blocks) + " blocks of " + std::to_string(capacity) +
                                  " records per warp needs more than the budget of " + std::to_string(opt.budget_bytes >> 20) +
                                  " MiB: record fewer blocks");
  } else {
    while ((grid - p.first + p.stride - 1) / p.stride > fit) ++p.stride;  // every block if it fits, else spread out
    p.blocks = (grid - p.first + p.stride - 1) / p.stride;
  }
  return p;
}

// Runs `launch` recording into fresh buffers; grows the room per warp once if the first run
// dropped records (and the capacity was not given).
template <class Launch>
stamp::Recording record(uint32_t grid, uint32_t warps, const RecordOptions& opt, Launch&& launch) {
  if (warps > static_cast<uint32_t>(stamp::kMaxWarps)) throw std::invalid_argument("recording: more warps per block than stamp.cuh has room for");
  uint32_t capacity = opt.capacity ? opt.capacity : 4096;
  for (int attempt = 0;; ++attempt) {
    const stamp::Plan shape = plan_for(grid, warps, capacity, opt);
    const size_t slots = size_t{shape.blocks} * stamp::recorded_warps(shape);
    DeviceBuffer records(slots * capacity * sizeof(stamp::Record)), headers(slots * sizeof(stamp::WarpHeader));
    check(cudaMemset(headers.p, 0, slots * sizeof(stamp::WarpHeader)), "cudaMemset(stamp headers)");
    stamp::Plan plan = shape;
    plan.records = static_cast<stamp::Record*>(records.p);
    plan.headers = static_cast<stamp::WarpHeader*>(headers.p);
    check(stamp::arm(plan, nullptr), "arming the stamp plan");
    launch(plan);
    check(cudaDeviceSynchronize(), "recorded launch");
    stamp::Recording r;
    r.plan = plan;
    r.headers.resize(slots);
    check(cudaMemcpy(r.headers.data(), headers.p, slots * sizeof(stamp::WarpHeader), cudaMemcpyDeviceToHost), "stamp headers");
    uint32_t needed = 0;
    for (const auto& h : r.headers) needed = std::max(needed, h.count + h.dropped);
    if (needed > capacity && opt.capacity == 0 && attempt == 0) {
      capacity = needed + needed / 8 + 64;
      continue;
    }
    r.records.resize(slots * capacity);
    check(cudaMemcpy(r.records.data(), records.p, r.records.size() * sizeof(stamp::Record), cudaMemcpyDeviceToHost),
          "stamp records");
    return r;
  }
}

// The timed recorded launches record the same blocks with the same room as the recording, into
// buffers of their own (the recording's were freed when it was copied back).
struct TimedPlan {
  stamp::Plan plan;
  DeviceBuffer records, headers;
  explicit TimedPlan(const stamp::Plan& recorded)
      : plan(recorded),
        records(slots(recorded) * recorded.capacity * sizeof(stamp::Record)),
        headers(slots(recorded) * sizeof(stamp::WarpHeader)) {
    plan.records = static_cast<stamp::Record*>(records.p);
    plan.headers = static_cast<stamp::WarpHeader*>(headers.p);
    check(stamp::arm(plan, nullptr), "arming the stamp plan");
  }
  static size_t slots(const stamp::Plan& p) { return size_t{p.blocks} * stamp::recorded_warps(p); }
};

// Medians of the plain and the recorded launches, timed alternately on the same inputs.
template <class Plain, class Recorded>
void time_both(RecordedRun& run, int reps, Plain&& plain, Recorded&& recorded) {
  if (reps <= 0) return;
  const Timed t = median_ms_interleaved([&](int) { plain(); }, [&](int) { recorded(); }, 1, reps);
  run.plain_ms = t.ours_ms;
  run.recorded_ms = t.theirs_ms;
}

double median_clock_mhz(const stamp::Recording& r) {
  std::vector<double> mhz;
  for (const auto& h : r.headers)
    if (h.valid && h.ns_end > h.ns_start + 1000) mhz.push_back(double(h.clock_end - h.clock_start) / double(h.ns_end - h.ns_start) * 1e3);
  if (mhz.empty()) return 0;
  std::sort(mhz.begin(), mhz.end());
  return mhz[mhz.size() / 2];
}

}  // namespace

RecordedRun record_gemm(const GemmShape& s, const GemmConfig& cfg, const RecordOptions& opt) {
  if (const std::string why = validate(s, cfg); !why.empty()) throw std::invalid_argument(why);
  // Its second launch (the sum of the K ranges) would record into the first one's slots.
  if (gemm_k_splits(s, cfg, sm_count()) > 1) throw std::invalid_argument("recording a split-K launch is not supported: record it with --split-k 1");
  DeviceBuffer a(s.m * s.k * 2), b(s.k * s.n * 2), c(s.m * s.n * (cfg.out == OutType::bf16 ? 2 : 4));
  random_bf16(a.p, s.m * s.k, 11);
  random_bf16(b.p, s.k * s.n, 12);
  uint32_t warps = 0;
  with_gemm(cfg, [&]<class K>() { warps = sched::pipeline_threads<K>() / 32; });
  RecordedRun run;
  run.grid_blocks = static_cast<uint32_t>(gemm_device_blocks(s, cfg));
  run.title = "gemm " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " " + describe(cfg);
  run.recording = record(run.grid_blocks, warps, opt, [&](const stamp::Plan&) { launch_gemm_device(a.p, b.p, c.p, s, cfg, nullptr, nullptr); });
  const TimedPlan timed(run.recording.plan);
  time_both(run, opt.timing_reps, [&] { launch_gemm(a.p, b.p, c.p, s, cfg, nullptr); },
            [&] { launch_gemm_device(a.p, b.p, c.p, s, cfg, nullptr, nullptr); });
  run.sm_clock_mhz = median_clock_mhz(run.recording);
  return run;
}

RecordedRun record_attention(const AttentionShape& s, const AttentionConfig& config, bool backward, const RecordOptions& opt) {
  if (const std::string why = validate(s); !why.empty()) throw std::invalid_argument(why);
  const AttentionConfig cfg = resolve(s, config);
  const size_t nq = s.batch * s.heads_q * s.seq * s.dim, nkv = s.batch * s.heads_kv * s.seq * s.dim;
  DeviceBuffer q(nq * 2), k(nkv * 2), v(nkv * 2), o(nq * 2), d_o(nq * 2), lse(s.batch * s.heads_q * s.seq * 4);
  DeviceBuffer dq(backward ? nq * 2 : 16), dk(backward ? nkv * 2 : 16), dv(backward ? nkv * 2 : 16),
      ws(backward ? attention_backward_workspace_bytes(s) : 16);
  random_bf16(q.p, nq, 21);
  random_bf16(k.p, nkv, 22);
  random_bf16(v.p, nkv, 23);
  random_bf16(d_o.p, nq, 24);
  attention_forward(q.p, k.p, v.p, o.p, static_cast<float*>(lse.p), s, nullptr);  // O and the LSE the backward reads
  uint32_t warps = 0;
  if (backward) with_backward(s, [&]<class B>() { warps = sched::pipeline_threads<typename B::main>() / 32; });
  else with_forward(s, cfg, [&]<class K>() { warps = sched::pipeline_threads<K>() / 32; });
  RecordedRun run;
  run.grid_blocks = static_cast<uint32_t>(attention_grid_blocks(s, backward, cfg, sm_count()));
  run.title = describe(s) + (backward ? " bwd" : " fwd");
  auto* lse_p = static_cast<float*>(lse.p);
  // The backward's pre-pass and dQ launches record nothing: a plan with no blocks.
  stamp::Plan active{};
  const auto launch_recorded = [&] {
    if (!backward) return attention_forward_device(q.p, k.p, v.p, o.p, lse_p, s, nullptr, nullptr, cfg);
    attention_backward_device(q.p, k.p, v.p, o.p, d_o.p, lse_p, dq.p, dk.p, dv.p, ws.p, s, nullptr, nullptr,
                              [&](BackwardLaunch which) {
                                check(stamp::arm(which == BackwardLaunch::main ? active : stamp::Plan{}, nullptr), "arming the stamp plan");
                              });
  };
  run.recording = record(run.grid_blocks, warps, opt, [&](const stamp::Plan& plan) {
    active = plan;
    launch_recorded();
  });
  const TimedPlan timed(run.recording.plan);
  active = timed.plan;
  time_both(
      run, opt.timing_reps,
      [&] {
        if (backward) attention_backward(q.p, k.p, v.p, o.p, d_o.p, lse_p, dq.p, dk.p, dv.p, ws.p, s, nullptr);
        else attention_forward(q.p, k.p, v.p, o.p, lse_p, s, nullptr, nullptr, cfg);
      },
      launch_recorded);
  run.sm_clock_mhz = median_clock_mhz(run.recording);
  return run;
}

}  // namespace ts::kernels
