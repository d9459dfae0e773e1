#include "viz/lesson/measured_timeline.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <vector>

#include "kernels/gemm/gemm_api.hpp"
#include "sim/machine.hpp"

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
           (consumers == 0 ? 2 : consumers) == c.consumers && order && order->order == c.order.order &&
           order->group == c.order.group && (job.value("persistent", std::string("on")) == "on") == c.persistent &&
           !job.value("b_col_major", false) == c.b_row_major;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

}  // namespace

std::shared_ptr<const MeasuredTimeline> find_measured_timeline(const GemmRun& run) {
  for (const auto& t : folder().timelines)
    if (matches(t->timeline.job, run)) return t;
  return nullptr;
}

std::vector<std::string> timeline_problems() { return folder().problems; }

std::vector<sim::Span> first_block_spans(const sim::Timeline& t, uint32_t as_sm) {
  std::vector<sim::Span> out;
  if (t.spans.empty()) return out;
  uint32_t block = t.spans.front().block;
  for (const auto& s : t.spans) block = std::min(block, s.block);
  double first = 1e300;
  for (const auto& s : t.spans)
    if (s.block == block) first = std::min(first, s.start);
  for (sim::Span s : t.spans)
    if (s.block == block) {
      s.sm = as_sm;
      s.start -= first, s.end -= first;
      out.push_back(s);
    }
  return out;
}

}  // namespace ts::viz
