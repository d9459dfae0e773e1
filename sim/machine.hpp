#pragma once
// The machine description: every figure the simulator, the GUI and the lessons use about a GPU,
// read from one JSON file under data/machines/ so that nothing is written down twice.
// Each parameter carries its value, its unit and where the figure comes from.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ts::sim {

struct Quantity {
  double value = 0;
  std::string unit;    // fixed per field (the loader refuses another), so no conversions hide anywhere
  std::string source;  // "datasheet: ...", "seed material: ...", "measured: ...", "derived: ..."
};

struct MachineSpec {
  std::string id;    // file stem, e.g. "h100-sxm"
  std::string name;  // for people, e.g. "NVIDIA H100 SXM5 80GB"
  std::string file;  // where it was read from

  Quantity sm_count;                  // SM
  Quantity sm_clock;                  // MHz
  Quantity bf16_dense_tflops;         // TFLOPS, tensor cores, dense
  Quantity hbm_capacity;              // GB
  Quantity hbm_bandwidth;             // TB/s
  Quantity hbm_latency;               // cycles
  Quantity l2_capacity;               // MB
  Quantity l2_bandwidth;              // TB/s
  Quantity l2_latency;                // cycles
  Quantity smem_per_sm;               // KB
  Quantity smem_bandwidth;            // TB/s, whole chip
  Quantity smem_latency;              // cycles
  Quantity register_file_per_sm;      // KB
  Quantity registers_per_sm;          // registers (32-bit)
  Quantity max_registers_per_thread;  // registers
  Quantity register_bandwidth;        // TB/s, whole chip
  Quantity register_latency;          // cycles
  Quantity smem_banks;                // banks
  Quantity smem_bank_width;           // bytes

  // What the cycle model of the GEMM needs (sim/README.md). `tilescope calibrate` measures all but
  // the L2 structure; per SM figures are taken with every SM busy unless the name says otherwise.
  Quantity sm_clock_under_load;       // MHz, read (clock64 vs globaltimer) while the tensor cores are busy
  Quantity sm_clock_gemm_sustained;   // MHz, while the GEMM bench runs back to back (power-limited)
  Quantity sm_clock_boost;            // MHz, the most the SM clock reaches (one launch after idle)
  Quantity wgmma_m64n64k16_interval;  // cycles/instruction: one SM's tensor pipe, bf16, fp32 accumulators
  Quantity wgmma_m64n128k16_interval;
  Quantity wgmma_m64n256k16_interval;
  Quantity wgmma_m64n64k16_latency;   // cycles from issue to wgmma.wait_group 0 returning, one instruction
  Quantity wgmma_m64n128k16_latency;
  Quantity wgmma_m64n256k16_latency;
  Quantity wgmma_m64n256k32_fp8_interval;  // cycles/instruction: the same with fp8 e4m3 inputs (twice the K)
  Quantity wgmma_m64n256k32_fp8_latency;   // cycles
  Quantity wgmma_issue_cycles;        // cycles/instruction of the issuing warp's scheduler: the wgmma and its descriptor arithmetic
  Quantity wgmma_share_age_weight;    // a sub-partition's tensor core: each warp's share grows by this per warp that came after it
  Quantity wgmma_issue_cycles_per_column;  // cycles/column the issuing warp is held besides wgmma_issue_cycles, per instruction
  Quantity wgmma_queue_depth;         // wgmma instructions a sub-partition's tensor core holds, not yet through, before an issue waits
  // The SM core: sub-partitions, each with one warp scheduler, and the math pipes behind them. An
  // interval is the cycles between two warp instructions on one sub-partition's pipe (every
  // sub-partition of every SM busy); a latency the cycles from one instruction to a dependent one.
  Quantity sub_partitions;            // sub-partitions (processing blocks) per SM
  Quantity issue_per_cycle;           // warp instructions a sub-partition's scheduler issues per cycle
  Quantity fma_interval;              // cycles/instruction, FFMA (fma.rn.f32)
  Quantity fma_latency;               // cycles
  Quantity alu_interval;              // FMNMX (max.f32)
  Quantity alu_latency;
  Quantity sfu_interval;              // MUFU.EX2 (ex2.approx.ftz.f32)
  Quantity sfu_latency;
  Quantity sfu_share_age_weight;       // 0: a sub-partition's SFU serves math ops in order of arrival; >= 1: in turns, each warp's share growing by this per warp after it
  Quantity convert_interval;          // F2FP.BF16.F32.PACK_AB (cvt.rn.bf16x2.f32)
  Quantity convert_latency;
  Quantity shuffle_interval;          // SHFL.BFLY (shfl.sync.bfly.b32)
  Quantity shuffle_latency;
  Quantity named_barrier_cycles;      // cycles per bar.sync 1, 256 with two warpgroups looping on it
  Quantity tma_load_latency_l2_hit;   // cycles, one 16 KB box (128 x 64 bf16), issue to mbarrier wait return
  Quantity tma_load_latency_hbm;      // cycles, the same box not in L2
  Quantity tma_bandwidth_per_sm;      // bytes/cycle, one SM's TMA loads from L2
  Quantity mbarrier_round_trip;       // cycles: arrive -> the other warp's wait returns -> its arrive -> our wait returns
  Quantity smem_bandwidth_per_sm;     // bytes/cycle, 128-bit shared loads
  // While wgmma reads operands from shared memory, the warps' loads and stores get what those reads
  // leave of the port (smem_bandwidth_per_sm), at most these (data/measured/h100/smem-port.txt).
  Quantity lsu_load_bytes_under_wgmma;   // bytes/cycle
  Quantity lsu_store_bytes_under_wgmma;  // bytes/cycle
  Quantity tma_write_tensor_stall;       // cycles/byte: what each byte a TMA load lands costs the SM's busy tensor cores
  Quantity l2_hit_bandwidth;          // TB/s, whole chip, reads that hit
  Quantity l2_tma_bandwidth;          // TB/s, whole chip, what TMA loads of a GEMM draw from the L2
  Quantity l2_merge_window;           // cycles a lookup serves other requests for its box (sim/l2.hpp)
  Quantity tma_load_latency_under_load;  // cycles, a 16 KB box while every SM streams tiles
  Quantity tma_store_latency;         // cycles, one 16 KB box stored alone, issue to its shared source read
  Quantity tma_store_latency_under_load;  // cycles, the same while every SM streams stores
  Quantity tma_store_bandwidth;       // TB/s, whole chip, TMA stores from every SM into L2
  Quantity tma_reduce_bandwidth;      // TB/s, whole chip, TMA reducing stores (fp32 add) from every SM into L2
  Quantity l2_hit_latency;            // cycles, dependent loads that hit
  Quantity hbm_bandwidth_measured;    // TB/s, device-to-device copy, bytes read + written
  Quantity hbm_bandwidth_scattered;   // TB/s, TMA boxes of short rows that start new rows (kernels/calibrate/calibrate_hbm.cu)
  Quantity hbm_latency_measured;      // cycles, dependent loads that miss L2
  Quantity launch_overhead;           // us per launch of an empty kernel, back to back
  Quantity launch_latency_timed;      // us, CUDA events around one launch with nothing behind it
  Quantity block_start_spread;        // us, first TMA load of the grid's first block to its last's (one wave)
  Quantity l2_line_size;              // bytes
  Quantity l2_sector_size;            // bytes
  Quantity l2_associativity;          // ways
  Quantity l2_partitions;             // partitions
  Quantity gpc_count;                 // GPCs (graphics processing clusters): SMs in TPC pairs, TPCs in GPCs
  Quantity hbm_port_tpcs;             // TPCs of a GPC that share one port to HBM in fair turns (0: one queue, first come first served)

