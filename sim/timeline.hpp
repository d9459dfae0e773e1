#pragma once
// A per-warp timeline as a file, simulated or measured: the Chrome trace event format, which
// Perfetto and chrome://tracing open (one process per SM, one thread per warp, one complete event
// per span), plus what TileScope needs to read it back: where it came from, the clock that turns
// cycles into microseconds, and the configuration it ran (in "otherData", which viewers ignore).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine.hpp"
#include "tiles/backend/stamps.hpp"

namespace ts::sim {

struct Timeline {
  std::string source = "simulated";  // or "measured"
  std::string title;                 // "gemm 4096x4096x4096 ..." (the job's title)
  nlohmann::json job = nlohmann::json::object();  // the configuration: tilescope sim's options by name
  double clock_mhz = 0;              // cycles per microsecond
  std::vector<Span> spans;           // cycles from the launch's start
  uint64_t dropped = 0;              // measured: records that did not fit their warp's buffer
  double kernel_ms = 0, plain_ms = 0;  // measured: the recorded launch's median time, and the plain build's
  // Measured: the op kinds the recording build stamped (stamp::kind_bit's); a kind left out has no
  // spans because it was not looked at, not because it took no time.
  uint32_t recorded_kinds = stamp::kAllKinds;
  bool recorded(OpKind k) const { return (recorded_kinds & stamp::kind_bit(k)) != 0; }
};

std::string timeline_json(const Timeline& t);
// Reads what timeline_json writes (or any Chrome trace whose spans carry our op names). Throws
// std::runtime_error "NAME: reason" for anything else.
Timeline read_timeline_json(const std::string& text, const std::string& name);
Timeline read_timeline_file(const std::string& path);

// Whether a measured timeline's build stamped what spans of kind k are made from: the kind itself,
// or for a wgmma group (mma) its commit and its wait.
bool measures(const Timeline& t, OpKind k);
// The op kinds a timeline of the simulator has spans for that a measured one's build did not stamp,
// by name ("math, smem_store"); empty when it stamped them all.
std::string unrecorded_kinds(const Timeline& t);

// A span's op name as the file writes it: "wait", "mma", "math (sfu)"; measured math spans have no pipe.
std::string span_name(const Span& s, bool with_pipe);

}  // namespace ts::sim
