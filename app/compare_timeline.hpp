#pragma once
// `tilescope compare --timeline MEASURED.json`: a measured timeline (bench --timeline-measured)
// beside the simulation of the same configuration, role by role and op kind by op kind.
#include <string>

#include "sim/machine.hpp"
#include "sim/timeline.hpp"

namespace ts::app {

struct TimelineCompareArgs {
  std::string measured;       // the measured timeline file
  std::string simulated_out;  // optional: write both timelines here, as one Chrome trace (side_by_side_json)
  unsigned sms = 4;           // SMs whose simulated spans are compared
  bool force = false;
};

int compare_timeline(const TimelineCompareArgs& a, const sim::MachineSpec& machine);

// What compare --timeline and the GUI's timeline view (`tilescope --timeline F.json`) share.
// The measured timeline in `file`; a UsageError "FILE: reason" when it cannot be read or was not measured.
sim::Timeline read_measured_timeline(const std::string& file);
// The simulation of the configuration `measured` recorded (its otherData.job), timed at its clock on
// `machine`, with the spans of SMs 0..sms-1 (the backward's: its main launch, as recorded). A
// configuration the simulator refuses, or one too slow without `force`, is a UsageError naming `file`.
sim::Timeline simulate_recorded(const sim::Timeline& measured, const std::string& file, const sim::MachineSpec& machine,
                                unsigned sms, bool force);
// Both as one Chrome trace that Perfetto opens: the measured SMs' tracks above the simulated ones.
std::string side_by_side_json(const sim::Timeline& measured, const sim::Timeline& simulated);

}  // namespace ts::app
