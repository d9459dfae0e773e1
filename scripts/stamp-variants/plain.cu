// scripts/stamp-variants: one GEMM instance per build (see build.sh).
#define RUN_NAME run_plain
#include "one.cuh"
