// The attention lessons' models (viz/lesson/attention_*): the online softmax run with the kernel's
// tile ops against a double-precision softmax, the causal grid's loop bounds against a count from
// first principles, the simulations the scenes draw (overlap off is slower, the backward longer
// than the forward, the causal tail), the measured files, and the exercises' keys. Needs the host
// backend (the models call kernels/attention's own code).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "tests/lesson_helpers.hpp"
#include "viz/lesson/attention_causal.hpp"
#include "viz/lesson/attention_measured.hpp"
#include "viz/lesson/attention_models.hpp"
#include "viz/lesson/attention_softmax.hpp"
#include "viz/lesson/lesson.hpp"
#include "viz/lesson/quiz.hpp"

using namespace ts::viz;

TEST_CASE("online softmax: the kernel's ops end at the exact softmax computed in double", "[viz][attention][softmax]") {
  for (uint32_t seed : {1u, 2u, 3u, 17u})
    for (KeyTrend trend : {KeyTrend::random, KeyTrend::rising}) {
      INFO("seed " << seed << ", keys " << name_of(trend));
      const SoftmaxModel m = softmax_model(seed, trend);
      REQUIRE(m.error.empty());
      for (int r = 0; r < kSoftmaxRows; ++r) {
        // The log-sum-exp: fp32 sums of fp32 exponentials, so within a few fp32 roundings.
        CHECK(std::abs(m.lse[r] - m.exact_lse[r]) <= 1e-5 * std::max(1.0, std::abs(m.exact_lse[r])));
        CHECK(m.steps.back().max_after[r] == Approx(m.exact_max[r]).epsilon(1e-6));
        // The output: P is rounded to bf16 (8 bits) before P V, V lies in [-1, 1].
        for (int d = 0; d < kSoftmaxDim; ++d) CHECK(std::abs(m.out[r][d] - m.exact_out[r][d]) < 4e-3);
        // After the last block the state's estimate of every probability is the exact one.
        for (int j = 0; j < kSoftmaxAllKeys; ++j)
          CHECK(std::abs(m.estimate(r, j, kSoftmaxBlocks) - m.exact_p[r][j]) < 1e-5);
      }
    }
}

TEST_CASE("online softmax: each block's rescale factor is exp(scale (old max - new max)), 1 without a new max", "[viz][attention][softmax]") {
  const SoftmaxModel m = softmax_model(5, KeyTrend::random);
  REQUIRE(m.error.empty());
  int below_one = 0;
  for (int b = 1; b < kSoftmaxBlocks; ++b)
    for (int r = 0; r < kSoftmaxRows; ++r) {
      const SoftmaxStep& st = m.steps[b];
      CHECK(st.max_after[r] == std::max(st.max_before[r], st.block_max[r]));
      const double want = std::exp(double(m.scale) * (double(st.max_before[r]) - st.max_after[r]));
      CHECK(st.rescale[r] == Approx(want).epsilon(1e-5));
      if (st.block_max[r] <= st.max_before[r]) CHECK(st.rescale[r] == 1.0f);
      below_one += st.rescale[r] < 1;
      // The running sum is the sum over the keys seen so far, relative to the max so far.
      double sum = 0;
      for (int bb = 0; bb <= b; ++bb)
        for (int k = 0; k < kSoftmaxKeys; ++k)
          sum += std::exp(double(m.scale) * (double(m.steps[bb].scores[r][k]) - st.max_after[r]));
      CHECK(st.sum[r] == Approx(sum).epsilon(1e-5));
    }
  // Lesson 12: with keys=rising, most blocks bring a new maximum (more than with random keys).
  const SoftmaxModel rising = softmax_model(1, KeyTrend::rising);
  int rising_new = 0;
  for (int b = 1; b < kSoftmaxBlocks; ++b)
    for (int r = 0; r < kSoftmaxRows; ++r) rising_new += rising.steps[b].rescale[r] < 1;
  CHECK(2 * rising_new > (kSoftmaxBlocks - 1) * kSoftmaxRows);
  CHECK(rising_new > below_one);
}

