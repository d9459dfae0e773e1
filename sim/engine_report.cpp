// The engine's report at the end of a run, and its message when no warp can run.
#include <algorithm>
#include <sstream>

#include "sim/engine_core.hpp"

namespace ts::sim::engine_state {

std::string Engine::deadlock_message() const {
  std::ostringstream os;
  os << "deadlock: no warp can run;";
  int shown = 0;
  for (const Warp& w : warps_) {
    if (w.done || w.op == nullptr) continue;
    if (shown++ == 8) {
      os << " ...";
      break;
    }
    os << " block " << blocks_[w.block].index << " warp " << w.index << " waits in " << op_name(w.op->kind)
       << " (barrier " << w.op->barrier << ", parity/count " << w.op->count;
    if (w.op->kind == OpKind::wait)
      if (const Barrier* b = const_cast<Block&>(blocks_[w.block]).find_barrier(w.op->barrier))
        os << "; phase " << b->phase << ", " << b->arrivals << " of " << b->count << " arrivals, " << b->tx << " bytes to land";
    os << ");";
  }
  return os.str();
}

void Engine::finish_report() {
  // The kernel ends when its writes have drained.
  end_ = std::max({end_, hbm_free_, l2_free_, *std::max_element(hbm_port_free_.begin(), hbm_port_free_.end())});
  report_.cycles = end_;
  report_.seconds = end_ / (p_.clock_mhz * 1e6);
  report_.tflops = report_.seconds > 0 ? report_.flops / report_.seconds / 1e12 : 0;
  double tensor = 0, tma = 0;
  for (const Sm& s : sms_) {
    tma += s.tma_busy;
    for (uint32_t i = 0; i < p_.sub_partitions; ++i) {
      const SubPartition& sp = s.sub[i];
      tensor += sp.tensor.busy_cycles();
      report_.issue_busy[i] += sp.issue_busy;
      for (int k = 0; k < kPipes; ++k) report_.pipe_busy[k] += sp.pipe_busy[k];
    }
  }
  const double sm_cycles = std::max(end_, 1.0) * p_.sms;
  report_.tensor_busy = tensor / (sm_cycles * p_.sub_partitions);
  for (double& b : report_.issue_busy) b /= sm_cycles;
  for (double& b : report_.pipe_busy) b /= sm_cycles * p_.sub_partitions;
  report_.tma_busy = tma / sm_cycles;
  report_.l2_busy = l2_busy_ / std::max(end_, 1.0);
  report_.l2_store_busy = store_busy_ / std::max(end_, 1.0);
  report_.hbm_busy = hbm_busy_ / std::max(end_, 1.0);
}

}  // namespace ts::sim::engine_state

namespace ts::sim {

void append_launch(SimReport& total, const SimReport& next, bool whole) {
  const double t0 = total.cycles, t = t0 + next.cycles;
  const auto blend = [&](double& a, double b) { a = t > 0 ? (a * t0 + b * next.cycles) / t : 0; };
  blend(total.tensor_busy, next.tensor_busy);
  blend(total.tma_busy, next.tma_busy);
  blend(total.l2_busy, next.l2_busy);
  blend(total.l2_store_busy, next.l2_store_busy);
  blend(total.hbm_busy, next.hbm_busy);
  for (int i = 0; i < kPipes; ++i) {
    blend(total.pipe_busy[i], next.pipe_busy[i]);
    total.pipe_instructions[i] += next.pipe_instructions[i];
  }
  for (size_t i = 0; i < total.issue_busy.size() && i < next.issue_busy.size(); ++i) blend(total.issue_busy[i], next.issue_busy[i]);
  for (int st = 0; st < 2; ++st)
    for (int w = 0; w < kSmemWalks; ++w) {
      auto& a = total.smem[st][w];
      const auto& b = next.smem[st][w];
      a.instructions += b.instructions, a.wavefronts += b.wavefronts, a.conflicts += b.conflicts;
    }
  total.bank_conflicts += next.bank_conflicts;
  total.smem_wavefronts += next.smem_wavefronts;
  total.l2_hits += next.l2_hits, total.l2_misses += next.l2_misses;
  total.l2_hit_bytes += next.l2_hit_bytes, total.hbm_read_bytes += next.hbm_read_bytes;
  total.l2_merged_bytes += next.l2_merged_bytes;
  total.hbm_write_bytes += next.hbm_write_bytes;
  total.global_write_bytes += next.global_write_bytes;
  total.ops += next.ops;
  if (whole) {
    total.blocks += next.blocks;
    total.blocks_per_sm = std::max(total.blocks_per_sm, next.blocks_per_sm);
    for (Span s : next.spans) {
      s.start += t0, s.end += t0;
      total.spans.push_back(s);
    }
  }
  total.cycles = t;
}

}  // namespace ts::sim
