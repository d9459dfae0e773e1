#pragma once
// The instrumented device build's records (tiles/backend/stamps.hpp) as timeline spans, the same
// span records the simulator writes, so the two timelines line up op kind for op kind.
//
// What a span means when it was measured:
//  - wait, mma_wait, tma_store_wait, warpgroup_sync, block_sync, smem_load, smem_store: the op
//    itself, from before to after (a wait that found its phase complete is a short span);
//  - math: a run of consecutive register-math ops, from the first one's start to the warp's next
//    other op (the stamps do not say which pipe bound it);
//  - mma: a wgmma group, from its commit (its wgmma are issued just before, back to back) to the
//    end of the wait that found it done (the GPU does not say when the tensor cores finished, so
//    this is an upper bound, as a wait that started late ends late);
//  - tma_load: one span per box, from the producer's issue to the end of the first wait on its
//    mbarrier, by any warp of the block, that ends after the issue (an upper bound on the landing);
//  - tma_store: one span per box, from its issue to the end of the warp's next bulk-group wait.
// The device build stamps only what these need (no arrive, expect_bytes or wgmma issue records):
// every stamp costs the kernel time (kernels/stamps/README.md says how much).
#include <cstdint>
#include <vector>

#include "sim/engine.hpp"
#include "tiles/backend/stamps.hpp"

namespace ts::sim {

struct MeasuredSpans {
  std::vector<Span> spans;  // cycles from the first recorded warp's start; sm is the GPU's own SM id
  double clock_mhz = 0;     // median over warps of clock64 cycles per global-timer microsecond
  uint64_t dropped = 0;     // records that did not fit (their warps' spans stop early)
  uint32_t warps = 0;       // warps with a header
  uint32_t kinds = 0;       // the op kinds every recorded warp's build stamped (stamp::kind_bit's)
};

MeasuredSpans spans_from_stamps(const stamp::Recording& r);

}  // namespace ts::sim
