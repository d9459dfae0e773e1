// Fuzz target: the readers of data/measured/h100/gemm.json and gemm_dram.json
// (viz/lesson/measured.cpp). The same input is read as both; a bad file becomes a line in
// `problems` and no rows, never an exception or a crash.
#include "fuzz/fuzz_input.hpp"
#include "viz/lesson/measured.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = ts::fuzz::as_file(data, size, "measured.json").string();
  const ts::viz::MeasuredData d = ts::viz::load_measured(file, file, file);
  (void)d;
  return 0;
}
