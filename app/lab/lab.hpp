#pragma once
// What a lab kernel file includes (`#include "lab.hpp"`): the tile DSL, the pipeline template, and
// ts::lab::Run, through which the file's launch function finds its tensors and launches its kernel.
// `tilescope lab check` compiles the file with a harness main (app/lab/harness_main.cpp) that calls
//
//   void lab_launch(ts::lab::Run& run);
//
// once per checked shape on real data (functional mode: the result is compared with the lab's
// reference) and once on the simulated shape in trace mode (the op streams the simulator replays).
// The same call runs both: a launch function only reads parameters, builds globals and launches.
// `lab check --gpu` compiles the same file with nvcc against the device backend and links it with
// app/lab/gpu_harness.cu: there run.launch is a CUDA launch on device memory, timed by events.
//
// A kernel K is either a pipeline kernel (tiles/sched/pipeline.hpp) or a plain one:
//   static constexpr int warps;                 warps per block
//   struct shared { ... };                      the block's shared memory (aligned to 1024 bytes)
//   struct globals { ... };                     what every block reads (tensor maps, sizes)
//   static TS_KERNEL_FN void run(const globals&, shared&);   run by every warp of every block
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "viz/lesson/lab_trace_io.hpp"
#include "tiles/sched/pipeline.hpp"
#include "tiles/tiles.hpp"
#if defined(__CUDACC__)
#include "kernels/pipeline_launch.cuh"
#else
#include "tiles/backend/host/launch.hpp"
#include "tiles/backend/host/trace.hpp"
#endif

namespace ts::lab {

template <class K>
concept PlainKernel = requires(const typename K::globals& g, typename K::shared& s) {
  K::warps;
  K::run(g, s);
};

// A shared tile with no swizzle: row r starts at byte r * C * sizeof(T). The layout a first kernel
// writes without a thought for the banks; the DSL's st<T, R, C> always takes the largest swizzle
// its row allows. Same interface as st (TMA, warp::load and warp::store take either), so a lab can
// start from this one and let the student see what the swizzle buys.
template <class T, int R, int C>
struct alignas(1024) plain_st {
  static_assert(R % 16 == 0 && C % 16 == 0, "plain_st<T, R, C>: R and C must be multiples of 16");
  static_assert(C * sizeof(T) % 16 == 0 && C <= 256, "plain_st<T, R, C>: TMA needs rows of 16-byte multiples, at most 256 elements");
  using dtype = T;
  static constexpr int rows = R, cols = C;
  TS_HD static constexpr layout::SmemLayout smem_layout() {
    return layout::SmemLayout{sizeof(T), R, C, layout::Swizzle::none, 0};
  }
  static constexpr layout::Swizzle swizzle = layout::Swizzle::none;
  static constexpr int block_cols = C;  // one TMA box spans the whole row
  static constexpr std::size_t bytes = static_cast<std::size_t>(R) * C * sizeof(T);
  T data[R * C];
  TS_HD T* at(int r, int c) { return data + r * C + c; }
  TS_HD const T* at(int r, int c) const { return data + r * C + c; }
};

enum class DType { bf16, f32 };

// One input or output of the lab: a row-major rows x cols matrix on the host.
struct Tensor {
  std::string name;
  DType dtype = DType::bf16;
  int rows = 0, cols = 0;
  void* data = nullptr;
};

// The one-line errors a launch function may raise (wrong name, wrong element type): the harness
// reports them as the check's error.
[[noreturn]] void fail(const std::string& message);

class Run {
 public:
  // The shape parameter `name` of this run (e.g. "M"): one of the lab spec's params.
  int param(const std::string& name) const;
  // An input or output by name, as a global layout of element type T (bf16 or float).
  template <class T> gl<T> in(const std::string& name) { return as_gl<T>(tensor(name, false)); }
  template <class T> gl<T> out(const std::string& name) { return as_gl<T>(tensor(name, true)); }
  bool tracing() const { return tracing_; }

  // Launches `grid` blocks of K on the host backend: computed in functional mode, recorded in trace
  // mode. Under nvcc (the --gpu check): on the device, and the kernel's time added to kernel_ms().
  template <class K> void launch(int grid, const typename K::globals& g);

  // --- used by the harness, not by lab files ---
  using Launch = RecordedLaunch;
  struct Param {
    std::string name;
    int value;
  };
  Run(std::vector<Param> params, std::vector<Tensor>* inputs, std::vector<Tensor>* outputs, bool tracing)
      : params_(std::move(params)), inputs_(inputs), outputs_(outputs), tracing_(tracing) {}
  std::vector<Launch>& launches() { return launches_; }
  double kernel_ms() const { return kernel_ms_; }  // device: the launches' time since the last reset
  int kernel_launches() const { return kernel_launches_; }
  void reset_timing() { kernel_ms_ = 0, kernel_launches_ = 0; }