TEST_CASE("the rescale factor of the exercise runs the kernel's ops", "[viz][attention][quiz]") {
  CHECK(rescale_factor(2.0f, 3.5f, 0.125f) == Approx(std::exp(0.125 * -1.5)).epsilon(1e-6));
  CHECK(rescale_factor(2.0f, 1.0f, 0.125f) == 1.0f);
  const Question q = make_question("rescale-factor", {{"old", 20}, {"jump", 30}, {"d", 64}}, SoftmaxState{});
  REQUIRE(q.error.empty());
  CHECK(accepts(q, std::exp(-3.0 / 8)));
  CHECK_FALSE(accepts(q, std::exp(-3.0)));   // the scale forgotten
  CHECK_FALSE(accepts(q, std::exp(3.0 / 8)));  // the sign wrong
}

namespace {

// (CTA, key block) pairs a causal CTA of `rows` query rows never needs: its last row precedes
// every key of the block. The CTAs are laid out back from N in 64-row warpgroups, so that only the
// first may hold fewer rows. Counted from the definition, not from the kernel.
uint64_t skipped_by_definition(int n, int rows, int keys) {
  const int warpgroups = (n + 63) / 64, per_cta = rows / 64;
  const int missing = (per_cta - warpgroups % per_cta) % per_cta;  // warpgroups the first CTA lacks
  uint64_t skipped = 0;
  for (int end = rows - 64 * missing; end - rows < n; end += rows)
    for (int k0 = 0; k0 < n; k0 += keys) skipped += k0 > std::min(end, n) - 1;
  return skipped;
}

}  // namespace

TEST_CASE("causal grid: the kernel's iterations() skip exactly the key blocks in every row's future", "[viz][attention][causal]") {
  for (int n : {64, 192, 256, 1000, 1024, 2048, 3000, 4096})
    for (int d : {64, 128}) {
      INFO("N " << n << " D " << d);
      const CausalGrid g = causal_grid(n, d, true);
      REQUIRE(g.error.empty());
      CHECK(g.block_q == 192);
      CHECK(g.block_kv == 128);
      CHECK(g.not_loaded == skipped_by_definition(n, g.block_q, g.block_kv));
      CHECK(g.loaded + g.not_loaded == uint64_t(g.q_blocks) * g.kv_blocks);
      const CausalGrid full = causal_grid(n, d, false);
      CHECK(full.not_loaded == 0);
      CHECK(full.warpgroup_skipped == 0);  // unmasked, even the warpgroups past N compute
      // The longest CTAs are launched first.
      for (size_t t = 1; t < g.launch_order.size(); ++t)
        CHECK(g.iterations[g.launch_order[t]] <= g.iterations[g.launch_order[t - 1]]);
    }
  // Lesson 15's sentences: at N = 1024 the first CTA loads 1 key block, the last 8; the first holds rows 0-63 only,
  // in its third warpgroup, and its other two skip every block, as the kernel's has_work() says.
  const CausalGrid g = causal_grid(1024, 64, true);
  CHECK(g.iterations.front() == 1);
  CHECK(g.iterations.back() == 8);
  for (int kv = 0; kv < g.kv_blocks; ++kv)
    for (int c = 0; c < 2; ++c) CHECK(g.at(0, kv, c) == PairWork::skipped);
  CHECK(g.at(0, 0, 2) != PairWork::skipped);
  for (int c = 0; c < 3; ++c) CHECK(g.at(g.q_blocks - 1, 0, c) != PairWork::skipped);  // the last CTA: all at work
  const Question q = make_question("skipped-blocks", {{"n", 2048}}, CausalState{});
  REQUIRE(q.error.empty());
  CHECK(accepts(q, double(skipped_by_definition(2048, 192, 128))));
  CHECK_FALSE(accepts(q, double(skipped_by_definition(2048, 192, 128)) + 1));
}

