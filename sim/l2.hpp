#pragma once
// The L2 as the simulator sees it: least-recently-used over the boxes that TMA moves. A kernel
// that tiles its tensors on one grid (every GEMM here) always moves the same boxes, so a box is a
// fixed set of 128-byte lines and one lookup stands for all of them: this keeps a 16384^3 grid
// (tens of millions of lines) inside the simulator's time budget. Capacity counts bytes.
//
// Every box access is one lookup, so the structure is flat: entries in a vector linked into the
// LRU order by index, and an open-addressed table (linear probing, backward-shift deletion) from
// box to entry. Nothing is allocated per access.
//
// Requests for a box whose lookup is still in flight are served by that lookup: the GPU's L2 slices
// look up 0.45-0.49 of the sectors its crossbar delivers to a GEMM's SMs, which read the same A and
// B slices at about the same time (Nsight Compute on the H100, data/measured/h100/
// ncu-gemm-l2-tiles-2026-12-07.txt). access_at() says which requests such a lookup serves
// (Lookup::merged), so that a hit rate can be counted the way the GPU's counters count it.
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/trace.hpp"

namespace ts::sim {

enum class Lookup { miss, hit, merged };

class BoxCache {
 public:
  explicit BoxCache(uint64_t capacity_bytes) : capacity_(capacity_bytes), table_(kInitialSlots, kEmpty) {}

  // Returns true on a hit. A miss inserts the box, evicting the least recently used.
  bool access(const GlobalBox& box) { return access_at(box, 0, 0) != Lookup::miss; }

  // A write: the box's lines are allocated (a hit or a miss alike) and dirty until evicted. The L2
  // writes back: HBM sees a box's bytes when its lines leave, once however often it was written.
  bool store(const GlobalBox& box) {
    const bool hit = access(box);
    if (head_ != kEmpty && entries_[head_].key == key_of(box))
      entries_[head_].dirty = true;
    else  // larger than the whole cache: through to HBM at once
      written_back_ += uint64_t{box.rows} * box.row_bytes;
    return hit;
  }
  // Dirty bytes evicted since the last call: what HBM must write now.
  uint64_t take_written_back() { return std::exchange(written_back_, 0); }

  // The same, for a request reaching the L2 at `now`: merged when it comes within `window` cycles
  // of the lookup that last looked the box up (a hit's or a miss's); a merged request starts none.
  Lookup access_at(const GlobalBox& box, double now, double window) {
    const Key key = key_of(box);
    size_t slot = home(key);
    for (; table_[slot] != kEmpty; slot = (slot + 1) & mask()) {
      const int32_t e = table_[slot];
      if (entries_[e].key == key) {
        unlink(e);
        push_front(e);
        if (now < entries_[e].in_flight_until) return Lookup::merged;
        entries_[e].in_flight_until = now + window;
        return Lookup::hit;
      }
    }
    const int32_t e = new_entry(key, uint64_t{box.rows} * box.row_bytes);
    entries_[e].in_flight_until = now + window;
    table_[slot] = e;
    push_front(e);
    used_ += entries_[e].bytes;
    while (used_ > capacity_ && tail_ != kEmpty) evict(tail_);
    if (2 * live_ > table_.size()) grow();
    return Lookup::miss;
  }

 private:
  struct Key {
    uint32_t tensor, rows, row_bytes;
    uint64_t offset;
    bool operator==(const Key&) const = default;
  };
  struct Entry {
    Key key;
    uint64_t bytes = 0;
    double in_flight_until = 0;  // its last lookup serves requests until then
    bool dirty = false;          // written since it came in: written back when evicted
    int32_t prev = kEmpty, next = kEmpty;  // LRU neighbours (front: most recent); free list via next
  };
  static constexpr int32_t kEmpty = -1;
  static Key key_of(const GlobalBox& b) { return {b.tensor, b.rows, b.row_bytes, b.offset}; }
  static constexpr size_t kInitialSlots = 1024;

  size_t mask() const { return table_.size() - 1; }
  size_t home(const Key& k) const {
    uint64_t h = k.offset * 0x9E3779B97F4A7C15ull ^ (uint64_t{k.tensor} << 48) ^ (uint64_t{k.rows} << 32) ^ k.row_bytes;
    h ^= h >> 29;
    return static_cast<size_t>(h) & mask();
  }

  int32_t new_entry(const Key& key, uint64_t bytes) {
    int32_t e = free_;
    if (e != kEmpty) free_ = entries_[e].next;
    else e = static_cast<int32_t>(entries_.size()), entries_.emplace_back();
    entries_[e] = {key, bytes, 0, false, kEmpty, kEmpty};
    ++live_;
    return e;
  }
  void push_front(int32_t e) {
    entries_[e].prev = kEmpty;
    entries_[e].next = head_;
    if (head_ != kEmpty) entries_[head_].prev = e;
    head_ = e;
    if (tail_ == kEmpty) tail_ = e;
  }
  void unlink(int32_t e) {
    Entry& x = entries_[e];
    (x.prev != kEmpty ? entries_[x.prev].next : head_) = x.next;
    (x.next != kEmpty ? entries_[x.next].prev : tail_) = x.prev;
  }
  void evict(int32_t e) {
    unlink(e);
    used_ -= entries_[e].bytes;
    if (entries_[e].dirty) written_back_ += entries_[e].bytes;
    erase_slot(e);
    entries_[e].next = free_;
    free_ = e;
    --live_;
  }
  // Removes entry e from the table; later entries of its probe run move back into the gap.
  void erase_slot(int32_t e) {
    size_t gap = home(entries_[e].key);
    while (table_[gap] != e) gap = (gap + 1) & mask();
    for (size_t next = (gap + 1) & mask(); table_[next] != kEmpty; next = (next + 1) & mask()) {
      const size_t want = home(entries_[table_[next]].key);
      // Move it back if its home does not lie cyclically in (gap, next].
      if (((next - want) & mask()) >= ((next - gap) & mask())) {
        table_[gap] = table_[next];
        gap = next;
      }
    }
    table_[gap] = kEmpty;
  }
  void grow() {
    std::vector<int32_t> old(table_.size() * 2, kEmpty);
    old.swap(table_);
    for (int32_t e : old)
      if (e != kEmpty) {
        size_t slot = home(entries_[e].key);
        while (table_[slot] != kEmpty) slot = (slot + 1) & mask();
        table_[slot] = e;
      }
  }

  uint64_t capacity_, used_ = 0, written_back_ = 0;
  std::vector<int32_t> table_;  // slot -> entry, kEmpty where free
  std::vector<Entry> entries_;
  int32_t head_ = kEmpty, tail_ = kEmpty, free_ = kEmpty;
  size_t live_ = 0;
};

}  // namespace ts::sim
