// Fuzz target: the Nsight Compute readers of `compare --counters` (app/ncu_counters.cpp), which
// read data/measured/h100/sim-attention/ncu-*.txt and CSV exports. A file that is neither format
// is a UsageError (one line to the user); nothing else may escape.
#include "app/ncu_counters.hpp"
#include "app/verbs.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = ts::fuzz::as_file(data, size, "ncu.txt").string();
  try {
    const auto launches = ts::app::read_ncu(file);
    for (const auto& l : launches) (void)ts::app::launch_clock_mhz(l);
  } catch (const ts::app::UsageError&) {
  }
  return 0;
}
