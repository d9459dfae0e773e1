// Attention on the GPU against the double-precision reference, on fresh random inputs, outputs
// poisoned (NaN) before every launch. Without a CUDA device every test says SKIPPED and passes nothing.
#include <cuda_runtime.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernels/attention/attention_api.hpp"
#include "tests/attention_reference.hpp"
#include "tests/gpu/gpu_available.hpp"

using namespace ts;
using namespace ts::kernels;
using namespace ts::test;

namespace {

void ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class T> struct Device {
  T* p = nullptr;
  std::size_t n;
  explicit Device(std::size_t count) : n(count) { ok(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc"); }
  Device(const std::vector<T>& h) : Device(h.size()) { ok(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload"); }
  ~Device() { cudaFree(p); }
  Device(const Device&) = delete;
  void poison() { ok(cudaMemset(p, 0xff, n * sizeof(T)), "poison"); }  // all ones: NaN in bf16 and fp32
  std::vector<T> get() const {
    std::vector<T> h(n);
    ok(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return h;
  }
};

struct Errors {
  double o, lse, dq, dk, dv;
  std::size_t unwritten = 0;
};

Errors run_on_gpu(const AttentionShape& s, unsigned seed, bool backward, const AttentionConfig& cfg = {}) {
  std::mt19937 rng(seed);
  const std::size_t nq = s.batch * s.heads_q * s.seq * s.dim, nkv = s.batch * s.heads_kv * s.seq * s.dim;
  const auto hq = random_bf16(nq, rng), hk = random_bf16(nkv, rng), hv = random_bf16(nkv, rng), hdo = random_bf16(nq, rng);
  Device<bf16> q(hq), k(hk), v(hv), d_o(hdo), o(nq), dq(nq), dk(nkv), dv(nkv);
  Device<float> lse(s.batch * s.heads_q * s.seq);
  Device<char> workspace(attention_backward_workspace_bytes(s));
  o.poison();
  lse.poison();
  attention_forward(q.p, k.p, v.p, o.p, lse.p, s, nullptr, nullptr, cfg);
  ok(cudaDeviceSynchronize(), "forward");
  Errors e{};
  const Reference ref = reference(s, hq, hk, hv, hdo);
  e.o = relative_error(o.get(), ref.o, &e.unwritten);
  e.lse = relative_error(lse.get(), ref.lse, &e.unwritten);
  if (!backward) return e;
  dq.poison();
  dk.poison();
  dv.poison();
  workspace.poison();
  attention_backward(q.p, k.p, v.p, o.p, d_o.p, lse.p, dq.p, dk.p, dv.p, workspace.p, s, nullptr);
  ok(cudaDeviceSynchronize(), "backward");
  e.dq = relative_error(dq.get(), ref.dq, &e.unwritten);
  e.dk = relative_error(dk.get(), ref.dk, &e.unwritten);
  e.dv = relative_error(dv.get(), ref.dv, &e.unwritten);
  return e;
}

void check(const AttentionShape& s, unsigned seed) {
  INFO(describe(s));
  const Errors e = run_on_gpu(s, seed, true);
  CHECK(e.unwritten == 0);
  CHECK(e.o < 5e-3);
  CHECK(e.lse < 1e-4);
  CHECK(e.dq < 5e-3);
  CHECK(e.dk < 5e-3);
  CHECK(e.dv < 5e-3);
}

}  // namespace

TEST_CASE("attention forward and backward match a double reference on the GPU", "[gpu][attention]") {
  if (!have_gpu()) return;
  const AttentionShape cases[] = {
      {1, 2, 2, 1024, 64, false, 0.f}, {1, 2, 2, 1024, 128, true, 0.f}, {2, 4, 1, 333, 128, false, 0.f},
      {1, 1, 1, 1, 64, true, 0.f},     {1, 2, 2, 1000, 64, true, 0.f},  {1, 8, 2, 517, 128, true, 0.f},
      {1, 2, 2, 2048, 128, false, 0.f}, {2, 2, 2, 129, 64, false, 0.5f}, {1, 3, 3, 4096, 64, true, 0.f},
  };
  unsigned seed = 100;
  for (const auto& s : cases) check(s, seed++);
}

TEST_CASE("every forward variant matches the reference on the GPU", "[gpu][attention]") {
  if (!have_gpu()) return;
  unsigned seed = 300;
  for (const AttentionConfig cfg : {AttentionConfig{2, 0}, AttentionConfig{2, 1}, AttentionConfig{3, 0}, AttentionConfig{3, 1}})
    for (const AttentionShape s : {AttentionShape{1, 4, 2, 1333, 64, true, 0.f}, AttentionShape{2, 2, 2, 1000, 128, false, 0.f},
                                   AttentionShape{1, 2, 2, 777, 128, true, 0.f}}) {
      if (s.dim == 128 && cfg.consumers == 3 && cfg.overlap) continue;  // refused: does not fit
      INFO(describe(s) << " consumers " << cfg.consumers << " overlap " << cfg.overlap);
      const Errors e = run_on_gpu(s, seed++, false, cfg);
      CHECK(e.unwritten == 0);
      CHECK(e.o < 5e-3);
      CHECK(e.lse < 1e-4);
    }
}

TEST_CASE("attention small case for compute-sanitizer", "[gpu][small][attention]") {
  if (!have_gpu()) return;
  check({1, 4, 2, 200, 128, true, 0.f}, 7);
  check({1, 2, 1, 130, 64, false, 0.f}, 8);
  check({4, 16, 8, 400, 64, false, 0.f}, 10);  // more tiles than SMs: a persistent block runs two
  check({4, 16, 8, 400, 64, true, 0.f}, 11);
  for (const AttentionConfig cfg : {AttentionConfig{2, 1}, AttentionConfig{3, 1}}) {
    const Errors e = run_on_gpu({1, 2, 1, 300, 64, true, 0.f}, 9, false, cfg);
    CHECK(e.unwritten == 0);
    CHECK(e.o < 5e-3);
  }
}

TEST_CASE("attention runs from a thread whose first CUDA call it is", "[gpu][attention]") {
  if (!have_gpu()) return;
  // PyTorch runs a backward on its own autograd thread. A tensor map is encoded by the driver in the
  // thread's current context, which a thread has only once a runtime call has bound it: the backward's
  // maps failed there (CUDA_ERROR_INVALID_CONTEXT) when no memset came before them.
  const AttentionShape s{1, 2, 2, 256, 64, true, 0.f};
  std::mt19937 rng(21);
  const std::size_t n = s.batch * s.heads_q * s.seq * s.dim;
  const auto hq = random_bf16(n, rng), hk = random_bf16(n, rng), hv = random_bf16(n, rng), hdo = random_bf16(n, rng);
  Device<bf16> q(hq), k(hk), v(hv), d_o(hdo), o(n), dq(n), dk(n), dv(n);
  Device<float> lse(s.batch * s.heads_q * s.seq);
  Device<char> workspace(attention_backward_workspace_bytes(s));
  dq.poison();
  std::string error;
  std::thread([&] {
    try {
      attention_forward(q.p, k.p, v.p, o.p, lse.p, s, nullptr);
      attention_backward(q.p, k.p, v.p, o.p, d_o.p, lse.p, dq.p, dk.p, dv.p, workspace.p, s, nullptr);
      ok(cudaDeviceSynchronize(), "attention on a fresh thread");
    } catch (const std::exception& e) {
      error = e.what();
    }
  }).join();
  CHECK(error.empty());
  INFO(error);
  const Reference ref = reference(s, hq, hk, hv, hdo);
  std::size_t unwritten = 0;
  CHECK(relative_error(dq.get(), ref.dq, &unwritten) < 5e-3);
  CHECK(unwritten == 0);
}

TEST_CASE("attention refuses bad input before launching", "[gpu][attention]") {
  const AttentionShape bad_dim{1, 1, 1, 64, 96, false, 0.f};
  CHECK_THROWS_AS(attention_forward(nullptr, nullptr, nullptr, nullptr, nullptr, bad_dim, nullptr), std::invalid_argument);
  alignas(16) static char buf[64];
  const AttentionShape ok_shape{1, 1, 1, 64, 64, false, 0.f};
  CHECK_THROWS_WITH(attention_forward(buf + 2, buf, buf, buf, reinterpret_cast<float*>(buf), ok_shape, nullptr),
                    Catch::Contains("16-byte aligned"));
}
