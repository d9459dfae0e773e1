#pragma once
// Trace mode of the host backend: the kernel's own source runs with no data and no arithmetic,
// and every tile op records what it would do (tiles/backend/host/trace_op.hpp) instead. A kernel's
// control flow never depends on the outcome of a wait, so each warp may run ahead of the others;
// it runs until its buffer holds `batch` ops, then hands them to whoever pulls (the simulator),
// which keeps memory bounded however large the grid.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "tiles/backend/host/fiber.hpp"
#include "tiles/backend/host/trace_op.hpp"

namespace ts::host {

inline bool tracing() { return current_warp != nullptr && current_warp->trace != nullptr; }

// Where a barrier or shared tile sits in the block's shared memory: its id in the trace.
inline uint32_t smem_offset(const void* p) {
  const Block& b = *current().block;
  return static_cast<uint32_t>(static_cast<const char*>(p) - b.smem);
}

// How many warps' stacks and op buffers a thread keeps for the next blocks (PooledStack, OpBuffers).
// Natively a kept stack is virtual 256 KB, a few pages touched, and one past this is unmapped. In
// the browser build the memory a page grows to is never given back, so it keeps enough for every
// warp resident at once (132 SMs x 12) instead of freeing and allocating 512 stacks per 2048^3 GEMM
// simulated (about a tenth of its time under node).
#ifdef __EMSCRIPTEN__
inline constexpr std::size_t kKeptWarps = 2048;
#else
inline constexpr std::size_t kKeptWarps = 1024;
#endif

// Fiber stacks for trace mode, kept for the next block instead of unmapped: a grid of one block
// per tile creates and destroys a dozen fibers per tile, and mapping a guarded stack (mmap,
// mprotect, first-touch faults) costs more than tracing the block. One pool per thread.
class PooledStack {
 public:
  explicit PooledStack(std::size_t bytes) : bytes_(bytes) {}
  boost::context::stack_context allocate() {
    auto& pool = free_stacks();
    for (std::size_t i = pool.size(); i-- > 0;)
      if (pool[i].first == bytes_) {
        const boost::context::stack_context sc = pool[i].second;
        pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(i));
        return sc;
      }
    return boost::context::protected_fixedsize_stack(bytes_).allocate();
  }
  void deallocate(boost::context::stack_context& sc) {
    auto& pool = free_stacks();
    if (pool.size() < kKept) pool.emplace_back(bytes_, sc);
    else boost::context::protected_fixedsize_stack(bytes_).deallocate(sc);
  }

 private:
  static constexpr std::size_t kKept = kKeptWarps;
  using Entry = std::pair<std::size_t, boost::context::stack_context>;  // asked-for size, stack
  struct Pool {
    std::vector<Entry> stacks;
    ~Pool() {  // deallocation reads the mapping's extent from the stack_context itself
      for (auto& [bytes, sc] : stacks) boost::context::protected_fixedsize_stack(bytes).deallocate(sc);
    }
  };
  static std::vector<Entry>& free_stacks() {
    thread_local Pool pool;
    return pool.stacks;
  }
  std::size_t bytes_;
};

// The buffer is full before the batch is (a batch larger than a buffer is given at first).
[[gnu::noinline]] inline void grow_trace(Warp& me) {
  me.trace->resize(std::max<std::size_t>(16, 2 * me.trace->size()));
  me.trace_ops = me.trace->data();
  me.trace_capacity = me.trace->size();
}

// The warp's next op, written in place in its buffer with its scalar fields set and its payload
// zero (the caller fills in a box, an access or pipe counts): inlined into every op, so that
// constants go straight from the op's code into the buffer. An op built on the fiber's stack and
// copied in by a call stalled the copy's loads on the stores before them (failed store forwarding,
// the stack's lines cold when the fiber resumes): 8 % of the attention forward's simulation
// (2026-11-27). A full batch is handed over first, before the op that does not fit: the ops and
// their order are the same as if it went right after the batch's last op. The caller asked tracing().
[[gnu::always_inline]] inline sim::TraceOp& record(sim::OpKind kind, uint32_t barrier = 0, uint32_t count = 0,
                                                   uint32_t bytes = 0, uint32_t flops = 0) {
  Warp& me = *current_warp;
  if (me.trace_used >= me.trace_batch) [[unlikely]] yield_warp(me);
  if (me.trace_used == me.trace_capacity) [[unlikely]] grow_trace(me);
  sim::TraceOp& op = me.trace_ops[me.trace_used++];
  op.kind = kind;
  op.barrier = barrier;
  op.count = count;
  op.bytes = bytes;
  op.flops = flops;
  op.box = {};
  return op;
}

// An op of scalar fields alone (sim::OpKind says which each kind uses).
[[gnu::always_inline]] inline void emit(sim::OpKind kind, uint32_t barrier = 0, uint32_t count = 0, uint32_t bytes = 0,
                                        uint32_t flops = 0) {
  record(kind, barrier, count, bytes, flops);
}

// A register op's cost (tiles/ops/pipe_cost.hpp), recorded in place of its arithmetic.
[[gnu::always_inline]] inline void emit_math(const sim::PipeCounts& pipes) {
  if (pipes.total() == 0) return;  // e.g. a same-type copy: register renaming, no instruction
  record(sim::OpKind::math).pipes = pipes;
}

