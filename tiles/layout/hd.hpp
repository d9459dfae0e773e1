#pragma once
// One spelling for "callable from host and device", so layout math compiles under g++ and nvcc alike.
#if defined(__CUDACC__)
#define TS_HD __host__ __device__
#else
#define TS_HD
#endif
