#pragma once
// `tilescope compare --timeline MEASURED.json`: a measured timeline (bench --timeline-measured)
// beside the simulation of the same configuration, role by role and op kind by op kind.
#include <string>

#include "sim/machine.hpp"

namespace ts::app {

struct TimelineCompareArgs {
  std::string measured;       // the measured timeline file
  std::string simulated_out;  // optional: write the simulated timeline here
  unsigned sms = 4;           // SMs whose simulated spans are compared
  bool force = false;
};

int compare_timeline(const TimelineCompareArgs& a, const sim::MachineSpec& machine);

}  // namespace ts::app
