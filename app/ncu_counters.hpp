#pragma once
// Nsight Compute's counters of a kernel launch beside the simulator's (`tilescope compare
// --counters`). Reads two formats: the CSV of `ncu --csv --page raw` (a header row of column and
// metric names, a row of units, then one row per launch), and the text of `ncu --print-units base`
// (per launch: the kernel's line "  name (grid)x(block), Context ...", then one line per metric:
// name, unit, value), which is what data/measured/h100/sim-attention/ncu-attention-*.txt hold.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "sim/engine.hpp"

namespace ts::app {

struct NcuLaunch {
  std::string kernel;                     // the name as Nsight Compute printed it
  std::map<std::string, double> metrics;  // full metric name -> value in base units (ns, bytes, %, counts)
};

// Every launch in the file, in order. A file that is neither format, or has no launch, is a UsageError.
std::vector<NcuLaunch> read_ncu(const std::string& path);
// The launch whose kernel name matches `regex` (ECMAScript, searched anywhere in the name); with an
// empty regex, the file's only launch. None or several is a UsageError naming the candidates.
const NcuLaunch& pick_launch(const std::vector<NcuLaunch>& launches, const std::string& regex, const std::string& path);

// The SM clock the launch ran at, from sm__cycles_elapsed.avg over gpu__time_duration.sum (0 when
// the file lacks either): the simulation is timed at it, as compare times bench rows at theirs.
double launch_clock_mhz(const NcuLaunch& launch);

// One line per counter both sides know: measured, simulated and their difference (points for
// percentages, a ratio for counts); counters missing from the file are skipped, and said so.
void print_counters(std::FILE* out, const NcuLaunch& measured, const sim::SimReport& r);

}  // namespace ts::app
