#pragma once
// Host backend: thread identity, elections, barriers, fences and register reallocation, with the
// names and signatures of tiles/backend/device/core.cuh. Identity comes from the current warp's
// fiber (host::current()). There is no laneid(): a host fiber is the whole warp, so lane-level
// code belongs inside ops, and a kernel that asks for its lane does not compile for the host.
#include <stdexcept>
#include <string>

#include "tiles/backend/host/fiber.hpp"
#include "tiles/backend/host/trace.hpp"

namespace ts {

inline int warpid() { return host::current().index; }
inline int block_index() { return host::current().block->index; }
inline int grid_blocks() { return host::current().block->grid; }

namespace host {
// Arrive at a barrier of `expected` warps; the last one releases the others.
inline void arrive_and_wait(SyncPoint& p, int expected, WaitKind kind, int id) {
  if (++p.arrived == expected) {
    p.arrived = 0;
    ++p.generation;
    return;
  }
  Wait w;
  w.kind = kind;
  w.id = id;
  w.generation = p.generation;
  suspend(w);
}
}  // namespace host

namespace warpgroup {
inline int groupid() { return ts::warpid() / 4; }
inline int warpid() { return ts::warpid() % 4; }
// The 4 warps (128 threads) that name barrier `id` meet there, as bar.sync id+1, 128 does.
inline void sync(int id) {
  if (id < 0 || id > 14) throw std::invalid_argument("warpgroup::sync: id must be 0..14, got " + std::to_string(id));
  host::warp_wide_op();
  if (host::tracing()) return host::emit(sim::OpKind::warpgroup_sync, static_cast<uint32_t>(id));
  host::arrive_and_wait(host::current().block->named[id], 4, host::WaitKind::warpgroup_sync, id);
}
// setmaxnreg: nothing to move on the CPU; the request is recorded on the warp. The checks are the
// ones ptxas makes, so a bad count fails on the host build too.
template <int N> inline void increase_registers() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: the count must be a multiple of 8 in 24..256");
  host::current().registers = N;
  if (host::tracing()) host::emit(sim::OpKind::set_registers, 0, N);
}
template <int N> inline void decrease_registers() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: the count must be a multiple of 8 in 24..256");
  host::current().registers = N;
  if (host::tracing()) host::emit(sim::OpKind::set_registers, 0, N);
}
}  // namespace warpgroup

// The whole warp is one fiber, so the warp acts once: exactly the "one lane acts" of the GPU. The
// warp remembers the election until its next warp-wide op (host::require_elected).
inline bool elect_one() {
  host::current().elected = true;
  return true;
}

inline void block_sync() {
  host::warp_wide_op();
  if (host::tracing()) return host::emit(sim::OpKind::block_sync);
  host::Block& b = *host::current().block;
  host::arrive_and_wait(b.all, b.warps, host::WaitKind::block_sync, 0);
}

namespace warp {
// A warp is one fiber on the host: its lanes are always together. All 32 take part, so an
// election made before it is over.
inline void sync() { host::warp_wide_op(); }
}  // namespace warp

// No async proxy on the CPU: shared-memory writes are visible to host "TMA" and "wgmma" at once.
inline void fence_async_shared() {}

}  // namespace ts
