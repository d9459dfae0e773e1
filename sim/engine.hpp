#pragma once
// The discrete-event engine: replays the op streams of a grid on a model of the GPU and
// predicts its time, unit busy fractions, bank conflicts, L2 hit rate and HBM bytes.
//
// Model, per SM: warps that issue their ops in order; four sub-partitions (a warp belongs to the one
// its index modulo 4 names), each with a scheduler issuing one instruction per cycle into its math
// pipes (FMA, ALU, SFU, convert, shuffle: each a rate and a latency) and its tensor core, which
// runs one MMA slice at a time (FLOPs / its quarter of the SM's rate); a TMA unit that issues one box at a time; an LSU for shared stores
// (one wavefront per cycle); mbarriers with arrival counts and transaction bytes; named and block
// barriers. Chip-wide: an L2 (sim/l2.hpp) that is one FIFO server for TMA loads, stores and
// reducing stores, each at its own measured rate, and HBM a second; a plain TMA store waits longer
// the more stores are in flight across the chip (alone: tma_store_latency; every SM storing:
// tma_store_latency_under_load), a reducing store only for the L2's queue.
// A block becomes resident on an SM when shared memory, registers, threads and the block limit
// allow, in launch order; the blocks of a thread-block cluster together, on neighbouring SMs, and
// a multicast load is one L2 read landing in each of them. Deterministic: no randomness, ties
// broken by sequence number.
#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/machine.hpp"
#include "sim/trace.hpp"