// Ops a warp records before it hands them over (its fiber switches back to the puller). On the
// desktop a switch is a few registers (Boost.Context), and what costs is the buffers: the engine
// reads each op long after it was written, after every other resident warp's, so all warps'
// buffers together must stay in the core's cache. At 16 ops (900 bytes) a full H100's 1,600 warps
// hold 1.4 MB; at 128, 11 MB, and reading an op's kind was 60 % of the engine's per-op work
// (2026-11-26, 2-core EPYC with 1 MB of L2 a core, one core: attention forward B1 H16 N16384 D128
// 6.1 s at 128, 4.7 at 32, 3.9 at 16, 4.6 at 8; GEMM 8192^3 1.20, 1.00, 1.02, 1.19 s). In the browser build a switch unwinds and
// rewinds both stacks through Asyncify and JavaScript (2-4 us a pull under node, 0.1 us natively),
// so the batch is larger there: the lessons' 2048^3 GEMM warps record at most 258 ops, and a run
// switches into its 1536 warps 1536 times instead of 2816; a 4096^3 run 4080 times instead of 13808.
// The ops are the same either way, and so are the cycles: the engine reads them in program order
// whatever the batches.
#ifdef __EMSCRIPTEN__
inline constexpr std::size_t kTraceBatch = 512;
#else
inline constexpr std::size_t kTraceBatch = 16;
#endif

// Warps' op buffers, kept for the next block as the stacks are, each with room for a whole batch
// from the start: grown op by op a buffer was reallocated and copied 8 or 9 times per warp and
// block, and allocated afresh per block it still cost an allocation of the batch's size; under node
// the two were about a quarter and a tenth of a 2048^3 GEMM's simulation (the copies go out to
// JavaScript's memcpy there). Natively the same, for a few MB kept.
class OpBuffers {
 public:
  static std::vector<sim::TraceOp> take(std::size_t ops) {
    auto& kept = pool();
    std::vector<sim::TraceOp> b;
    if (!kept.empty()) {
      b = std::move(kept.back());
      kept.pop_back();
    }
    b.reserve(ops);
    return b;
  }
  static void give(std::vector<sim::TraceOp>&& b) {
    auto& kept = pool();
    b.clear();
    if (kept.size() < kKeptWarps) kept.push_back(std::move(b));
  }

 private:
  static std::vector<std::vector<sim::TraceOp>>& pool() {
    thread_local std::vector<std::vector<sim::TraceOp>> kept;
    return kept;
  }
};

// One block of a kernel in trace mode; next_batch(w) pulls warp w's ops in program order.
class TracedBlock {
 public:
  // `smem` is the block's shared-memory window (never read or written in trace mode: it only
  // gives ops their addresses); `body` runs as every warp.
  // A block of a cluster of `cluster_ctas` knows its rank (index % cluster_ctas) and records its
  // cluster ops; the simulator joins the blocks of a cluster.
  TracedBlock(int index, int grid, int warps, char* smem, std::size_t smem_bytes, std::function<void()> body,
              std::size_t batch = kTraceBatch, std::size_t stack_bytes = 256 * 1024, int cluster_ctas = 1)
      : body_(std::move(body)), buffers_(warps) {
    block_.index = index;
    block_.cluster_ctas = cluster_ctas;
    block_.cluster_rank = index % cluster_ctas;
    block_.grid = grid;
    block_.warps = warps;
    block_.smem = smem;
    block_.smem_bytes = smem_bytes;
    for (int i = 0; i < warps; ++i) {
      buffers_[i] = OpBuffers::take(std::min<std::size_t>(batch, 4096));
      buffers_[i].resize(buffers_[i].capacity());  // the slots emit() writes
      auto w = std::make_unique<Warp>();
      w->block = &block_;
      w->index = i;
      w->trace = &buffers_[i];
      w->trace_ops = buffers_[i].data();
      w->trace_capacity = buffers_[i].size();
      w->trace_batch = batch;
      start_warp(*w, PooledStack(stack_bytes), body_);
      warps_.push_back(std::move(w));
    }
  }
  ~TracedBlock() {
    warps_.clear();  // unwinds the fibers of warps that have not finished
    for (auto& b : buffers_) OpBuffers::give(std::move(b));
  }
  TracedBlock(const TracedBlock&) = delete;
  TracedBlock& operator=(const TracedBlock&) = delete;

  int warps() const { return block_.warps; }

  // Warp w, for next_batch(Warp&) while the block lives.
  Warp& warp(int w) { return *warps_[w]; }

  // Runs warp w until it has a batch of ops (or exits) and returns them; they stay valid until
  // the next call for the same warp. Empty once the warp has exited.
  std::span<const sim::TraceOp> next_batch(int w) { return next_batch(*warps_[w]); }
  // The same from the warp itself, which the simulator's op sources hold: on the way to the warp's
  // fiber every object is out of the core's cache, and this skips the block's.
  static std::span<const sim::TraceOp> next_batch(Warp& warp) {
    warp.trace_used = 0;
    if (warp.finished) return {};
    if (current_warp) throw std::logic_error("TracedBlock::next_batch called from inside a warp");
    current_warp = &warp;
    resume_warp(warp);
    current_warp = nullptr;
    if (warp.error) std::rethrow_exception(warp.error);
    return {warp.trace_ops, warp.trace_used};
  }

 private:
  Block block_;
  std::function<void()> body_;
  std::vector<std::vector<sim::TraceOp>> buffers_;
  std::vector<std::unique_ptr<Warp>> warps_;  // last: destroyed (fibers unwound) first
};

// Which tensor a box belongs to, for the L2 model (boxes of distinct tensors never share lines): the
// tensor's base address folded into 32 bits, so that addresses that differ only above bit 36 (the
// stand-in addresses of a traced launch, kernels/pipeline_trace.hpp) stay distinct.
inline uint32_t tensor_id(const void* p) {
  const uint64_t a = reinterpret_cast<std::uintptr_t>(p);  // 64 bits also where pointers have 32
  return static_cast<uint32_t>(a >> 4) ^ static_cast<uint32_t>(a >> 36);
}

}  // namespace ts::host
