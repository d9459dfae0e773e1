// What `tilescope sim` and `compare` do around the engine (app/sim_job, sim_watch, sim_runs,
// ncu_counters, compare_rows): op estimates before a run, refusing runs that would take hours, grids too big for
// the kernels' 32-bit indices, Ctrl-C, and Nsight Compute's files.
#include <catch2/catch.hpp>

#include <csignal>
#include <string>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/compare_rows.hpp"
#include "app/ncu_counters.hpp"
#include "app/sim_job.hpp"
#include "app/sim_runs.hpp"
#include "app/sim_watch.hpp"
#include "app/verbs.hpp"
#include "sim/machine.hpp"

using namespace ts;
using app::SimJob;

namespace {

const sim::EngineParams& params() {
  static const sim::EngineParams p = sim::engine_params(sim::load_machine("h100-sxm"));
  return p;
}

SimJob gemm_job(int64_t m, int64_t n, int64_t k, bool persistent) {
  SimJob job;
  job.gemm_shape = {m, n, k};
  job.gemm.persistent = persistent;
  return job;
}

SimJob attention_job(int64_t heads, int64_t seq, bool causal, bool backward) {
  SimJob job;
  job.attention = true;
  job.attention_shape.heads_q = job.attention_shape.heads_kv = heads;
  job.attention_shape.seq = seq;
  job.attention_shape.dim = 64;
  job.attention_shape.causal = causal;
  job.backward = backward;
  return job;
}

double estimated(const std::vector<app::OpEstimate>& e) {
  double s = 0;
  for (const auto& x : e) s += x.ops;
  return s;
}

// Estimate, then simulate: the ops the engine replayed.
std::pair<std::vector<app::OpEstimate>, uint64_t> estimate_and_run(const SimJob& job) {
  auto launches = app::trace_job(job, params().sms);
  const auto e = app::estimate_ops(launches, 1e12);
  return {e, app::simulate_launches(launches, job, params()).ops};
}

}  // namespace

TEST_CASE("op estimates match the ops the engine replays", "[sim_runs]") {
  SECTION("one tile per block: every block alike, the estimate is exact") {
    const auto [e, ops] = estimate_and_run(gemm_job(512, 1024, 512, false));
    REQUIRE(e.size() == 1);
    CHECK_FALSE(e[0].lower_bound);
    CHECK(e[0].ops == double(ops));
  }
  SECTION("persistent: the last block's fewer tiles are averaged in") {
    const auto [e, ops] = estimate_and_run(gemm_job(2048, 2560, 256, true));  // 160 tiles on 132 SMs
    CHECK(estimated(e) == Approx(double(ops)).epsilon(0.25));
  }
  SECTION("causal attention: blocks differ with the query block; a grid this small is drained whole") {
    const auto [e, ops] = estimate_and_run(attention_job(2, 1024, true, false));
    CHECK(estimated(e) == Approx(double(ops)).epsilon(1e-9));
  }
  SECTION("the backward: each of its three launches") {
    const auto [e, ops] = estimate_and_run(attention_job(2, 512, false, true));
    REQUIRE(e.size() == 3);
    CHECK(estimated(e) == Approx(double(ops)).epsilon(0.05));
  }
  SECTION("compare's progress sample: 64 blocks a launch stand for the backward's many small ones") {
    const SimJob job = attention_job(2, 4096, true, true);  // pre-pass and dQ: 128 blocks each, backward 64
    auto launches = app::trace_job(job, params().sms);
    REQUIRE(launches.size() == 3);
    CHECK(launches[0].grid->blocks() > app::kProgressSample.blocks);
    const auto rough = app::estimate_ops(launches, 1e18, app::kProgressSample);
    const auto exact = app::estimate_ops(launches, 1e18, {1e18, ~0u});
    CHECK(estimated(rough) == Approx(estimated(exact)).epsilon(0.1));
  }
}

