// PyTorch bindings of the attention and GEMM (bf16 and FP8) launchers (kernels/*/*_api.hpp). Everything here is
// checking and allocation: tensors are checked up front so that a mistake is one clear line in
// Python instead of a launcher's error or a bad memory access, outputs and scratch come from
// PyTorch's allocator, and every launch goes on PyTorch's current stream.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/attention/attention_api.hpp"
#include "kernels/gemm/gemm_api.hpp"

namespace {

namespace tk = ts::kernels;
using Tensors3 = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

void check_tensor(const at::Tensor& t, const char* name, const at::Device& device, at::ScalarType dtype = at::kBFloat16) {
  TORCH_CHECK(t.is_cuda(), "tilescope: ", name, " must be a CUDA tensor, got one on ", t.device());
  TORCH_CHECK(t.device() == device, "tilescope: ", name, " is on ", t.device(), " but the first input is on ", device);
  TORCH_CHECK(t.scalar_type() == dtype, "tilescope: ", name, " must be ", dtype, ", got ", t.scalar_type());
  TORCH_CHECK(t.is_contiguous(), "tilescope: ", name, " must be contiguous (call .contiguous() first), got strides ",
              t.strides());
  // TMA needs 16-byte aligned global addresses; a view at an odd offset into a tensor is not.
  TORCH_CHECK(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0, "tilescope: ", name,
              "'s data pointer must be 16-byte aligned (a view at an offset?)");
}

// Shapes are the caller's mistake, so they raise ValueError; dtype, device and layout RuntimeError.
tk::AttentionShape attention_shape(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal,
                                   std::optional<double> scale) {
  const at::Device dev = q.device();
  check_tensor(q, "q", dev);
  check_tensor(k, "k", dev);
  check_tensor(v, "v", dev);
  TORCH_CHECK_VALUE(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, "tilescope attention: q, k, v must be 4-D [B, H, N, D], got ",
                    q.sizes(), ", ", k.sizes(), ", ", v.sizes());
  TORCH_CHECK_VALUE(k.sizes() == v.sizes(), "tilescope attention: k and v must have the same shape, got ", k.sizes(), " and ",
                    v.sizes());
  TORCH_CHECK_VALUE(q.size(0) == k.size(0) && q.size(2) == k.size(2) && q.size(3) == k.size(3),
                    "tilescope attention: q and k/v must agree in B, N and D, got q ", q.sizes(), " and k ", k.sizes());
  TORCH_CHECK_VALUE(k.size(1) > 0 && q.size(1) % k.size(1) == 0, "tilescope attention: heads of q (", q.size(1),
                    ") must be a multiple of heads of k/v (", k.size(1), ")");
  tk::AttentionShape s;
  s.batch = q.size(0);
  s.heads_q = q.size(1);
  s.heads_kv = k.size(1);
  s.seq = q.size(2);
  s.dim = q.size(3);
  s.causal = causal;
  if (scale) {
    // The launcher reads 0 as "1/sqrt(D)", so an explicit 0 must not reach it.
    TORCH_CHECK_VALUE(std::isfinite(*scale) && *scale > 0, "tilescope attention: scale must be positive and finite, got ", *scale);
    s.scale = static_cast<float>(*scale);
  }
  const std::string why = tk::validate(s);
  TORCH_CHECK_VALUE(why.empty(), "tilescope attention: ", why);
  return s;
}

void* stream_of(const at::Tensor& t) { return at::cuda::getCurrentCUDAStream(t.get_device()).stream(); }

// The launchers re-check what they are given and throw; make that a Python exception with the
// launcher's own message rather than an opaque "unknown C++ exception".
template <class F>
void launch(const char* what, F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    TORCH_CHECK_VALUE(false, "tilescope ", what, ": ", e.what());
  } catch (const std::runtime_error& e) {
    TORCH_CHECK(false, "tilescope ", what, ": ", e.what());
  }
}

at::Tensor lse_like(const at::Tensor& q, const tk::AttentionShape& s) {
  return at::empty({s.batch, s.heads_q, s.seq}, q.options().dtype(at::kFloat));
}

