#pragma once
// The shared-memory bank model, counting the way Nsight Compute counts on an H100
// (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld / _op_st for the instruction's wavefronts,
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared for its conflicts). The rule, measured on every one
// of 1617 single-instruction patterns over all 11 ops (data/measured/h100/banks.json, reproduced by
// scripts/measure-banks; tests/test_banks_measured.cpp checks every row):
//
//  1. Phases. A warp's access is split into phases of consecutive lanes: 32-bit: all 32 lanes;
//     64-bit: two half-warps (0-15, 16-31); 128-bit: four quarter-warps; ldmatrix/stmatrix: one phase
//     per 8x8 matrix (8 row addresses: lanes 0-7, 8-15, ...; .x1 and .x2 ignore lanes 8-31 / 16-31).
//  2. Cost of a phase: the most distinct 4-byte words that fall into one of the 32 banks (bank =
//     byte address / 4 mod 32). Lanes touching the same word are served together (broadcast), also
//     for stores; words of one lane's 64/128-bit access count like any other word.
//  3. Paired lanes (64- and 128-bit LOADS only, LDS.64 / LDS.128). If lane i and lane i^1 read the
//     same address for all 32 lanes, or lane i and lane i^2 do, the phases are twice as wide: a
//     64-bit load is one phase of all 32 lanes, a 128-bit load two phases (lanes 0-15, 16-31).
//     So ld64 with every lane on one address costs 1 wavefront, ld128 2. Other pairings (i^3, i^4,
//     i^8, i^16), a warp paired only in part, stores and ldmatrix/stmatrix get no such merge.
//  4. wavefronts = the sum over phases; ideal = the number of phases (1, 2 or 4 normally; 1 for a
//     paired 64-bit load, 2 for a paired 128-bit load); conflicts = wavefronts - ideal. This equals
//     Nsight Compute's bank-conflict metric on every measured row, and never goes negative (the
//     op's nominal ideal, SmemOpInfo::ideal_wavefronts(), can exceed a paired load's wavefronts).
// A launch also counts one wavefront of its own (op_misc, seen in a launch with no shared
// instruction), which the total l1tex__data_pipe_lsu_wavefronts_mem_shared.sum includes and an
// instruction's count does not.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ts::sim {

inline constexpr uint32_t kBanks = 32;
inline constexpr uint32_t kBankWidthBytes = 4;
inline constexpr uint32_t kWarpSize = 32;

enum class SmemOp { ld32, ld64, ld128, st32, st64, st128, ldsm1, ldsm2, ldsm4, ldsm4t, stsm4 };

struct SmemOpInfo {
  SmemOp op;
  std::string_view name;         // CLI spelling
  std::string_view instruction;  // PTX spelling, for people
  uint32_t bytes_per_lane;       // bytes one lane's address covers
  uint32_t active_lanes;         // lanes whose address is used (ldmatrix.x1 reads 8)
  uint32_t lanes_per_phase;
  bool is_store;
  uint32_t phases() const { return active_lanes / lanes_per_phase; }
  uint32_t ideal_wavefronts() const { return phases(); }
};

const std::vector<SmemOpInfo>& smem_ops();
std::optional<SmemOpInfo> find_smem_op(std::string_view name);
const SmemOpInfo& info(SmemOp op);

// One 4-byte word touched in one phase, and the lanes that touched it.
struct WordAccess {
  uint32_t phase;
  uint32_t bank;
  uint32_t word_byte_address;  // byte address of the word (multiple of 4)
  std::vector<uint32_t> lanes;
};

struct BankReport {
  SmemOpInfo op;
  uint32_t wavefronts = 0;
  uint32_t conflicts = 0;                    // wavefronts - ideal_wavefronts (Nsight Compute's count)
  std::vector<uint32_t> wavefronts_per_phase;  // one per phase actually used (see lanes_per_phase)
  std::vector<WordAccess> words;             // sorted by phase, bank, address
  // The phases actually used: op.lanes_per_phase, or twice that for a paired 64/128-bit load.
  uint32_t lanes_per_phase = 0;
  uint32_t ideal_wavefronts = 0;  // number of phases actually used
  uint32_t paired_lanes_xor = 0;  // 1 or 2 if lane i and lane i^x share every address (merged phases), else 0
  uint32_t phases() const { return static_cast<uint32_t>(wavefronts_per_phase.size()); }
};

// Throws std::invalid_argument (one line, says which lane) for a misaligned offset.
BankReport analyze_banks(const SmemOpInfo& op, std::span<const uint32_t, kWarpSize> lane_byte_offsets);

// Parse "o0,o1,...,o31" (decimal or 0x hex). Throws std::invalid_argument with a one-line reason.
std::array<uint32_t, kWarpSize> parse_lane_offsets(std::string_view text);

std::string format_bank_table(const BankReport& report);
std::string format_bank_json(const BankReport& report);

}  // namespace ts::sim