TEST_CASE("a run that would take hours is refused up front, naming its ops, time and --force", "[sim_runs]") {
  // Many blocks of modest size (a block per tile): each drained whole, an estimate.
  SimJob big = attention_job(64, 1 << 20, false, false);
  big.attention_cfg.persistent = 0;
  auto launches = app::trace_job(big, params().sms);
  const auto e = app::estimate_ops(launches, app::kRefuseSeconds * app::kSimOpsPerSecond);
  REQUIRE(e.size() == 1);
  CHECK_FALSE(e[0].lower_bound);
  CHECK(e[0].ops > app::kRefuseSeconds * app::kSimOpsPerSecond);
  try {
    app::refuse_if_too_long(big, e);
    FAIL("not refused");
  } catch (const app::UsageError& err) {
    const std::string what = err.what();
    CHECK_THAT(what, Catch::Contains("would replay about") && Catch::Contains("billion ops: about") && Catch::Contains(" h at ") &&
                         Catch::Contains("--force"));
    CHECK(what.find('\n') == std::string::npos);
  }
  // 132 persistent blocks of over a quarter of a second's tracing each: cut short, a lower bound,
  // still over the limit, in no time.
  const SimJob huge = gemm_job(1 << 21, 1 << 20, 64, true);
  auto more = app::trace_job(huge, params().sms);
  const auto bound = app::estimate_ops(more, 1e9);
  REQUIRE(bound.size() == 1);
  CHECK(bound[0].lower_bound);
  CHECK(bound[0].ops >= 1e9);
  CHECK_THROWS_WITH(app::refuse_if_too_long(huge, bound), Catch::Contains("would replay more than"));

  auto small = app::trace_job(gemm_job(4096, 4096, 4096, true), params().sms);
  CHECK_NOTHROW(app::refuse_if_too_long(gemm_job(4096, 4096, 4096, true), app::estimate_ops(small, 1e9)));
}

TEST_CASE("grids and tile counts past the kernels' 32-bit indices are one clear error", "[sim_runs]") {
  CHECK_THROWS_WITH(app::trace_job(gemm_job(100000000, 100000000, 64, true), params().sms), Catch::Contains("32-bit"));
  CHECK_THROWS_WITH(app::trace_job(gemm_job(100000000, 100000000, 64, false), params().sms), Catch::Contains("32-bit"));
  SimJob grouped = gemm_job(1 << 30, 1 << 30, 64, true);  // tiles overflow first
  CHECK_THROWS_AS(app::trace_job(grouped, params().sms), app::UsageError);
  SimJob wide = attention_job(2047, 4096, false, false);
  wide.attention_shape.batch = 1 << 20;  // B H below 2^31 (validate() passes), blocks far above
  CHECK_THROWS_WITH(app::trace_job(wide, params().sms), Catch::Contains("32-bit"));
  wide.backward = true;
  CHECK_THROWS_WITH(app::trace_job(wide, params().sms), Catch::Contains("32-bit"));
}

TEST_CASE("progress counts blocks and ops over a pass's launches; Ctrl-C stops the run", "[sim_runs]") {
  const SimJob job = attention_job(2, 512, false, true);
  auto launches = app::trace_job(job, params().sms);
  uint64_t blocks = 0;
  for (const auto& l : launches) blocks += l.grid->blocks();
  {
    app::CtrlC ctrl_c;
    app::Progress progress("test", app::Progress::Items::blocks, 1e9);  // never drawn
    progress.set_total(blocks);
    const sim::SimReport r = app::simulate_launches(launches, job, params(), 0, &progress);
    CHECK(progress.done() == blocks);
    CHECK(r.blocks == blocks);
  }
  {
    app::CtrlC ctrl_c;
    std::raise(SIGINT);  // the handler only sets the flag
    CHECK(app::CtrlC::pressed());
    app::Progress progress("test", app::Progress::Items::blocks, 1e9);
    CHECK_THROWS_AS(app::simulate_launches(launches, job, params(), 0, &progress), sim::SimCancelled);
  }
  // The handler is gone with the guard, and a new guard starts with the flag down.
  app::CtrlC again;
  CHECK_FALSE(app::CtrlC::pressed());
}

