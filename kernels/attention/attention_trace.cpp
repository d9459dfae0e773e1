// The attention grids in trace mode, through kernels/pipeline_trace.hpp, with the instances,
// globals and grid sizes of the launchers (attention_dispatch.hpp, attention_globals.hpp,
// attention_layout.hpp).
#include "kernels/attention/attention_trace.hpp"

#include "kernels/attention/attention_globals.hpp"

namespace ts::kernels {

std::vector<TracedLaunch> attention_grid_traces(const AttentionShape& s, bool backward, const AttentionConfig& knobs, int sms) {
  std::vector<TracedLaunch> launches;
  if (backward) {
    with_backward(s, [&]<class B>() {
      const auto g = backward_globals_for<B>(s);
      const int rows = static_cast<int>(backward_row_blocks(s, sms));
      launches.push_back({"backward prep", std::make_unique<PipelineGrid<typename B::prep>>(g.prep, rows)});
      launches.push_back({"backward", std::make_unique<PipelineGrid<typename B::main>>(g.main, static_cast<int>(backward_blocks(s)))});
      launches.push_back({"backward dq", std::make_unique<PipelineGrid<typename B::dq>>(g.dq, rows)});
    });
  } else {
    const AttentionConfig cfg = resolve(s, knobs);
    with_forward(s, cfg, [&]<class K>() {
      typename K::globals g = forward_globals_for<K>(s);
      const int blocks = static_cast<int>(forward_blocks(s, cfg, sms));
      if (const auto* table = forward_schedule<K>(g, blocks)) g.schedule = table->data();
      launches.push_back({"forward", std::make_unique<PipelineGrid<K>>(g, blocks)});
    });
  }
  return launches;
}

}  // namespace ts::kernels
