#pragma once
// One sub-partition's tensor core, shared by the warps that have MMAs queued on it (the engine also
// uses the class for the sub-partition's SFU, its work a math op's exp2 instructions, with equal
// turns: kernels/probes/pipe_share_probe.cu). The hardware
// serves warpgroups in turn, not in order of issue: three warpgroups that each issue 64 wgmma
// m64n128k16 at once finish within about a tenth of each other, at about three times one alone,
// and a group issued 500 cycles after another still slows the first. But the turns are not quite
// equal: the warpgroup that came first finishes well before the others
// (kernels/probes/wgmma_share_probe.cu, measured in data/measured/h100/sim-attention/wgmma-share.txt).
// So the model is processor sharing weighted by age: each warp with work queued progresses at a
// share of the core's rate in proportion to age_weight^(number of warps that came after it).
// The weight is the machine file's `wgmma_share_age_weight`, fit to the probe's staggered rows.
// It matters beyond the probe: with equal shares, warpgroups that start a round of MMAs together
// finish together and stay in step (softmax beside softmax); with the older one favoured, a small
// lead grows, and they settle into turns, one's softmax under the other's MMAs, as on the GPU.
//
// A warp's work is counted in cycles of the core alone: `drain` issued, `served` through. Group
// completions are known only as the engine moves the core to a time (advance), since a later
// issue slows the warps already there; predict() says when a group would be through if nothing
// else arrived.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
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
  double threshold = 0;  // the warp's MMA work (cycles alone, from its first) at which the group is through
  double done = -1;      // real time it was through, once known
  double issued = 0;     // real time its first MMA was issued
};

// One warp's MMAs on its sub-partition's core.
struct WarpMma {
  double drain = 0;   // MMA work issued since the warp began, in cycles of the core alone
  double served = 0;  // of which the core is through with
  double operand_bytes = 0;  // shared-memory bytes per cycle its latest MMA reads while it runs
  MmaGroup open{-1};  // the group being issued (threshold < 0: none)
  GroupFifo<MmaGroup> groups;  // committed, not yet waited for
  GroupFifo<double> instructions;  // where each wgmma issued and not yet through ends, in `drain`'s terms
};

class TensorCore {
 public:
  static constexpr size_t kMaxWarps = 64;  // an SM holds at most 64 warps
  TensorCore() { set_age_weight(1.0); }
  explicit TensorCore(double age_weight) { set_age_weight(age_weight); }
  // Moves the core to real time t (never backwards), recording the real completion time of every
  // group it passes and dropping warps whose work is through.
  void advance(double t);
  // Queues `cycles` of work (alone on the core) for warp w at real time t (>= the core's time): its
  // next `instructions` wgmma, each an equal part, which in_flight() counts (0: not counted).
  void issue(WarpMma& w, double t, double cycles, double operand_bytes_per_cycle = 0, uint32_t instructions = 0);
  // The wgmma instructions issued to the core, by all its warps, that it is not through with at its
  // time: on the GPU a warp's next wgmma waits at issue while its sub-partition has a handful of
  // them (kernels/probes/wgmma_queue_probe.cu).
  size_t in_flight();
  // When the first of those would be through if no more work arrived (infinity: none is in flight).
  double next_through() const;
  // Whether a warp's work was left at the core's last move (issue, advance): cheap, and all an
  // approximate caller needs.
  bool busy() const { return !active_.empty(); }
  // When warp w's work would reach `threshold` if no more work arrived (for waking a waiter).
  double predict(const WarpMma& w, double threshold) const;
  // What the core asks of the SM's shared-memory port from real time t on, if no more work arrived:
  // operand bytes per cycle (the warps' MMAs take turns, so their mean) and when it is through.
  struct PortUse {
    double bytes_per_cycle = 0, until = 0;
  };
  PortUse port_use(double t) const;
  double busy_cycles() const { return busy_; }

  // Each active warp's share of the core's rate, oldest first, for every count of active warps:
  // rates(k)[i] for active_[i] of k. The same for every core of a machine, so made once per weight.
  class ShareTable {
   public:
    explicit ShareTable(double age_weight);
    const double* rates(size_t k) const { return rates_.data() + k * (k - 1) / 2; }

   private:
    std::array<double, kMaxWarps*(kMaxWarps + 1) / 2> rates_{};
  };

 private:
  void set_age_weight(double a);
  // The core's future without new work, worked out once per state (below), a segment at a time.
  void start_plan() const;
  void extend_plan() const;
  double now_ = 0, busy_ = 0;
  std::shared_ptr<const ShareTable> shares_;
  std::vector<WarpMma*> active_;  // warps with work not through, oldest first
  // The engine asks when a group or an instruction would be through (predict, next_through,
  // port_use) several times in one state of the core: for each warp waiting on it, each of its warps
  // with an instruction in flight, each of the SM's shared-memory ops. Between two changes (an issue,
  // an advance that moves the core) the future without new work is fixed: so it is worked out once,
  // as segments between two warps running out, each with its start, its length and every warp's rate
  // in it (plan_: stride active_.size() + 2), and a prediction replays the segments with the very
  // arithmetic a simulation of that future from scratch did, so that every time is the same to the
  // last bit. Segments are added as a prediction reaches past the last (plan_work_: each warp's work
  // left, then the shares; plan_index_: the warps still running, then each one's rank among them).
  mutable std::vector<double> plan_, plan_work_;
  mutable std::vector<uint8_t> plan_index_;
  mutable size_t segments_ = 0, running_ = 0;
  mutable double plan_end_ = 0;  // when the segments so far end
  mutable bool planned_ = false;
  double first_step() const;
  mutable double first_step_ = 0;
  mutable bool stepped_ = false;  // first_step_ is the current state's
  size_t in_flight_ = 0;
  bool counted_ = false;  // in_flight_ is the current state's
  // Whether the active warps' groups have been marked through at the core's time, as advance() does
  // last: until the next issue or move, marking them again changes nothing (a commit only moves the
  // open group to the committed ones, a wait only drops groups already through).
  bool settled_ = false;
};

}  // namespace ts::sim
