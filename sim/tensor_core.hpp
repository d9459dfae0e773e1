#pragma once
// One sub-partition's tensor core, shared by the warps that have MMAs queued on it. The hardware
// serves warpgroups in turn, not in order of issue: three warpgroups that each issue 8 wgmma
// m64n128k16 at once all finish together, at about three times one alone, and a group issued 500
// cycles after another still slows the first (kernels/probes/wgmma_share_probe.cu, measured in
// data/measured/h100/sim-attention/wgmma-share.txt). So the model is processor sharing: k busy
// warps each progress at 1/k of the core's rate; a warp's own MMAs run in order.
//
// The core keeps a virtual clock: it advances by one per cycle of exclusive service each warp
// receives (dV/dt = 1/k). An MMA needing c cycles alone finishes when the clock reaches its warp's
// queue end plus c; when that is in real time depends on later arrivals, so completions are known
// only as the engine moves the core to a time (advance) and waits are woken as they are reached.
#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts::sim {

// The few groups a warp has committed and not yet waited for, kept in place rather than on the heap.
// The oldest is always first: a pop moves the rest (a warp has one or two in flight) down, so that
// the groups in use share the count's cache line instead of wandering through the array.
template <class T>
class GroupFifo {
 public:
  static constexpr size_t kCapacity = 16;
  size_t size() const { return size_; }
  T& operator[](size_t i) { return items_[i]; }
  const T& operator[](size_t i) const { return items_[i]; }
  const T& front() const { return items_[0]; }
  void push_back(const T& v) {
    if (size_ == kCapacity)
      throw std::runtime_error("a warp has more than " + std::to_string(kCapacity) + " MMA or bulk-store groups in flight");
    items_[size_++] = v;
  }
  void pop_front() {
    std::copy(items_.begin() + 1, items_.begin() + size_, items_.begin());
    --size_;
  }

 private:
  size_t size_ = 0;
  std::array<T, kCapacity> items_{};
};

struct MmaGroup {
  double threshold = 0;  // the core's virtual time at which its last MMA is through
  double done = -1;      // real time it was through, once known
  double issued = 0;     // real time its first MMA was issued
};

// One warp's MMAs on its sub-partition's core.
struct WarpMma {
  double drain = 0;  // virtual time at which all its queued work is through
  double operand_bytes = 0;  // shared-memory bytes per cycle its latest MMA reads while it runs
  MmaGroup open{-1};  // the group being issued (threshold < 0: none)
  GroupFifo<MmaGroup> groups;  // committed, not yet waited for
};

class TensorCore {
 public:
  // Moves the core to real time t (never backwards), recording the real completion time of every
  // group it passes and dropping warps whose queue ran dry.
  void advance(double t);
  // Queues `cycles` of work (alone on the core) for warp w at real time t (>= the core's time).
  void issue(WarpMma& w, double t, double cycles, double operand_bytes_per_cycle = 0);
  // When the core's clock would reach `threshold` if no more work arrived (for waking a waiter).
  double predict(double threshold) const;
  // What the core asks of the SM's shared-memory port from real time t on, if no more work arrived:
  // operand bytes per cycle (the warps' MMAs take turns, so their mean) and when it is through.
  struct PortUse {
    double bytes_per_cycle = 0, until = 0;
  };
  PortUse port_use(double t) const;
  double busy_cycles() const { return busy_; }

 private:
  void record_completions(double v_end, double rate_inverse);
  double v_ = 0, v_time_ = 0, busy_ = 0;
  std::vector<WarpMma*> active_;  // warps with work queued beyond v_
};

}  // namespace ts::sim
