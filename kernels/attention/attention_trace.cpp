// The attention grids in trace mode, through kernels/pipeline_trace.hpp, with the instances,
// globals and grid sizes of the launchers (attention_dispatch.hpp, attention_layout.hpp).
#include "kernels/attention/attention_trace.hpp"

#include "kernels/attention/attention_dispatch.hpp"
#include "kernels/pipeline_trace.hpp"

namespace ts::kernels {

std::vector<TracedLaunch> attention_grid_traces(const AttentionShape& s, bool backward, const AttentionConfig& knobs, int sms) {
  const auto a = [](int i) { return trace_address(i); };
  check_attention_args(s, {a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9)});
  std::vector<TracedLaunch> launches;
  if (backward) {
    with_backward(s, [&]<class B>() {
      const auto g = make_backward_globals<B>(a(0), a(1), a(2), a(3), a(4), static_cast<const float*>(a(5)), a(6), a(7), a(8), a(9), s);
      const int rows = static_cast<int>(backward_row_blocks(s));
      launches.push_back({"backward prep", std::make_unique<PipelineGrid<typename B::prep>>(g.prep, rows)});
      launches.push_back({"backward", std::make_unique<PipelineGrid<typename B::main>>(g.main, static_cast<int>(backward_blocks(s)))});
      launches.push_back({"backward dq", std::make_unique<PipelineGrid<typename B::dq>>(g.dq, rows)});
    });
  } else {
    const AttentionConfig cfg = resolve(s, knobs);
    with_forward(s, cfg, [&]<class K>() {
      const auto g = forward_globals<K>(a(0), a(1), a(2), a(3), static_cast<float*>(a(4)), s);
      launches.push_back({"forward", std::make_unique<PipelineGrid<K>>(g, static_cast<int>(forward_blocks(s, cfg, sms)))});
    });
  }
  return launches;
}

}  // namespace ts::kernels
