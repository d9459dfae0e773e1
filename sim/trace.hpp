#pragma once
// The op streams the simulator replays: per warp, the ops (tiles/backend/host/trace_op.hpp) that
// the host backend's trace mode records from the kernel's own source, or that a test writes by hand.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "tiles/backend/host/trace_op.hpp"

namespace ts::sim {

std::string_view op_name(OpKind k);

// Where a warp's ops come from: a recorded vector, or the kernel running in trace mode. Ops come
// in batches, read in place: a batch stays valid until the next call.
class OpSource {
 public:
  virtual ~OpSource() = default;
  // The warp's next ops in program order; empty when the warp has exited.
  virtual std::span<const TraceOp> next_batch() = 0;
  // Memory the next next_batch() touches first (a suspended fiber's saved registers, the warp's
  // state), for the simulator to prefetch while other warps run: hints, never read; any may be null.
  virtual std::array<const void*, 2> refill_hints() const { return {}; }
};

class VectorSource final : public OpSource {
 public:
  explicit VectorSource(std::vector<TraceOp> ops) : ops_(std::move(ops)) {}
  std::span<const TraceOp> next_batch() override {
    if (given_) return {};
    given_ = true;
    return ops_;
  }

 private:
  std::vector<TraceOp> ops_;
  bool given_ = false;
};

// One thread block to simulate: its warps' op sources and what it asks of an SM.
struct BlockTrace {
  std::vector<std::unique_ptr<OpSource>> warps;
  uint32_t shared_bytes = 0;
  uint32_t registers_per_thread = 0;
};

// Hands out the grid's blocks in launch order (block index order), building each one only when
// the simulator makes it resident, so that a 16384^3 grid never sits in memory at once.
class GridTrace {
 public:
  virtual ~GridTrace() = default;
  virtual uint32_t blocks() const = 0;
  virtual uint32_t threads_per_block() const = 0;
  // Blocks per thread-block cluster: that many consecutive blocks run at once on a group of SMs
  // (1: no clusters). No default, so that a wrapper cannot forget to pass it on.
  virtual uint32_t cluster_size() const = 0;
  virtual BlockTrace block(uint32_t index) = 0;
};

}  // namespace ts::sim