TEST_CASE("causal: the simulated CTAs differ in length by their key blocks, and leave a tail", "[viz][attention][causal][sim]") {
  const AttentionRun run = causal_run(1024, 64, 16, true);
  REQUIRE(run.quick());
  const auto sim = simulate_attention_run(run);
  REQUIRE(sim->error.empty());
  const CausalGrid g = causal_grid(1024, 64, true);
  const auto& blocks = sim->launches.at(0).blocks;
  REQUIRE(blocks.size() == size_t(16 * g.q_blocks));
  // Launch slot 1 of each head is its longest full CTA (slot 0, the last query block, holds rows of
  // one warpgroup only at N 1024: the other two skip their work), the last slot its shortest.
  double longest = 0, shortest = 0;
  for (size_t b = 0; b < blocks.size(); ++b) {
    CHECK(blocks[b].end > blocks[b].start);
    if (b % g.q_blocks == 1) longest += blocks[b].end - blocks[b].start;
    if (b % g.q_blocks == size_t(g.q_blocks - 1)) shortest += blocks[b].end - blocks[b].start;
  }
  CHECK(longest > 2 * shortest);
  const CausalTimeline t = causal_timeline(*sim, 132);
  CHECK(t.makespan > 0);
  CHECK(t.tail() > 0);
  CHECK(t.busy_fraction < 1);
  WARN("causal N1024 D64 H16: " << sim->wall_ms << " ms wall, " << sim->cpu_ms << " ms CPU to simulate; tail "
                                << 100 * t.tail() / t.makespan << " % of the run");
}

TEST_CASE("overlap: the simulator says turning the self-overlap off slows the lesson's forward", "[viz][attention][overlap][sim]") {
  const AttnKnobs a{1024, 64, 4, false};
  const auto on = simulate_attention_run(attention_run(a, false, 3, 1));
  const auto off = simulate_attention_run(attention_run(a, false, 3, 0));
  REQUIRE(on->error.empty());
  REQUIRE(off->error.empty());
  CHECK(off->cycles > on->cycles);
  WARN("re-simulating the overlap lesson's forward: " << on->wall_ms << " ms wall, " << on->cpu_ms << " ms CPU");
  const OverlapModel m = overlap_model(*on);
  CHECK(m.sm == 0);
  REQUIRE(m.rows.size() == 3);  // one row per consumer warpgroup, not the producer
  for (const auto& r : m.rows) {
    CHECK(r.softmax > 0);
    CHECK(!r.bars.empty());
  }
  CHECK(!m.tensor_busy.empty());
  CHECK_FALSE(m.measured.has_value());  // no measured per-warp timeline yet
  // Causal, SM 0 runs head 0's last block first (the longest), whose rows end at N: its three
  // warpgroups compute (the block with idle warpgroups is a head's first, short one), so the scene
  // draws SM 0.
  const auto causal = simulate_attention_run(attention_run(AttnKnobs{1024, 64, 4, true}, false, 3, 0));
  REQUIRE(causal->error.empty());
  const OverlapModel mc = overlap_model(*causal);
  CHECK(mc.sm == 0);
  REQUIRE(mc.rows.size() == 3);
  for (const auto& r : mc.rows) CHECK(r.softmax > 0);
  const Question q = make_question("overlap-cost", {{"n", 1024}, {"heads", 4}}, OverlapState{});
  REQUIRE(q.error.empty());
  CHECK(accepts(q, 100 * (off->cycles - on->cycles) / on->cycles));
  CHECK_FALSE(accepts(q, -100 * (off->cycles - on->cycles) / on->cycles));
}

