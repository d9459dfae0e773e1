#include "app/ncu_counters.hpp"

#include <cmath>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>

#include "app/verbs.hpp"

namespace ts::app {

namespace {

// A value as Nsight Compute prints it ("2,343,808", "51.62", "n/a") in the unit it names, in base
// units; nullopt when it is not a number.
std::optional<double> parse_value(std::string text, const std::string& unit) {
  std::erase(text, ',');
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  // Without --print-units base, Nsight Compute scales units (Kbyte, msecond, ...).
  static const std::map<std::string, double> scale = {
      {"Kbyte", 1e3},   {"Mbyte", 1e6},    {"Gbyte", 1e9},  {"Tbyte", 1e12}, {"usecond", 1e3}, {"us", 1e3},
      {"msecond", 1e6}, {"ms", 1e6},       {"second", 1e9}, {"s", 1e9},      {"Kcycle", 1e3},  {"Mcycle", 1e6},
      {"Kinst", 1e3},   {"Minst", 1e6},    {"Ginst", 1e9}};
  const auto it = scale.find(unit);
  return it == scale.end() ? v : v * it->second;
}

// One CSV line's fields ("a","b,c",d): quotes hold commas; "" inside quotes is a quote.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else if (c != '\r') out.back() += c;
  }
  return out;
}

std::vector<NcuLaunch> read_csv(const std::vector<std::string>& lines, size_t header_at, const std::string& path) {
  const auto header = csv_fields(lines[header_at]);
  size_t name_col = header.size();
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == "Kernel Name") name_col = i;
  if (name_col == header.size()) throw UsageError(path + ": the CSV header has no \"Kernel Name\" column");
  std::vector<std::string> units(header.size());
  std::vector<NcuLaunch> launches;
  for (size_t l = header_at + 1; l < lines.size(); ++l) {
    if (lines[l].empty() || lines[l][0] != '"') continue;  // ncu's ==PROF== messages, the program's own output
    const auto f = csv_fields(lines[l]);
    if (!f.empty() && f[0].empty()) {  // the units row: no ID
      for (size_t i = 0; i < f.size() && i < units.size(); ++i) units[i] = f[i];
      continue;
    }
    if (f.size() <= name_col) throw UsageError(path + ":" + std::to_string(l + 1) + ": a row with fewer columns than the header");
    NcuLaunch launch{f[name_col], {}};
    for (size_t i = 0; i < f.size() && i < header.size(); ++i)
      if (header[i].find("__") != std::string::npos)  // metric names: unit__counter.rollup
        if (const auto v = parse_value(f[i], units[i])) launch.metrics[header[i]] = *v;
    launches.push_back(std::move(launch));
  }
  return launches;
}

std::vector<NcuLaunch> read_text(const std::vector<std::string>& lines) {
  // "  void pipeline_kernel<...>(globals, BlockClock *) (1376, 1, 1)x(512, 1, 1), Context 1, ..."
  static const std::regex kernel_line(R"(^  (\S.*) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\), Context \d+.*$)");
  // "    gpu__time_duration.sum        ns     2,343,808" (the unit may be missing)
  static const std::regex metric_line(R"(^\s+([A-Za-z0-9_]+__[A-Za-z0-9_.]+)\s+(?:(\S+)\s+)?(\S+)\s*$)");
  std::vector<NcuLaunch> launches;
  std::smatch m;
  for (const std::string& line : lines) {
    if (std::regex_match(line, m, kernel_line)) {
      launches.push_back({m[1].str(), {}});
    } else if (!launches.empty() && std::regex_match(line, m, metric_line)) {
      if (const auto v = parse_value(m[3].str(), m[2].str())) launches.back().metrics[m[1].str()] = *v;
    }
  }
  return launches;
}

}  // namespace

std::vector<NcuLaunch> read_ncu(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::vector<NcuLaunch> launches;
  size_t header = lines.size();
  for (size_t i = 0; i < lines.size() && header == lines.size(); ++i)
    if (lines[i].rfind("\"ID\",", 0) == 0) header = i;
  launches = header < lines.size() ? read_csv(lines, header, path) : read_text(lines);
  if (launches.empty())
    throw UsageError(path + ": no kernel launch found (expected the CSV of ncu --csv --page raw, or the text of ncu --print-units base)");
  return launches;
}

const NcuLaunch& pick_launch(const std::vector<NcuLaunch>& launches, const std::string& regex, const std::string& path) {
  std::vector<const NcuLaunch*> hits;
  if (regex.empty()) {
    for (const auto& l : launches) hits.push_back(&l);
  } else {
    std::regex re;
    try {
      re = std::regex(regex);
    } catch (const std::regex_error& e) {
      throw UsageError("--kernel: bad regular expression '" + regex + "': " + e.what());
    }
    for (const auto& l : launches)
      if (std::regex_search(l.kernel, re)) hits.push_back(&l);
  }
  if (hits.size() == 1) return *hits.front();
  std::string names;
  for (const auto& l : launches) names += (names.empty() ? "" : "; ") + l.kernel;
  if (hits.empty()) throw UsageError(path + ": no launch matches --kernel '" + regex + "' (launches: " + names + ")");
  throw UsageError(path + ": " + std::to_string(hits.size()) + " launches match" + (regex.empty() ? "" : " '" + regex + "'") +
                   "; pick one with --kernel REGEX (launches: " + names + ")");
}