  // FLOP per byte of HBM traffic at which tensor-core peak and HBM bandwidth meet.
  double ridge_flop_per_byte() const { return bf16_dense_tflops.value / hbm_bandwidth.value; }
};

// One field of the file: its JSON key, its required unit, and where it lands in MachineSpec.
struct MachineField {
  std::string_view key;
  std::string_view unit;
  Quantity MachineSpec::*member;
};
const std::vector<MachineField>& machine_fields();

// Reads and checks a machine file. Throws std::runtime_error "FILE: field 'x' missing" (or
// "negative", "has unit 'u', expected 'v'", ...) on the first problem found.
MachineSpec load_machine_file(const std::filesystem::path& file);
// The same from the file's text (`file` names it in messages and gives the id): for the fuzz target.
MachineSpec parse_machine_text(const std::string& text, const std::filesystem::path& file);

// data/machines/<id>.json, found through find_data_path.
MachineSpec load_machine(std::string_view id);

// The one place that decides where data/ is: $TILESCOPE_DATA_DIR, then the source tree the
// binary was built from, then ./data. Returns <data dir>/<relative> for the first data dir
// that holds it; throws std::runtime_error naming every place tried when none does.
std::filesystem::path find_data_path(std::string_view relative);

// Machine ids (file stems) under data/machines/, sorted. Empty when no data dir is found.
std::vector<std::string> machine_ids();

// The field of machine_fields() named `key`, or nullptr.
const MachineField* find_machine_field(std::string_view key);

// Writes `spec` in the layout of data/machines/*.json: name, then one line per field in
// machine_fields() order. `calibration_json`, when not empty, is a JSON object saying how the
// measured fields were measured; it becomes the top-level member "calibration", which the loader
// ignores. Throws std::runtime_error when the file cannot be written or the object is not JSON.
void save_machine_file(const MachineSpec& spec, const std::filesystem::path& file,
                       std::string_view calibration_json = {});

}  // namespace ts::sim
