#include "sim/banks.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace ts::sim {

const std::vector<SmemOpInfo>& smem_ops() {
  static const std::vector<SmemOpInfo> ops = {
      {SmemOp::ld32, "ld32", "ld.shared.b32", 4, 32, 32, false},
      {SmemOp::ld64, "ld64", "ld.shared.v2.b32", 8, 32, 16, false},
      {SmemOp::ld128, "ld128", "ld.shared.v4.b32", 16, 32, 8, false},
      {SmemOp::st32, "st32", "st.shared.b32", 4, 32, 32, true},
      {SmemOp::st64, "st64", "st.shared.v2.b32", 8, 32, 16, true},
      {SmemOp::st128, "st128", "st.shared.v4.b32", 16, 32, 8, true},
      {SmemOp::ldsm1, "ldsm1", "ldmatrix.sync.aligned.m8n8.x1.shared.b16", 16, 8, 8, false},
      {SmemOp::ldsm2, "ldsm2", "ldmatrix.sync.aligned.m8n8.x2.shared.b16", 16, 16, 8, false},
      {SmemOp::ldsm4, "ldsm4", "ldmatrix.sync.aligned.m8n8.x4.shared.b16", 16, 32, 8, false},
      {SmemOp::ldsm4t, "ldsm4t", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 16, 32, 8, false},
      {SmemOp::stsm4, "stsm4", "stmatrix.sync.aligned.m8n8.x4.shared.b16", 16, 32, 8, true},
  };
  return ops;
}

std::optional<SmemOpInfo> find_smem_op(std::string_view name) {
  for (const auto& op : smem_ops())
    if (op.name == name) return op;
  return std::nullopt;
}

const SmemOpInfo& info(SmemOp op) {
  for (const auto& o : smem_ops())
    if (o.op == op) return o;
  throw std::logic_error("unknown SmemOp");
}

// Rule 3 of banks.hpp: a 64- or 128-bit load whose lanes share addresses in pairs (i with i^1 for
// the whole warp, or i with i^2) runs in phases twice as wide. Measured on an H100; stores,
// ldmatrix/stmatrix and other pairings (i^3, i^4, i^8, i^16, part of the warp) do not merge.
static uint32_t paired_lanes_xor(const SmemOpInfo& op, std::span<const uint32_t, kWarpSize> offsets) {
  if (op.op != SmemOp::ld64 && op.op != SmemOp::ld128) return 0;
  for (const uint32_t x : {1u, 2u}) {
    bool all = true;
    for (uint32_t lane = 0; lane < kWarpSize && all; ++lane) all = offsets[lane] == offsets[lane ^ x];
    if (all) return x;
  }
  return 0;
}

BankReport analyze_banks(const SmemOpInfo& op, std::span<const uint32_t, kWarpSize> offsets) {
  // ldmatrix rows are 16 bytes and must be 16-byte aligned, like a 128-bit access.
  for (uint32_t lane = 0; lane < op.active_lanes; ++lane) {
    if (offsets[lane] % op.bytes_per_lane != 0) {
      throw std::invalid_argument("lane " + std::to_string(lane) + " offset " + std::to_string(offsets[lane]) +
                                  " is not aligned to " + std::to_string(op.bytes_per_lane) + " bytes for " +
                                  std::string(op.name));
    }
  }
  BankReport report{op, 0, 0, {}, {}};
  report.paired_lanes_xor = paired_lanes_xor(op, offsets);
  report.lanes_per_phase = report.paired_lanes_xor ? 2 * op.lanes_per_phase : op.lanes_per_phase;
  const uint32_t phases = op.active_lanes / report.lanes_per_phase;
  for (uint32_t phase = 0; phase < phases; ++phase) {
    // (bank, word address) -> lanes. Distinct words per bank decide the phase's wavefronts.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> words;
    for (uint32_t i = 0; i < report.lanes_per_phase; ++i) {
      const uint32_t lane = phase * report.lanes_per_phase + i;
      for (uint32_t b = 0; b < op.bytes_per_lane; b += kBankWidthBytes) {
        const uint32_t addr = offsets[lane] + b;
        words[{(addr / kBankWidthBytes) % kBanks, addr}].push_back(lane);
      }
    }
    std::array<uint32_t, kBanks> distinct{};
    for (auto& [key, lanes] : words) {
      ++distinct[key.first];
      report.words.push_back({phase, key.first, key.second, std::move(lanes)});
    }
    const uint32_t wf = *std::max_element(distinct.begin(), distinct.end());
    report.wavefronts_per_phase.push_back(wf);
    report.wavefronts += wf;
  }
  report.ideal_wavefronts = phases;
  report.conflicts = report.wavefronts - report.ideal_wavefronts;  // every phase costs at least 1
  return report;
}