 private:
  Tensor& tensor(const std::string& name, bool output);
  template <class T> gl<T> as_gl(Tensor& t) {
    if ((t.dtype == DType::bf16) != std::is_same_v<T, bf16>)
      fail("tensor '" + t.name + "' holds " + (t.dtype == DType::bf16 ? "bf16" : "float") + ", not the type asked for");
    return gl<T>::make(static_cast<T*>(t.data), 1, 1, t.rows, t.cols);
  }
  void check_launch(int grid, std::size_t smem_bytes, int warps);
#if !defined(__CUDACC__)
  template <class Body> void run_blocks(int grid, int warps, std::size_t bytes, Body body);
#else
  // Around each device launch (app/lab/gpu_harness.cu): an event before; after, an event, a
  // synchronize that turns a fault into a named error, and the time between the two.
  void device_begin();
  void device_end(const char* what);
#endif
  std::vector<Param> params_;
  std::vector<Tensor>* inputs_;
  std::vector<Tensor>* outputs_;
  bool tracing_;
  std::vector<Launch> launches_;
  double kernel_ms_ = 0;
  int kernel_launches_ = 0;
};

#if !defined(__CUDACC__)
namespace detail {
struct FreeAligned {
  void operator()(char* p) const { ::operator delete[](p, std::align_val_t{1024}); }
};
// The most ops one warp may record: a loop that never ends in trace mode stops here, not at the
// time limit with all the machine's memory.
inline constexpr std::size_t kMaxOpsPerWarp = 4u << 20;
}  // namespace detail

template <class Body>
void Run::run_blocks(int grid, int warps, std::size_t bytes, Body body) {
  check_launch(grid, bytes, warps);
  std::unique_ptr<char[], detail::FreeAligned> smem(static_cast<char*>(::operator new[](bytes, std::align_val_t{1024})));
  if (!tracing_) {
    for (int b = 0; b < grid; ++b) {
      std::memset(smem.get(), 0xff, bytes);  // unwritten shared memory reads as NaN, barriers as uninitialised
      host::Block blk;
      blk.index = b;
      blk.grid = grid;
      blk.warps = warps;
      blk.smem = smem.get();
      blk.smem_bytes = bytes;
      host::run_block(blk, [&] { body(smem.get()); });
    }
    return;
  }
  Launch l;
  l.grid = grid;
  l.warps = warps;
  l.smem_bytes = static_cast<uint32_t>(bytes);
  l.registers = std::min(255u, (65536u / static_cast<uint32_t>(warps * 32)) & ~7u);
  char* s = smem.get();
  for (int b = 0; b < grid; ++b) {
    host::TracedBlock tb(b, grid, warps, s, bytes, [&body, s] { body(s); });
    auto& streams = l.blocks.emplace_back(static_cast<std::size_t>(warps));
    for (int w = 0; w < warps; ++w)
      for (;;) {
        const auto& batch = tb.next_batch(w);
        if (batch.empty()) break;
        streams[w].insert(streams[w].end(), batch.begin(), batch.end());
        if (streams[w].size() > detail::kMaxOpsPerWarp)
          fail("block " + std::to_string(b) + " warp " + std::to_string(w) + " recorded over " +
               std::to_string(detail::kMaxOpsPerWarp) + " ops in trace mode: does a loop never end?");
      }
  }
  launches_.push_back(std::move(l));
}

template <class K>
void Run::launch(int grid, const typename K::globals& g) {
  if constexpr (PlainKernel<K>) {
    using S = typename K::shared;
    constexpr std::size_t bytes = sizeof(S) + 1024;  // + slack to align the base to 1024 (128B swizzle)
    run_blocks(grid, K::warps, bytes, [&g](char* smem) {
      auto* base = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(smem) + 1023) & ~std::uintptr_t{1023});
      K::run(g, *reinterpret_cast<S*>(base));
    });
  } else if (!tracing_) {  // the host launcher, which names the pipeline's barriers in deadlock reports
    check_launch(grid, sched::pipeline_smem_bytes<K>(), sched::pipeline_threads<K>() / 32);
    host::launch<K>(grid, g);
  } else {
    run_blocks(grid, sched::pipeline_threads<K>() / 32, sched::pipeline_smem_bytes<K>(),
               [&g](char* smem) { sched::run_pipeline<K>(g, smem); });
  }
}
#else  // __CUDACC__: the device launch

namespace detail {
// A plain kernel on the device: every warp of the block runs K::run on the block's shared memory,
// its base aligned to 1024 bytes (the 128-byte swizzle's period) as on the host.
template <class K>
__global__ void __launch_bounds__(K::warps * 32, 1) plain_kernel(const __grid_constant__ typename K::globals g) {
  extern __shared__ __align__(1024) char smem[];
  auto* base = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(smem) + 1023) & ~std::uintptr_t{1023});
  K::run(g, *reinterpret_cast<typename K::shared*>(base));
}
}  // namespace detail

template <class K>
void Run::launch(int grid, const typename K::globals& g) {
  if constexpr (PlainKernel<K>) {
    constexpr std::size_t bytes = sizeof(typename K::shared) + 1024;  // + slack to align the base
    check_launch(grid, bytes, K::warps);
    const cudaError_t e = cudaFuncSetAttribute(detail::plain_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    if (e != cudaSuccess) fail(std::string("launch: cudaFuncSetAttribute(shared memory): ") + cudaGetErrorString(e));
    device_begin();
    detail::plain_kernel<K><<<grid, K::warps * 32, bytes>>>(g);
    device_end("the kernel");
  } else {  // the kernels' own pipeline launcher (kernels/pipeline_launch.cuh)
    check_launch(grid, sched::pipeline_smem_bytes<K>(), sched::pipeline_threads<K>() / 32);
    device_begin();
    kernels::launch_pipeline<K>(g, grid, nullptr, nullptr, "lab kernel");
    device_end("the pipeline kernel");
  }
}
#endif

}  // namespace ts::lab

// Defined by the lab file: build the globals from run's tensors and launch the kernel.
void lab_launch(ts::lab::Run& run);
