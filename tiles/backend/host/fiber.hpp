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

// AddressSanitizer must be told of every switch between stacks (start before, finish after),
// or an exception thrown on a fiber's stack (a deadlock report, a forced unwind) leaves stale
// poison behind and later reads of the reused memory are reported as overflows. Only the
// sanitized build (TILESCOPE_SANITIZE) compiles these calls: see resume_warp and yield_warp.
#if defined(__SANITIZE_ADDRESS__)
#define TS_HOST_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TS_HOST_FIBER_ASAN 1
#endif
#endif
#if defined(TS_HOST_FIBER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

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

enum class WaitKind { none, mbarrier, block_sync, warpgroup_sync, cluster_sync };

// What a suspended warp waits for; the scheduler checks it before resuming the warp.
struct Wait {
  WaitKind kind = WaitKind::none;
  const barrier* bar = nullptr;  // mbarrier
  uint32_t parity = 0;           // mbarrier: the phase parity waited on
  int id = 0;                    // warpgroup_sync: the named barrier
  uint64_t generation = 0;       // block_sync, warpgroup_sync, cluster_sync: the generation that must pass
};

// A CTA-wide or named barrier: released when `expected` warps have arrived.
struct SyncPoint {
  int arrived = 0;
  uint64_t generation = 0;
};

struct Block;

// The blocks of one thread-block cluster, run together (ts::cluster in tiles/sync/cluster.hpp).
struct Cluster {
  std::vector<Block*> blocks;  // by cluster rank
  int warps = 0;               // of all its blocks
  SyncPoint all;               // cluster::sync
};

struct Block {
  int index = 0, grid = 1, warps = 1;
  Cluster* cluster = nullptr;  // the blocks running beside this one (null: none, or trace mode)
  int cluster_rank = 0, cluster_ctas = 1;
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
  bool elected = false;  // elect_one() has answered since the warp's last warp-wide op (the lane discipline below)
  // Trace mode (tiles/backend/host/trace.hpp): ops go into trace_ops[0 .. trace_used), the data of
  // `trace` (trace_capacity slots), instead of computing, and the warp hands control back when an
  // op finds `trace_batch` waiting.
  std::vector<sim::TraceOp>* trace = nullptr;
  sim::TraceOp* trace_ops = nullptr;
  std::size_t trace_used = 0, trace_capacity = 0, trace_batch = 0;
  // Where this warp's stack lies, and while it runs, the stack it was resumed from: ASan needs
  // both at each switch (unused without it).
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
  const void* caller_bottom = nullptr;
  std::size_t caller_size = 0;

  // Where a suspended warp's fiber keeps its saved registers, the first memory a switch into it
  // reads (and misses, when a thousand other warps ran since): a hint to prefetch, never read here.
  // Boost.Context's fiber is that one pointer; the browser build's fibers are not.
  const void* saved_context() const {
#ifdef __EMSCRIPTEN__
    return nullptr;
#else
    static_assert(sizeof self == sizeof(void*), "boost::context::fiber is no longer one pointer");
    const void* p;
    std::memcpy(&p, &self, sizeof p);
    return p;
#endif
  }

  Warp() = default;
  Warp(const Warp&) = delete;
  Warp& operator=(const Warp&) = delete;
  ~Warp() {
#if defined(TS_HOST_FIBER_ASAN)
    // A suspended warp is unwound by Boost switching into it: announce that switch too.
    if (self) {
      void* fake = nullptr;
      __sanitizer_start_switch_fiber(&fake, stack_bottom, stack_size);
      { boost::context::fiber dying = std::move(self); }
      __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
    }
#endif
  }
};

inline thread_local Warp* current_warp = nullptr;

inline Warp& current() {
  if (!current_warp) throw std::logic_error("a tile op that needs a warp ran outside ts::host::run_block");
  return *current_warp;
}

// Lane discipline. A host warp is one fiber, so it cannot tell one lane from 32; what it can tell is
// whether the kernel elected a lane (elect_one) since the warp's last warp-wide op (a sync, an MMA, a
// register tile's load or store), which no elected lane may issue alone. Ops that count once per
// lane on the GPU (an mbarrier arrival, announced bytes, a TMA load) need that election: issued by
// the whole warp they pass on the CPU, where a warp is one arrival, and on the GPU make 32 arrivals
// or 32 copies. What the host cannot see is where the election's `if` ends: such an op right after
// it, with no warp-wide op between, still passes. Outside run_block (unit tests of the barrier
// itself) there is no warp to check.
inline void warp_wide_op() {
  if (current_warp) current_warp->elected = false;
}
inline void require_elected(const char* op) {
  if (!current_warp || current_warp->elected) return;
  throw std::logic_error(std::string(op) + " by the whole warp (block " + std::to_string(current_warp->block->index) +
                         " warp " + std::to_string(current_warp->index) +
                         "): on the GPU each of its 32 lanes would do it; let one lane do it: if (elect_one()) { ... }");
}

// From inside warp `me`'s fiber: back to whoever resumed it; returns when it is resumed again.
inline void yield_warp(Warp& me) {
#if defined(TS_HOST_FIBER_ASAN)
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, me.caller_bottom, me.caller_size);
  // Also when the resume throws Boost's forced unwind: the unwinding runs on this stack.
  struct Finish {
    void*& fake;
    Warp& me;
    ~Finish() { __sanitizer_finish_switch_fiber(fake, &me.caller_bottom, &me.caller_size); }
  } finish{fake, me};