namespace ts::sim {

// Every number the engine uses, in cycles of the SM clock and bytes; filled from a MachineSpec.
struct EngineParams {
  double clock_mhz = 1830;
  uint32_t sms = 132;
  double mma_flops_per_cycle = 4096;        // per SM, dense bf16 (a quarter per sub-partition)
  double mma_fp8_flops_per_cycle = 8192;    // per SM, dense fp8 e4m3 inputs
  double mma_latency = 128;                 // issue of an MMA slice to its result, beyond its pipe time
  double mma_issue_cycles = 0;              // a warp's scheduler, per wgmma instruction (with its descriptors)
  double mma_issue_cycles_per_column = 0;   // the issuing warp also, per wgmma instruction and column of its N
  uint32_t mma_queue_depth = 0;             // wgmma a sub-partition's core holds not through before an issue waits (0: no limit)
  double mma_share_age_weight = 1;          // >1: the tensor core's turns favour older warps (tensor_core.hpp)
  double sfu_share_age_weight = 0;          // 0: a sub-partition's SFU takes math ops in order of arrival; >= 1: in turns, as the tensor core
  double tma_issue_cycles = 32;             // per box, per SM TMA unit
  double tma_bytes_per_cycle_per_sm = 64;   // what one SM's TMA unit brings in from L2 per cycle
  double tma_latency_l2 = 500;              // cycles from issue to data for an L2 hit
  double tma_latency_hbm = 900;             // ... and for an HBM miss
  double l2_bytes_per_cycle = 5500;         // chip-wide L2 -> SM bandwidth
  double hbm_bytes_per_cycle = 1640;        // chip-wide HBM bandwidth
  double hbm_scattered_bytes_per_cycle = 1640;  // the same for a box's scattered short rows (Engine::read_global)
  double tma_store_latency = 557;           // a store alone: issue to its shared source read
  double tma_store_latency_under_load = 4300;  // ... while every SM stores
  double store_bytes_per_cycle = 1970;      // chip-wide rate at which the L2 takes TMA stores
  double reduce_bytes_per_cycle = 1970;     // ... and TMA reducing stores (a read-modify-write in L2)
  double barrier_latency = 20;              // from phase completion to a waiter running
  double gmem_latency_l2 = 274;             // a warp's plain global load (gmem_load): its data on an L2 hit
  double gmem_latency_hbm = 705;            // ... and on a miss
  // The SM's sub-partitions (at most kMaxSubPartitions) and their math pipes, indexed by Pipe:
  // cycles between two warp instructions on one pipe, and from an instruction to its result.
  // (Round figures here, for hand-timed tests; engine_params() takes the machine file's.)
  uint32_t sub_partitions = 4;
  double issue_interval = 1;  // cycles per warp instruction a scheduler issues
  std::array<double, kPipes> pipe_interval{1, 2, 8, 2, 4};
  std::array<double, kPipes> pipe_latency{4, 5, 18, 5, 24};
  double named_barrier_cycles = 20;         // a warpgroup sync whose warps arrive together
  double smem_latency = 30;                 // a shared-memory load's data, after its last wavefront
  // The SM's shared-memory port, which wgmma's operand reads and the warps' loads and stores share:
  // while the tensor core reads operands, loads and stores get what it leaves, at most these.
  double smem_port_bytes_per_cycle = 128;
  double lsu_load_bytes_under_mma = 32;
  double lsu_store_bytes_under_mma = 48;
  // TMA writing an SM's shared memory takes banks its tensor cores read operands from: each byte a
  // load lands costs each of the SM's busy tensor cores this many cycles (added to its next MMA).
  double tma_write_tensor_stall = 0;
  double block_launch_cycles = 1000;        // setting up a block on an SM
  double kernel_launch_cycles = 7000;       // launch overhead of the kernel
  // The first blocks of a launch begin their work this far apart: each SM's first block starts
  // block_start_offset(sm) after the launch's first (the SMs of a TPC together); later blocks on an
  // SM start when the one before them ends.
  double block_start_spread_cycles = 0;
  uint64_t l2_bytes = 50ull << 20;
  // The L2 is split into partitions, each caching for the SMs wired to it (H100 whitepaper): a line
  // two halves of the chip both read is fetched, and held, once per partition.
  uint32_t l2_partitions = 2;
  // The port each SM's HBM traffic goes through; ports take turns fairly (Engine::hbm_queue). Empty:
  // one port for the chip, first come first served.
  std::vector<uint32_t> hbm_port_of_sm;
  double l2_merge_window = 60;  // cycles a box's lookup serves other requests for it (sim/l2.hpp)
  uint32_t smem_per_sm = 228 * 1024;
  uint32_t registers_per_sm = 65536;
  uint32_t max_threads_per_sm = 2048;
  uint32_t max_blocks_per_sm = 32;
};

// clock_mhz: the SM clock to run at (0: the machine's sustained GEMM clock). Bandwidths that the
// machine file gives per second become bytes per cycle of that clock.
EngineParams engine_params(const MachineSpec& m, double clock_mhz = 0);

// The HBM port of each of `sms` SMs: SMs pair into TPCs, TPCs fill `gpcs` GPCs in order, as many
// TPCs to a GPC as the largest holds, the missing ones (fused off) one from each of the first GPCs;
// inside a GPC every `port_tpcs` TPCs share a port, so a GPC that lacks a TPC has one port of fewer
// SMs. On the H100 (132 SMs, 8 GPCs, 3 TPCs a port): six GPCs of 6 + 6 + 4 SMs, two of 6 + 6 + 6.
std::vector<uint32_t> hbm_port_of_sm(uint32_t sms, uint32_t gpcs, uint32_t port_tpcs);

inline constexpr uint32_t kMaxSubPartitions = 4;

std::string_view pipe_name(Pipe p);
std::string_view smem_walk_name(SmemWalk w);

struct Span {
  uint32_t sm, block, warp;
  OpKind kind;
  double start, end;  // cycles
  Pipe pipe = Pipe::fma;  // math spans: the pipe that bounds the op
};

// One step of an mbarrier's life, or a TMA load that feeds one, for the lesson scenes that show a
// producer and its consumers over time. Recorded only when SimOptions::barrier_log_sms > 0.
struct BarrierEvent {
  enum class Kind : uint8_t {
    expect_bytes,    // the producer arrives and announces `bytes` of transactions
    arrive,          // a consumer (or any warp) arrives
    tma_issue,       // a TMA load of `bytes` issued at `time`; its bytes land at `landed`; `l2_hit`
    phase_complete,  // arrivals in and bytes landed: `phase` is the new phase count, done at `time`
    wait_begin,      // a warp starts waiting for the phase of parity `phase`
    wake,            // that warp runs again
  };
  Kind kind;
  uint32_t sm, block, warp;  // warp: the acting warp (phase_complete: the warp whose op completed it)
  uint32_t barrier;          // mbarrier id (its shared-memory offset)
  uint32_t phase;            // phases the barrier has completed so far
  double time;               // cycles
  double landed = 0;         // tma_issue only
  uint64_t bytes = 0;        // expect_bytes and tma_issue
  bool l2_hit = false;       // tma_issue only
};

// One kind of register <-> shared-memory instruction stream (a walk, loads or stores).
struct SmemStats {
  uint64_t instructions = 0, wavefronts = 0, conflicts = 0;
};
inline constexpr int kSmemWalks = 6;

struct SimReport {
  double cycles = 0;
  double seconds = 0;
  double flops = 0;
  double tflops = 0;
  double tensor_busy = 0;  // fraction of SM-cycles the tensor pipes were busy
  double tma_busy = 0;     // fraction of SM-cycles the TMA units were issuing
  double l2_busy = 0;      // fraction of the time the L2 bandwidth was in use
  double l2_store_busy = 0;  // ... and the L2's intake of TMA stores
  double hbm_busy = 0;
  std::array<double, kPipes> pipe_busy{};  // fraction of sub-partition-cycles each math pipe was busy
  // Fraction of cycles each sub-partition's scheduler issued register math (averaged over the SMs).
  std::array<double, kMaxSubPartitions> issue_busy{};
  std::array<uint64_t, kPipes> pipe_instructions{};  // warp instructions per pipe, whole grid
  uint64_t bank_conflicts = 0;   // register <-> shared-memory ops, all kinds (TMA and wgmma not counted)
  uint64_t smem_wavefronts = 0;
  std::array<std::array<SmemStats, kSmemWalks>, 2> smem{};  // [store][SmemWalk]
  uint64_t l2_hits = 0, l2_misses = 0;  // boxes
  uint64_t l2_hit_bytes = 0, hbm_read_bytes = 0;
  uint64_t global_write_bytes = 0;  // stored into the L2 (every store; a box stored twice counts twice)
  uint64_t hbm_write_bytes = 0;     // of those, written back to HBM during the kernel (evicted dirty lines)
  uint64_t l2_merged_bytes = 0;  // of l2_hit_bytes: served by another request's lookup in flight (sim/l2.hpp)
  uint64_t ops = 0;
  uint32_t blocks = 0, blocks_per_sm = 0;
  std::vector<Span> spans;  // only for the SMs asked for
  std::vector<BarrierEvent> barrier_events;  // only for the SMs asked for, in the order they happened
  // A pass of several launches (the attention backward's three, split-K's two): each one's name and
  // cycles, in launch order; empty for one launch.
  struct Launch {
    std::string name;
    double cycles = 0;
  };
  std::vector<Launch> launches;
  // Of the bytes TMA and plain loads read, the share the L2 held.
  double l2_hit_rate() const {
    const double total = double(l2_hit_bytes) + double(hbm_read_bytes);
    return total > 0 ? double(l2_hit_bytes) / total : 0;
  }
  // Of the L2's lookups (merged requests counted once, with the lookup that served them), the share
  // that hit: what Nsight Compute's lts__t_sector_hit_rate counts.
  double l2_lookup_hit_rate() const {
    const double hits = double(l2_hit_bytes - l2_merged_bytes), total = hits + double(hbm_read_bytes);
    return total > 0 ? hits / total : 0;
  }
  // Of the bytes the L2 delivered for reads, the share it looked up (1: no request merged).
  double l2_lookup_share() const {
    const double total = double(l2_hit_bytes) + double(hbm_read_bytes);
    return total > 0 ? (total - double(l2_merged_bytes)) / total : 0;
  }
};

struct SimOptions {
  uint32_t timeline_sms = 0;  // record spans for SMs 0..timeline_sms-1
  uint32_t barrier_log_sms = 0;  // record barrier events for SMs 0..barrier_log_sms-1 (off: 0)
  uint32_t load_log_sms = 0;     // ... and only the TMA loads (tma_issue) of SMs up to this one
  // Called as blocks finish (about 256 times a run, and at the last) with the blocks done and the
  // grid's total; returning false stops the simulation, which then throws SimCancelled.
  std::function<bool(uint32_t done, uint32_t total)> progress;
  // Called with the ops drawn from the warps' op sources, every few thousand of them (and the rest
  // at the end); returning false stops the simulation as `progress` does. A persistent grid
  // retires its blocks only near the end: this is what moves a progress line and honours a Ctrl-C
  // in time.
  std::function<bool(uint64_t ops)> ops_drawn;
};

// A simulation stopped by its progress callback (e.g. on Ctrl-C).
struct SimCancelled : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws std::runtime_error on a malformed stream (wait on an uninitialised barrier, a deadlock:
// every warp blocked with nothing in flight, a block that cannot fit on an SM).
SimReport simulate(GridTrace& grid, const EngineParams& p, const SimOptions& opt = {});

// `next`, a launch that runs right after the one `total` reports (split-K's sum, attention's
// backward passes), folded into it: cycles, instructions, wavefronts and bytes added, busy
// fractions weighted by each launch's cycles. With `whole`, next's blocks and spans follow total's
// (spans shifted by total's cycles); without, total keeps its own (what a scene of the first
// launch draws).
void append_launch(SimReport& total, const SimReport& next, bool whole);

// Chrome trace event format (opens in Perfetto): one process per SM, one thread per warp
// (sim/timeline.hpp writes and reads timelines with their configuration).
std::string timeline_json(const SimReport& r, const EngineParams& p);

}  // namespace ts::sim
