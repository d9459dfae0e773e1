#pragma once
// Host backend of the mbarrier ops (same names and signatures as the device ones in
// tiles/sync/mbarrier.hpp). The state lives in the barrier word (host::barrier_state). One call by
// a warp is one arrival: the host runs a warp as one fiber, matching the `if (elect_one())
// arrive(b)` idiom; an arrival with no election is an error here (host::require_elected), since
// the GPU would count one per lane.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tiles/backend/host/fiber.hpp"
#include "tiles/backend/host/trace.hpp"
#include "tiles/sync/barrier.hpp"

namespace ts {

namespace host {
// Shared memory from the host launcher starts poisoned (all bits set), which reads as more missing
// arrivals than expected: a barrier used before init() is caught here instead of hanging.
inline barrier_state checked_state(const barrier& b, const char* op) {
  const barrier_state s = state_of(b);
  if (s.expected == 0 || s.pending > s.expected) {
    const std::string where = current_warp ? address_name(*current_warp->block, &b) : std::string("a barrier");
    throw std::logic_error(std::string(op) + " on " + where + " before init()");
  }
  return s;
}
// A phase completes when every arrival is in and every announced byte has landed.
inline void complete_if_done(barrier_state& s) {
  if (s.pending == 0 && s.tx == 0) {
    s.phase ^= 1u;
    s.pending = s.expected;
  }
}
inline void arrive_on(barrier& b, const char* op) {
  barrier_state s = checked_state(b, op);
  --s.pending;
  complete_if_done(s);
  set_state(b, s);
}
// The copy engine's side: `bytes` of a transaction landed (TMA loads call this).
inline void complete_tx(barrier& b, uint32_t bytes) {
  barrier_state s = checked_state(b, "tma complete_tx");
  s.tx -= static_cast<int32_t>(bytes);
  complete_if_done(s);
  set_state(b, s);
}
}  // namespace host

inline void init(barrier& b, uint32_t arrivals) {
  if (host::tracing()) return host::emit(sim::OpKind::barrier_init, host::smem_offset(&b), arrivals);
  if (arrivals == 0 || arrivals > 0x7fff)
    throw std::invalid_argument("init(barrier): the host backend takes 1..32767 arrivals, got " + std::to_string(arrivals));
  host::barrier_state s{};
  s.phase = 0;
  s.expected = arrivals;
  s.pending = arrivals;
  s.tx = 0;
  host::set_state(b, s);
}

// The host has no async proxy: initialised barriers are visible at once.
inline void fence_barrier_init() {}

// Arrive once and announce `bytes` of transactions that must land before the phase completes.
inline void expect_bytes(barrier& b, uint32_t bytes) {
  host::require_elected("expect_bytes");
  if (host::tracing()) return host::emit(sim::OpKind::expect_bytes, host::smem_offset(&b), 0, bytes);
  host::barrier_state s = host::checked_state(b, "expect_bytes");
  s.tx += static_cast<int32_t>(bytes);
  --s.pending;
  host::complete_if_done(s);
  host::set_state(b, s);
}

inline void arrive(barrier& b) {
  host::require_elected("arrive");
  if (host::tracing()) return host::emit(sim::OpKind::arrive, host::smem_offset(&b));
  host::arrive_on(b, "arrive");
}

// Returns once the phase of parity `parity` has completed, i.e. once the phase in progress has
// the other parity; until then the warp's fiber is parked and others run.
inline void wait(barrier& b, uint32_t parity) {
  if (host::tracing()) return host::emit(sim::OpKind::wait, host::smem_offset(&b), parity & 1u);
  const host::barrier_state s = host::checked_state(b, "wait");
  if (s.phase != (parity & 1u)) return;
  host::Wait w;
  w.kind = host::WaitKind::mbarrier;
  w.bar = &b;
  w.parity = parity & 1u;
  host::suspend(w);
}

}  // namespace ts
