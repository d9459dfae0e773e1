// Fuzz target: the machine file reader (sim/machine.cpp, data/machines/*.json). Any input gives a
// machine or a std::runtime_error naming the file; anything else escaping is a crash.
#include <stdexcept>

#include "fuzz/fuzz_input.hpp"
#include "sim/machine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const ts::sim::MachineSpec m = ts::sim::parse_machine_text(ts::fuzz::text_of(data, size), "fuzz.json");
    if (m.sm_count.value <= 0) throw std::logic_error("a machine with no SMs was accepted");
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind("fuzz.json:", 0) != 0) throw std::logic_error(std::string("error without the file: ") + e.what());
  }
  return 0;
}
