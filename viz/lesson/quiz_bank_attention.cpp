// The attention lessons' exercises (lessons 11-17), in the scheme of quiz.hpp: each a function from
// its drawn parameters to the question, the key and the scene that shows it. Keys come from the
// kernel's own types and loop bounds (kernels/attention), its tile ops (the rescale factor), the
// simulator and data/measured, never typed in.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>

#include "viz/lesson/attention_causal.hpp"
#include "viz/lesson/attention_measured.hpp"
#include "viz/lesson/attention_models.hpp"
#include "viz/lesson/attention_softmax.hpp"
#include "viz/lesson/quiz_bank_attention.hpp"

namespace ts::viz {

const std::vector<QuizInfo>& attention_quizzes() {
  static const std::vector<QuizInfo> all = {
      {"attn-intensity", SceneKind::attn_flow, "HBM arithmetic intensity of the whole attention forward",
       {{"n", "sequence length", 512, 16384, 512, {}}, {"d", "head dimension", 64, 128, 64, {}}}},
      {"rescale-factor", SceneKind::softmax, "the online softmax's rescale factor after a new block",
       {{"old", "running maximum of the raw scores, in tenths", 0, 80, 5, {}},
        // A new maximum most of the time: a block that brings none has the factor 1.
        {"jump", "the new block's largest raw score minus the running maximum, in tenths", -20, 80, 5, {}},
        {"d", "head dimension", 16, 128, 16, {16, 64, 128}}}},
      {"fwd-smem", SceneKind::attn_flow, "shared memory of one CTA of the attention forward",
       {{"d", "head dimension", 64, 128, 64, {}},
        {"consumers", "consumer warpgroups", 2, 3, 1, {}},
        {"overlap", "self-overlap (1) or not (0)", 0, 1, 1, {}}}},
      {"overlap-cost", SceneKind::overlap, "what turning the softmax overlap off costs in the simulator",
       {{"n", "sequence length", 512, 1024, 512, {}}, {"heads", "heads", 2, 8, 2, {2, 4, 8}}}},
      {"skipped-blocks", SceneKind::causal, "key blocks the causal forward never loads",
       {{"n", "sequence length", 256, 4096, 64, {}}}},
      {"dq-bytes", SceneKind::attn_backward, "fp32 dQ bytes the backward adds into global memory",
       {{"n", "sequence length", 256, 4096, 256, {}}, {"d", "head dimension", 64, 128, 64, {}},
        {"causal", "causal (1) or not (0)", 0, 1, 1, {}}}},
      {"sim-error", SceneKind::attn_trust, "the simulator's error on one measured attention row",
       {{"row", "row of compare-attention.txt", 0, 23, 1, {}}}},
  };
  return all;
}

namespace {

std::string num(double v, int digits = 0) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

Question excluded(std::string why) {
  Question q;
  q.error = std::move(why);
  return q;
}

template <class S> S base_or_default(const SceneState& base) {
  if (const auto* s = std::get_if<S>(&base)) return *s;
  return S{};
}

Question attn_intensity(const QuizParams& p, const SceneState& base) {
  AttnFlowState s = base_or_default<AttnFlowState>(base);
  const auto n = static_cast<uint32_t>(p.at("n")), d = static_cast<uint32_t>(p.at("d"));
  if (n == s.attn.n) return excluded("the lesson's own sequence length");
  s.attn = {n, d, 1, false};
  s.block = 0;
  const FlowModel f = flow_model(s.attn, sim::load_machine("h100-sxm"));
  if (!f.error.empty()) return excluded(f.error);
  Question q;
  q.text = "One head of attention forward with sequence length N = " + std::to_string(n) + " and head dimension D = " +
           std::to_string(d) + " (not causal). Count its FLOPs as 4 N^2 D (Q K^T and P V) and suppose Q, K and V are "
           "read from HBM and O written to it exactly once each, in bf16. What is its arithmetic intensity, in FLOP per "
           "byte of HBM traffic?";
  q.unit = "FLOP per byte";
  q.answer = f.kernel_intensity();
  q.tolerance = 0.02;
  q.explanation = "4 N^2 D FLOPs over 4 N D x 2 bytes = N / 2 = " + num(q.answer) +
                  ": it grows with N, unlike a tile's, which the block sizes fix";
  q.reveal = s;
  q.reveal_highlights = {"bytes", "roofline"};
  return q;
}

Question rescale_question(const QuizParams& p, const SceneState& base) {
  SoftmaxState s = base_or_default<SoftmaxState>(base);
  const double old_max = p.at("old") / 10.0, block_max = (p.at("old") + p.at("jump")) / 10.0;
  const int d = static_cast<int>(p.at("d"));
  const float scale = 1.f / std::sqrt(float(d));
  Question q;
  q.text = "A row's running maximum of raw scores (q . k, before the softmax scale) is " + num(old_max, 1) +
           ". The next key block's largest raw score is " + num(block_max, 1) + ". The head dimension is " +
           std::to_string(d) + ", and the softmax scale is its inverse square root. By what factor does the kernel "
           "multiply the row's running sum and its output accumulator before adding the new block?";
  q.unit = "factor";
  q.answer = rescale_factor(float(old_max), float(block_max), scale);
  q.tolerance = 0.01;
  q.explanation = "the new maximum is max(" + num(old_max, 1) + ", " + num(block_max, 1) + "); the factor is exp(scale (old - new)) = " +
                  num(q.answer, 4) + " (the kernel computes it as 2^((old - new) scale log2 e) with its own tile ops)";
  s.keys = KeyTrend::rising;
  s.block = s.block == 3 ? 4 : 3;
  s.seed = static_cast<uint32_t>(1 + (p.at("old") * 7 + p.at("jump") + 40) % 997);
  q.reveal = s;
  q.reveal_highlights = {"max", "rescale"};
  return q;
}

Question fwd_smem(const QuizParams& p, const SceneState& base) {
  AttnFlowState s = base_or_default<AttnFlowState>(base);
  const int d = static_cast<int>(p.at("d")), consumers = static_cast<int>(p.at("consumers"));
  const bool overlap = p.at("overlap") == 1;
  if (overlap && consumers == 3 && d == 128) return excluded("does not fit: the kernel refuses it");
  const int stages = overlap ? 3 : 2, tile_stages = forward_tile_stages(d, consumers, overlap);
  Question q;
  q.text = "One CTA of the attention forward keeps a 64 x D bf16 Q tile per consumer warpgroup in each of its tile stages "
           "(two where they fit, so that a persistent CTA loads the next tile's Q while this one computes), and a ring of "
           "stages, each holding a K block and a V block of 128 x D bf16. With D = " + std::to_string(d) + ", " +
           std::to_string(consumers) + " consumer warpgroups and the self-overlap " + (overlap ? "on" : "off") + " (" +
           std::to_string(stages) + " stages, " + std::to_string(tile_stages) + (tile_stages == 1 ? " tile stage" : " tile stages") +
           "), how many KiB of shared memory does the CTA use? (Within 4 %: the barriers, the log-sum-exp staging and the "
           "alignment slack are small.)";
  q.unit = "KiB";
  q.answer = double(forward_smem_bytes(d, consumers, overlap)) / 1024.0;
  if (q.answer <= 0) return excluded("this build has no host backend");
  q.tolerance = 0.04;
  q.explanation = std::to_string(tile_stages) + " x " + std::to_string(consumers) + " x 64 x " + std::to_string(d) + " x 2 B of Q + " + std::to_string(stages) +
                  " x 2 x 128 x " + std::to_string(d) + " x 2 B of K and V, plus the rest: " + num(q.answer, 1) +
                  " KiB (pipeline_smem_bytes of the kernel's own instance); an H100 SM has 227 KiB for a block";
  s.attn.d = static_cast<uint32_t>(d);
  s.block = s.block == 0 ? 1 : 0;
  q.reveal = s;
  q.reveal_highlights = {"q", "stages"};
  return q;
}

// Simulated cycles of the forward with the overlap on or off, kept across questions.
double overlap_cycles(uint32_t n, uint32_t heads, bool overlap) {
  static std::mutex lock;
  static std::map<std::tuple<uint32_t, uint32_t, bool>, double> kept;
  {
    const std::lock_guard<std::mutex> guard(lock);
    if (auto it = kept.find({n, heads, overlap}); it != kept.end()) return it->second;
  }
  const auto sim = simulate_attention_run(attention_run({n, 64, heads, false}, false, 3, overlap ? 1 : 0));
  const double cycles = sim->error.empty() ? sim->cycles : 0;
  const std::lock_guard<std::mutex> guard(lock);
  kept[{n, heads, overlap}] = cycles;
  return cycles;
}

Question overlap_cost(const QuizParams& p, const SceneState& base) {
  OverlapState s = base_or_default<OverlapState>(base);
  const auto n = static_cast<uint32_t>(p.at("n")), heads = static_cast<uint32_t>(p.at("heads"));
  const double on = overlap_cycles(n, heads, true), off = overlap_cycles(n, heads, false);
  if (on <= 0 || off <= 0) return excluded("the simulator refused the run");
  Question q;
  q.text = "The simulator runs the attention forward (N = " + std::to_string(n) + ", " + std::to_string(heads) +
           " heads, D = 64, three consumer warpgroups) from the kernel's own op streams. With each warpgroup overlapping "
           "its softmax with its previous P V it takes " + num(on) + " cycles; with the overlap off, " + num(off) +
           " cycles. By how many percent does turning the overlap off lengthen the run (negative if it shortens it)?";
  q.unit = "%";
  q.answer = 100.0 * (off - on) / on;
  q.tolerance = 0.02;
  q.explanation = "(" + num(off) + " - " + num(on) + ") / " + num(on) + " = " + num(q.answer, 2) + " %";
  s.attn = {n, 64, heads, false};
  s.consumers = 3;
  s.overlap = false;
  s.from = 0, s.to = 100;
  q.reveal = s;
  q.reveal_highlights = {"cost", "waiting"};
  return q;
}

Question skipped_blocks(const QuizParams& p, const SceneState& base) {
  CausalState s = base_or_default<CausalState>(base);
  const auto n = static_cast<uint32_t>(p.at("n"));
  if (n == s.attn.n) return excluded("the lesson's own sequence length");
  const CausalGrid causal = causal_grid(int(n), 64, true);
  if (!causal.error.empty()) return excluded(causal.error);
  Question q;
  q.text = "The causal attention forward gives each CTA " + std::to_string(causal.block_q) + " consecutive query rows, "
           "laid out from the end of the sequence in 64-row warpgroups (so the first CTA may hold fewer), and walks the "
           "keys in blocks of " + std::to_string(causal.block_kv) + ", loading only key blocks that hold a key at or "
           "before the CTA's last row. For one head with N = " + std::to_string(n) + " (the last key block may be "
           "partial), how many (CTA, key block) pairs that the non-causal kernel loads does the causal one never load?";
  q.unit = "pairs";
  q.answer = double(causal.not_loaded);
  q.explanation = std::to_string(causal.q_blocks) + " CTAs x " + std::to_string(causal.kv_blocks) + " key blocks = " +
                  std::to_string(causal.q_blocks * causal.kv_blocks) + " pairs; the causal CTAs load " +
                  std::to_string(causal.loaded) + " (the kernel's iterations()), so " + num(q.answer) + " are skipped";
  s.attn = {n, 64, 4, true};
  q.reveal = s;
  q.reveal_highlights = {"grid", "work"};
  return q;
}

Question dq_bytes(const QuizParams& p, const SceneState& base) {
  AttnBackwardState s = base_or_default<AttnBackwardState>(base);
  const auto n = static_cast<uint32_t>(p.at("n")), d = static_cast<uint32_t>(p.at("d"));
  const bool causal = p.at("causal") == 1;
  const AttnKnobs knobs{n, d, 1, causal};
  if (n == s.attn.n && d == s.attn.d && causal == s.attn.causal) return excluded("the lesson's own configuration");
  const BackwardModel b = backward_loop(knobs);
  if (b.pairs == 0) return excluded("this build has no host backend");
  Question q;
  const int cta_keys = b.consumers * b.block_kv;
  q.text = "In the attention backward, each CTA holds " + std::to_string(b.consumers) + " warpgroups of " +
           std::to_string(b.block_kv) + " keys. For every block of " + std::to_string(b.block_q) +
           " query rows that the CTA's " + std::to_string(cta_keys) + " keys meet" +
           std::string(causal ? " (causal: from the block holding its first key on)" : "") + ", the warpgroups take turns adding one " +
           std::to_string(b.block_q) + " x D share of dQ in fp32 into global memory (both warpgroups' keys in one share). For one head with N = " +
           std::to_string(n) + " and D = " + std::to_string(d) + ", how many KiB of dQ shares are added?";
  q.unit = "KiB";
  q.answer = double(b.dq_add_bytes) / 1024.0;
  q.tolerance = 0.01;
  q.explanation = std::to_string(b.dq_shares) + " (CTA, query block) pairs x " + std::to_string(b.block_q) + " x " +
                  std::to_string(d) + " x 4 bytes = " + num(q.answer) + " KiB, each a TMA reducing store into L2 (a share per warpgroup would be " +
                  num(double(b.pairs) * b.block_q * d * 4 / 1024.0) + " KiB)";
  s.attn = knobs;
  s.attn.heads = 4;
  q.reveal = s;
  q.reveal_highlights = {"accumulate", "work"};
  return q;
}

Question sim_error(const QuizParams& p, const SceneState& base) {
  AttnTrustState s = base_or_default<AttnTrustState>(base);
  const auto& m = attention_measurements();
  const auto i = static_cast<size_t>(p.at("row"));
  if (i >= m.compare.size()) return excluded("compare-attention.txt has no such row");
  const CompareRow& r = m.compare[i];
  Question q;
  q.text = "For " + r.shape + " " + r.config + ", the H100 measured " + num(r.measured, 1) +
           " TFLOPS and the simulator predicts " + num(r.simulated, 1) +
           " TFLOPS. What is the simulator's error, relative to the measurement, in percent (as a positive number)?";
  q.unit = "%";
  q.answer = 100.0 * std::abs(r.simulated - r.measured) / r.measured;
  q.tolerance = 0.02;
  q.explanation = "|" + num(r.simulated, 1) + " - " + num(r.measured, 1) + "| / " + num(r.measured, 1) + " = " +
                  num(q.answer, 1) + " %";
  s.pass = r.backward ? AttnPassFilter::bwd : AttnPassFilter::fwd;
  s.causal_only = r.causal;
  q.reveal = s;
  q.reveal_highlights = {"points", "table"};
  return q;
}

}  // namespace

bool is_attention_quiz(std::string_view id) {
  for (const auto& q : attention_quizzes())
    if (q.id == id) return true;
  return false;
}

Question make_attention_question(std::string_view id, const QuizParams& params, const SceneState& base) {
  if (id == "attn-intensity") return attn_intensity(params, base);
  if (id == "rescale-factor") return rescale_question(params, base);
  if (id == "fwd-smem") return fwd_smem(params, base);
  if (id == "overlap-cost") return overlap_cost(params, base);
  if (id == "skipped-blocks") return skipped_blocks(params, base);
  if (id == "dq-bytes") return dq_bytes(params, base);
  if (id == "sim-error") return sim_error(params, base);
  return excluded("unknown exercise '" + std::string(id) + "'");
}

}  // namespace ts::viz
