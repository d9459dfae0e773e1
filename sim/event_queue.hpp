#pragma once
// The engine's event queue: events come out in (time, order) order, as from a binary heap, but a
// push and a pop cost a few steps instead of a heap's log2(events). A simulation holds an event
// for nearly every resident warp (1,600 on a full H100) and runs several per cycle, most of them
// within a thousand cycles of now: so events go into one bucket per cycle of the next kWindow,
// those further off into a heap, and only the cycle being run is kept in order, as a short sorted
// vector. On the attention forward B1 H16 N16384 D128 (36 million events) a binary heap's push
// and pop were a third of the simulation's time; this queue took it from 7.1 to 6.1 s, the GEMM at
// 8192^3 from 1.55 to 1.20 s (2026-11-26, one core of this 2-core EPYC), the cycles the same.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace ts::sim {

// E: a plain struct with `double time` and a strict order `operator>` (ties broken inside it).
template <class E>
class EventQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  void push(const E& e) {
    ++size_;
    const int64_t cycle = cycle_of(e.time);
    if (cycle <= now_) {
      // Into its place among the cycle's events not yet taken: usually the end, else found by halves
      // (a wake-up for now goes before the cycle's later events, often dozens when SMs run in step).
      if (now_events_.size() == next_ || !(now_events_.back() > e)) {
        now_events_.push_back(e);
      } else {
        const auto at = std::upper_bound(now_events_.begin() + static_cast<std::ptrdiff_t>(next_), now_events_.end(), e,
                                         [](const E& a, const E& b) { return b > a; });
        now_events_.insert(at, e);
      }
    } else if (cycle < now_ + kWindow) {
      buckets_[cycle & (kWindow - 1)].push_back(e);
      ++in_buckets_;
    } else {
      far_.push(e);
    }
  }

  // The first event; the queue must not be empty. (Finding it may move the queue's clock on to
  // its cycle: what is pushed later for an earlier cycle still comes out first.)
  const E& top() {
    if (next_ == now_events_.size()) advance();
    return now_events_[next_];
  }

  void pop() {
    if (next_ == now_events_.size()) advance();
    ++next_;
    --size_;
  }

 private:
  static constexpr int64_t kWindow = 1024;  // a power of two; 256 measured slower (a TMA round trip is ~2,000 cycles), 4096 no faster
  static int64_t cycle_of(double t) { return static_cast<int64_t>(std::floor(t)); }

  // On to the next cycle that has events (there is one: the queue is not empty).
  void advance() {
    if (in_buckets_ == 0) now_ = cycle_of(far_.top().time) - 1;  // nothing near: jump
    do {
      ++now_;
      // Events that come within the window as it moves on join their buckets.
      while (!far_.empty() && cycle_of(far_.top().time) < now_ + kWindow) {
        const E e = far_.top();
        far_.pop();
        buckets_[cycle_of(e.time) & (kWindow - 1)].push_back(e);
        ++in_buckets_;
      }
    } while (buckets_[now_ & (kWindow - 1)].empty());
    std::vector<E>& bucket = buckets_[now_ & (kWindow - 1)];
    in_buckets_ -= bucket.size();
    now_events_.clear();
    now_events_.swap(bucket);  // the bucket keeps the emptied vector's storage
    next_ = 0;
    // A bucket holds a few events (8 on average in the attention forward), most often in order
    // already: sorted by insertion and then taken from the front, they cost less than as a heap.
    const size_t n = now_events_.size();
    if (n > 32) {
      std::sort(now_events_.begin(), now_events_.end(), [](const E& a, const E& b) { return b > a; });
      return;
    }
    for (size_t i = 1; i < n; ++i) {
      const E e = now_events_[i];
      size_t j = i;
      for (; j > 0 && now_events_[j - 1] > e; --j) now_events_[j] = now_events_[j - 1];
      now_events_[j] = e;
    }
  }

  std::vector<E> now_events_;  // events of cycles up to now_, in order; those before next_ are taken
  size_t next_ = 0;
  std::vector<std::vector<E>> buckets_ = std::vector<std::vector<E>>(kWindow);  // cycles now_ + 1 .. now_ + kWindow - 1
  std::priority_queue<E, std::vector<E>, std::greater<>> far_;  // later cycles
  int64_t now_ = -1;  // the cycle whose events are in now_events_
  size_t size_ = 0, in_buckets_ = 0;
};

}  // namespace ts::sim
