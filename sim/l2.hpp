#pragma once
// The L2 as the simulator sees it: least-recently-used over the boxes that TMA moves. A kernel
// that tiles its tensors on one grid (every GEMM here) always moves the same boxes, so a box is a
// fixed set of 128-byte lines and one lookup stands for all of them: this keeps a 16384^3 grid
// (tens of millions of lines) inside the simulator's time budget. Capacity counts bytes.
#include <cstdint>
#include <list>
#include <unordered_map>

#include "sim/trace.hpp"

namespace ts::sim {

class BoxCache {
 public:
  explicit BoxCache(uint64_t capacity_bytes) : capacity_(capacity_bytes) {}

  // Returns true on a hit. A miss inserts the box, evicting the least recently used.
  bool access(const GlobalBox& box) {
    const uint64_t bytes = uint64_t{box.rows} * box.row_bytes;
    const Key key{box.tensor, box.offset, box.rows, box.row_bytes};
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return true;
    }
    lru_.push_front({key, bytes});
    index_.emplace(key, lru_.begin());
    used_ += bytes;
    while (used_ > capacity_ && !lru_.empty()) {
      used_ -= lru_.back().bytes;
      index_.erase(lru_.back().key);
      lru_.pop_back();
    }
    return false;
  }

 private:
  struct Key {
    uint32_t tensor;
    uint64_t offset;
    uint32_t rows, row_bytes;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = k.offset * 0x9E3779B97F4A7C15ull ^ (uint64_t{k.tensor} << 48) ^ (uint64_t{k.rows} << 32) ^ k.row_bytes;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  struct Entry {
    Key key;
    uint64_t bytes;
  };
  uint64_t capacity_, used_ = 0;
  std::list<Entry> lru_;
  std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
};

}  // namespace ts::sim
