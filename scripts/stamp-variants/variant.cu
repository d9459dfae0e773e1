// scripts/stamp-variants: one GEMM instance per build (see build.sh).
#define TILESCOPE_STAMPS 1
#define RUN_NAME RUN_VARIANT
#include "one.cuh"
