#pragma once
// Whether this machine has a CUDA device. GPU tests call it first and, without one, say SKIPPED
// loudly and pass nothing, so CI (which compiles CUDA but has no GPU) stays honest.
#include <cuda_runtime.h>

#include <cstdio>

inline bool have_gpu() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::fprintf(stderr, "*** GPU TESTS SKIPPED: no CUDA device on this machine ***\n");
    return false;
  }
  return true;
}