void run_forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, at::Tensor& o, at::Tensor& lse,
                 const tk::AttentionShape& s, tk::BlockClock* clocks) {
  launch("attention_forward", [&] {
    tk::attention_forward(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr<float>(), s, stream_of(q),
                          clocks);
  });
}

Tensors3 run_backward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& o,
                      const at::Tensor& dout, const at::Tensor& lse, const tk::AttentionShape& s, tk::BlockClock* clocks) {
  at::Tensor dq = at::empty(q.sizes(), q.options()), dk = at::empty(k.sizes(), k.options()),
             dv = at::empty(v.sizes(), v.options());
  const auto bytes = static_cast<int64_t>(tk::attention_backward_workspace_bytes(s));
  at::Tensor workspace = at::empty({bytes}, q.options().dtype(at::kByte));
  launch("attention_backward", [&] {
    tk::attention_backward(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), dout.data_ptr(), lse.data_ptr<float>(),
                           dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), workspace.data_ptr(), s, stream_of(q), clocks);
  });
  return {dq, dk, dv};
}

// Blocks of the main kernel of a forward or a backward on this GPU: one BlockClock each.
int main_kernel_blocks(const tk::AttentionShape& s, bool backward) {
  return tk::attention_grid_blocks(s, backward, {}, at::cuda::getCurrentDeviceProperties()->multiProcessorCount);
}

// The bench's clock recording: while it is on, the main kernel of every attention launch (forward,
// or the backward's) has its blocks read their SM clock into the next slot of one buffer, made and
// zeroed before the timed runs so that they only write 16 bytes a block more. The SM clock of timed
// runs is theirs, not that of a probe launched after them into whatever power state they left.
struct ClockRecording {
  at::Tensor slots;  // [launches, blocks, 2] int64: each block's BlockClock
  int64_t used = 0;
};
std::optional<ClockRecording> clock_recording;

tk::BlockClock* next_clock_slot(const tk::AttentionShape& s, bool backward) {
  if (!clock_recording) return nullptr;
  ClockRecording& r = *clock_recording;
  TORCH_CHECK(r.used < r.slots.size(0), "tilescope: clock recording is full (", r.slots.size(0),
              " launches): clock_recording_start was given too few");
  const int blocks = main_kernel_blocks(s, backward);
  TORCH_CHECK(blocks <= r.slots.size(1), "tilescope: a launch of ", blocks, " blocks while recording clocks for ",
              r.slots.size(1), " (another shape than clock_recording_start's)");
  return reinterpret_cast<tk::BlockClock*>(r.slots[r.used++].data_ptr<int64_t>());
}

// The median over one launch's blocks of clock64 cycles over global-timer time, in MHz (0: none recorded).
double median_block_mhz(const at::TensorAccessor<int64_t, 2>& blocks) {
  std::vector<double> mhz;
  for (int64_t i = 0; i < blocks.size(0); ++i)
    if (blocks[i][1] > 0) mhz.push_back(double(blocks[i][0]) / double(blocks[i][1]) * 1e3);
  if (mhz.empty()) return 0;
  std::nth_element(mhz.begin(), mhz.begin() + mhz.size() / 2, mhz.end());
  return mhz[mhz.size() / 2];
}

void clock_recording_start(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal, bool backward,
                           int64_t launches) {
  const tk::AttentionShape s = attention_shape(q, k, v, causal, std::nullopt);
  TORCH_CHECK_VALUE(launches > 0, "tilescope: clock_recording_start needs launches > 0, got ", launches);
  TORCH_CHECK(!clock_recording, "tilescope: clock recording is already on (clock_recording_stop first)");
  const c10::cuda::CUDAGuard guard(q.device());
  const int blocks = main_kernel_blocks(s, backward);
  static_assert(sizeof(tk::BlockClock) == 2 * sizeof(int64_t), "BlockClock is two 64-bit counters");
  clock_recording = ClockRecording{at::zeros({launches, std::max(blocks, 1), 2}, q.options().dtype(at::kLong))};
}