#endif
  me.back = std::move(me.back).resume();
}

// From the scheduler (or the tracer): run warp `w` until it suspends or ends.
inline void resume_warp(Warp& w) {
#if defined(TS_HOST_FIBER_ASAN)
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, w.stack_bottom, w.stack_size);
#endif
  w.self = std::move(w.self).resume();
#if defined(TS_HOST_FIBER_ASAN)
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

// A stack allocator that remembers in the warp where the stack it hands out lies (for ASan).
template <class Stack>
class WarpStack {
 public:
  WarpStack(Stack stack, Warp* warp) : stack_(std::move(stack)), warp_(warp) {}
  boost::context::stack_context allocate() {
    boost::context::stack_context sc = stack_.allocate();
    warp_->stack_bottom = static_cast<char*>(sc.sp) - sc.size;
    warp_->stack_size = sc.size;
    return sc;
  }
  void deallocate(boost::context::stack_context& sc) {
#if defined(TS_HOST_FIBER_ASAN)
    // Boost's entry frame never returns, so its redzones would stay poisoned in the memory that
    // the next stack (pooled) or mapping (unmapped) reuses: clear the whole stack's shadow.
    __asan_unpoison_memory_region(static_cast<char*>(sc.sp) - sc.size, sc.size);
#endif
    stack_.deallocate(sc);
  }

 private:
  Stack stack_;
  Warp* warp_;
};

// Makes w's fiber, which runs `body` (it must outlive the fiber) and records an escaping exception.
template <class Stack>
inline void start_warp(Warp& w, Stack stack, const std::function<void()>& body) {
  Warp* wp = &w;
  const std::function<void()>* fn = &body;
  w.self = boost::context::fiber(
      std::allocator_arg, WarpStack<Stack>(std::move(stack), wp), [wp, fn](boost::context::fiber&& caller) {
#if defined(TS_HOST_FIBER_ASAN)
        __sanitizer_finish_switch_fiber(nullptr, &wp->caller_bottom, &wp->caller_size);
#endif
        wp->back = std::move(caller);
        try {
#if defined(TS_HOST_FIBER_ASAN)
          // Under ASan every fiber is entered once right away, so that destroying one that never
          // ran unwinds through yield_warp's annotations like any other.
          yield_warp(*wp);
#endif
          (*fn)();
        } catch (const boost::context::detail::forced_unwind&) {
#if defined(TS_HOST_FIBER_ASAN)
          __sanitizer_start_switch_fiber(nullptr, wp->caller_bottom, wp->caller_size);
#endif
          throw;  // the fiber is being destroyed: let Boost unwind it
        } catch (...) {
          wp->error = std::current_exception();
        }
        wp->finished = true;
#if defined(TS_HOST_FIBER_ASAN)
        __sanitizer_start_switch_fiber(nullptr, wp->caller_bottom, wp->caller_size);  // this stack ends
#endif
        return std::move(wp->back);
      });
#if defined(TS_HOST_FIBER_ASAN)
  resume_warp(w);
#endif
}

// Called by a blocking op from inside a warp's fiber: park the warp until `w` holds.
inline void suspend(const Wait& w) {
  Warp& me = current();
  me.wait = w;
  yield_warp(me);
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
    case WaitKind::cluster_sync: return b.cluster->all.generation != w.wait.generation;
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
    case WaitKind::cluster_sync:
      return "cluster::sync (" + std::to_string(b.cluster->all.arrived) + " of " + std::to_string(b.cluster->warps) +
             " warps of the cluster arrived)";
    default: return "runnable";
  }
}

// Runs `body` as every warp of the blocks `blks` (one block, or the blocks of one cluster, whose
// warps must run together), to completion. Rethrows the first exception a warp throws; throws
// std::runtime_error on a deadlock. Either way every fiber is unwound first.
inline void run_blocks(const std::vector<Block*>& blks, const std::function<void()>& body, std::size_t stack_bytes = 512 * 1024) {
  if (current_warp) throw std::logic_error("ts::host::run_block: blocks cannot be launched from inside a warp");
  std::vector<std::unique_ptr<Warp>> warps;
  for (Block* blk : blks)
    for (int i = 0; i < blk->warps; ++i) {
      auto w = std::make_unique<Warp>();
      w->block = blk;
      w->index = i;
      start_warp(*w, boost::context::protected_fixedsize_stack(stack_bytes), body);
      warps.push_back(std::move(w));
    }

  std::size_t live = warps.size();
  while (live > 0) {
    bool progressed = false;
    for (auto& w : warps) {
      if (w->finished || !ready(*w)) continue;
      w->wait = Wait{};
      current_warp = w.get();
      resume_warp(*w);
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
      std::string msg = "deadlock in block " + std::to_string(blks.front()->index);
      if (blks.size() > 1) msg += "'s cluster of " + std::to_string(blks.size()) + " blocks";
      msg += ": every live warp is waiting";
      for (auto& w : warps)
        msg += "\n  block " + std::to_string(w->block->index) + " warp " + std::to_string(w->index) + " (warpgroup " +
               std::to_string(w->index / 4) + "): " + describe_wait(*w);
      warps.clear();
      throw std::runtime_error(msg);
    }
  }
}

inline void run_block(Block& blk, const std::function<void()>& body, std::size_t stack_bytes = 512 * 1024) {
  run_blocks({&blk}, body, stack_bytes);
}

}  // namespace ts::host
