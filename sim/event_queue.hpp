#pragma once
// The engine's event queue: events come out in (time, order) order, as from a binary heap, but a
// push and a pop cost a few steps instead of a heap's log2(events). A simulation holds an event
// for nearly every resident warp (1,600 on a full H100) and runs several per cycle, most of them
// within a thousand cycles of now: so events go into one bucket per cycle of the next kWindow,
// those further off into a heap, and only the cycle being run is kept as a (small) heap. On the
// attention forward B1 H16 N16384 D128 (36 million events) a binary heap's push and pop were a
// third of the simulation's time; this queue took it from 7.1 to 6.1 s, the GEMM at 8192^3 from
// 1.55 to 1.20 s (2026-11-26, one core of this 2-core EPYC), the cycles the same.
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
      now_heap_.push_back(e);
      std::push_heap(now_heap_.begin(), now_heap_.end(), std::greater<>{});
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
    if (now_heap_.empty()) advance();
    return now_heap_.front();
  }

  void pop() {
    if (now_heap_.empty()) advance();
    std::pop_heap(now_heap_.begin(), now_heap_.end(), std::greater<>{});
    now_heap_.pop_back();
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
    now_heap_.swap(bucket);  // the bucket keeps the emptied heap's storage
    std::make_heap(now_heap_.begin(), now_heap_.end(), std::greater<>{});
  }

  std::vector<E> now_heap_;  // events of cycles up to now_ (a min-heap)
  std::vector<std::vector<E>> buckets_ = std::vector<std::vector<E>>(kWindow);  // cycles now_ + 1 .. now_ + kWindow - 1
  std::priority_queue<E, std::vector<E>, std::greater<>> far_;  // later cycles
  int64_t now_ = -1;  // the cycle whose events are in now_heap_
  size_t size_ = 0, in_buckets_ = 0;
};

}  // namespace ts::sim
