#include "viz/lesson/measured_timeline.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <vector>

#include "kernels/attention/attention_api.hpp"
#include "kernels/gemm/gemm_api.hpp"
#include "sim/machine.hpp"
#include "viz/lesson/timeline_view.hpp"

namespace ts::viz {

namespace {

struct Folder {
  std::vector<std::shared_ptr<const MeasuredTimeline>> timelines;
  std::vector<std::string> problems;
};

const Folder& folder() {
  static std::once_flag once;
  static Folder f;
  std::call_once(once, [] {
    std::filesystem::path dir;
    try {
      dir = sim::find_data_path("measured/h100/timelines");
    } catch (const std::exception&) {
      return;  // no folder: no measured timelines, which the scene says
    }
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".json") continue;
      try {
        auto t = std::make_shared<MeasuredTimeline>();
        t->file = entry.path().string();
        t->timeline = sim::read_timeline_file(t->file);
        f.timelines.push_back(std::move(t));
      } catch (const std::exception& e) {
        f.problems.push_back(e.what());
      }
    }
  });
  return f;
}

bool matches(const nlohmann::json& job, const GemmRun& run) {
  const auto& s = run.shape;
  const auto& c = run.cfg;
  try {
    if (job.value("kernel", "") != "gemm") return false;
    const int consumers = job.value("consumers", 0);
    const auto order = sched::parse_order(job.value("order", std::string("grouped")));
    return job.value("m", int64_t{0}) == s.m && job.value("n", int64_t{0}) == s.n && job.value("k", int64_t{0}) == s.k &&
           job.value("stages", 0) == c.stages && job.value("block_n", 0) == c.block_n &&
           (consumers == 0 ? 2 : consumers) == c.consumers && job.value("cluster", 1) == c.cluster && order &&
           order->order == c.order.order &&
           order->group == c.order.group && (job.value("persistent", std::string("on")) == "on") == c.persistent &&
           !job.value("b_col_major", false) == c.b_row_major;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

// The attention forward `job` ran the same blocks as `run` (see find_measured_timeline).
bool matches(const nlohmann::json& job, const AttentionRun& run) {
  try {
    if (job.value("kernel", "") != "attention" || job.value("bwd", false) != run.backward) return false;
    kernels::AttentionShape shape;
    shape.batch = job.value("b", int64_t{1});
    shape.heads_q = job.value("h", int64_t{16});
    shape.heads_kv = job.value("hkv", int64_t{0}) > 0 ? job.value("hkv", int64_t{0}) : shape.heads_q;
    shape.seq = job.value("n", int64_t{0});
    shape.dim = job.value("d", int64_t{0});
    shape.causal = job.value("causal", false);
    if (shape.seq != run.shape.seq || shape.dim != run.shape.dim || shape.causal != run.shape.causal) return false;
    if (!kernels::validate(shape).empty() || !kernels::validate(run.shape).empty()) return false;
    const kernels::AttentionConfig recorded = kernels::resolve(shape, {job.value("consumers", 0), job.value("overlap", -1)});
    const kernels::AttentionConfig wanted = kernels::resolve(run.shape, run.cfg);
    return recorded.consumers == wanted.consumers && recorded.overlap == wanted.overlap;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::shared_ptr<const MeasuredTimeline> find_measured_timeline(const AttentionRun& run) {
  for (const auto& t : folder().timelines)
    if (matches(t->timeline.job, run)) return t;
  return nullptr;
}

std::optional<MeasuredTrack> measured_overlap_track(const AttentionRun& run) {
  const auto t = find_measured_timeline(run);
  if (!t) return std::nullopt;
  MeasuredTrack track;
  track.source = t->file;
  track.title = t->timeline.title;
  const OverlapModel m = overlap_model(first_block_spans(t->timeline, 0), 0);
  track.rows = m.rows;
  track.cycles = m.last - m.first;
  return track;
}

std::shared_ptr<const MeasuredTimeline> find_measured_timeline(const GemmRun& run) {
  for (const auto& t : folder().timelines)
    if (matches(t->timeline.job, run)) return t;
  return nullptr;
}

std::vector<std::string> timeline_problems() { return folder().problems; }

std::vector<sim::Span> first_block_spans(const sim::Timeline& t, uint32_t as_sm) {
  const auto blocks = recorded_blocks(t.spans);
  return blocks.empty() ? std::vector<sim::Span>{} : block_spans(t.spans, blocks.front().block, as_sm);
}

}  // namespace ts::viz
