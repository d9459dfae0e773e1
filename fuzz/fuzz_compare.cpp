// Fuzz target: the bench-file reader of `compare --measured` (app/compare_rows.cpp), which reads
// data/measured/h100/gemm.json, attention.json and the like. A file that does not parse, or a row
// it refuses, is one line to the user; nothing else may escape, and no row it accepts may be one
// the kernels refuse.
#include <nlohmann/json.hpp>

#include "app/compare_rows.hpp"
#include "app/verbs.hpp"
#include "kernels/attention/attention_api.hpp"
#include "kernels/gemm/gemm_api.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json doc = nlohmann::json::parse(data, data + size, nullptr, false);
  if (doc.is_discarded()) return 0;
  try {
    for (const auto& r : ts::app::compare_rows(doc, "bench.json")) {
      const bool ok = r.job.attention ? ts::kernels::validate(r.job.attention_shape).empty()
                                      : ts::kernels::validate(r.job.gemm_shape, r.job.gemm).empty();
      if (!ok || !(r.measured > 0)) __builtin_trap();
    }
  } catch (const ts::app::UsageError&) {
  } catch (const nlohmann::json::exception&) {  // a field missing or of the wrong kind outside the rows ("rows" itself)
  }
  return 0;
}
