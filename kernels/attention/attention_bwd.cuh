#pragma once
// Attention backward: dQ, dK, dV from Q, K, V, O, dO and the forward's log-sum-exp, in three
// kernels on the pipeline template:
//   attention_bwd_prep   per query row: delta = rowsum(dO * O), the log-sum-exp in base 2, and the
//                        row's fp32 dQ sums set to zero
//   attention_bwd        per block of 128 keys: dK and dV in registers, dQ added into fp32
//   attention_bwd_dq     dQ = scale * the fp32 sums, in bf16
// The per-row passes are persistent (a block per SM, four tiles' loads in flight): a block per
// 64-row tile spent most of its life waiting for its one load, and zeroing the sums in the prep
// spares a memset of its own (H100, 2026-11-27, B16 H16 N1024 D64: memset, prep and dQ pass 26 + 83 +
// 70 us before, 67 + 39 us after, beside a main kernel of 400 us: data/measured/h100/attention/
// bwd-side-passes.txt).
// Why dQ by atomic adds: a block owns its keys, so dK and dV need no communication, while every
// key block contributes to every query row's dQ. Recomputing dQ in a pass of its own would redo
// two of the five matrix products (S and dP); adding each block's 64 x D share into an fp32 copy
// with TMA's reducing store costs one L2 round trip per share instead, and the copy engine does it
// while the tensor cores go on. The consumers compute the transposed scores S^T = K Q^T, so P^T and
// dS^T come out in registers in the layout the next MMAs take as their A operand (dV += P^T dO,
// dK += dS^T Q); dQ += dS K reads dS^T back from shared memory as a transposed operand.
// Why the consumers take turns at one dQ share per iteration (128 keys): a share per consumer
// (64 keys) doubled the reducing-store bytes, and L2 was the busiest unit (79-92 % in Nsight Compute,
// three quarters of it those stores: data/measured/h100/attention/bwd-l2.txt); a per-block share summed
// in shared memory at every iteration made the consumers wait on each other and lost causal
// (bwd-shared-dq.txt). Here each consumer leaves its dS^T in one of two buffers and goes on; the one
// whose turn it is multiplies both consumers' dS^T by their keys during the next iteration, so the
// hand-over is an iteration old when it is needed. H100, 2026-11-27: +10-22 % on every shape
// (data/measured/h100/attention/bwd-dq-turns.txt). At D = 128 the share has two 64-column parts, and
// each consumer takes one every iteration (has_dq_part).
// This file is the single source: nvcc builds it for the GPU, g++ for the CPU backend.
#include <cmath>

#include "tiles/tiles.hpp"
#include "tiles/sched/pipeline.hpp"

