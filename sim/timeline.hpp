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

namespace ts::sim {

struct Timeline {
  std::string source = "simulated";  // or "measured"
  std::string title;                 // "gemm 4096x4096x4096 ..." (the job's title)
  nlohmann::json job = nlohmann::json::object();  // the configuration: tilescope sim's options by name
  double clock_mhz = 0;              // cycles per microsecond
  std::vector<Span> spans;           // cycles from the launch's start
  uint64_t dropped = 0;              // measured: records that did not fit their warp's buffer
  double kernel_ms = 0, plain_ms = 0;  // measured: the recorded launch's median time, and the plain build's
};

std::string timeline_json(const Timeline& t);
// Reads what timeline_json writes (or any Chrome trace whose spans carry our op names). Throws
// std::runtime_error "NAME: reason" for anything else.
Timeline read_timeline_json(const std::string& text, const std::string& name);
Timeline read_timeline_file(const std::string& path);

// A span's op name as the file writes it: "wait", "mma", "math (sfu)"; measured math spans have no pipe.
std::string span_name(const Span& s, bool with_pipe);

}  // namespace ts::sim