namespace {

std::optional<double> metric(const NcuLaunch& l, const std::string& name) {
  const auto it = l.metrics.find(name);
  return it == l.metrics.end() ? std::nullopt : std::optional(it->second);
}

// A percentage metric under whichever rollup the file has.
std::optional<double> pct(const NcuLaunch& l, const std::string& base, std::string& name) {
  for (const char* suffix : {".avg.pct_of_peak_sustained_active", ".avg.pct_of_peak_sustained_elapsed", ".pct"})
    if (const auto v = metric(l, base + suffix)) {
      name = base + suffix;
      return v;
    }
  return std::nullopt;
}

uint64_t smem_sum(const sim::SimReport& r, bool store, uint64_t sim::SmemStats::*field, int only_walk = -1) {
  uint64_t s = 0;
  for (int w = 0; w < sim::kSmemWalks; ++w)
    if (only_walk < 0 || w == only_walk) s += r.smem[store][w].*field;
  return s;
}

}  // namespace

double launch_clock_mhz(const NcuLaunch& launch) {
  const auto cycles = metric(launch, "sm__cycles_elapsed.avg"), ns = metric(launch, "gpu__time_duration.sum");
  return cycles && ns && *ns > 0 ? *cycles / *ns * 1e3 : 0;
}

void print_counters(std::FILE* out, const NcuLaunch& l, const sim::SimReport& r) {
  const auto pipe = [&](sim::Pipe p) { return double(r.pipe_instructions[static_cast<int>(p)]); };
  const auto busy = [&](sim::Pipe p) { return 100 * r.pipe_busy[static_cast<int>(p)]; };
  int shown = 0, missing = 0;
  std::fprintf(out, "%-52s %16s %16s %12s\n", "counter (Nsight Compute metric)", "measured", "simulated", "sim - meas");
  // A percentage: the difference in points.
  const auto row_pct = [&](const char* what, const std::string& base, double sim) {
    std::string name;
    const auto v = pct(l, base, name);
    if (!v) return void(++missing);
    std::fprintf(out, "%-52s %14.1f %% %14.1f %% %+8.1f pts\n    (%s)\n", what, *v, sim, sim - *v, name.c_str());
    ++shown;
  };
  // A count: the ratio simulated / measured.
  const auto row_count = [&](const char* what, std::optional<double> v, const std::string& names, double sim) {
    if (!v) return void(++missing);
    if (*v > 0) std::fprintf(out, "%-52s %16.0f %16.0f %11.3fx\n    (%s)\n", what, *v, sim, sim / *v, names.c_str());
    else std::fprintf(out, "%-52s %16.0f %16.0f %12s\n    (%s)\n", what, *v, sim, "", names.c_str());
    ++shown;
  };
  if (const auto ns = metric(l, "gpu__time_duration.sum")) {
    std::fprintf(out, "%-52s %13.3f ms %13.3f ms %11.3fx\n    (gpu__time_duration.sum)\n", "time", *ns * 1e-6, r.seconds * 1e3,
                 r.seconds * 1e9 / *ns);
    ++shown;
  } else {
    ++missing;
  }
  row_count("SM cycles", metric(l, "sm__cycles_elapsed.avg"), "sm__cycles_elapsed.avg", r.cycles);
  row_pct("tensor pipe active (sim: tensor busy)", "sm__pipe_tensor_op_hmma_cycles_active", 100 * r.tensor_busy);
  row_pct("XU pipe issue (sim: SFU busy)", "sm__inst_executed_pipe_xu", busy(sim::Pipe::sfu));
  row_pct("FMA pipe active (sim: FMA busy)", "sm__pipe_fma_cycles_active", busy(sim::Pipe::fma));
  row_pct("ALU pipe active (sim: ALU + convert busy)", "sm__pipe_alu_cycles_active", busy(sim::Pipe::alu) + busy(sim::Pipe::convert));
  const auto count = [&](const char* name) { return metric(l, name); };
  row_count("FMA pipe instructions", count("smsp__inst_executed_pipe_fma.sum"), "smsp__inst_executed_pipe_fma.sum", pipe(sim::Pipe::fma));
  row_count("ALU pipe instructions (sim: alu + convert)", count("smsp__inst_executed_pipe_alu.sum"), "smsp__inst_executed_pipe_alu.sum",
            pipe(sim::Pipe::alu) + pipe(sim::Pipe::convert));
  row_count("XU pipe instructions (sim: sfu)", count("smsp__inst_executed_pipe_xu.sum"), "smsp__inst_executed_pipe_xu.sum", pipe(sim::Pipe::sfu));
  const double smem_instructions = double(smem_sum(r, false, &sim::SmemStats::instructions) + smem_sum(r, true, &sim::SmemStats::instructions));
  row_count("LSU pipe instructions (sim: shuffle + shared ld/st)", count("smsp__inst_executed_pipe_lsu.sum"),
            "smsp__inst_executed_pipe_lsu.sum", pipe(sim::Pipe::shuffle) + smem_instructions);
  // Shared memory. LDSM/STSM are not in op_shared_ld/st (the backward pre-pass: 131,072 LDSM beside
  // 65,536 LDS, whose wavefronts, 4 and 1 each, add up to the 589,824 measured), so the plain and the
  // matrix instructions are rows of their own; the simulator's side of each is its walks of that kind.
  // (Some Nsight Compute versions have no sm__sass_inst_executed_op_stsm: that row is then missing,
  // not folded into the plain stores.)
  const int matrix = static_cast<int>(sim::SmemWalk::matrix_x4);
  for (const bool store : {false, true}) {
    const std::string op = store ? "st" : "ld", mx = store ? "stsm" : "ldsm";
    const uint64_t all = smem_sum(r, store, &sim::SmemStats::instructions);
    const uint64_t x4 = smem_sum(r, store, &sim::SmemStats::instructions, matrix);
    row_count((std::string("shared ") + (store ? "store" : "load") + " instructions (" + op + ".shared)").c_str(),
              count(("sm__sass_inst_executed_op_shared_" + op + ".sum").c_str()), "sm__sass_inst_executed_op_shared_" + op + ".sum",
              double(all - x4));
    row_count((std::string(store ? "stmatrix" : "ldmatrix") + " instructions").c_str(),
              count(("sm__sass_inst_executed_op_" + mx + ".sum").c_str()), "sm__sass_inst_executed_op_" + mx + ".sum", double(x4));
    const std::string wf = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum";
    row_count((std::string("shared ") + (store ? "store" : "load") + " wavefronts").c_str(), count(wf.c_str()), wf,
              double(smem_sum(r, store, &sim::SmemStats::wavefronts)));
    const std::string bc = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum";
    row_count((std::string("shared ") + (store ? "store" : "load") + " bank conflicts").c_str(), count(bc.c_str()), bc,
              double(smem_sum(r, store, &sim::SmemStats::conflicts)));
  }
  // Nsight Compute counts lookups: a request served by another's lookup in flight is not one. Its
  // lts__t_sector_hit_rate also counts every write (a hit) and the partitions' own fabric traffic: at
  // 4096 x 4096 x 64 its 96.93 % is 1 - (the reads' and the fabric's lookup misses) / (the reads' and
  // the fabric's sectors + C's 1,048,576 written), to the digits it prints, where the SMs' reads alone
  // hit 85.3 % (counters-sweep-2026-12-07). The reads' own counters, where the file has them, are what
  // the simulator's per-lookup rate (reads only) compares to.
  const auto reads = metric(l, "lts__t_sectors_srcunit_tex_op_read.sum");
  const auto read_hits = metric(l, "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum");
  const double simulated_hit = 100 * r.l2_lookup_hit_rate();
  if (reads && read_hits && *reads > 0) {
    const double v = 100 * *read_hits / *reads;
    std::fprintf(out, "%-52s %14.1f %% %14.1f %% %+8.1f pts\n    (lts__t_sectors_srcunit_tex_op_read_lookup_hit / _op_read; simulated: per lookup)\n",
                 "L2 hit rate, SM reads", v, simulated_hit, simulated_hit - v);
    ++shown;
  }
  if (const auto v = metric(l, "lts__t_sector_hit_rate.pct")) {
    std::fprintf(out, "%-52s %14.1f %% %14.1f %% %+8.1f pts\n    (lts__t_sector_hit_rate.pct, writes and fabric included; simulated: reads per lookup)\n",
                 "L2 hit rate, all lookups", *v, simulated_hit, simulated_hit - *v);
    ++shown;
  } else {
    ++missing;
  }
  row_count("DRAM bytes read", count("dram__bytes_read.sum"), "dram__bytes_read.sum", double(r.hbm_read_bytes));
  row_count("DRAM bytes written", count("dram__bytes_write.sum"), "dram__bytes_write.sum", double(r.hbm_write_bytes));
  std::fprintf(out,
               "\n%d counters compared, %d not in the file. Pipes as Nsight Compute counts them: the simulator's convert\n"
               "instructions are F2FP, which it counts under alu; shuffles (SHFL) go to lsu, with shared loads and stores.\n"
               "The simulator sees only the kernel's tile ops, not the address arithmetic and loop control the compiler adds.\n"
               "Shared-memory wavefronts: Nsight Compute's launch totals can hold wavefronts it charges to no instruction\n"
               "(the attention backward's: millions, data/measured/h100/sim-attention/bwd-shared-per-instruction.txt);\n"
               "its source view (--section SourceCounters) gives them per instruction: scripts/ncu-shared-by-opcode.\n",
               shown, missing);
}

}  // namespace ts::app