// Each recorded launch's median block clock, in launch order; recording is off after.
std::vector<double> clock_recording_stop() {
  TORCH_CHECK(clock_recording, "tilescope: clock_recording_stop without clock_recording_start");
  const ClockRecording r = *clock_recording;
  clock_recording.reset();
  const at::Tensor host = r.slots.slice(0, 0, r.used).cpu();  // waits for the launches
  const auto c = host.accessor<int64_t, 3>();
  std::vector<double> mhz;
  for (int64_t i = 0; i < r.used; ++i) mhz.push_back(median_block_mhz(c[i]));
  return mhz;
}

std::tuple<at::Tensor, at::Tensor> attention_forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal,
                                                     std::optional<double> scale) {
  const tk::AttentionShape s = attention_shape(q, k, v, causal, scale);
  const c10::cuda::CUDAGuard guard(q.device());
  at::Tensor o = at::empty(q.sizes(), q.options()), lse = lse_like(q, s);
  run_forward(q, k, v, o, lse, s, next_clock_slot(s, false));
  return {o, lse};
}

Tensors3 attention_backward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& o,
                            const at::Tensor& dout, const at::Tensor& lse, bool causal, std::optional<double> scale) {
  const tk::AttentionShape s = attention_shape(q, k, v, causal, scale);
  check_tensor(o, "o", q.device());
  check_tensor(dout, "dout", q.device());
  check_tensor(lse, "lse", q.device(), at::kFloat);
  TORCH_CHECK_VALUE(o.sizes() == q.sizes() && dout.sizes() == q.sizes(), "tilescope attention: o and dout must have q's shape ",
                    q.sizes(), ", got ", o.sizes(), " and ", dout.sizes());
  TORCH_CHECK_VALUE(lse.dim() == 3 && lse.size(0) == s.batch && lse.size(1) == s.heads_q && lse.size(2) == s.seq,
                    "tilescope attention: lse must be [B, H_q, N] = [", s.batch, ", ", s.heads_q, ", ", s.seq, "], got ",
                    lse.sizes());
  const c10::cuda::CUDAGuard guard(q.device());
  return run_backward(q, k, v, o, dout, lse, s, next_clock_slot(s, true));
}

// The SM clock of one more launch, read inside it (median over blocks, MHz): the power state the
// timed runs left. The bench records the timed launches' own clocks (clock_recording_start) and
// keeps this reading beside them as sm_clock_after_mhz.
double attention_forward_sm_clock_mhz(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal,
                                      std::optional<double> scale, bool backward) {
  const tk::AttentionShape s = attention_shape(q, k, v, causal, scale);
  const c10::cuda::CUDAGuard guard(q.device());
  const int blocks = main_kernel_blocks(s, backward);
  if (blocks <= 0) return 0;
  static_assert(sizeof(tk::BlockClock) == 2 * sizeof(int64_t), "BlockClock is two 64-bit counters");
  at::Tensor clocks = at::zeros({blocks, 2}, q.options().dtype(at::kLong));
  auto* record = reinterpret_cast<tk::BlockClock*>(clocks.data_ptr<int64_t>());
  at::Tensor o = at::empty(q.sizes(), q.options()), lse = lse_like(q, s);
  if (!backward) {
    run_forward(q, k, v, o, lse, s, record);
  } else {
    run_forward(q, k, v, o, lse, s, nullptr);
    run_backward(q, k, v, o, at::randn_like(q), lse, s, record);
  }
  const at::Tensor host = clocks.cpu();  // waits for the launch
  return median_block_mhz(host.accessor<int64_t, 2>());
}

at::Tensor gemm(const at::Tensor& a, const at::Tensor& b) {
  check_tensor(a, "a", a.device());
  check_tensor(b, "b", a.device());
  TORCH_CHECK_VALUE(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0), "tilescope gemm: a must be M x K and b K x N, got ",
                    a.sizes(), " and ", b.sizes());
  const tk::GemmShape s{a.size(0), b.size(1), a.size(1)};
  const tk::GemmConfig cfg{};  // the benched default: C bf16, B row-major (K x N)
  const std::string why = tk::validate(s, cfg);
  TORCH_CHECK_VALUE(why.empty(), "tilescope gemm: ", why);
  const c10::cuda::CUDAGuard guard(a.device());
  at::Tensor c = at::empty({s.m, s.n}, a.options());
  launch("gemm", [&] { tk::launch_gemm(a.data_ptr(), b.data_ptr(), c.data_ptr(), s, cfg, stream_of(a)); });
  return c;
}