std::array<uint32_t, kWarpSize> parse_lane_offsets(std::string_view text) {
  std::array<uint32_t, kWarpSize> out{};
  size_t count = 0, pos = 0;
  while (true) {
    const size_t comma = text.find(',', pos);
    std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    int base = 10;
    std::string_view digits = item;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      base = 16;
      digits.remove_prefix(2);
    }
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value > 0xFFFFFFFFull) {
      throw std::invalid_argument("lane offset " + std::to_string(count) + " '" + std::string(item) +
                                  "' is not a non-negative byte offset");
    }
    if (count == kWarpSize) throw std::invalid_argument("more than 32 lane offsets given");
    out[count++] = static_cast<uint32_t>(value);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (count != kWarpSize)
    throw std::invalid_argument("expected 32 lane offsets (one per lane), got " + std::to_string(count));
  return out;
}

static std::string join_lanes(const std::vector<uint32_t>& lanes) {
  std::string s;
  for (size_t i = 0; i < lanes.size(); ++i) s += (i ? "," : "") + std::to_string(lanes[i]);
  return s;
}

std::string format_bank_table(const BankReport& r) {
  std::ostringstream os;
  os << "wavefronts " << r.wavefronts << " conflicts " << r.conflicts << "\n";
  os << "op " << r.op.name << " (" << r.op.instruction << "): " << r.phases() << " phase(s) of "
     << r.lanes_per_phase << " lanes, " << r.op.bytes_per_lane << " bytes per lane, ideal "
     << r.ideal_wavefronts << " wavefront(s)\n";
  if (r.paired_lanes_xor)
    os << "lanes i and i^" << r.paired_lanes_xor << " share every address: the load runs in " << r.phases()
       << " phase(s) instead of " << r.op.phases() << "\n";
  for (uint32_t p = 0; p < r.phases(); ++p)
    os << "phase " << p << " (lanes " << p * r.lanes_per_phase << "-" << (p + 1) * r.lanes_per_phase - 1
       << "): " << r.wavefronts_per_phase[p] << " wavefront(s)\n";
  os << "phase bank  words (byte address <- lanes)\n";
  uint32_t last_phase = ~0u, last_bank = ~0u;
  for (const auto& w : r.words) {
    if (w.phase != last_phase || w.bank != last_bank) {
      if (last_phase != ~0u) os << "\n";
      char head[32];
      std::snprintf(head, sizeof head, "%5u %4u ", w.phase, w.bank);
      os << head;
      last_phase = w.phase;
      last_bank = w.bank;
    }
    os << " 0x" << std::hex << w.word_byte_address << std::dec << "<-" << join_lanes(w.lanes);
  }
  if (last_phase != ~0u) os << "\n";
  return os.str();
}

std::string format_bank_json(const BankReport& r) {
  nlohmann::json j;
  j["op"] = r.op.name;
  j["instruction"] = r.op.instruction;
  j["wavefronts"] = r.wavefronts;
  j["conflicts"] = r.conflicts;
  j["ideal_wavefronts"] = r.ideal_wavefronts;
  j["nominal_ideal_wavefronts"] = r.op.ideal_wavefronts();
  j["lanes_per_phase"] = r.lanes_per_phase;
  j["paired_lanes_xor"] = r.paired_lanes_xor;
  j["wavefronts_per_phase"] = r.wavefronts_per_phase;
  auto& words = j["words"] = nlohmann::json::array();
  for (const auto& w : r.words)
    words.push_back({{"phase", w.phase}, {"bank", w.bank}, {"address", w.word_byte_address}, {"lanes", w.lanes}});
  return j.dump();
}

}  // namespace ts::sim