TEST_CASE("backward: three launches, longer than the forward; dQ shares from the kernel's loop", "[viz][attention][backward][sim]") {
  const AttnKnobs a{1024, 64, 4, false};
  const auto fwd = simulate_attention_run(attention_run(a, false));
  const auto bwd = simulate_attention_run(attention_run(a, true));
  REQUIRE(fwd->error.empty());
  REQUIRE(bwd->error.empty());
  const BackwardModel m = backward_model(a, fwd.get(), bwd.get());
  REQUIRE(m.launches.size() == 3);
  CHECK(m.launches[1].name == "backward");
  CHECK(m.backward_cycles > m.forward_cycles);
  // The main kernel's MMAs: five products per pair against the forward's two, which also computes
  // the padding of its last CTA (192-row CTAs: 6 x 192 = 1152 rows for 1024).
  const auto shape = attention_run(a, false).shape;
  CHECK(m.launches[1].mma_flops == Approx(ts::kernels::attention_flops(shape, true)).epsilon(1e-6));
  CHECK(m.forward_mma_flops == Approx(ts::kernels::attention_flops(shape, false) * 1152 / 1024).epsilon(1e-6));
  // Not causal: every (64-key warpgroup, 64-row query block) pair is computed; every (128-key CTA,
  // query block) pair adds one 64 x D fp32 share.
  CHECK(m.pairs == uint64_t(a.heads) * (1024 / 64) * (1024 / 64));
  CHECK(m.dq_shares == m.pairs / 2);  // the two warpgroups take turns at one share per query block
  CHECK(m.dq_add_bytes == m.dq_shares * 64 * 64 * 4);
  const AttnKnobs causal{1024, 64, 4, true};
  const BackwardModel c = backward_loop(causal);
  CHECK(c.pairs == uint64_t(causal.heads) * (16 * 17 / 2));  // the diagonal blocks and those below
  CHECK(c.dq_shares == uint64_t(causal.heads) * (16 + 14 + 12 + 10 + 8 + 6 + 4 + 2));  // from each CTA's first key on
  const Question q = make_question("dq-bytes", {{"n", 1024}, {"d", 128}, {"causal", 0}}, AttnBackwardState{});
  REQUIRE(q.error.empty());
  CHECK(accepts(q, 1024.0 * 1024 * 128 * 4 / 128 / 1024));  // a share per 128 keys and 64 query rows
  CHECK_FALSE(accepts(q, 1024.0 * 1024 * 128 * 4 / 64 / 1024));  // a share per warpgroup
  CHECK_FALSE(accepts(q, 1024.0 * 1024 * 128 * 2 / 128 / 1024));  // bf16 instead of fp32
}

TEST_CASE("attention flow: the CTA's sizes come from the kernel's types", "[viz][attention][flow]") {
  const auto machine = ts::sim::load_machine("h100-sxm");
  const FlowModel f = flow_model({1024, 64, 4, false}, machine);
  REQUIRE(f.error.empty());
  CHECK(f.consumers == 3);
  CHECK(f.stages == 2);  // the default does not overlap itself: release lag 0
  CHECK(f.q_tile_bytes == 64 * 64 * 2);
  CHECK(f.stage_bytes == 2 * 128 * 64 * 2);
  CHECK(f.tile_stages == 2);  // the next tile's Q tiles fit beside these
  CHECK(f.smem_bytes >= 2 * 3 * f.q_tile_bytes + 2 * f.stage_bytes);
  CHECK(f.kernel_intensity() == Approx(1024 / 2.0));
  CHECK(f.block_intensity() == Approx(f.flops_per_block / f.bytes_per_block));
  const Question q = make_question("fwd-smem", {{"d", 128}, {"consumers", 2}, {"overlap", 1}}, AttnFlowState{});
  REQUIRE(q.error.empty());
  CHECK(accepts(q, (2 * 64 * 128 * 2 + 3 * 2 * 128 * 128 * 2) / 1024.0));
  CHECK_FALSE(accepts(q, (2 * 64 * 128 * 2 + 2 * 2 * 128 * 128 * 2) / 1024.0));  // two stages
  // Two tile stages where they fit: the Q tiles count twice.
  const Question two = make_question("fwd-smem", {{"d", 64}, {"consumers", 3}, {"overlap", 0}}, AttnFlowState{});
  REQUIRE(two.error.empty());
  CHECK_THAT(two.text, Catch::Contains("2 tile stages"));
  CHECK(accepts(two, (2 * 3 * 64 * 64 * 2 + 2 * 2 * 128 * 64 * 2) / 1024.0));
  CHECK_FALSE(accepts(two, (3 * 64 * 64 * 2 + 2 * 2 * 128 * 64 * 2) / 1024.0));  // one set of Q tiles
}

