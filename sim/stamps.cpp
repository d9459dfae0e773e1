#include "sim/stamps.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>

namespace ts::sim {

namespace {

bool is_timed(OpKind k) {
  switch (k) {
    case OpKind::wait:
    case OpKind::mma_wait:
    case OpKind::tma_store_wait:
    case OpKind::warpgroup_sync:
    case OpKind::block_sync:
    case OpKind::smem_load:
    case OpKind::smem_store: return true;
    default: return false;
  }
}

struct PendingLoad {
  size_t span;     // index of its span, whose end is still to be found
  uint32_t block;  // the block whose waits can complete it
  uint16_t barrier;
};

}  // namespace

MeasuredSpans spans_from_stamps(const stamp::Recording& r) {
  MeasuredSpans out;
  std::vector<double> mhz;
  uint64_t ns0 = UINT64_MAX;
  for (const auto& h : r.headers) {
    if (!h.valid) continue;
    out.kinds = out.warps == 0 ? h.kinds : out.kinds & h.kinds;
    ++out.warps;
    out.dropped += h.dropped;
    ns0 = std::min(ns0, h.ns_start);
    if (h.ns_end > h.ns_start + 1000) mhz.push_back(double(h.clock_end - h.clock_start) / double(h.ns_end - h.ns_start) * 1e3);
  }
  if (out.warps == 0) return out;
  if (!mhz.empty()) {
    std::nth_element(mhz.begin(), mhz.begin() + mhz.size() / 2, mhz.end());
    out.clock_mhz = mhz[mhz.size() / 2];
  }
  const double cycles_per_ns = out.clock_mhz / 1e3;

  // Wait ends per (block, mbarrier), to find where each TMA load landed.
  std::map<std::pair<uint32_t, uint16_t>, std::vector<double>> wait_ends;
  std::vector<PendingLoad> loads;

  for (size_t slot = 0; slot < r.headers.size(); ++slot) {
    const stamp::WarpHeader& h = r.headers[slot];
    if (!h.valid) continue;
    const stamp::Record* rec = r.slot_records(slot);
    const double offset = double(h.ns_start - ns0) * cycles_per_ns;
    const auto at = [&](uint64_t clock) { return offset + double(int64_t(clock - h.clock_start)); };
    const double warp_end = at(h.clock_end);
    const auto add = [&](OpKind kind, double start, double end) {
      out.spans.push_back({h.sm, h.block, h.warp, kind, start, std::max(start, end)});
    };
    std::deque<double> groups;       // committed wgmma groups: when they were committed
    double math_start = -1;          // start of the current run of register math
    std::vector<size_t> open_stores;  // tma_store spans waiting for the next bulk-group wait
    for (uint32_t i = 0; i < h.count; ++i) {
      const stamp::Record& x = rec[i];
      const auto kind = static_cast<OpKind>(x.kind);
      const double t0 = at(x.start), t1 = t0 + x.cycles;
      if (kind != OpKind::math && math_start >= 0) {
        add(OpKind::math, math_start, t0);
        math_start = -1;
      }
      if (is_timed(kind)) add(kind, t0, t1);
      switch (kind) {
        case OpKind::math:
          if (math_start < 0) math_start = t0;
          break;
        case OpKind::mma_commit: groups.push_back(t0); break;
        case OpKind::mma_wait:
          while (groups.size() > x.arg) {
            add(OpKind::mma, groups.front(), t1);
            groups.pop_front();
          }
          break;
        case OpKind::wait: wait_ends[{h.block, x.arg}].push_back(t1); break;
        case OpKind::tma_load:
          for (int box = 0; box <= x.repeat; ++box) {
            loads.push_back({out.spans.size(), h.block, x.arg});
            add(OpKind::tma_load, t0, t0);
          }
          break;
        case OpKind::tma_store:
          for (int box = 0; box <= x.repeat; ++box) {
            open_stores.push_back(out.spans.size());
            add(OpKind::tma_store, t0, t0);
          }
          break;
        case OpKind::tma_store_wait:
          for (size_t s : open_stores) out.spans[s].end = std::max(out.spans[s].start, t1);
          open_stores.clear();
          break;
        default: break;
      }
    }
    if (math_start >= 0) add(OpKind::math, math_start, warp_end);
  }

  for (auto& [key, ends] : wait_ends) std::sort(ends.begin(), ends.end());
  for (const PendingLoad& l : loads) {
    Span& s = out.spans[l.span];
    const auto it = wait_ends.find({l.block, l.barrier});
    if (it == wait_ends.end()) continue;
    const auto end = std::lower_bound(it->second.begin(), it->second.end(), s.start);
    if (end != it->second.end()) s.end = *end;
  }
  std::stable_sort(out.spans.begin(), out.spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  return out;
}

}  // namespace ts::sim
