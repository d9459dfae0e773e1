#pragma once
// The op streams the simulator replays: per warp, the ops (tiles/backend/host/trace_op.hpp) that
// the host backend's trace mode records from the kernel's own source, or that a test writes by hand.
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "tiles/backend/host/trace_op.hpp"

namespace ts::sim {

std::string_view op_name(OpKind k);

// Where a warp's ops come from: a recorded vector, or the kernel running in trace mode.
class OpSource {
 public:
  virtual ~OpSource() = default;
  // The next op of this warp, or false when the warp has exited.
  virtual bool next(TraceOp& op) = 0;
};

class VectorSource final : public OpSource {
 public:
  explicit VectorSource(std::vector<TraceOp> ops) : ops_(std::move(ops)) {}
  bool next(TraceOp& op) override {
    if (pos_ == ops_.size()) return false;
    op = ops_[pos_++];
    return true;
  }

 private:
  std::vector<TraceOp> ops_;
  size_t pos_ = 0;
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
  virtual BlockTrace block(uint32_t index) = 0;
};

}  // namespace ts::sim
