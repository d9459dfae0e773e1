#pragma once
// The attention kernels' globals for a shape over stand-in tensors (trace_address), built by the
// launchers' own builders (attention_dispatch.hpp): for host code that runs a kernel without data
// (trace mode) or only reads its tile map and loop bounds (the lessons' scenes). Host backend only.
#include "kernels/attention/attention_dispatch.hpp"
#include "kernels/pipeline_trace.hpp"

namespace ts::kernels {

template <class K>
typename K::globals forward_globals_for(const AttentionShape& s) {
  const auto a = [](int i) { return trace_address(i); };
  check_attention_args(s, {a(0), a(1), a(2), a(3), a(4)});
  return forward_globals<K>(a(0), a(1), a(2), a(3), static_cast<float*>(a(4)), s);
}

template <class B>
backward_globals<B> backward_globals_for(const AttentionShape& s) {
  const auto a = [](int i) { return trace_address(i); };
  check_attention_args(s, {a(0), a(1), a(2), a(3), a(4), a(5), a(6), a(7), a(8), a(9)});
  return make_backward_globals<B>(a(0), a(1), a(2), a(3), a(4), static_cast<const float*>(a(5)), a(6), a(7), a(8), a(9), s);
}

}  // namespace ts::kernels
