// The simulated timeline as a Chrome trace (opens in Perfetto), and the names of op kinds and pipes.
#include <set>
#include <sstream>
#include <utility>

#include "sim/engine.hpp"

namespace ts::sim {

std::string_view op_name(OpKind k) {
  switch (k) {
    case OpKind::barrier_init: return "barrier_init";
    case OpKind::expect_bytes: return "expect_bytes";
    case OpKind::arrive: return "arrive";
    case OpKind::wait: return "wait";
    case OpKind::tma_load: return "tma_load";
    case OpKind::tma_store: return "tma_store";
    case OpKind::tma_store_commit: return "tma_store_commit";
    case OpKind::tma_store_wait: return "tma_store_wait";
    case OpKind::mma: return "mma";
    case OpKind::mma_commit: return "mma_commit";
    case OpKind::mma_wait: return "mma_wait";
    case OpKind::smem_store: return "smem_store";
    case OpKind::smem_load: return "smem_load";
    case OpKind::warpgroup_sync: return "warpgroup_sync";
    case OpKind::block_sync: return "block_sync";
    case OpKind::set_registers: return "set_registers";
    case OpKind::math: return "math";
  }
  return "?";
}

std::string_view pipe_name(Pipe p) {
  switch (p) {
    case Pipe::fma: return "fma";
    case Pipe::alu: return "alu";
    case Pipe::sfu: return "sfu";
    case Pipe::convert: return "convert";
    case Pipe::shuffle: return "shuffle";
  }
  return "?";
}

std::string_view smem_walk_name(SmemWalk w) {
  switch (w) {
    case SmemWalk::accumulator_pairs: return "accumulator pairs";
    case SmemWalk::matrix_x4: return "ldmatrix/stmatrix x4";
    case SmemWalk::row_pairs: return "fp32 row pairs";
    case SmemWalk::column_pairs: return "fp32 column pairs";
    case SmemWalk::vector_by_group: return "vector (by group)";
    case SmemWalk::vector_by_thread: return "vector (by thread)";
  }
  return "?";
}

// One process per SM ("SM k"), one thread per warp index ("warp w (warpgroup g)"): the blocks an SM
// runs one after another share its tracks, and each span names its block.
std::string timeline_json(const SimReport& r, const EngineParams& p) {
  std::ostringstream os;
  os << "{\"traceEvents\":[";
  const double us_per_cycle = 1.0 / p.clock_mhz;
  bool first = true;
  auto sep = [&] {
    os << (first ? "" : ",");
    first = false;
  };
  std::set<std::pair<uint32_t, uint32_t>> tracks;
  for (const Span& s : r.spans) tracks.insert({s.sm, s.warp});
  std::set<uint32_t> named_sms;
  for (const auto& [sm, warp] : tracks) {
    if (named_sms.insert(sm).second) {
      sep();
      os << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << sm << ",\"args\":{\"name\":\"SM " << sm << "\"}}";
      sep();
      os << "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" << sm << ",\"args\":{\"sort_index\":" << sm << "}}";
    }
    sep();
    os << "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << sm << ",\"tid\":" << warp << ",\"args\":{\"name\":\"warp "
       << warp << " (warpgroup " << warp / 4 << ")\"}}";
  }
  for (const Span& s : r.spans) {
    sep();
    os << "{\"name\":\"" << op_name(s.kind);
    if (s.kind == OpKind::math) os << " (" << pipe_name(s.pipe) << ")";
    os << "\",\"ph\":\"X\",\"pid\":" << s.sm << ",\"tid\":" << s.warp << ",\"ts\":" << s.start * us_per_cycle
       << ",\"dur\":" << (s.end - s.start) * us_per_cycle << ",\"args\":{\"block\":" << s.block << "}}";
  }
  os << "],\"displayTimeUnit\":\"ns\"}";
  return os.str();
}

}  // namespace ts::sim
