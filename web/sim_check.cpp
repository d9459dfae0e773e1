// The simulator on the GEMM's own op streams, as a small program built for both sides: under
// Emscripten (node, Emscripten's fibers) and natively (Boost.Context). web/test-node compares the
// two outputs digit for digit, which is the claim of the browser build: one kernel source, one
// trace mode, one simulator, the same numbers. Also times each run (the browser's speed ratio).
//
//   tilescope_web_sim M,N,K[,stages,block_n,consumers] ...   one JSON line per run
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_trace.hpp"
#include "sim/engine.hpp"
#include "sim/machine.hpp"

int main(int argc, char** argv) {
  using namespace ts;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s M,N,K[,stages,block_n,consumers] ...\n", argv[0]);
    return 2;
  }
  try {
    const sim::MachineSpec machine = sim::load_machine("h100-sxm");
    const sim::EngineParams p = sim::engine_params(machine, machine.sm_clock_gemm_sustained.value);
    for (int i = 1; i < argc; ++i) {
      std::vector<long long> v;
      for (const char* s = argv[i]; *s;) {
        char* end = nullptr;
        v.push_back(std::strtoll(s, &end, 10));
        if (end == s || (*end && *end != ',')) {
          std::fprintf(stderr, "tilescope_web_sim: '%s' is not M,N,K[,stages,block_n,consumers]\n", argv[i]);
          return 2;
        }
        s = *end ? end + 1 : end;
      }
      if (v.size() != 3 && v.size() != 6) {
        std::fprintf(stderr, "tilescope_web_sim: '%s' is not M,N,K[,stages,block_n,consumers]\n", argv[i]);
        return 2;
      }
      kernels::GemmConfig cfg;
      if (v.size() == 6) cfg.stages = int(v[3]), cfg.block_n = int(v[4]), cfg.consumers = int(v[5]);
      const auto t0 = std::chrono::steady_clock::now();
      auto grid = kernels::gemm_grid_trace({v[0], v[1], v[2]}, cfg, static_cast<int>(p.sms));
      const sim::SimReport r = sim::simulate(*grid, p);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::printf(
          "{\"run\": \"%s\", \"cycles\": %.17g, \"ops\": %llu, \"hbm_read_bytes\": %llu, \"l2_hit_bytes\": %llu, "
          "\"bank_conflicts\": %llu, \"wall_ms\": %.1f}\n",
          argv[i], r.cycles, (unsigned long long)r.ops, (unsigned long long)r.hbm_read_bytes,
          (unsigned long long)r.l2_hit_bytes, (unsigned long long)r.bank_conflicts, ms);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tilescope_web_sim: %s\n", e.what());
    return 1;
  }
  return 0;
}