TEST_CASE("Nsight Compute's CSV and text exports are read by metric name, in base units", "[sim_runs][ncu]") {
  const std::string dir = TILESCOPE_TEST_FIXTURES "/ncu/";
  const auto csv = app::read_ncu(dir + "gemm-512x512x256.csv");
  REQUIRE(csv.size() == 1);
  CHECK(csv[0].kernel.find("gemm<256, 4") != std::string::npos);
  CHECK(csv[0].metrics.at("dram__bytes_read.sum") == Approx(786430));    // 786.43 Kbyte
  CHECK(csv[0].metrics.at("gpu__time_duration.sum") == Approx(12500));   // 12.50 usecond, in ns
  CHECK(csv[0].metrics.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum") == 3072);  // "3,072"
  CHECK(app::launch_clock_mhz(csv[0]) == Approx(1800));                  // 22,500 cycles in 12.5 us

  const auto text = app::read_ncu(dir + "attention-bwd-b1h2n512d64.txt");
  REQUIRE(text.size() == 3);
  CHECK(text[1].kernel == "void pipeline_kernel<attention_bwd<64, 0, 2>>(globals, BlockClock *)");
  CHECK(text[1].metrics.at("smsp__inst_executed_pipe_alu.sum") == 400000);
  CHECK(text[1].metrics.at("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active") == Approx(4.2));
  CHECK(text[1].metrics.count("Warp Cycles Per Issued Instruction") == 0);  // a section's prose rows are not metrics
  CHECK(text[0].metrics.size() == 3);

  CHECK(app::pick_launch(text, "attention_bwd<", "f").kernel == text[1].kernel);
  CHECK(app::pick_launch(text, "bwd_dq", "f").kernel == text[2].kernel);
  CHECK_THROWS_WITH(app::pick_launch(text, "", "f"), Catch::Contains("--kernel"));
  CHECK_THROWS_WITH(app::pick_launch(text, "attention_fwd", "f"), Catch::Contains("no launch matches"));
  CHECK_THROWS_WITH(app::pick_launch(text, "(", "f"), Catch::Contains("bad regular expression"));
  CHECK_THROWS_WITH(app::read_ncu(dir + "nothing-here.csv"), Catch::Contains("cannot read"));
  CHECK_THROWS_WITH(app::read_ncu(TILESCOPE_TEST_FIXTURES "/../CMakeLists.txt"), Catch::Contains("no kernel launch"));
}

TEST_CASE("compare's bench-file rows: the committed sweeps read whole, a bad row is one line naming the file and the row", "[sim_runs][compare]") {
  const auto read = [](const std::string& rel) {
    std::ifstream in(sim::find_data_path(rel));
    REQUIRE(in);
    return nlohmann::json::parse(in);
  };
  const nlohmann::json gemm = read("measured/h100/gemm.json"), attention = read("measured/h100/attention.json");
  const auto g = app::compare_rows(gemm, "gemm.json");
  CHECK(g.size() == gemm.at("rows").size());
  CHECK_FALSE(g.front().job.attention);
  CHECK(g.front().measured == gemm.at("rows")[0].at("tflops").get<double>());
  CHECK(g.front().clock_mhz == gemm.at("rows")[0].at("sm_clock_mhz").get<double>());
  const auto a = app::compare_rows(attention, "attention.json");
  CHECK(a.size() == attention.at("rows").size());
  CHECK(a.front().job.attention);

  const auto refused = [&](nlohmann::json doc, size_t row, const char* field, const nlohmann::json& value) {
    doc["rows"][row][field] = value;
    try {
      app::compare_rows(doc, "f.json");
    } catch (const app::UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string stages = refused(gemm, 1, "stages", 9);
  CHECK(stages.find("f.json: row 2: ") == 0);
  CHECK(stages.find("stages") != std::string::npos);
  CHECK(refused(gemm, 0, "m", 1e300).find("\"m\" is not a whole number") != std::string::npos);
  CHECK(refused(gemm, 0, "m", -4096).find("f.json: row 1: ") == 0);
  CHECK(refused(gemm, 0, "tflops", 0).find("tflops") != std::string::npos);
  CHECK(refused(gemm, 0, "sm_clock_mhz", "fast").find("sm_clock_mhz") != std::string::npos);
  CHECK(refused(gemm, 0, "order", "diagonal").find("block order") != std::string::npos);
  CHECK(refused(gemm, 0, "persistent", 3).find("f.json: row 1: ") == 0);
  CHECK(refused(attention, 2, "d", 96).find("f.json: row 3: ") == 0);
  CHECK(refused(attention, 0, "pass", "sideways").find("fwd nor bwd") != std::string::npos);
  // Left as it was, the same document reads.
  CHECK(refused(gemm, 0, "group", "size") == "accepted");
}