TEST_CASE("attention measurements: the committed files load, and the trust scene's MAPE is the file's", "[viz][attention][measured]") {
  const AttentionMeasurements& m = attention_measurements();
  CHECK(m.problems.empty());
  REQUIRE(m.rows.size() >= 24);
  REQUIRE(m.compare.size() == 24);
  for (const CompareRow& r : m.compare)  // signed: above the diagonal (optimistic) is positive
    CHECK(100 * (r.simulated - r.measured) / r.measured == Approx(r.error_percent).margin(0.1));
  const TrustModel all = trust_model(AttnTrustState{}, m);
  REQUIRE(all.summary.rfind("MAPE ", 0) == 0);
  CHECK(all.mape == Approx(std::stod(all.summary.substr(5))).margin(0.1));
  // Lesson 17: every forward row is optimistic, by 3-15 %, by at least 5 % at N 1024, and less at
  // N 16384 than at N 1024 for each head size and mask (the unmasked rows there within 4 %); the
  // backward is within 13 % at N 1024, 7-18 % optimistic at N 4096 and 10-20 % at N 16384, its
  // error growing with N for every head size and mask.
  std::map<std::string, std::map<int, double>> forward_by_n, backward_by_n;  // head size and mask -> N -> error
  for (const CompareRow& r : m.compare) {
    INFO(r.shape << " " << r.config << ": " << r.error_percent << " %");
    const int n = r.shape.find(" N1024 ") != std::string::npos ? 1024 : r.shape.find(" N4096 ") != std::string::npos ? 4096 : 16384;
    const std::string variant = std::string(r.shape.find(" D64") != std::string::npos ? "D64" : "D128") + (r.causal ? " causal" : "");
    if (r.backward) {
      const double low = n == 1024 ? -13 : n == 4096 ? 6.5 : 9.5, high = n == 1024 ? 13 : n == 4096 ? 18.5 : 20.5;
      CHECK(r.error_percent >= low);
      CHECK(r.error_percent <= high);
      backward_by_n[variant][n] = r.error_percent;
    } else {
      CHECK(r.error_percent >= 2.5);
      CHECK(r.error_percent <= 15.5);
      if (n == 1024) CHECK(r.error_percent >= 4.95);
      if (n == 16384 && !r.causal) CHECK(r.error_percent < 4);
      forward_by_n[variant][n] = r.error_percent;
    }
  }
  REQUIRE(forward_by_n.size() == 4);
  for (const auto& [variant, by_n] : forward_by_n) {
    INFO(variant);
    REQUIRE(by_n.size() == 3);
    CHECK(by_n.at(16384) < by_n.at(1024));
  }
  REQUIRE(backward_by_n.size() == 4);
  for (const auto& [variant, by_n] : backward_by_n) {
    INFO(variant);
    REQUIRE(by_n.size() == 3);
    CHECK(by_n.at(1024) < by_n.at(4096));
    CHECK(by_n.at(4096) < by_n.at(16384));
  }
  // Its figures of the refit: the file's rank correlation now and the one before (the file it replaced).
  {
    const std::string text = testing::all_prose(testing::shipped_lesson("trust-sim-attention"));
    const std::string old = testing::read_text("data/measured/h100/sim-attention/compare-attention-440ab44.txt");
    const auto spearman = [](std::string summary) {  // the last figure of the summary line
      summary.erase(summary.find_last_not_of(" \n") + 1);
      return summary.substr(summary.rfind(' ') + 1);
    };
    CHECK(text.find("rank correlation " + spearman(old.substr(old.rfind("MAPE")))) != std::string::npos);
    const AttentionMeasurements first_sweep = load_attention_measurements(
        "", std::string(TILESCOPE_SOURCE_DIR) + "/data/measured/h100/sim-attention/compare-attention-2026-11-27.txt");
    CHECK(text.find(spearman(first_sweep.compare_summary) + " once the exponentials below were in") != std::string::npos);
    CHECK(old.find("MAPE 7.3 %") != std::string::npos);
    CHECK(text.find("mean error was 7.3 %") != std::string::npos);
    // And of the wgmma issue model: the rows before it (rank correlation and mean error) and the mean now.
    const std::string before = testing::read_text("data/measured/h100/sim-attention/compare-attention-2e405dc.txt");
    CHECK(text.find(spearman(before.substr(before.rfind("MAPE"))) + " after the refit") != std::string::npos);
    CHECK(before.find("MAPE 10.4 %") != std::string::npos);
    CHECK(text.find("from a mean error of 10.4 % to 14.7 %") != std::string::npos);
    // And of the reductions' chains: the file before them and the mean now.
    const std::string unchained = testing::read_text("data/measured/h100/sim-attention/compare-attention-71b6a7d.txt");
    CHECK(unchained.find("MAPE 14.7 %") != std::string::npos);
    CHECK(text.find("fell from 14.7 % to 13.9 %") != std::string::npos);
    // And of the SFU's turns: the file before them and the mean now, and the backward at D 64, N 16384.
    const AttentionMeasurements in_order = load_attention_measurements(
        "", std::string(TILESCOPE_SOURCE_DIR) + "/data/measured/h100/sim-attention/compare-attention-3fb3768.txt");
    CHECK(in_order.compare_summary.find("MAPE 13.9 %") != std::string::npos);
    CHECK(first_sweep.compare_summary.find("MAPE 9.8 %") != std::string::npos);
    CHECK(text.find("fell from 13.9 % to 9.8 % on the sweep of 2026-11-27") != std::string::npos);
    // The sweep the lesson shows now: its mean error and rank correlation, as the file says them.
    CHECK(m.compare_summary.find("MAPE 9.7 %") != std::string::npos);
    CHECK(text.find("mean error of 9.7 % and a rank correlation of " + spearman(m.compare_summary)) != std::string::npos);
    const auto d64_bwd_16384 = [](const std::vector<CompareRow>& rows) {
      std::vector<double> e;
      for (const CompareRow& r : rows)
        if (r.backward && r.shape.find(" N16384 D64") != std::string::npos) e.push_back(r.error_percent);
      std::sort(e.begin(), e.end());
      return e;
    };
    const std::vector<double> before_d64 = d64_bwd_16384(in_order.compare), after_d64 = d64_bwd_16384(first_sweep.compare);
    REQUIRE(before_d64.size() == 2);
    REQUIRE(after_d64.size() == 2);
    CHECK(std::lround(before_d64[0]) == 25);
    CHECK(std::lround(before_d64[1]) == 34);
    CHECK(std::lround(after_d64[0]) == 10);
    CHECK(std::lround(after_d64[1]) == 14);
    CHECK(text.find("from 25-34 % optimistic to 10-14 %") != std::string::npos);
  }
  // "its tensor pipe comes out 5-8 points busier than Nsight Compute measures on the GPU (SFU within 2
  // points)": the backward's counter files, the "sim - meas" column of each pipe's line.
  {
    const std::string text = testing::all_prose(testing::shipped_lesson("trust-sim-attention"));
    CHECK(text.find("5-8 points busier than Nsight Compute measures on the GPU (SFU within 2 points)") != std::string::npos);
    const auto points = [](const std::string& file, const std::string& counter) {
      const std::string t = testing::read_text(file);
      const size_t at = t.find(counter);
      REQUIRE(at != std::string::npos);
      const std::string line = t.substr(at, t.find('\n', at) - at);
      const size_t pts = line.rfind(" pts");
      REQUIRE(pts != std::string::npos);
      return std::stod(line.substr(line.rfind(' ', pts - 1) + 1));
    };
    for (const char* d : {"64", "128"}) {
      const std::string file = std::string("data/measured/h100/sim-attention/counters-bwd-d") + d + ".txt";
      INFO(file);
      const double tensor = points(file, "tensor pipe active"), sfu = points(file, "XU pipe issue");
      CHECK(tensor >= 4.5);
      CHECK(tensor <= 8.5);
      CHECK(std::abs(sfu) <= 2);
    }
  }
  const TrustModel fwd = trust_model({AttnPassFilter::fwd, false}, m), bwd = trust_model({AttnPassFilter::bwd, false}, m);
  // "The backward's error runs the other way from the forward's" (which shrinks with N, above), and
  // "the backward now weighs more in the mean error than the forward".
  CHECK(bwd.mape > fwd.mape);
  // A row whose error is large enough that the error relative to the simulation is a different answer
  // (row 2, the forward causal at N 1024 D 64: 19.1 %; row 3's -0.4 % would not tell the two apart).
  const Question q = make_question("sim-error", {{"row", 2}}, AttnTrustState{});
  REQUIRE(q.error.empty());
  REQUIRE(std::abs(m.compare[2].error_percent) > 5);
  CHECK(accepts(q, std::abs(m.compare[2].error_percent)));  // the question asks for it as a positive number
  CHECK_FALSE(accepts(q, 100 * std::abs(m.compare[2].simulated - m.compare[2].measured) / m.compare[2].simulated));
}

