#include "kernels/gpu.hpp"

#include <cuda_runtime.h>

namespace ts::kernels {

std::string hopper_unavailable(const std::string& verb) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) return verb + " needs a Hopper GPU; this machine has no CUDA GPU";
  if (e == cudaErrorInsufficientDriver)
    return verb + " needs a Hopper GPU; the CUDA driver is missing or older than this build's CUDA runtime (no GPU, or a driver to update)";
  if (e != cudaSuccess) return verb + " needs a Hopper GPU; CUDA could not list devices (" + cudaGetErrorString(e) + ")";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return verb + " needs a Hopper GPU; device 0 could not be queried";
  if (prop.major != 9 || prop.minor != 0)
    return verb + " needs a Hopper GPU (compute capability 9.0); device 0 is " + prop.name + " (" + std::to_string(prop.major) +
           "." + std::to_string(prop.minor) + ")";
  return "";
}

}  // namespace ts::kernels
