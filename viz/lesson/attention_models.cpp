#include "viz/lesson/attention_models.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/attention/attention_layout.hpp"
#include "viz/lesson/attention_causal.hpp"
#if TILESCOPE_HAVE_HOST_BACKEND
#include "kernels/attention/attention_globals.hpp"
#endif

namespace ts::viz {

AttentionRun attention_run(const AttnKnobs& a, bool backward, int consumers, int overlap) {
  AttentionRun run;
  run.shape = {1, a.heads, a.heads, a.n, a.d, a.causal, 0.f};
  run.cfg = {consumers, overlap};
  run.backward = backward;
  return run;
}

OverlapRuns overlap_runs(const OverlapState& s) {
  const int consumers = int(s.consumers);
  OverlapRuns r{attention_run(s.attn, false, consumers, s.overlap ? 1 : 0), std::nullopt};
  if (!(consumers == 3 && s.attn.d == 128)) r.other = attention_run(s.attn, false, consumers, s.overlap ? 0 : 1);
  return r;
}

std::vector<AttentionRun> scene_attention_runs(const SceneState& state) {
  if (const auto* s = std::get_if<OverlapState>(&state)) {
    const OverlapRuns r = overlap_runs(*s);
    if (r.other) return {r.shown, *r.other};
    return {r.shown};
  }
  if (const auto* s = std::get_if<CausalState>(&state))
    return {causal_run(int(s->attn.n), int(s->attn.d), int(s->attn.heads), s->attn.causal)};
  if (const auto* s = std::get_if<AttnBackwardState>(&state)) return {attention_run(s->attn, false), attention_run(s->attn, true)};
  return {};
}

#if TILESCOPE_HAVE_HOST_BACKEND

uint64_t forward_smem_bytes(int dim, int consumers, bool overlap) {
  uint64_t bytes = 0;
  const kernels::AttentionShape s{1, 1, 1, 1, dim, false, 0.f};
  kernels::with_forward(s, {consumers, overlap ? 1 : 0}, [&]<class K>() { bytes = sched::pipeline_smem_bytes<K>(); });
  return bytes;
}

int forward_tile_stages(int dim, int consumers, bool overlap) {
  int stages = 0;
  const kernels::AttentionShape s{1, 1, 1, 1, dim, false, 0.f};
  kernels::with_forward(s, {consumers, overlap ? 1 : 0}, [&]<class K>() { stages = sched::kernel_tile_stages<K>(); });
  return stages;
}

FlowModel flow_model(const AttnKnobs& a, const sim::MachineSpec& m) {
  FlowModel f;
  const kernels::AttentionShape s = attention_run(a, false).shape;
  kernels::AttentionConfig cfg;
  try {
    cfg = kernels::resolve(s, {});
  } catch (const std::exception& e) {
    f.error = e.what();
    return f;
  }
  kernels::with_forward(s, cfg, [&]<class K>() {
    f.consumers = K::consumers, f.stages = K::stages, f.block_q = K::block_q, f.block_kv = K::block_kv;
    f.dim = int(a.d), f.overlap = cfg.overlap == 1;
    const auto g = kernels::forward_globals_for<K>(s);
    f.kv_blocks = K::iterations(g, 0);
    f.q_tile_bytes = sizeof(typename K::q_tile);
    f.tile_stages = sched::kernel_tile_stages<K>();
    f.stage_bytes = sizeof(typename K::input_stage);
    f.smem_bytes = sched::pipeline_smem_bytes<K>();
    f.score_bytes = uint64_t(K::block_q) * K::block_kv * sizeof(float);
    f.prob_bytes = uint64_t(K::block_q) * K::block_kv * sizeof(bf16);
    f.out_bytes = uint64_t(K::block_q) * a.d * sizeof(float);
    f.flops_per_block = 2.0 * 2.0 * K::consumers * K::block_q * K::block_kv * double(a.d);
    f.bytes_per_block = double(f.stage_bytes);
  });
  f.kernel_flops = kernels::attention_flops(s, false);
  f.kernel_hbm_bytes = 4.0 * double(s.batch * s.heads_q) * double(s.seq) * double(s.dim) * 2;
  f.peak_flops = m.bf16_dense_tflops.value * 1e12;
  f.hbm_bytes_per_s = m.hbm_bandwidth.value * 1e12;
  f.l2_bytes_per_s = m.l2_bandwidth.value * 1e12;
  return f;
}

BackwardModel backward_loop(const AttnKnobs& a) {
  BackwardModel b;
  const auto run = [&]<int D, bool Causal>() {
    using B = kernels::backward_kernels<D, Causal>;
    using K = typename B::main;
    const auto g = kernels::backward_globals_for<B>({1, a.heads, a.heads, a.n, D, Causal, 0.f}).main;
    b.consumers = K::consumers, b.block_kv = K::block_kv, b.block_q = K::block_q, b.ctas = K::num_tiles(g);
    for (int t = 0; t < K::num_tiles(g); ++t)
      for (int it = 0; it < K::iterations(g, t); ++it) {
        const auto p = K::where(g, t, it);
        for (int c = 0; c < K::consumers; ++c) b.pairs += !K::skips(p, c);
        // One dQ share per iteration: both consumers' keys, added by the one whose turn it is.
        ++b.dq_shares;
        b.dq_add_bytes += uint64_t(K::block_q) * D * sizeof(float);
      }
  };
  const auto by_causal = [&]<int D>() {
    if (a.causal) run.template operator()<D, true>();
    else run.template operator()<D, false>();
  };
  if (a.d == 64) by_causal.template operator()<64>();
  else by_causal.template operator()<128>();
  return b;
}

#else

uint64_t forward_smem_bytes(int, int, bool) { return 0; }
int forward_tile_stages(int, int, bool) { return 0; }
FlowModel flow_model(const AttnKnobs&, const sim::MachineSpec&) {
  FlowModel f;
  f.error = "this build has no host backend (Boost.Context was not found): the kernel's types are not compiled here";
  return f;
}
BackwardModel backward_loop(const AttnKnobs&) { return {}; }

#endif

namespace {

WarpActivity activity_of(sim::OpKind k) {
  switch (k) {
    case sim::OpKind::mma:
    case sim::OpKind::mma_commit: return WarpActivity::mma;
    case sim::OpKind::math: return WarpActivity::softmax;
    case sim::OpKind::mma_wait: return WarpActivity::wait_mma;
    case sim::OpKind::wait: return WarpActivity::wait_data;
    default: return WarpActivity::other;
  }
}

}  // namespace

OverlapModel overlap_model(const AttentionSim& sim) {
  if (sim.launches.empty()) return {};
  const auto& spans = sim.launches.front().report.spans;
  // Per SM, the warpgroups that load (the producer), that issue MMAs, and all of them.
  struct Groups {
    uint64_t all = 0, loading = 0, multiplying = 0;  // bit per warpgroup (a block has at most 8)
  };
  std::vector<Groups> per_sm;
  for (const sim::Span& s : spans) {
    if (s.sm >= per_sm.size()) per_sm.resize(s.sm + 1);
    const uint64_t bit = uint64_t{1} << std::min<uint32_t>(s.warp / 4, 63);
    per_sm[s.sm].all |= bit;
    if (s.kind == sim::OpKind::tma_load) per_sm[s.sm].loading |= bit;
    if (s.kind == sim::OpKind::mma) per_sm[s.sm].multiplying |= bit;
  }
  for (uint32_t sm = 0; sm < per_sm.size(); ++sm) {
    const Groups& g = per_sm[sm];
    if (g.multiplying != 0 && g.multiplying == (g.all & ~g.loading)) return overlap_model(spans, sm);
  }
  return overlap_model(spans, 0);
}

OverlapModel overlap_model(const std::vector<sim::Span>& spans, uint32_t sm) {
  OverlapModel m;
  m.sm = sm;
  // The producer warpgroup is the one whose warps issue TMA loads; the consumers' first warps get a row.
  uint32_t producer_warp = ~0u, max_warp = 0;
  bool any = false;
  std::vector<std::pair<double, double>> mma;
  for (const sim::Span& s : spans) {
    if (s.sm != sm) continue;
    if (s.kind == sim::OpKind::tma_load) producer_warp = std::min(producer_warp, s.warp);
    max_warp = std::max(max_warp, s.warp);
    if (s.kind == sim::OpKind::mma) mma.emplace_back(s.start, s.end);
    m.first = any ? std::min(m.first, s.start) : s.start;
    m.last = any ? std::max(m.last, s.end) : s.end;
    any = true;
  }
  const uint32_t producer_group = producer_warp == ~0u ? ~0u : producer_warp / 4;
  std::vector<int> row_of(max_warp + 1, -1);
  for (uint32_t w = 0; w <= max_warp; w += 4) {
    if (w / 4 == producer_group) continue;
    row_of[w] = static_cast<int>(m.rows.size());
    OverlapRow row;
    row.warp = w;
    row.label = "consumer " + std::to_string(w / 4 - (producer_group < w / 4 ? 1 : 0)) + " (warp " + std::to_string(w) + ")";
    m.rows.push_back(row);
  }
  for (const sim::Span& s : spans) {
    if (s.sm != sm || s.warp > max_warp || row_of[s.warp] < 0) continue;
    OverlapRow& row = m.rows[row_of[s.warp]];
    const WarpActivity a = activity_of(s.kind);
    row.bars.push_back({s.start, s.end, a});
    const double d = s.end - s.start;
    if (a == WarpActivity::softmax) row.softmax += d;
    else if (a == WarpActivity::wait_mma) row.wait_mma += d;
    else if (a == WarpActivity::wait_data) row.wait_data += d;
  }
  for (auto& row : m.rows)
    std::sort(row.bars.begin(), row.bars.end(), [](const ActivityBar& a, const ActivityBar& b) { return a.start < b.start; });
  std::sort(mma.begin(), mma.end());
  for (const auto& iv : mma) {
    if (!m.tensor_busy.empty() && iv.first <= m.tensor_busy.back().second)
      m.tensor_busy.back().second = std::max(m.tensor_busy.back().second, iv.second);
    else
      m.tensor_busy.push_back(iv);
  }
  double busy = 0;
  for (const auto& iv : m.tensor_busy) busy += iv.second - iv.first;
  m.tensor_idle = std::max(0.0, (m.last - m.first) - busy);
  return m;
}

BackwardModel backward_model(const AttnKnobs& a, const AttentionSim* fwd, const AttentionSim* bwd) {
  BackwardModel b = backward_loop(a);
  if (fwd && fwd->error.empty()) {
    b.forward_cycles = fwd->cycles;
    for (const auto& l : fwd->launches) b.forward_mma_flops += l.report.flops;
  }
  if (bwd && bwd->error.empty()) {
    b.backward_cycles = bwd->cycles;
    for (const auto& l : bwd->launches)
      b.launches.push_back({l.name, l.report.cycles, l.report.flops, double(l.report.global_write_bytes),
                            double(l.report.hbm_read_bytes), l.report.blocks});
  }
  return b;
}

TrustModel trust_model(const AttnTrustState& s, const AttentionMeasurements& m) {
  TrustModel t;
  t.header = m.compare_header;
  t.summary = m.compare_summary;
  double sum = 0;
  for (const CompareRow& r : m.compare) {
    if (s.pass == AttnPassFilter::fwd && r.backward) continue;
    if (s.pass == AttnPassFilter::bwd && !r.backward) continue;
    if (s.causal_only && !r.causal) continue;
    t.rows.push_back(&r);
    sum += std::abs(r.simulated - r.measured) / r.measured;
  }
  t.mape = t.rows.empty() ? 0 : 100 * sum / t.rows.size();
  return t;
}

}  // namespace ts::viz
