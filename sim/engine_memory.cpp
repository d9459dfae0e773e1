// The engine's memory system: TMA loads (through the L2, HBM on a miss, and each receiving SM's
// port) and stores (the L2's intake, write-back to HBM), a warp's plain global loads and stores,
// bulk-group waits, and register <-> shared moves on the SM's shared-memory pipe (wavefronts from
// the bank model).
#include <algorithm>

#include "sim/engine_core.hpp"

namespace ts::sim::engine_state {

// `cycles` of HBM transfer for `sm` from `start` on; returns when they are done. Two limits, the
// later of which decides. The chip's: one first-come-first-served queue at HBM's bandwidth, so the
// bytes delivered never exceed it. A port's: HBM serves its ports in fair turns, a port being a group
// of TPCs of one GPC (EngineParams::hbm_port_of_sm), so a port takes at most 1/n of the bandwidth
// while n ports wait for bytes, however many SMs it has. Measured on the H100 with every SM
// streaming: the 4 SMs of a short port get 1.45x the share of the 6 of a full one, and they are the
// SMs that run ahead in the row-major GEMM (data/measured/h100/gemm-dram-orders/README.txt, facts
// 8-11). Under full contention the ports' limit binds on the full ports (6 SMs, 1/24 each) and the
// chip's on the short ones, which take what the full ports leave: 1.5x per SM, the total kept. Both
// machine files keep one port (a plain queue): the GEMM sweep simulates worse with 24 (fact 12).
double Engine::hbm_queue(uint32_t sm, double start, double cycles) {
  hbm_free_ = std::max(hbm_free_, start) + cycles;
  if (hbm_port_free_.size() == 1) return hbm_free_;
  const uint32_t port = p_.hbm_port_of_sm[sm];
  uint32_t waiting = 1;  // this port, and every other still waiting for bytes at `start`
  for (uint32_t q = 0; q < hbm_port_done_.size(); ++q) waiting += q != port && hbm_port_done_[q] > start;
  double& free = hbm_port_free_[port];
  free = std::max(free, start) + cycles * waiting;
  hbm_port_done_[port] = std::max({hbm_port_done_[port], free, hbm_free_});
  return hbm_port_done_[port];
}

// `box` read from global memory from `start` on: the L2's queue, and HBM's on a miss, counted in the
// report. Returns whether it hit and, on a miss, when HBM has delivered it. (SMs are wired to partitions
// in contiguous halves: which SM sits where is not published.) HBM moves a box at the copy's rate
// (hbm_bytes_per_cycle) when its rows are one run of bytes, or continue the rows of the box the SM read
// just before (a B slice's four 128-byte boxes side by side), and at the scattered rate when it starts
// short rows of its own (A's boxes: 128 bytes of each of 64 rows): kernels/calibrate/calibrate_hbm.cu.
// The H100's calibration refuted the "continue" half (B-like boxes moved at the A-like rate, 2.58 TB/s:
// data/measured/h100/hbm-box-streams.txt), so the machine files keep the scattered rate at the copy's
// until a chip-wide rule (how much of a DRAM row all SMs read at once) replaces this one.
Engine::GlobalRead Engine::read_global(uint32_t sm, const GlobalBox& box, double start) {
  const uint64_t bytes = uint64_t{box.rows} * box.row_bytes;
  BoxCache& l2 = l2_[size_t{sm} * l2_.size() / p_.sms];
  const Lookup lookup = l2.access_at(box, start, p_.l2_merge_window);
  const bool hit = lookup != Lookup::miss;
  GlobalBox& last = sms_[sm].last_read;
  const bool one_run = box.rows <= 1 || box.row_pitch <= box.row_bytes;
  const bool continues = last.tensor == box.tensor && last.rows == box.rows && last.row_pitch == box.row_pitch &&
                         box.offset == last.offset + last.row_bytes;
  last = box;
  const double hbm_rate = one_run || continues ? p_.hbm_bytes_per_cycle : p_.hbm_scattered_bytes_per_cycle;
  l2_free_ = std::max(l2_free_, start) + bytes / p_.l2_bytes_per_cycle;
  l2_busy_ += bytes / p_.l2_bytes_per_cycle;
  if (hit) {
    ++report_.l2_hits;
    report_.l2_hit_bytes += bytes;
    if (lookup == Lookup::merged) report_.l2_merged_bytes += bytes;
  } else {
    ++report_.l2_misses;
    report_.hbm_read_bytes += bytes;
    hbm_busy_ += bytes / hbm_rate;
    const double done = hbm_queue(sm, start, bytes / hbm_rate);
    write_back(sm, l2, start);  // the lines this box displaced, after it in HBM's queue
    return {false, done};
  }
  return {true, 0};
}

// `box` written from `start` on, once the L2 has taken it (`l2_cycles` of its queue): the L2
// allocates the lines, dirty, so they take room from inputs, and writes them back when they are
// evicted (write_back). A box stored again while still there (a reducing store into an accumulator:
// attention's dQ) merges into the dirty lines and is written back once.
void Engine::write_global(uint32_t sm, const GlobalBox& box, double start, double l2_cycles) {
  l2_free_ = std::max(l2_free_, start) + l2_cycles;
  store_busy_ += l2_cycles;
  report_.global_write_bytes += uint64_t{box.rows} * box.row_bytes;
  BoxCache& l2 = l2_[size_t{sm} * l2_.size() / p_.sms];
  l2.store(box);
  write_back(sm, l2, start);
}

// The dirty bytes `l2` evicted for `sm`'s access at `start` go to HBM then, in the same queue as
// reads. What is still dirty when the kernel ends is not written during it: Nsight Compute counts
// 0.6 of 8 MB written at 2048^3 and 11 of 32 MB at 4096 x 4096 x 64, against all of C at 8192^3 and
// 16384^3 (data/measured/h100/counters-sweep-2026-12-07), and back-to-back launches of one GEMM
// overwrite the lines their predecessor left dirty.
void Engine::write_back(uint32_t sm, BoxCache& l2, double start) {
  const uint64_t bytes = l2.take_written_back();
  if (bytes == 0) return;
  hbm_queue(sm, start, bytes / p_.hbm_bytes_per_cycle);
  hbm_busy_ += bytes / p_.hbm_bytes_per_cycle;
  report_.hbm_write_bytes += bytes;
}

// A TMA box from global memory into shared memory: through this SM's TMA unit, the L2's read
// bandwidth (and HBM's on a miss), and each receiving SM's port; its bytes complete on the barrier.
void Engine::load_box(Warp& w, Block& blk, Sm& sm, const TraceOp& op) {
  const double start = issue_tma(sm, w.time);
  const uint64_t bytes = uint64_t{op.box.rows} * op.box.row_bytes;
  const GlobalRead read = read_global(blk.sm, op.box, start);
  const bool hit = read.hit;
  double from_memory = l2_free_ + p_.tma_latency_l2;
  if (!hit) from_memory = std::max(from_memory, read.hbm_done + p_.tma_latency_hbm);
  // Each receiving SM's own port takes in at most tma_bytes_per_cycle_per_sm: one SM, or
  // with a multicast (count: the CTA mask) every SM of the cluster it names, from one read.
  const uint32_t mask = op.count == 0 ? 1u << blk.rank : op.count;
  for (uint32_t r = 0; r < cluster_; ++r) {
    if ((mask >> r & 1u) == 0) continue;
    const uint32_t to = peer(w.block, r);
    Sm& dest = sms_[blocks_[to].sm];
    // Its bytes cost the receiving SM's busy tensor cores, owed until each core's next MMA issue
    // takes them on (a box lands within a TMA round trip, and in a steady loop only the rate matters;
    // stalling the cores at once, with their waiters' wake-ups moved, made the GEMM at 8192^3
    // simulate a fifth slower for the same figures).
    for (uint32_t s = 0; s < p_.sub_partitions; ++s)
      if (dest.sub[s].tensor.busy()) dest.sub[s].tma_stall += double(bytes) * p_.tma_write_tensor_stall;
    dest.tma_data_free = std::max(dest.tma_data_free, start) + bytes / p_.tma_bytes_per_cycle_per_sm;
    const double done = std::max(from_memory, dest.tma_data_free + p_.tma_latency_l2);
    if (to == w.block) span(w, op.kind, start, done);
    Barrier& b = barrier(blocks_[to], op.barrier);
    b.landed = std::max(b.landed, done);
    b.tx -= static_cast<int64_t>(op.bytes ? op.bytes : bytes);
    log_barrier(BarrierEvent::Kind::tma_issue, to, w.index, b, start, bytes, done, hit);
    maybe_complete(to, b, w.index);
  }
}

// A TMA box from shared memory to global memory, in the warp's open bulk group.
void Engine::store_box(Warp& w, Block& blk, Sm& sm, const TraceOp& op) {
  const double start = issue_tma(sm, w.time);
  const uint64_t bytes = uint64_t{op.box.rows} * op.box.row_bytes;
  // A store alone reads its staging tile within tma_store_latency; while every SM stores,
  // each takes tma_store_latency_under_load (measured: the store stream moves a fixed
  // number of bytes per latency, whatever the bytes in flight). In between, the latency
  // grows with the stores in flight across the chip, saturating at one per SM. A reducing store
  // (count 1: attention's dQ) keeps the latency at rest: only the L2's queue below delays it. (With
  // the plain stores' figure, the causal D 64 backward, one dQ staging tile per consumer, simulated
  // 17-33 % slower than measured on the H100, 2026-11-26.)
  const bool reduce = op.count == 1;
  while (!stores_in_flight_.empty() && stores_in_flight_.top() <= start) stores_in_flight_.pop();
  const double load = reduce ? 0.0 : std::min(1.0, double(stores_in_flight_.size()) / p_.sms);
  const double latency = p_.tma_store_latency + load * (p_.tma_store_latency_under_load - p_.tma_store_latency);
  sm.tma_data_free = std::max(sm.tma_data_free, start) + bytes / p_.tma_bytes_per_cycle_per_sm;
  // A reducing store is a read-modify-write in L2, at its own measured rate. Loads, stores and
  // reductions take turns at the same L2 (one queue): as two queues, reads and reductions each ran
  // at their full rate at once, and the unmasked D 64 backward simulated 19-27 % fast.
  write_global(blk.sm, op.box, start, bytes / (reduce ? p_.reduce_bytes_per_cycle : p_.store_bytes_per_cycle));
  const double read_done = std::max({start + latency, sm.tma_data_free, l2_free_});
  stores_in_flight_.push(read_done);
  w.open_store = std::max(w.open_store, read_done);
  w.open_write = std::max(w.open_write, read_done);  // complete once in L2
  span(w, op.kind, start, read_done);
}

// A warp's plain loads or stores of global memory (a shared vector's copy: a few hundred bytes at
// most), through the L2 as TMA's are. A load's warp waits for the data, a dependent load's latency as
// calibrated (l2_hit_latency, hbm_latency_measured); a store's goes on.
void Engine::global_access(Warp& w, Block& blk, const TraceOp& op) {
  const uint64_t bytes = uint64_t{op.box.rows} * op.box.row_bytes;
  if (bytes == 0) return;  // an empty box moves nothing
  if (op.kind == OpKind::gmem_store) return write_global(blk.sm, op.box, w.time, bytes / p_.store_bytes_per_cycle);
  const GlobalRead read = read_global(blk.sm, op.box, w.time);  // first: its data waits behind its own bytes too
  double done = std::max(w.time + p_.gmem_latency_l2, l2_free_);
  if (!read.hit) done = std::max({done, w.time + p_.gmem_latency_hbm, read.hbm_done});
  span(w, op.kind, w.time, done);
  w.time = done;
}

// Wait until at most `keep` bulk store groups are still reading shared memory (or, `writes`,
// still writing global memory).
void Engine::wait_stores(Warp& w, bool writes, size_t keep) {
  // Groups finish in order; a wait for reads folds the groups it waited for into one write
  // completion, for a later wait on writes.
  if (writes) {
    if (w.has_read_groups && w.store_groups.size() + 1 > keep) {
      w.time = std::max(w.time, w.read_groups_write_done);
      w.has_read_groups = false;
    }
    while (w.store_groups.size() > keep) {
      w.time = std::max(w.time, w.store_groups.front().write_done);
      w.store_groups.pop_front();
    }
  } else {
    while (w.store_groups.size() > keep) {
      const auto& g = w.store_groups.front();
      w.time = std::max(w.time, g.read_done);
      w.read_groups_write_done = std::max(w.read_groups_write_done, g.write_done);
      w.has_read_groups = true;
      w.store_groups.pop_front();
    }
  }
}

// A warp's register <-> shared-memory op, on the SM's shared-memory pipe.
void Engine::shared_access(Warp& w, Sm& sm, const TraceOp& op) {
  // The SM's shared-memory pipe serves one wavefront per cycle; a load's data comes back
  // smem_latency later, and the warp needs it.
  const bool store = op.kind == OpKind::smem_store;
  const SmemCost& cost = smem_cost(op.smem, store);
  const double start = std::max(w.time, sm.lsu_free);
  // While the tensor cores read wgmma operands, the LSU gets what they leave of the SM's port, at
  // most its share (kernels/calibrate/calibrate_port.cu); a wavefront is one pass over the banks. A
  // warpgroup's MMA runs on all four cores at once: the busiest one says what the port carries.
  TensorCore::PortUse mma;
  for (uint32_t s = 0; s < p_.sub_partitions; ++s) {
    const TensorCore::PortUse u = sm.sub[s].tensor.port_use(start);
    if (u.bytes_per_cycle > mma.bytes_per_cycle) mma = u;
  }
  const double port = p_.smem_port_bytes_per_cycle;
  const double share = std::min(store ? p_.lsu_store_bytes_under_mma : p_.lsu_load_bytes_under_mma,
                                 std::max(0.0, port - mma.bytes_per_cycle)) / port;  // wavefronts per cycle
  const double wavefronts = double(cost.wavefronts);
  if (mma.bytes_per_cycle == 0 || wavefronts == 0) {
    sm.lsu_free = start + wavefronts;
  } else {  // at `share` until the core is through (none: wait for it), then one a cycle
    const double served = share * std::max(0.0, mma.until - start);
    sm.lsu_free = served >= wavefronts ? start + wavefronts / share : std::max(start, mma.until) + (wavefronts - served);
  }
  report_.smem_wavefronts += cost.wavefronts;
  report_.bank_conflicts += cost.conflicts;
  SmemStats& st = report_.smem[store][static_cast<int>(op.smem.walk)];
  st.instructions += cost.instructions, st.wavefronts += cost.wavefronts, st.conflicts += cost.conflicts;
  w.time = sm.lsu_free + (store ? 0.0 : p_.smem_latency);
  span(w, op.kind, start, w.time);
}

// Costs by access, computed once: a kernel repeats the same few.
const SmemCost& Engine::smem_cost(const SmemAccess& a, bool store) {
  const auto& t = a.tile;
  const uint64_t key = (uint64_t{t.elem_bytes} << 60) ^ (uint64_t{t.rows} << 48) ^ (uint64_t{t.cols} << 36) ^
                       (uint64_t(t.swizzle) << 33) ^ (uint64_t{store} << 32) ^ (uint64_t(a.walk) << 28) ^
                       (uint64_t{t.pad_bytes} << 20) ^ (uint64_t{a.row0} << 14) ^ (uint64_t{a.col0} << 8) ^
                       (uint64_t{a.rows} << 4) ^ a.cols;
  auto it = smem_costs_.find(key);
  if (it == smem_costs_.end()) it = smem_costs_.emplace(key, smem_access_cost(a, store)).first;
  return it->second;
}

// A box goes through the SM's TMA unit one at a time: returns when this one issues.
double Engine::issue_tma(Sm& sm, double ready) {
  const double start = std::max(ready, sm.tma_free);
  sm.tma_free = start + p_.tma_issue_cycles;
  sm.tma_busy += p_.tma_issue_cycles;
  return start;
}

}  // namespace ts::sim::engine_state