namespace ts::kernels {

inline constexpr float log2_e = 1.4426950408889634f;

// The per-row passes (prep, dQ) take one 64-row block of one (batch, head) per tile.
template <class G> TS_KERNEL_FN coord row_block(const G& g, int tile) {
  return {tile / g.q_blocks / g.heads_q, tile / g.q_blocks % g.heads_q, tile % g.q_blocks, 0};
}

template <int D>
struct attention_bwd_prep {
  static constexpr int consumers = 1, stages = 4, producer_registers = 24, consumer_registers = 240;
  using tile = st<bf16, 64, D>;
  using rows = rt_bf<16, D>;
  using row_stats = row_vec<rt_fl<16, D>>;
  using sum_tile = st<float, 64, 64>;  // 64 columns of a row block's fp32 dQ sums
  struct globals {
    tma::map<tile> o, d_o;
    gl<float> lse, delta, lse_log2;  // [B, H_q, 1, N] in; [B, H_q, 1, padded N] out
    tma::map<sum_tile> dq_sums;      // fp32 [B, H_q, N, D]: zeroed here, summed into by attention_bwd
    int batch, heads_q, q_blocks;
  };
  struct input_stage {
    tile o, d_o;
  };
  struct output_stage {
    sv<float, 16> delta[4], lse[4];
    sum_tile zeros;  // written once per block; TMA stores it over every row block's sums
  };
  struct consumer_state {
    row_stats delta;
    bool zeros_written = false;
  };
  static TS_KERNEL_FN int num_tiles(const globals& g) { return g.batch * g.heads_q * g.q_blocks; }
  static TS_KERNEL_FN int iterations(const globals&) { return 1; }
  static TS_KERNEL_FN coord at(const globals& g, int tile) { return row_block(g, tile); }
  static TS_KERNEL_FN void load(input_stage& in, const globals& g, int tile, int, barrier& full) {
    tma::load_async(in.o, g.o, at(g, tile), full);
    tma::load_async(in.d_o, g.d_o, at(g, tile), full);
  }
  static TS_KERNEL_FN void compute(consumer_state& s, input_stage& in, int, int) {
    rows o, d_o;
    warp::load(o, in.o, 16 * warpgroup::warpid(), 0);
    warp::load(d_o, in.d_o, 16 * warpgroup::warpid(), 0);
    rt_fl<16, D> prod;
    mul(prod, o, d_o);
    row_sum(s.delta, prod);
  }
  static TS_KERNEL_FN void compute_done(consumer_state&) {}
  static TS_KERNEL_FN void store(consumer_state& s, output_stage& out, const globals& g, int tile, int) {
    const int w = warpgroup::warpid();
    const bool leader = w == 0 && elect_one();
    coord c = at(g, tile);
    if (!s.zeros_written) {
      rt_fl<16, 64> zeros;
      zero(zeros);
      warp::store(out.zeros, zeros, 16 * w, 0);
      fence_async_shared();
      warpgroup::sync(0);
      s.zeros_written = true;
    }
    if (leader) {
      // The zeros never change, so nothing waits for these stores but the kernel's end; this wait only
      // keeps the bulk groups in flight few (the simulator tracks 16 per warp).
      tma::store_async_read_wait<2>();
      for (int j = 0; j < D / 64; ++j) tma::store_async(g.dq_sums, out.zeros, {c.b, c.h, c.r, j});
    }
    c = {c.b, c.h, 0, c.r * 4 + w};  // this warp's 16 rows, as a 16-element vector of the row
    warp::store(out.delta[w], s.delta);
    warp::load(out.lse[w], g.lse, c);  // zeros past the last row
    warp::sync();
    row_stats lse;
    warp::load(lse, out.lse[w]);
    const float to_base2 = log2_e;  // a copy: device code may not take the host constant's address
    mul(lse, lse, to_base2);
    warp::sync();
    warp::store(out.lse[w], lse);
    warp::sync();
    warp::store(g.delta, out.delta[w], c);
    warp::store(g.lse_log2, out.lse[w], c);
  }
  static TS_KERNEL_FN void finish(output_stage&, const globals&, int) {
    if (warpgroup::warpid() == 0 && elect_one()) tma::store_async_wait<0>();
  }
};

// Stages and dQ staging tiles per consumer, measured (H100, attention_once; 2026-11-26: data/measured/
// h100/attention/bwd-stages.txt, bwd-stages-buffers.txt; after the dQ turns, 2026-11-27: bwd-dq-turns.txt):
// at D = 64 four stages without a mask (+4-6 % over two stages and two staging tiles), three causal;
// at D = 128 two, and the double-buffered dS^T leaves room for one staging tile only. With one dQ share
// per iteration, taken in turns, one staging tile is enough everywhere.
template <int D, bool Causal, int Stages = D == 128 ? 2 : Causal ? 3 : 4, int DqBuffers = 1>
struct attention_bwd {
  static_assert(D == 64 || D == 128, "attention_bwd: head dimension 64 or 128");
  static constexpr int consumers = 2, block_kv = 64, block_q = 64, stages = Stages;
  static constexpr int producer_registers = 40, consumer_registers = 232;
  static constexpr int release_lag = 0;

  using kv_tile = st<bf16, block_kv, D>;  // one consumer's keys or values (then its dK, dV)
  using q_tile = st<bf16, block_q, D>;
  using row_vector = sv<float, block_q>;
  using dq_tile = st<float, block_q, 64>;  // 64 columns of a dQ share at a time, to spare registers
  using ds_tile = st<bf16, block_kv, block_q>;  // one consumer's dS^T, the A operand of dQ += dS K
  using score_tile = rt_fl<16, block_q>;   // this warp's 16 keys x 64 queries: S transposed
  using query_stats = col_vec<score_tile>;

