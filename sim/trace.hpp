#pragma once
// The op stream the simulator replays: what one warp did, op by op, as the host backend's trace
// mode records it from the kernel's own source (no arithmetic, no data). Plain data, so unit
// tests can also write a stream by hand.
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace ts::sim {

enum class OpKind : uint8_t {
  barrier_init,    // mbarrier `barrier` expects `count` arrivals per phase
  expect_bytes,    // arrive once on `barrier` and announce `bytes` of transactions
  arrive,          // arrive once on `barrier`
  wait,            // block until `barrier` completes the phase of parity `count`
  tma_load,        // copy a box from global to shared; its bytes complete on `barrier`
  tma_store,       // copy a box from shared to global, in the current bulk group
  tma_store_commit,  // close the current bulk group of stores
  tma_store_wait,  // block until at most `count` bulk store groups still read shared memory
  mma,             // one wgmma slice of this warp: `flops`, `count` = N of m64nNk16
  mma_commit,      // close the current group of MMAs
  mma_wait,        // block until at most `count` MMA groups of this warp are pending
  smem_store,      // registers -> shared (epilogue): `bytes`, `count` = wavefronts (bank model)
  warpgroup_sync,  // named barrier of the 4 warps of warpgroup `barrier`
  block_sync,      // all warps of the block
  set_registers,   // setmaxnreg: `count` registers per thread from here on
};

std::string_view op_name(OpKind k);

// A TMA box in global memory: rows of `row_bytes` contiguous bytes, `pitch` bytes apart.
struct GlobalBox {
  uint32_t tensor = 0;     // which tensor (distinct tensors never share cache lines)
  uint64_t offset = 0;     // byte offset of the box's first byte in the tensor
  uint32_t rows = 0;
  uint32_t row_bytes = 0;  // in-range bytes of each row (out-of-range parts move no memory)
  uint64_t pitch = 0;
};

struct TraceOp {
  OpKind kind{};
  uint32_t barrier = 0;  // mbarrier id (its shared-memory offset) or warpgroup id
  uint32_t count = 0;    // meaning depends on kind (see OpKind)
  uint64_t bytes = 0;
  uint64_t flops = 0;
  uint32_t conflicts = 0;  // smem_store: wavefronts beyond the ideal (bank model)
  GlobalBox box{};       // tma_load / tma_store
};

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
