#pragma once
// Host backend, the execution model: every warp of a block is a fiber (Boost.Context) on the
// calling OS thread, and one fiber executes a whole warp's op (warp code is warp-uniform). Fibers
// switch only where a warp blocks (mbarrier wait, block_sync, warpgroup::sync); a scheduler resumes
// a waiting warp once what it waits for holds, round-robin, so runs are deterministic. When every
// live warp waits, that is a deadlock: run_block throws std::runtime_error naming each warp's wait.
#ifdef __EMSCRIPTEN__
// The browser build: the same fiber API on Emscripten's fibers (fiber_emscripten.hpp), under the
// name the code below and trace.hpp use, so the scheduler and trace mode are one source.
#include "tiles/backend/host/fiber_emscripten.hpp"
namespace boost { namespace context = ::ts::host::emfiber; }
#else
#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#endif

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tiles/backend/host/trace_op.hpp"
#include "tiles/sync/barrier.hpp"

namespace ts::host {

// The state of a host mbarrier, kept in the barrier's own 8-byte word so that it lives in the
// block's shared memory like the real one (no side table to clean up between blocks).
struct barrier_state {
  uint32_t phase : 1;      // parity of the phase in progress
  uint32_t expected : 15;  // arrivals per phase, from init()
  uint32_t pending : 16;   // arrivals still missing in this phase
  int32_t tx;              // transaction bytes still to land (negative: landed before expected)
};
static_assert(sizeof(barrier_state) == sizeof(barrier), "a host barrier state must fit the barrier word");

inline barrier_state state_of(const barrier& b) {
  barrier_state s;
  std::memcpy(&s, &b.word, sizeof s);
  return s;
}
inline void set_state(barrier& b, const barrier_state& s) { std::memcpy(&b.word, &s, sizeof s); }

enum class WaitKind { none, mbarrier, block_sync, warpgroup_sync };

// What a suspended warp waits for; the scheduler checks it before resuming the warp.
struct Wait {
  WaitKind kind = WaitKind::none;
  const barrier* bar = nullptr;  // mbarrier
  uint32_t parity = 0;           // mbarrier: the phase parity waited on
  int id = 0;                    // warpgroup_sync: the named barrier
  uint64_t generation = 0;       // block_sync, warpgroup_sync: the generation that must pass
};

// A CTA-wide or named barrier: released when `expected` warps have arrived.
struct SyncPoint {
  int arrived = 0;
  uint64_t generation = 0;
};

struct Block {
  int index = 0, grid = 1, warps = 1;
  char* smem = nullptr;  // the block's shared memory (for naming addresses in reports)
  std::size_t smem_bytes = 0;
  SyncPoint all;             // block_sync
  SyncPoint named[15];       // warpgroup::sync(id), id 0..14 (hardware barriers 1..15)
  // Optional: a readable name for a shared-memory address (e.g. "inputs_full[2]"); empty if unknown.
  std::function<std::string(const void*)> name_of;
};

struct Warp {
  Block* block = nullptr;
  int index = 0;
  boost::context::fiber self;  // this warp, while it is suspended
  boost::context::fiber back;  // the scheduler, while this warp runs
  Wait wait;
  bool finished = false;
  std::exception_ptr error;
  int registers = 0;  // the last increase/decrease_registers request (0: none): for reports and traces
  // Trace mode (tiles/backend/host/trace.hpp): ops append here instead of computing, and the warp
  // hands control back once `trace_batch` are waiting.
  std::vector<sim::TraceOp>* trace = nullptr;
  std::size_t trace_batch = 0;
};

inline thread_local Warp* current_warp = nullptr;

inline Warp& current() {
  if (!current_warp) throw std::logic_error("a tile op that needs a warp ran outside ts::host::run_block");
  return *current_warp;
}

// Called by a blocking op from inside a warp's fiber: park the warp until `w` holds.
inline void suspend(const Wait& w) {
  Warp& me = current();
  me.wait = w;
  me.back = std::move(me.back).resume();
}

inline std::string address_name(const Block& b, const void* p) {
  char buf[64];
  const char* c = static_cast<const char*>(p);
  if (b.smem && c >= b.smem && c < b.smem + b.smem_bytes)
    std::snprintf(buf, sizeof buf, "smem+0x%zx", static_cast<std::size_t>(c - b.smem));
  else
    std::snprintf(buf, sizeof buf, "%p", p);
  std::string name = b.name_of ? b.name_of(p) : std::string();
  return name.empty() ? std::string(buf) : name + " (" + buf + ")";
}

inline bool ready(const Warp& w) {
  const Block& b = *w.block;
  switch (w.wait.kind) {
    case WaitKind::mbarrier: return state_of(*w.wait.bar).phase != w.wait.parity;
    case WaitKind::block_sync: return b.all.generation != w.wait.generation;
    case WaitKind::warpgroup_sync: return b.named[w.wait.id].generation != w.wait.generation;
    default: return true;
  }
}

inline std::string describe_wait(const Warp& w) {
  const Block& b = *w.block;
  if (w.finished) return "finished";
  switch (w.wait.kind) {
    case WaitKind::mbarrier: {
      const barrier_state s = state_of(*w.wait.bar);
      return "mbarrier wait on " + address_name(b, w.wait.bar) + " for parity " + std::to_string(w.wait.parity) +
             " (phase in progress has parity " + std::to_string(s.phase) + ", " + std::to_string(s.pending) + " of " +
             std::to_string(s.expected) + " arrivals missing, " + std::to_string(s.tx) + " tx bytes outstanding)";
    }
    case WaitKind::block_sync:
      return "block_sync (" + std::to_string(b.all.arrived) + " of " + std::to_string(b.warps) + " warps arrived)";
    case WaitKind::warpgroup_sync:
      return "warpgroup::sync(" + std::to_string(w.wait.id) + ") (" + std::to_string(b.named[w.wait.id].arrived) +
             " of 4 warps arrived)";
    default: return "runnable";
  }
}

// Runs `body` as every warp of block `blk`, to completion. Rethrows the first exception a warp
// throws; throws std::runtime_error on a deadlock. Either way every fiber is unwound first.
inline void run_block(Block& blk, const std::function<void()>& body, std::size_t stack_bytes = 512 * 1024) {
  if (current_warp) throw std::logic_error("ts::host::run_block: blocks cannot be launched from inside a warp");
  std::vector<std::unique_ptr<Warp>> warps;
  for (int i = 0; i < blk.warps; ++i) {
    auto w = std::make_unique<Warp>();
    w->block = &blk;
    w->index = i;
    Warp* wp = w.get();
    w->self = boost::context::fiber(std::allocator_arg, boost::context::protected_fixedsize_stack(stack_bytes),
                                    [wp, &body](boost::context::fiber&& scheduler) {
                                      wp->back = std::move(scheduler);
                                      try {
                                        body();
                                      } catch (const boost::context::detail::forced_unwind&) {
                                        throw;  // the fiber is being destroyed: let Boost unwind it
                                      } catch (...) {
                                        wp->error = std::current_exception();
                                      }
                                      wp->finished = true;
                                      return std::move(wp->back);
                                    });
    warps.push_back(std::move(w));
  }

  int live = blk.warps;
  while (live > 0) {
    bool progressed = false;
    for (auto& w : warps) {
      if (w->finished || !ready(*w)) continue;
      w->wait = Wait{};
      current_warp = w.get();
      w->self = std::move(w->self).resume();
      current_warp = nullptr;
      progressed = true;
      if (w->error) {
        const std::exception_ptr e = w->error;
        warps.clear();  // unwind the other fibers' stacks before the exception leaves
        std::rethrow_exception(e);
      }
      if (w->finished) --live;
    }
    if (!progressed) {
      std::string msg = "deadlock in block " + std::to_string(blk.index) + ": every live warp is waiting";
      for (auto& w : warps)
        msg += "\n  block " + std::to_string(blk.index) + " warp " + std::to_string(w->index) + " (warpgroup " +
               std::to_string(w->index / 4) + "): " + describe_wait(*w);
      warps.clear();
      throw std::runtime_error(msg);
    }
  }
}

}  // namespace ts::host