  struct globals {
    tma::map<q_tile> q, d_o;
    tma::map<kv_tile> k, v, dk, dv;
    tma::map<row_vector> lse_log2, delta;  // [B, H_q, 1, N padded to 64]: TMA rows are 16-byte multiples
    tma::map<dq_tile> dq;                  // fp32 [B, H_q, N, D], zeroed by attention_bwd_prep
    int batch;
    divisor heads_kv, group, kv_blocks;  // group = H_q / H_kv; kv_blocks of consumers x 64 keys
    int q_blocks, seq;
    float scale, scale_log2;
  };
  struct tile_stage {
    kv_tile k[consumers], v[consumers];  // loaded once per block (tile_bytes)
    // Both consumers' dS^T of the last two iterations: the consumers take turns at the block's dQ share
    // of an iteration, one iteration late, so one buffer is read while the next is written.
    ds_tile ds[2][consumers];
    dq_tile dq[consumers][DqBuffers];  // dQ shares on their way to global memory
    barrier ds_ready[2];  // an iteration's dS^T written by both consumers (one arrival per warp)
    barrier ds_free[2];   // its dQ MMAs done (one arrival per warp that multiplied a part of the share)
  };
  static constexpr uint32_t tile_bytes = 2 * consumers * kv_tile::bytes;
  struct input_stage {
    q_tile q, d_o;
    row_vector lse_log2, delta;
  };
  static constexpr uint32_t input_bytes = 2 * q_tile::bytes + 2 * sizeof(row_vector);
  struct output_stage {};
  struct consumer_state {
    rt_fl<16, D> dk{}, dv{};  // this warp's 16 keys
    int dq_buffer = 0;        // which dQ staging tile comes next
    // No dK, dV MMA of this tile yet: the first one overwrites the accumulators (wgmma's scale-d)
    // instead of a zero fill, which the compiler turned into selects that every iteration ran
    // (64 FSEL per lane and iteration at D = 64, 128 at D = 128: the SASS of the loop).
    bool fresh = true;
    // Iterations so far, over every tile of the block: picks the dS^T buffer, the parity of its
    // barriers and whose turn the dQ share is. Both consumers run the same iterations, so they agree.
    uint32_t uses = 0;
  };

  static TS_KERNEL_FN void init(tile_stage& t) {
    for (int b = 0; b < 2; ++b) {
      ts::init(t.ds_ready[b], 4 * consumers);
      ts::init(t.ds_free[b], 4 * dq_parts);
    }
  }

  struct position {
    int b, h_kv, kv_block, h_q, q_block;
  };
  static TS_KERNEL_FN int first_q_block(int kv_block) { return Causal ? kv_block * consumers * block_kv / block_q : 0; }
  // Blocks with the most query blocks (the first keys, when causal) start first. Iteration `it`
  // takes the block's (it / group)-th query block for query head it % group of the group that
  // shares these keys.
  static TS_KERNEL_FN position where(const globals& g, int tile, int it) {
    const auto [bh, kv_block] = g.kv_blocks.divmod(tile);
    const auto [b, h_kv] = g.heads_kv.divmod(bh);
    const auto [q, head] = g.group.divmod(it);
    return {b, h_kv, kv_block, h_kv * g.group + head, first_q_block(kv_block) + q};
  }
  // Causal: every query of the iteration's block precedes this consumer's keys (only the second
  // consumer, at the first query block of its keys).
  static TS_KERNEL_FN bool skips(const position& p, int consumer) {
    return Causal && p.q_block * block_q + block_q - 1 < (p.kv_block * consumers + consumer) * block_kv;
  }
  static TS_KERNEL_FN int num_tiles(const globals& g) { return g.batch * g.heads_kv * g.kv_blocks; }
  static TS_KERNEL_FN int iterations(const globals& g, int tile) {
    return g.group * (g.q_blocks - first_q_block(g.kv_blocks.mod(tile)));
  }