TEST_CASE("the attention intensity exercise accepts N / 2 and rejects the tile's intensity", "[viz][attention][quiz]") {
  const Question q = make_question("attn-intensity", {{"n", 4096}, {"d", 128}}, AttnFlowState{});
  REQUIRE(q.error.empty());
  CHECK(accepts(q, 2048));
  CHECK_FALSE(accepts(q, 4096));
}

TEST_CASE("the attention lessons' simulations, timed (the figures are reported)", "[viz][attention][timing]") {
  // Every distinct run behind a step of the shipped attention lessons, as the scenes ask for it.
  // CPU time of the simulating thread is what a knob change costs on an idle core; wall time
  // grows with whatever else shares the cores.
  const LessonSet set = load_lessons(TILESCOPE_TEST_LESSONS);
  std::map<std::string, AttentionRun> runs;
  for (const Lesson& l : set.lessons)
    for (const LessonStep& st : l.steps) {
      if (const auto* o = std::get_if<OverlapState>(&st.state)) {
        for (int overlap : {0, 1})
          if (!(overlap && o->consumers == 3 && o->attn.d == 128)) {
            const AttentionRun r = attention_run(o->attn, false, int(o->consumers), overlap);
            runs.emplace(r.key(), r);
          }
      } else if (const auto* c = std::get_if<CausalState>(&st.state)) {
        const AttentionRun r = causal_run(int(c->attn.n), int(c->attn.d), int(c->attn.heads), c->attn.causal);
        runs.emplace(r.key(), r);
      } else if (const auto* b = std::get_if<AttnBackwardState>(&st.state)) {
        for (bool backward : {false, true}) {
          const AttentionRun r = attention_run(b->attn, backward);
          runs.emplace(r.key(), r);
        }
      }
    }
  REQUIRE(runs.size() >= 6);
  for (const auto& [key, run] : runs) {
    CHECK(run.quick());
    const auto sim = simulate_attention_run(run);
    REQUIRE(sim->error.empty());
    WARN(key << ": " << sim->cpu_ms << " ms CPU, " << sim->wall_ms << " ms wall");
  }
}

TEST_CASE("lesson 14: the forward does not overlap itself by default", "[viz][attention][overlap]") {
  using ts::kernels::AttentionShape;
  const auto overlap_of = [](int64_t d, bool causal) {
    return ts::kernels::resolve(AttentionShape{1, 4, 4, 1024, d, causal, 0.f}, {}).overlap;
  };
  CHECK(overlap_of(64, false) == 0);
  CHECK(overlap_of(128, false) == 0);
  CHECK(overlap_of(64, true) == 0);
  // Overlap at D = 128 takes two consumers; three are refused.
  CHECK_THROWS(ts::kernels::resolve(AttentionShape{1, 4, 4, 1024, 128, false, 0.f}, {3, 1}));
  CHECK(validate(SceneState{OverlapState{{1024, 128, 4, false}, true, 3}}) != "");
  CHECK(validate(SceneState{OverlapState{{1024, 128, 4, false}, true, 2}}) == "");
}
