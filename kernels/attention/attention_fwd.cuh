#pragma once
// Attention forward, O = softmax(scale Q K^T) V, with the online softmax of FlashAttention on the
// pipeline template: each block owns `consumers` x 64 query rows of one (batch, head), loaded once
// (the tile stage); the producer warpgroup streams 128-row blocks of K and V by TMA; each consumer
// warpgroup computes its 64 x 128 scores with wgmma, folds them into a running max and sum in
// registers, and accumulates P V with P straight from registers (wgmma with A in registers).
// The consumers overlap each other: while one does its softmax, the others' MMAs keep the tensor
// cores busy. With Overlap, each also overlaps itself: it issues this block's S = Q K^T and the
// previous block's O += P V together and does this block's softmax while the latter runs, which
// keeps the previous stage one iteration longer (release lag 1, so three stages). Tails are masked
// (keys past N score -inf; rows past N are never stored), and causal blocks skip the key blocks
// wholly in their future and the warpgroups that hold no rows. Launched persistent
// (attention_layout.hpp says when), a block runs tile after tile, and the producer loads the next
// tile's Q into a second tile stage; with causal masks, the tiles the launcher's schedule gives it.
// This file is the single source: nvcc builds it for the GPU, g++ for the CPU backend.
#include <cmath>

#include "tiles/tiles.hpp"
#include "tiles/sched/pipeline.hpp"

namespace ts::kernels {

template <int D, bool Causal, int Consumers = 3, bool Overlap = false>
struct attention_fwd {
  static_assert(D == 64 || D == 128, "attention_fwd: head dimension 64 or 128");
  static constexpr bool causal = Causal;
  static constexpr int consumers = Consumers, block_q = 64, block_kv = 128, stages = Overlap ? 3 : 2;
  static constexpr int producer_registers = Consumers == 2 ? 40 : 32, consumer_registers = Consumers == 2 ? 232 : 160;
  // Without Overlap, compute waits for its own MMAs, so a stage is free at once; with it, the
  // previous block's V is read during the next iteration.
  static constexpr int release_lag = Overlap ? 1 : 0;

  using q_tile = st<bf16, block_q, D>;  // one consumer's query rows; its output rows, once done
  using kv_tile = st<bf16, block_kv, D>;
  using score_tile = rt_fl<16, block_kv>;  // this warp's 16 query rows x one key block
  using row_stats = row_vec<score_tile>;

  struct globals {
    tma::map<q_tile> q, o;
    tma::map<kv_tile> k, v;
    gl<float> lse;  // [B, H_q, 1, N]
    int batch;
    divisor heads_q, group, q_blocks;  // group = H_q / H_kv; q_blocks of consumers x 64 rows
    int seq;
    float scale, scale_log2;                   // softmax scale, and times log2(e) for exp2
    // Persistent with causal masks: each block's tiles (tiles/sched/schedule.hpp, made by
    // forward_schedule in attention_dispatch.hpp); null: the stride, for tiles of equal length.
    const int32_t* schedule = nullptr;
    // Causal: the tiles are laid out from N down, so that the one tile with fewer than `consumers`
    // 64-row blocks is the first, which sees one key block, not the last, which sees them all; its
    // first lead_blocks warpgroups have no rows and sit it out (lead_blocks(), set by the dispatch).
    int lead_blocks = 0;
  };
  struct tile_stage {
    q_tile q[consumers];
  };
  struct input_stage {
    kv_tile k, v;
  };
  struct output_stage {
    sv<float, 16> lse[4];  // one per warp, on its way to global memory
  };
  // Two tile stages where they fit: a persistent block's producer loads the next tile's Q while this
  // tile computes (D 128 with self-overlap, three stages beside two Q tiles, keeps one).
  static constexpr int tile_stages = sched::pipeline_fits<input_stage, output_stage, tile_stage, stages, consumers, 2>() ? 2 : 1;
  struct consumer_state {
    rt_fl<16, D> o{};     // this warp's 16 output rows, unnormalised
    row_stats max, sum;   // running max of the raw scores and running sum of exp, per row
    rt_bf<16, block_kv> probs;          // Overlap: the last block's P, whose P V is still to come
    const kv_tile* pending_v = nullptr;  // ... and its V (null: nothing pending)
    // No P V of this tile yet: the first overwrites o (wgmma's scale-d) instead of a zero fill,
    // which the compiler turned into selects that every iteration ran (32 FSEL per lane at D 64,
    // 64 at D 128: the SASS of the loop). H100, 2026-11-26: forward D 128 0.91 -> 1.02x cuDNN at
    // N 16384, causal 0.80 -> 0.90x. Overlap keeps the zero fill: there the old o would stay live
    // across the tile's end, and the D 64 forward measured 13 % slower that way.
    bool fresh = !Overlap;
  };

