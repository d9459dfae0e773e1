// scripts/stamp-variants: one GEMM instance per build (see build.sh).
#define RUN_NAME RUN_VARIANT
#include "one.cuh"
