#pragma once
// The one place that turns a run-time AttentionShape into kernel instances and builds their
// globals. Both launchers go through it: attention_launch.cu (nvcc, device backend) and
// attention_host.cpp (g++, host backend), so the two run the same instances of the same sources.
// Internal linkage (static), as in gemm_dispatch.hpp: host and device builds of one instance share
// a mangled name but not a definition.
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/attention/attention_api.hpp"
#include "kernels/attention/attention_bwd.cuh"
#include "kernels/attention/attention_fwd.cuh"
#include "kernels/attention/attention_layout.hpp"
#include "tiles/sched/schedule.hpp"

namespace ts::kernels {

// What every entry point checks first: a valid shape and 16-byte aligned tensors (TMA's rule).
static void check_attention_args(const AttentionShape& s, std::initializer_list<const void*> pointers) {
  if (const std::string why = validate(s); !why.empty()) throw std::invalid_argument(why);
  for (const void* p : pointers)
    if (p == nullptr || reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      throw std::invalid_argument("attention: every tensor must be a non-null, 16-byte aligned pointer");
}

template <class T> static T* mutable_ptr(const void* p) { return const_cast<T*>(static_cast<const T*>(p)); }

template <int D, bool Causal>
struct backward_kernels {
  using prep = attention_bwd_prep<D>;
  using main = attention_bwd<D, Causal>;
  using dq = attention_bwd_dq<D>;
  static_assert(main::consumers * main::block_kv == kBackwardKeysPerBlock, "attention_layout.hpp: backward block size");
};

// Calls f.template operator()<K>() with the forward instance for the shape and resolved config.
template <class F>
static void with_forward(const AttentionShape& s, const AttentionConfig& cfg, F&& f) {
  const auto variant = [&]<int D, bool Causal>() {
    if (cfg.consumers == 2) {
      if (cfg.overlap) f.template operator()<attention_fwd<D, Causal, 2, true>>();
      else f.template operator()<attention_fwd<D, Causal, 2, false>>();
    } else if constexpr (D == 64) {  // three consumers overlapping themselves fit at D = 64 only
      if (cfg.overlap) f.template operator()<attention_fwd<D, Causal, 3, true>>();
      else f.template operator()<attention_fwd<D, Causal, 3, false>>();
    } else {
      f.template operator()<attention_fwd<D, Causal, 3, false>>();
    }
  };
  const auto pick = [&]<int D>() {
    if (s.causal) variant.template operator()<D, true>();
    else variant.template operator()<D, false>();
  };
  if (s.dim == 64) pick.template operator()<64>();
  else pick.template operator()<128>();
}
// Calls f.template operator()<backward_kernels<D, causal>>().
template <class F>
static void with_backward(const AttentionShape& s, F&& f) {
  const auto pick = [&]<int D>() {
    if (s.causal) f.template operator()<backward_kernels<D, true>>();
    else f.template operator()<backward_kernels<D, false>>();
  };
  if (s.dim == 64) pick.template operator()<64>();
  else pick.template operator()<128>();
}

template <class K>
static typename K::globals forward_globals(const void* q, const void* k, const void* v, void* o, float* lse, const AttentionShape& s) {
  const auto gq = gl<bf16>::make(mutable_ptr<bf16>(q), s.batch, s.heads_q, s.seq, s.dim);
  const auto gk = gl<bf16>::make(mutable_ptr<bf16>(k), s.batch, s.heads_kv, s.seq, s.dim);
  const auto gv = gl<bf16>::make(mutable_ptr<bf16>(v), s.batch, s.heads_kv, s.seq, s.dim);
  const auto go = gl<bf16>::make(static_cast<bf16*>(o), s.batch, s.heads_q, s.seq, s.dim);
  const float scale = softmax_scale(s);
  typename K::globals g{tma::make_map<typename K::q_tile>(gq),
                        tma::make_map<typename K::q_tile>(go),
                        tma::make_map<typename K::kv_tile>(gk),
                        tma::make_map<typename K::kv_tile>(gv),
                        gl<float>::make(lse, s.batch, s.heads_q, 1, s.seq),
                        static_cast<int>(s.batch),
                        divisor(static_cast<int>(s.heads_q)),
                        divisor(static_cast<int>(s.heads_q / s.heads_kv)),
                        divisor(static_cast<int>(ceil_div(s.seq, K::consumers * K::block_q))),
                        static_cast<int>(s.seq),
                        scale,
                        scale * log2_e};
  g.lead_blocks = K::lead_blocks(static_cast<int>(s.seq));
  return g;
}

// The persistent causal forward's schedule for a grid of `blocks` (tiles/sched/schedule.hpp), made
// once per shape and grid and kept for the process (4 bytes a tile); null where the forward needs
// none: without masks every tile is as long as the next and the stride is balanced, and a block per
// tile is balanced by the GPU. A tile costs its iterations plus kForwardTileStart.
inline constexpr double kForwardTileStart = 0.5;  // iterations: a tile's start and epilogue, which a persistent block overlaps only in part
template <class K>
static const std::vector<int32_t>* forward_schedule(const typename K::globals& g, int blocks) {
  const int tiles = K::num_tiles(g);
  if (!K::causal || blocks >= tiles) return nullptr;
  static std::mutex lock;
  static std::map<std::array<int, 5>, std::vector<int32_t>> made;  // by batch, heads, query blocks, N, blocks
  const std::lock_guard<std::mutex> hold(lock);
  const auto [at, fresh] = made.try_emplace({g.batch, g.heads_q.value(), g.q_blocks.value(), g.seq, blocks});
  if (fresh) at->second = sched::greedy_schedule(tiles, blocks, [&](int tile) { return K::iterations(g, tile) + kForwardTileStart; });
  return &at->second;
}

// The three backward launches' globals over the caller's tensors and workspace.
template <class B>
struct backward_globals {
  typename B::prep::globals prep;
  typename B::main::globals main;
  typename B::dq::globals dq;
};

template <class B>
static backward_globals<B> make_backward_globals(const void* q, const void* k, const void* v, const void* o, const void* d_o,
                                                 const float* lse, void* dq, void* dk, void* dv, void* workspace,
                                                 const AttentionShape& s) {
  using P = typename B::prep;
  using M = typename B::main;
  using Q = typename B::dq;
  const BackwardWorkspace ws(s);
  char* base = static_cast<char*>(workspace);
  auto* dq_acc = reinterpret_cast<float*>(base + ws.dq_offset);
  auto* delta = reinterpret_cast<float*>(base + ws.delta_offset);
  auto* lse_log2 = reinterpret_cast<float*>(base + ws.lse_offset);
  const auto q_of = [&](const void* p) { return gl<bf16>::make(mutable_ptr<bf16>(p), s.batch, s.heads_q, s.seq, s.dim); };
  const auto kv_of = [&](const void* p) { return gl<bf16>::make(mutable_ptr<bf16>(p), s.batch, s.heads_kv, s.seq, s.dim); };
  const auto rows_of = [&](float* p) { return gl<float>::make(p, s.batch, s.heads_q, 1, ws.padded_seq); };
  const auto acc = gl<float>::make(dq_acc, s.batch, s.heads_q, s.seq, s.dim);
  const int q_blocks = static_cast<int>(ceil_div(s.seq, 64));
  const float scale = softmax_scale(s);
  backward_globals<B> g{
      typename P::globals{tma::make_map<typename P::tile>(q_of(o)), tma::make_map<typename P::tile>(q_of(d_o)),
                          gl<float>::make(mutable_ptr<float>(lse), s.batch, s.heads_q, 1, s.seq), rows_of(delta),
                          rows_of(lse_log2), tma::make_map<typename P::sum_tile>(acc), static_cast<int>(s.batch),
                          static_cast<int>(s.heads_q), q_blocks},
      typename M::globals{tma::make_map<typename M::q_tile>(q_of(q)), tma::make_map<typename M::q_tile>(q_of(d_o)),
                          tma::make_map<typename M::kv_tile>(kv_of(k)), tma::make_map<typename M::kv_tile>(kv_of(v)),
                          tma::make_map<typename M::kv_tile>(kv_of(dk)), tma::make_map<typename M::kv_tile>(kv_of(dv)),
                          tma::make_map<typename M::row_vector>(rows_of(lse_log2)),
                          tma::make_map<typename M::row_vector>(rows_of(delta)), tma::make_map<typename M::dq_tile>(acc),
                          static_cast<int>(s.batch), divisor(static_cast<int>(s.heads_kv)), divisor(static_cast<int>(s.heads_q / s.heads_kv)),
                          divisor(static_cast<int>(ceil_div(s.seq, kBackwardKeysPerBlock))), q_blocks, static_cast<int>(s.seq), scale,
                          scale * log2_e},
      typename Q::globals{tma::make_map<typename Q::acc_tile>(acc), tma::make_map<typename Q::dq_tile>(q_of(dq)),
                          static_cast<int>(s.batch), static_cast<int>(s.heads_q), q_blocks, scale}};
  return g;
}

}  // namespace ts::kernels
