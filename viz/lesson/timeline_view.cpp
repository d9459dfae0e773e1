#include "viz/lesson/timeline_view.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace ts::viz {

std::vector<RecordedBlock> recorded_blocks(const std::vector<sim::Span>& spans) {
  std::map<uint32_t, RecordedBlock> by_block;
  for (const sim::Span& s : spans) {
    RecordedBlock& b = by_block[s.block];
    b.block = s.block;
    b.sm = s.sm;
    ++b.spans;
  }
  std::vector<RecordedBlock> out;
  for (const auto& [block, b] : by_block) out.push_back(b);
  return out;
}

std::vector<sim::Span> block_spans(const std::vector<sim::Span>& spans, uint32_t block, uint32_t as_sm) {
  double first = 0;
  bool any = false;
  for (const sim::Span& s : spans)
    if (s.block == block) first = any ? std::min(first, s.start) : s.start, any = true;
  std::vector<sim::Span> out;
  for (sim::Span s : spans)
    if (s.block == block) {
      s.sm = as_sm;
      s.start -= first, s.end -= first;
      out.push_back(s);
    }
  return out;
}

namespace {

// The op an iteration is counted from: a wgmma group's commit where the warp has them, else an
// mbarrier wait (the producer's, once per stage it fills).
std::optional<sim::OpKind> anchor_of(const std::vector<GanttBar>& bars) {
  bool wait = false;
  for (const GanttBar& b : bars) {
    if (b.kind == sim::OpKind::mma) return sim::OpKind::mma;
    wait |= b.kind == sim::OpKind::wait;
  }
  return wait ? std::optional(sim::OpKind::wait) : std::nullopt;
}

size_t count_of(const std::vector<GanttBar>& bars, sim::OpKind k) {
  return std::count_if(bars.begin(), bars.end(), [&](const GanttBar& b) { return b.kind == k; });
}

}  // namespace

uint32_t anchors_per_iteration(const PipelineModel& m, const GanttRow& row, const PipelineModel* same_kernel) {
  const auto anchor = anchor_of(row.bars);
  for (const GanttRow& p : m.rows)
    if (p.producer && anchor) {
      const size_t fills = count_of(p.bars, sim::OpKind::wait);
      if (fills == 0) return 1;
      return std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(double(count_of(row.bars, *anchor)) / double(fills))));
    }
  if (same_kernel)
    for (const GanttRow& r : same_kernel->rows)
      if (r.warp == row.warp) return anchors_per_iteration(*same_kernel, r);
  return 1;
}

std::optional<Interval> steady_iteration(const std::vector<GanttBar>& bars, uint32_t per_iteration) {
  const auto anchor = anchor_of(bars);
  if (!anchor || per_iteration == 0) return std::nullopt;
  std::vector<double> at;
  for (const GanttBar& b : bars)
    if (b.kind == *anchor) at.push_back(b.start);
  std::sort(at.begin(), at.end());
  const size_t k = per_iteration;
  if (at.size() < 4 * k + 1) return std::nullopt;
  // The middle half of the anchors, one iteration after another (the same phase of each).
  const size_t lo = (at.size() - 1) / 4, hi = at.size() - 1 - lo;
  std::vector<Interval> found;
  for (size_t j = lo; j + k <= hi; j += k)
    if (at[j + k] > at[j]) found.push_back({at[j], at[j + k]});
  if (found.empty()) return std::nullopt;
  std::nth_element(found.begin(), found.begin() + found.size() / 2, found.end(),
                   [](const Interval& a, const Interval& b) { return a.length() < b.length(); });
  return found[found.size() / 2];
}

TimeWindow clamp_window(TimeWindow w, double lo, double hi) {
  if (hi - lo <= kMinWindow) return {lo, hi};
  if (!(w.t1 - w.t0 >= kMinWindow)) {
    const double mid = (w.t0 + w.t1) / 2;
    w = {mid - kMinWindow / 2, mid + kMinWindow / 2};
  }
  const double width = std::min(w.width(), hi - lo);
  if (w.t0 < lo) w = {lo, lo + width};
  if (w.t0 + width > hi) w = {hi - width, hi};
  return {w.t0, w.t0 + width};
}

TimeWindow zoom_window(TimeWindow w, double at, double factor, double lo, double hi) {
  if (!(factor > 0)) return clamp_window(w, lo, hi);
  const double width = std::max(kMinWindow, w.width() * factor);
  const double share = w.width() > 0 ? std::clamp((at - w.t0) / w.width(), 0.0, 1.0) : 0.5;
  return clamp_window({at - share * width, at - share * width + width}, lo, hi);
}

TimeWindow pan_window(TimeWindow w, double by, double lo, double hi) { return clamp_window({w.t0 + by, w.t1 + by}, lo, hi); }

}  // namespace ts::viz
