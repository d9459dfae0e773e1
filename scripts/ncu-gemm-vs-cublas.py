#!/usr/bin/env python3
# One launch each of our GEMM (tilescope_torch.gemm) and cuBLAS (torch.matmul) at SIZE^3 after 20 warm-up pairs, between
# cudaProfilerStart/Stop, for Nsight Compute: ncu --clock-control none --profile-from-start off --metrics ... \
#   python3 scripts/ncu-gemm-vs-cublas.py [SIZE]   (from the repository root on a GPU machine)
import sys, torch
sys.path.insert(0, "python")
import tilescope_torch as ts
ts.extension()
size = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
for _ in range(20): ts.gemm(a, b); a @ b
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
ts.gemm(a, b); a @ b
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