  static TS_KERNEL_FN void load_tile(tile_stage& t, const globals& g, int tile, barrier& full) {
    const position p = where(g, tile, 0);
    for (int c = 0; c < consumers; ++c) {
      tma::load_async(t.k[c], g.k, {p.b, p.h_kv, p.kv_block * consumers + c, 0}, full);
      tma::load_async(t.v[c], g.v, {p.b, p.h_kv, p.kv_block * consumers + c, 0}, full);
    }
  }
  static TS_KERNEL_FN void load(input_stage& in, const globals& g, int tile, int it, barrier& full) {
    const position p = where(g, tile, it);
    tma::load_async(in.q, g.q, {p.b, p.h_q, p.q_block, 0}, full);
    tma::load_async(in.d_o, g.d_o, {p.b, p.h_q, p.q_block, 0}, full);
    tma::load_async(in.lse_log2, g.lse_log2, {p.b, p.h_q, 0, p.q_block}, full);
    tma::load_async(in.delta, g.delta, {p.b, p.h_q, 0, p.q_block}, full);
  }

  static TS_KERNEL_FN void compute(consumer_state& s, tile_stage& t, input_stage& in, const globals& g, int tile,
                                   int consumer, int it) {
    if (it == 0) s.fresh = true;
    const position p = where(g, tile, it);
    const uint32_t use = s.uses++;
    // This consumer's part of the previous iteration's dQ share (none before a tile's first).
    const bool previous_dq = it > 0 && has_dq_part(use - 1, consumer);
    if (skips(p, consumer)) {  // its dS^T is zero: the share of this iteration adds nothing from these keys
      rt_bf<16, block_q> none;
      zero(none);
      hand_over_ds(t, use, consumer, none);
      if (previous_dq) add_share(s, t, g, where(g, tile, it - 1), consumer, use - 1);
      return;
    }
    const int k0 = (p.kv_block * consumers + consumer) * block_kv, q0 = p.q_block * block_q;
    const int warp_k0 = k0 + 16 * warpgroup::warpid();

    // Recompute the probabilities, transposed: P^T = 2^(S^T scale log2 e - lse_log2[query]).
    score_tile att, d_att;
    warpgroup::mma_fence(att);
    warpgroup::mm_ABt(att, t.k[consumer], in.q);
    warpgroup::mma_fence(d_att);
    warpgroup::mm_ABt(d_att, t.v[consumer], in.d_o);  // dP^T = V dO^T
    warpgroup::mma_commit_group();
    warpgroup::mma_async_wait<0>(att);
    warpgroup::mma_async_wait<0>(d_att);  // no wait: ties d_att's registers to the one above
    if (q0 + block_q > g.seq) mask(att, att, -INFINITY, math::columns_from{g.seq - q0});
    if (Causal && warp_k0 + 15 > q0) mask(att, att, -INFINITY, math::below_diagonal{warp_k0 - q0});
    {  // each vector lives only as long as its use: at D = 128 the registers are counted
      query_stats lse;
      warp::load(lse, in.lse_log2);
      exp2_col(att, att, g.scale_log2, lse);
    }
    {  // dS^T = P^T (dP^T - delta[query]); the softmax scale is applied once, at the end.
      query_stats delta;
      warp::load(delta, in.delta);
      sub_col(d_att, d_att, delta);
    }
    mul(d_att, d_att, att);
    rt_bf<16, block_q> p_t, ds_t;
    copy(p_t, att);
    copy(ds_t, d_att);
    const bool accumulate = !s.fresh;
    s.fresh = false;

    // dV += P^T dO; dS^T goes to shared memory while it runs; then, in this consumer's turn, the
    // previous iteration's dQ share (both consumers' dS^T times their keys) before dK += dS^T Q, and
    // its first 64 columns are stored while dK's MMA runs.
    warpgroup::mma_fence(s.dv);
    warpgroup::mma_AB(s.dv, p_t, in.d_o, accumulate);
    warpgroup::mma_commit_group();
    hand_over_ds(t, use, consumer, ds_t);
    // (dK's MMA is written out in both branches: with one issue after an `if` that may start the dQ
    // MMAs, ptxas serialized every wgmma of the loop, C7514.)
    if (previous_dq) {
      rt_fl<16, 64> dq;
      const position q = where(g, tile, it - 1);
      start_dq(dq, t, use - 1, consumer);
      warpgroup::mma_fence(s.dk);
      warpgroup::mma_AB(s.dk, ds_t, in.q, accumulate);
      warpgroup::mma_commit_group();
      finish_dq<1>(s, t, g, q, consumer, dq, use - 1);  // dK's group may run on
    } else {
      warpgroup::mma_fence(s.dk);
      warpgroup::mma_AB(s.dk, ds_t, in.q, accumulate);
      warpgroup::mma_commit_group();
    }
    warpgroup::mma_async_wait<0>(s.dk);  // dK's MMA reads this stage's Q, which goes back on return
    warpgroup::mma_async_wait<0>(s.dv);  // (no wait: tells the compiler dV's registers are written)
  }