  struct position {
    int b, h, q_block;
  };
  // Consecutive tiles share a head, so K and V stay in L2; the longest (causal) blocks start first.
  // (Host code calls these too: the causal schedule's costs are the tiles' iterations.)
  static TS_HD position where(const globals& g, int tile) {
    const auto [bh, from_last] = g.q_blocks.divmod(tile);
    const auto [b, h] = g.heads_q.divmod(bh);
    return {b, h, g.q_blocks - 1 - from_last};
  }
  // A consumer's 64-row block of the sequence (negative: before row 0, in the first tile when causal).
  static TS_HD int row_block(const globals& g, const position& p, int consumer) {
    return p.q_block * consumers + consumer - (counts_from_n ? g.lead_blocks : 0);
  }
  static TS_HD int first_row(const globals& g, const position& p, int consumer) { return row_block(g, p, consumer) * block_q; }
  // Causal at N = 1024: five tiles of 192 rows and one of 64 rows (1,024 = 5 x 192 + 64). Counted from
  // row 0, the short tile is the last and takes all 8 key blocks with one warpgroup in three at work;
  // counted from N, it is the first and takes one: the same output to the bit, 9-17 % faster at
  // N 1024 and 1-3 % at 4096 on the H100 (2026-11-27: data/measured/h200/attention-causal-lead.txt,
  // which has the H200's too). (Not with Overlap, whose skip-free loop would compute rows before 0
  // and store them.)
  static constexpr bool counts_from_n = Causal && !Overlap;
  static constexpr int lead_blocks(int seq) {
    const int blocks = (seq + block_q - 1) / block_q;
    return counts_from_n ? (consumers - blocks % consumers) % consumers : 0;
  }
  // Causal: a warpgroup with no rows (before row 0 in a head's first block, lead_blocks; past N in
  // the last, if the rows of a block are counted from 0) sits the tile out: +5-6 % at N 1024, +2 % at
  // 4096 when the idle ones were the last block's. Not without a mask: there the
  // same test, in compute or once a tile in the pipeline, cost the self-overlapping D 64 instance
  // 18-24 % at every N (its loop spilled: 47 local-memory instructions against 10) and gained
  // nothing at D 128 (data/measured/h100/attention/fwd-skip-past-n.txt). Nor with Overlap: a tile
  // a consumer may skip leaves ptxas serializing the loop's wgmma (C7517, C7515); without the skip
  // the causal self-overlapping instances ran 2-16 % faster (H100, 2026-11-26,
  // fwd-causal-variants.txt), still behind three consumers without self-overlap, the default.
  static TS_KERNEL_FN bool has_work(const globals& g, int tile, int consumer) {
    const int row = first_row(g, where(g, tile), consumer);
    return !Causal || Overlap || (row >= 0 && row < g.seq);
  }

  static TS_HD int num_tiles(const globals& g) { return g.batch * g.heads_q * g.q_blocks; }
  static TS_HD int iterations(const globals& g, int tile) {
    const int rows_end = Causal ? first_row(g, where(g, tile), consumers) : g.seq;  // keys a row of the block may see
    const int keys = rows_end < g.seq ? rows_end : g.seq;
    return (keys + block_kv - 1) / block_kv;
  }

  static TS_KERNEL_FN void load_tile(tile_stage& t, const globals& g, int tile, barrier& full) {
    const position p = where(g, tile);
    for (int c = 0; c < consumers; ++c) {  // (a warpgroup with no rows gets row block 0, which it leaves alone)
      const int rows = row_block(g, p, c);
      tma::load_async(t.q[c], g.q, {p.b, p.h, counts_from_n && rows < 0 ? 0 : rows, 0}, full);
    }
  }
  static TS_KERNEL_FN void load(input_stage& in, const globals& g, int tile, int kv_block, barrier& full) {
    const position p = where(g, tile);
    tma::load_async(in.k, g.k, {p.b, g.group.div(p.h), kv_block, 0}, full);
    tma::load_async(in.v, g.v, {p.b, g.group.div(p.h), kv_block, 0}, full);
  }

