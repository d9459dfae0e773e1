#include "viz/lesson/attention_causal.hpp"

#include <algorithm>
#include <limits>

#include "kernels/attention/attention_layout.hpp"
#if TILESCOPE_HAVE_HOST_BACKEND
#include "kernels/attention/attention_globals.hpp"
#endif

namespace ts::viz {

AttentionRun causal_run(int seq, int dim, int heads, bool causal) {
  AttentionRun run;
  run.shape = {1, heads, heads, seq, dim, causal, 0.f};
  // A block per tile, balanced by the GPU's block scheduler, which the scene shows CTA by CTA. The
  // default forward is persistent and decides the same balance before the launch (the lesson says so).
  run.cfg.persistent = 0;
  return run;
}

#if TILESCOPE_HAVE_HOST_BACKEND

namespace {

// The kernel's own where(), iterations(), has_work() and its early return, for one head.
template <int D, bool Causal>
void fill_grid(CausalGrid& g) {
  using K = kernels::attention_fwd<D, Causal, 3, false>;  // the order and loop bounds do not depend on Overlap
  const auto glob = kernels::forward_globals_for<K>({1, 1, 1, g.seq, D, Causal, 0.f});
  g.consumers = K::consumers;
  g.block_q = K::consumers * K::block_q;
  g.block_kv = K::block_kv;
  g.q_blocks = glob.q_blocks;
  g.kv_blocks = static_cast<int>(kernels::ceil_div(g.seq, K::block_kv));
  g.iterations.assign(g.q_blocks, 0);
  g.launch_order.assign(g.q_blocks, 0);
  g.work.assign(size_t(g.q_blocks) * g.kv_blocks * g.consumers, PairWork::skipped);
  for (int t = 0; t < K::num_tiles(glob); ++t) {
    const int q = K::where(glob, t).q_block;
    g.launch_order[t] = q;
    g.iterations[q] = K::iterations(glob, t);
  }
  for (int t = 0; t < K::num_tiles(glob); ++t) {
    const int q = K::where(glob, t).q_block;
    g.loaded += g.iterations[q];
    g.not_loaded += g.kv_blocks - g.iterations[q];
    for (int kv = 0; kv < g.iterations[q]; ++kv)
      for (int c = 0; c < g.consumers; ++c) {
        // The pipeline's test (has_work: no rows, before 0 or past N), then compute()'s: the
        // warpgroup's first row, and the last row it holds.
        const int q0 = K::first_row(glob, {0, 0, q}, c), k0 = kv * K::block_kv;
        PairWork w = PairWork::full;
        if (!K::has_work(glob, t, c) || (Causal && k0 > q0 + K::block_q - 1)) w = PairWork::skipped, ++g.warpgroup_skipped;
        else if (Causal && k0 + K::block_kv - 1 > q0) w = PairWork::masked;
        else if (k0 + K::block_kv > g.seq) w = PairWork::masked;  // the tail's keys past N
        g.work[(size_t(q) * g.kv_blocks + kv) * g.consumers + c] = w;
      }
  }
}

}  // namespace

CausalGrid causal_grid(int seq, int dim, bool causal) {
  CausalGrid g;
  g.seq = seq, g.dim = dim, g.causal = causal;
  if (seq < 1 || (dim != 64 && dim != 128)) {
    g.error = "the attention kernel takes head dimension 64 or 128 and N >= 1";
    return g;
  }
  const auto pick = [&]<int D>() {
    if (causal) fill_grid<D, true>(g);
    else fill_grid<D, false>(g);
  };
  if (dim == 64) pick.template operator()<64>();
  else pick.template operator()<128>();
  return g;
}

#else

CausalGrid causal_grid(int seq, int dim, bool causal) {
  CausalGrid g;
  g.seq = seq, g.dim = dim, g.causal = causal;
  g.error = "this build has no host backend (Boost.Context was not found), so the kernel's loop bounds cannot run here";
  return g;
}

#endif

CausalTimeline causal_timeline(const AttentionSim& sim, uint32_t sms) {
  CausalTimeline t;
  t.sms.resize(sms);
  if (sim.launches.empty()) return t;
  const AttentionLaunchSim& l = sim.launches.front();
  double busy = 0;
  for (const BlockSpan& b : l.blocks) {
    t.block_cycles.push_back(b.end - b.start);
    if (b.sm >= sms) continue;
    t.sms[b.sm].blocks.push_back(b);
    t.sms[b.sm].last = std::max(t.sms[b.sm].last, b.end);
    t.makespan = std::max(t.makespan, b.end);
    busy += b.end - b.start;
  }
  t.first_idle = std::numeric_limits<double>::max();
  for (const SmRow& r : t.sms)
    if (!r.blocks.empty()) t.first_idle = std::min(t.first_idle, r.last);
  if (t.first_idle == std::numeric_limits<double>::max()) t.first_idle = 0;
  t.busy_fraction = t.makespan > 0 ? busy / (double(sms) * t.makespan) : 0;
  return t;
}

}  // namespace ts::viz
