// Timelines as Chrome traces (open in Perfetto), written and read back; the names of op kinds and pipes.
#include <fstream>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "sim/timeline.hpp"

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
    case OpKind::gmem_load: return "gmem_load";
    case OpKind::gmem_store: return "gmem_store";
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

std::string span_name(const Span& s, bool with_pipe) {
  std::string name(op_name(s.kind));
  if (s.kind == OpKind::math && with_pipe) name += " (" + std::string(pipe_name(s.pipe)) + ")";
  return name;
}

// One process per SM ("SM k"), one thread per warp index ("warp w (warpgroup g)"): the blocks an SM
// runs one after another share its tracks, and each span names its block. Times in microseconds
// with four decimals (a tenth of a nanosecond), so that reading a file back loses under a cycle.
std::string timeline_json(const Timeline& t) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(4);
  os << "{\"traceEvents\":[";
  const double us_per_cycle = t.clock_mhz > 0 ? 1.0 / t.clock_mhz : 1.0;
  const bool measured = t.source == "measured";
  bool first = true;
  auto sep = [&] {
    os << (first ? "" : ",");
    first = false;
  };
  std::set<std::pair<uint32_t, uint32_t>> tracks;
  for (const Span& s : t.spans) tracks.insert({s.sm, s.warp});
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
  for (const Span& s : t.spans) {
    sep();
    os << "{\"name\":\"" << span_name(s, !measured) << "\",\"ph\":\"X\",\"pid\":" << s.sm << ",\"tid\":" << s.warp
       << ",\"ts\":" << s.start * us_per_cycle << ",\"dur\":" << (s.end - s.start) * us_per_cycle << ",\"args\":{\"block\":" << s.block
       << "}}";
  }
  nlohmann::json other = {{"tilescope", 1},        {"source", t.source}, {"title", t.title},
                          {"clock_mhz", t.clock_mhz}, {"job", t.job}};
  if (measured) {
    other["dropped_records"] = t.dropped;
    other["kernel_ms"] = t.kernel_ms;
    other["plain_kernel_ms"] = t.plain_ms;
    if (t.recorded_kinds != stamp::kAllKinds) {
      nlohmann::json kinds = nlohmann::json::array();
      for (int k = 0; k < kOpKinds; ++k)
        if (t.recorded(static_cast<OpKind>(k))) kinds.push_back(std::string(op_name(static_cast<OpKind>(k))));
      other["recorded_kinds"] = kinds;  // absent: every kind
    }
  }
  os << "],\"displayTimeUnit\":\"ns\",\"otherData\":" << other.dump() << "}";
  return os.str();
}

std::string timeline_json(const SimReport& r, const EngineParams& p) {
  Timeline t;
  t.clock_mhz = p.clock_mhz;
  t.spans = r.spans;
  return timeline_json(t);
}

bool measures(const Timeline& t, OpKind k) {
  return k == OpKind::mma ? t.recorded(OpKind::mma_commit) && t.recorded(OpKind::mma_wait) : t.recorded(k);
}

std::string unrecorded_kinds(const Timeline& t) {
  std::string out;
  for (OpKind k : {OpKind::wait, OpKind::tma_load, OpKind::tma_store, OpKind::tma_store_wait, OpKind::mma, OpKind::mma_wait,
                   OpKind::smem_store, OpKind::smem_load, OpKind::warpgroup_sync, OpKind::block_sync, OpKind::math})
    if (!measures(t, k)) out += (out.empty() ? "" : ", ") + std::string(op_name(k));
  return out;
}

namespace {

std::optional<OpKind> op_by_name(std::string_view name) {
  for (int k = 0; k < kOpKinds; ++k)
    if (op_name(static_cast<OpKind>(k)) == name) return static_cast<OpKind>(k);
  return std::nullopt;
}

std::optional<Pipe> pipe_by_name(std::string_view name) {
  for (int p = 0; p < kPipes; ++p)
    if (pipe_name(static_cast<Pipe>(p)) == name) return static_cast<Pipe>(p);
  return std::nullopt;
}

}  // namespace

Timeline read_timeline_json(const std::string& text, const std::string& name) {
  const auto fail = [&](const std::string& why) { return std::runtime_error(name + ": " + why); };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw fail(std::string("not JSON (") + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("traceEvents") || !j["traceEvents"].is_array())
    throw fail("not a Chrome trace (no traceEvents array)");
  Timeline t;
  const nlohmann::json other = j.value("otherData", nlohmann::json::object());
  if (!other.is_object()) throw fail("otherData is not an object");
  t.source = other.value("source", std::string("simulated"));
  t.title = other.value("title", std::string());
  t.clock_mhz = other.value("clock_mhz", 0.0);
  if (other.contains("job") && other["job"].is_object()) t.job = other["job"];
  t.dropped = other.value("dropped_records", uint64_t{0});
  t.kernel_ms = other.value("kernel_ms", 0.0);
  t.plain_ms = other.value("plain_kernel_ms", 0.0);
  if (other.contains("recorded_kinds")) {
    if (!other["recorded_kinds"].is_array()) throw fail("otherData.recorded_kinds is not a list of op names");
    t.recorded_kinds = 0;
    for (const auto& k : other["recorded_kinds"]) {
      const auto kind = k.is_string() ? op_by_name(k.get<std::string>()) : std::nullopt;
      if (!kind) throw fail("otherData.recorded_kinds: unknown op " + k.dump());
      t.recorded_kinds |= stamp::kind_bit(*kind);
    }
  }
  if (!(t.clock_mhz > 0)) throw fail("otherData.clock_mhz is missing or not positive (not a TileScope timeline?)");
  size_t index = 0;
  for (const auto& e : j["traceEvents"]) {
    ++index;
    if (!e.is_object() || e.value("ph", std::string()) != "X") continue;
    const std::string full = e.value("name", std::string());
    const size_t paren = full.find(" (");
    const auto kind = op_by_name(std::string_view(full).substr(0, paren));
    if (!kind) throw fail("event " + std::to_string(index) + ": unknown op '" + full + "'");
    Span s{};
    s.kind = *kind;
    if (paren != std::string::npos && full.size() > paren + 3 && full.back() == ')') {
      const auto pipe = pipe_by_name(std::string_view(full).substr(paren + 2, full.size() - paren - 3));
      if (!pipe) throw fail("event " + std::to_string(index) + ": unknown pipe in '" + full + "'");
      s.pipe = *pipe;
    }
    try {
      s.sm = e.at("pid").get<uint32_t>();
      s.warp = e.at("tid").get<uint32_t>();
      s.block = e.contains("args") ? e["args"].value("block", 0u) : 0u;
      s.start = e.at("ts").get<double>() * t.clock_mhz;
      s.end = s.start + e.at("dur").get<double>() * t.clock_mhz;
    } catch (const nlohmann::json::exception&) {
      throw fail("event " + std::to_string(index) + ": needs numeric pid, tid, ts and dur");
    }
    if (!(s.end >= s.start)) throw fail("event " + std::to_string(index) + ": negative duration");
    t.spans.push_back(s);
  }
  return t;
}

Timeline read_timeline_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return read_timeline_json(text.str(), path);
}

}  // namespace ts::sim
