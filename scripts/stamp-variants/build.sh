#!/usr/bin/env bash
# The default GEMM (128x256, 4 stages, grouped:8, persistent) built once plainly and once per variant, each a
# translation unit of its own, linked into one program (`exp`) that times them against the plain build, alternated:
#   exp N REPS BLOCKS MASK   (N^3; the first BLOCKS blocks record the warps of MASK, hex; prints a table)
# A variant is a folder whose files stand in front of the tree on the include path (its own
# tiles/backend/device/stamp.cuh, tiles/sched/pipeline.hpp, kernels/gemm/gemm.cuh, ...); "v0" or any name without
# a folder is the tree as it is. Names starting with "p" build without stamps (a plain variant).
#   VARIANTS="v0 vOld pOld" scripts/stamp-variants/build.sh   (data/measured/h200/stamp-variants.txt used it, 2026-11-28)
# Run `exp` on a GPU machine; nvcc builds it anywhere (about 30 s here per variant).
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
out=${BUILD_DIR:-/tmp/stamp-variants}
mkdir -p "$out"
flags="-DTILESCOPE_HAVE_CUDA=1 -O3 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -std=c++20 -lineinfo"
variants=${VARIANTS:-v0}
objs=()
nvcc $flags -I. -I"$root" -c plain.cu -o "$out/plain.o" &
for v in $variants; do
  inc=""; [ -d "$v" ] && inc="-I$v"
  src=variant.cu; [ "${v:0:1}" = p ] && src=plainv.cu
  nvcc $flags -I. $inc -I"$root" -DRUN_VARIANT="run_$v" -Xptxas -warn-spills -c $src -o "$out/$v.o" 2> "$out/$v.ptxas.txt" &
  objs+=("$out/$v.o")
done
wait
{ echo "#define VARIANT_DECLS \\"; for v in $variants; do echo "  DECL(run_$v) \\"; done; echo
  echo "#define VARIANT_LIST \\"; for v in $variants; do echo "  {\"$v\", ts::kernels::run_$v}, \\"; done; echo; } > "$out/variants.h"
nvcc $flags -I. -I"$root" -include "$out/variants.h" main.cu "$out/plain.o" "${objs[@]}" -o "$out/exp"
echo "built $out/exp"