  // Who multiplies which 64 columns of iteration `use`'s dQ share. D = 64: the consumers take turns at
  // the whole share. D = 128: each consumer takes 64 of its columns every iteration, so that both do the
  // same work and neither waits for a second MMA of the share before storing; H100, 2026-11-27: 2 % faster
  // than turns on average, within the measurement's spread (data/measured/h100/attention/bwd-dq-columns.txt).
  static constexpr int dq_parts = D / 64;
  static TS_KERNEL_FN bool has_dq_part(uint32_t use, int consumer) {
    return dq_parts == consumers || use % 2 == static_cast<uint32_t>(consumer);
  }
  static TS_KERNEL_FN int dq_column(int consumer) { return dq_parts == consumers ? consumer : 0; }

  // This warp's rows of its consumer's dS^T of iteration `use` into that iteration's buffer, once
  // the dQ share that last read the buffer (two iterations ago) is done; then the warp says so.
  static TS_KERNEL_FN void hand_over_ds(tile_stage& t, uint32_t use, int consumer, const rt_bf<16, block_q>& ds_t) {
    const uint32_t b = use % 2, round = use / 2;
    wait(t.ds_free[b], (round & 1) ^ 1);  // the first round finds the buffer free
    warp::store(t.ds[b][consumer], ds_t, 16 * warpgroup::warpid(), 0);
    fence_async_shared();  // the stores, seen by the other consumer's wgmma
    if (elect_one()) arrive(t.ds_ready[b]);
  }
  // This consumer's 64 columns of the dQ share of iteration `use`: dS of both consumers times their
  // keys, once both have written their dS^T.
  static TS_KERNEL_FN void start_dq(rt_fl<16, 64>& dq, tile_stage& t, uint32_t use, int consumer) {
    wait(t.ds_ready[use % 2], (use / 2) & 1);
    warpgroup::mma_fence(dq);
    for (int c = 0; c < consumers; ++c)
      warpgroup::mma_AtB(dq, t.ds[use % 2][c], column_block(t.k[c], dq_column(consumer)), c > 0);
    warpgroup::mma_commit_group();
  }
  // The columns added into global memory once their MMA is through (Pending: the MMA groups committed
  // after it, left in flight), then the buffer freed of this warp's reads.
  template <int Pending>
  static TS_KERNEL_FN void finish_dq(consumer_state& s, tile_stage& t, const globals& g, const position& q, int consumer,
                                     rt_fl<16, 64>& dq, uint32_t use) {
    warpgroup::mma_async_wait<Pending>(dq);
    add_dq(s, t, g, q, consumer, dq, dq_column(consumer));
    if (elect_one()) arrive(t.ds_free[use % 2]);
  }
  // This consumer's part of the dQ share of iteration `use`, with no other MMA in flight.
  static TS_KERNEL_FN void add_share(consumer_state& s, tile_stage& t, const globals& g, const position& q, int consumer,
                                     uint32_t use) {
    rt_fl<16, 64> dq;
    start_dq(dq, t, use, consumer);
    finish_dq<0>(s, t, g, q, consumer, dq, use);
  }
  // Columns [64 j, 64 j + 64) of a dQ share, through a staging tile, by TMA's reducing store.
  static TS_KERNEL_FN void add_dq(consumer_state& s, tile_stage& t, const globals& g, const position& p, int consumer,
                                  const rt_fl<16, 64>& dq, int j) {
    const bool leader = warpgroup::warpid() == 0 && elect_one();
    dq_tile& staging = t.dq[consumer][s.dq_buffer];
    s.dq_buffer = (s.dq_buffer + 1) % DqBuffers;
    if (leader) tma::store_async_read_wait<DqBuffers - 1>();  // the share this tile held last has left it
    warpgroup::sync(consumer);
    warpgroup::store(staging, dq);
    fence_async_shared();
    warpgroup::sync(consumer);
    if (leader) tma::store_add_async(g.dq, staging, {p.b, p.h_q, p.q_block, j});
  }

