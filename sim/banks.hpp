#pragma once
// The shared-memory bank model, counting the way Nsight Compute counts
// (l1tex__data_pipe_lsu_wavefronts_mem_shared and ..._bank_conflicts_...):
//   a warp's access is split into phases (32-bit: all 32 lanes; 64-bit: two half-warps;
//   128-bit and ldmatrix/stmatrix: groups of 8 lanes); a phase costs as many wavefronts as the
//   most distinct 4-byte words that fall into one of the 32 banks (lanes reading the same word are
//   served together); conflicts = wavefronts - the ideal count of the instruction.
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
  uint32_t conflicts = 0;
  std::vector<uint32_t> wavefronts_per_phase;
  std::vector<WordAccess> words;  // sorted by phase, bank, address
};

// Throws std::invalid_argument (one line, says which lane) for a misaligned offset.
BankReport analyze_banks(const SmemOpInfo& op, std::span<const uint32_t, kWarpSize> lane_byte_offsets);

// Parse "o0,o1,...,o31" (decimal or 0x hex). Throws std::invalid_argument with a one-line reason.
std::array<uint32_t, kWarpSize> parse_lane_offsets(std::string_view text);

std::string format_bank_table(const BankReport& report);
std::string format_bank_json(const BankReport& report);

}  // namespace ts::sim
