#pragma once
// The op streams a lab kernel records in trace mode, as the child process writes them to a file
// and `tilescope lab check` reads them back to simulate: per launch its grid, warps, shared bytes
// and registers, then every block's warps' ops, raw (TraceOp is trivially copyable; both sides are
// built by the same compiler on the same machine, and the header's sizes check it).
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tiles/backend/host/trace_op.hpp"

namespace ts::lab {

struct RecordedLaunch {
  int grid = 0, warps = 0;
  uint32_t smem_bytes = 0, registers = 0;
  std::vector<std::vector<std::vector<sim::TraceOp>>> blocks;  // [block][warp] ops
};

inline constexpr uint32_t kTraceMagic = 0x54534c54;  // "TLST"
inline constexpr uint32_t kTraceVersion = 1;

inline void write_trace(const std::string& path, const std::vector<RecordedLaunch>& launches) {
  std::ofstream f(path, std::ios::binary);
  auto put = [&f](const auto& v) { f.write(reinterpret_cast<const char*>(&v), sizeof v); };
  put(kTraceMagic);
  put(kTraceVersion);
  put(static_cast<uint32_t>(sizeof(sim::TraceOp)));
  put(static_cast<uint32_t>(launches.size()));
  for (const auto& l : launches) {
    put(l.grid);
    put(l.warps);
    put(l.smem_bytes);
    put(l.registers);
    for (const auto& block : l.blocks)
      for (const auto& ops : block) {
        put(static_cast<uint64_t>(ops.size()));
        f.write(reinterpret_cast<const char*>(ops.data()), static_cast<std::streamsize>(ops.size() * sizeof(sim::TraceOp)));
      }
  }
  if (!f) throw std::runtime_error("cannot write the trace file " + path);
}

inline std::vector<RecordedLaunch> read_trace(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("the check wrote no trace file (" + path + ")");
  auto get = [&f, &path](auto& v) {
    if (!f.read(reinterpret_cast<char*>(&v), sizeof v)) throw std::runtime_error("truncated trace file " + path);
  };
  uint32_t magic = 0, version = 0, op_size = 0, n = 0;
  get(magic);
  get(version);
  get(op_size);
  if (magic != kTraceMagic || version != kTraceVersion || op_size != sizeof(sim::TraceOp))
    throw std::runtime_error("trace file " + path + " is from another build of TileScope");
  get(n);
  std::vector<RecordedLaunch> out(n);
  for (auto& l : out) {
    get(l.grid);
    get(l.warps);
    get(l.smem_bytes);
    get(l.registers);
    if (l.grid <= 0 || l.warps <= 0 || l.warps > 32) throw std::runtime_error("malformed trace file " + path);
    l.blocks.resize(static_cast<std::size_t>(l.grid));
    for (auto& block : l.blocks) {
      block.resize(static_cast<std::size_t>(l.warps));
      for (auto& ops : block) {
        uint64_t count = 0;
        get(count);
        ops.resize(count);
        if (!f.read(reinterpret_cast<char*>(ops.data()), static_cast<std::streamsize>(count * sizeof(sim::TraceOp))))
          throw std::runtime_error("truncated trace file " + path);
      }
    }
  }
  return out;
}

}  // namespace ts::lab