  // The last dK and dV MMAs are done (the dQ loop waited); this tells the compiler so.
  static TS_KERNEL_FN void compute_done(consumer_state& s) {
    warpgroup::mma_async_wait<0>(s.dk);
    warpgroup::mma_async_wait<0>(s.dv);
  }

  // The tile's last dQ share, by the consumers whose parts it holds; then dK (times the softmax scale)
  // and dV leave through this consumer's own K and V tiles, once that share has read both K tiles.
  static TS_KERNEL_FN void store(consumer_state& s, tile_stage& t, output_stage&, const globals& g, int tile, int consumer) {
    const uint32_t last = s.uses - 1;
    const bool part = has_dq_part(last, consumer);
    if (part) add_share(s, t, g, where(g, tile, iterations(g, tile) - 1), consumer, last);
    if (!part || dq_parts > 1) wait(t.ds_free[last % 2], (last / 2) & 1);  // (D = 128: the other part, too)
    const position p = where(g, tile, 0);
    const bool leader = warpgroup::warpid() == 0 && elect_one();
    mul(s.dk, s.dk, g.scale);
    warpgroup::sync(consumer);
    warpgroup::store(t.k[consumer], s.dk);
    warpgroup::store(t.v[consumer], s.dv);
    fence_async_shared();
    warpgroup::sync(consumer);
    if (leader) {
      tma::store_async(g.dk, t.k[consumer], {p.b, p.h_kv, p.kv_block * consumers + consumer, 0});
      tma::store_async(g.dv, t.v[consumer], {p.b, p.h_kv, p.kv_block * consumers + consumer, 0});
      tma::store_async_read_wait<0>();  // the producer may refill these tiles once store returns
    }
    warpgroup::sync(consumer);
  }

  static TS_KERNEL_FN void finish(output_stage&, const globals&, int) {
    if (warpgroup::warpid() == 0 && elect_one()) tma::store_async_wait<0>();
  }
};

// dQ = scale * the fp32 sums of attention_bwd, rounded to bf16.
template <int D>
struct attention_bwd_dq {
  static constexpr int consumers = 1, stages = 4, producer_registers = 24, consumer_registers = 240;
  using acc_tile = st<float, 64, D>;
  using dq_tile = st<bf16, 64, D>;
  struct globals {
    tma::map<acc_tile> acc;
    tma::map<dq_tile> dq;
    int batch, heads_q, q_blocks;
    float scale;
  };
  struct input_stage {
    acc_tile acc;
  };
  struct output_stage {
    dq_tile dq;
  };
  struct consumer_state {
    rt_fl<16, D> dq;
  };
  static TS_KERNEL_FN int num_tiles(const globals& g) { return g.batch * g.heads_q * g.q_blocks; }
  static TS_KERNEL_FN int iterations(const globals&) { return 1; }
  static TS_KERNEL_FN coord at(const globals& g, int tile) { return row_block(g, tile); }
  static TS_KERNEL_FN void load(input_stage& in, const globals& g, int tile, int, barrier& full) {
    tma::load_async(in.acc, g.acc, at(g, tile), full);
  }
  static TS_KERNEL_FN void compute(consumer_state& s, input_stage& in, int, int) {
    warp::load(s.dq, in.acc, 16 * warpgroup::warpid(), 0);
  }
  static TS_KERNEL_FN void compute_done(consumer_state&) {}
  static TS_KERNEL_FN void store(consumer_state& s, output_stage& out, const globals& g, int tile, int) {
    mul(s.dq, s.dq, g.scale);
    const bool leader = warpgroup::warpid() == 0 && elect_one();
    if (leader) tma::store_async_read_wait<0>();
    warpgroup::sync(0);
    warpgroup::store(out.dq, s.dq);
    fence_async_shared();
    warpgroup::sync(0);
    if (leader) tma::store_async(g.dq, out.dq, at(g, tile));
  }
  static TS_KERNEL_FN void finish(output_stage&, const globals&, int) {
    if (warpgroup::warpid() == 0 && elect_one()) tma::store_async_wait<0>();
  }
};

}  // namespace ts::kernels