// FP8 as torch._scaled_mm takes it: a [M, K] and b_t [N, K] (b's transpose, row-major: wgmma reads
// fp8 operands with K along the row), per-tensor scales; c = scale_a scale_b a b_t^T in bf16.
at::Tensor gemm_fp8(const at::Tensor& a, const at::Tensor& b_t, double scale_a, double scale_b) {
  check_tensor(a, "a", a.device(), at::kFloat8_e4m3fn);
  check_tensor(b_t, "b_t", a.device(), at::kFloat8_e4m3fn);
  TORCH_CHECK_VALUE(a.dim() == 2 && b_t.dim() == 2 && a.size(1) == b_t.size(1), "tilescope gemm_fp8: a must be M x K and b_t N x K, got ",
                    a.sizes(), " and ", b_t.sizes());
  TORCH_CHECK_VALUE(std::isfinite(scale_a) && std::isfinite(scale_b), "tilescope gemm_fp8: scales must be finite, got ", scale_a, " and ",
                    scale_b);
  const tk::GemmShape s{a.size(0), b_t.size(0), a.size(1)};
  tk::GemmConfig cfg{};
  cfg.in = tk::InType::fp8;
  cfg.b_row_major = false;
  cfg.scale_a = static_cast<float>(scale_a), cfg.scale_b = static_cast<float>(scale_b);
  const std::string why = tk::validate(s, cfg);
  TORCH_CHECK_VALUE(why.empty(), "tilescope gemm_fp8: ", why);
  const c10::cuda::CUDAGuard guard(a.device());
  at::Tensor c = at::empty({s.m, s.n}, a.options().dtype(at::kBFloat16));
  launch("gemm_fp8", [&] { tk::launch_gemm(a.data_ptr(), b_t.data_ptr(), c.data_ptr(), s, cfg, stream_of(a)); });
  return c;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  namespace py = pybind11;
  m.doc() = "TileScope's Hopper kernels (attention, GEMM) on PyTorch tensors";
  m.def("attention_forward", &attention_forward, "(o, lse) = attention of bf16 q [B,Hq,N,D], k and v [B,Hkv,N,D]",
        py::arg("q"), py::arg("k"), py::arg("v"), py::arg("causal") = false, py::arg("scale") = py::none());
  m.def("attention_backward", &attention_backward, "(dq, dk, dv) from the forward's inputs, o, lse and dout", py::arg("q"),
        py::arg("k"), py::arg("v"), py::arg("o"), py::arg("dout"), py::arg("lse"), py::arg("causal") = false,
        py::arg("scale") = py::none());
  m.def("attention_forward_sm_clock_mhz", &attention_forward_sm_clock_mhz,
        "one more forward (or forward + backward, timing the backward) with every block reading its clock: median MHz",
        py::arg("q"), py::arg("k"), py::arg("v"), py::arg("causal") = false, py::arg("scale") = py::none(),
        py::arg("backward") = false);
  m.def("clock_recording_start", &clock_recording_start,
        "from now on every attention launch of this shape (forward, or backward) records its blocks' SM clocks, "
        "up to `launches` launches",
        py::arg("q"), py::arg("k"), py::arg("v"), py::arg("causal"), py::arg("backward"), py::arg("launches"));
  m.def("clock_recording_stop", &clock_recording_stop, "each recorded launch's median block SM clock (MHz); recording off");
  m.def("gemm", &gemm, "c = a @ b for bf16 a (M x K) and b (K x N), bf16 c", py::arg("a"), py::arg("b"));
  m.def("gemm_fp8", &gemm_fp8, "c = scale_a scale_b a @ b_t.T for float8_e4m3fn a (M x K) and b_t (N x K), bf16 c", py::arg("a"),
        py::arg("b_t"), py::arg("scale_a") = 1.0, py::arg("scale_b") = 1.0);
}