  static TS_KERNEL_FN void compute(consumer_state& s, const tile_stage& t, input_stage& in, const globals& g, int tile,
                                   int consumer, int kv_block) {
    if (kv_block == 0) {
      if constexpr (Overlap) zero(s.o);
      else s.fresh = true;
      fill(s.max, -INFINITY);
      zero(s.sum);
    }
    const int q0 = first_row(g, where(g, tile), consumer), k0 = kv_block * block_kv;
    if (Causal && k0 > q0 + block_q - 1) return accumulate_pending(s);  // every key is in this warpgroup's future
    const int warp_q0 = q0 + 16 * warpgroup::warpid();

    score_tile att;
    warpgroup::mma_fence(att);
    warpgroup::mm_ABt(att, t.q[consumer], in.k);
    warpgroup::mma_commit_group();
    if (Overlap && s.pending_v) {  // the previous block's P V runs during this block's softmax
      warpgroup::mma_fence(s.o);
      warpgroup::mma_AB(s.o, s.probs, *s.pending_v, !s.fresh);
      s.fresh = false;
      warpgroup::mma_commit_group();
      warpgroup::mma_async_wait<1>(att);
    } else {
      warpgroup::mma_async_wait<0>(att);
    }
    if (k0 + block_kv > g.seq) mask(att, att, -INFINITY, math::columns_from{g.seq - k0});
    if (Causal && k0 + block_kv - 1 > warp_q0) mask(att, att, -INFINITY, math::above_diagonal{warp_q0 - k0});

    // Online softmax: a new maximum rescales what was summed and accumulated so far by
    // 2^((old - new) scale log2 e), then this block's exponentials join the sums.
    row_stats rescale, max_scaled;
    copy(rescale, s.max);
    row_max(s.max, att, s.max);
    sub(rescale, rescale, s.max);
    mul(rescale, rescale, g.scale_log2);
    exp2(rescale, rescale);
    mul(max_scaled, s.max, g.scale_log2);
    exp2_row(att, att, g.scale_log2, max_scaled);
    mul(s.sum, s.sum, rescale);
    row_sum(s.sum, att, s.sum);
    warpgroup::mma_async_wait<0>(s.o);
    mul_row(s.o, s.o, rescale);  // (before the first P V, what o holds is overwritten by it)
    copy(s.probs, att);
    s.pending_v = &in.v;
    if constexpr (!Overlap) accumulate_pending(s);
  }

  // O += P V for the block whose P is held, if any, and wait for it.
  static TS_KERNEL_FN void accumulate_pending(consumer_state& s) {
    if (!s.pending_v) return;
    warpgroup::mma_fence(s.o);
    warpgroup::mma_AB(s.o, s.probs, *s.pending_v, !s.fresh);
    s.fresh = false;
    warpgroup::mma_commit_group();
    warpgroup::mma_async_wait<0>(s.o);
    s.pending_v = nullptr;
  }

  static TS_KERNEL_FN void compute_done(consumer_state& s) { accumulate_pending(s); }

  // O = accumulator / sum, written through this consumer's Q tile (its rows are done with it), and
  // the log-sum-exp max scale + ln(sum) that the backward pass recomputes probabilities from.
  static TS_KERNEL_FN void store(consumer_state& s, tile_stage& t, output_stage& out, const globals& g, int tile, int consumer) {
    const position p = where(g, tile);
    const int w = warpgroup::warpid();
    const bool leader = w == 0 && elect_one();
    div_row(s.o, s.o, s.sum);
    row_stats lse, max_scaled;
    log(lse, s.sum);
    mul(max_scaled, s.max, g.scale);
    add(lse, lse, max_scaled);

    warpgroup::sync(consumer);  // every warp's MMAs have read this Q tile
    warpgroup::store(t.q[consumer], s.o);
    warp::store(out.lse[w], lse);
    fence_async_shared();
    warpgroup::sync(consumer);
    if (leader) {
      tma::store_async(g.o, t.q[consumer], {p.b, p.h, row_block(g, p, consumer), 0});
      tma::store_async_read_wait<0>();  // the producer may refill this tile once store returns
    }
    warp::store(g.lse, out.lse[w], {p.b, p.h, 0, row_block(g, p, consumer) * 4 + w});
    warpgroup::sync(consumer);
  }

  static TS_KERNEL_FN void finish(output_stage&, const globals&, int) {
    if (warpgroup::warpid() == 0 && elect_one()) tma::store_async_wait<0>();
  }
};

}  // namespace ts::kernels
