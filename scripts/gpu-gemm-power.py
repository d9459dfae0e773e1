#!/usr/bin/env python3
# Usage, on a GPU machine from the repository root: python3 scripts/gpu-gemm-power.py (builds the PyTorch extension on first use).
# Ours (tilescope_torch.gemm, the default configuration) and cuBLAS (torch.matmul) back to back in
# alternating phases, nvidia-smi sampling the SM clock and power: the clock each runs at when the
# power limit holds it, and TFLOPS per MHz.
import subprocess, sys, time, statistics, datetime
import torch
sys.path.insert(0, "python")
import tilescope_torch as ts
t_build = time.time(); ts.extension(); print(f"extension ready in {time.time() - t_build:.0f} s", flush=True)
smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw", "--format=csv,noheader,nounits", "-lms", "50"],
                       stdout=subprocess.PIPE, text=True)
phases = []
def phase(name, fn, flops, secs):
    torch.cuda.synchronize()
    t0 = time.time(); n = 0
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    while time.time() - t0 < secs:
        for _ in range(8): fn()
        n += 8
        torch.cuda.synchronize()
    e.record(); torch.cuda.synchronize()
    ms = s.elapsed_time(e)
    phases.append((name, t0, time.time(), flops * n / (ms * 1e-3) / 1e12))
for size in (8192, 4096):
    a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    flops = 2.0 * size ** 3
    ref = a.float() @ b.float(); err = ((ts.gemm(a, b).float() - ref).norm() / ref.norm()).item()
    print(f"{size}: ours vs fp32 reference, relative error {err:.2e}", flush=True)
    phase("warm", lambda: a @ b, flops, 2)
    for r in range(2):
        phase(f"ours {size}", lambda: ts.gemm(a, b), flops, 4)
        phase(f"cublas {size}", lambda: a @ b, flops, 4)
time.sleep(0.3); smi.terminate(); out = smi.communicate()[0]
samples = []
for line in out.splitlines():
    try:
        ts_, clk, pw = [x.strip() for x in line.split(",")]
        t = datetime.datetime.strptime(ts_, "%Y/%m/%d %H:%M:%S.%f").timestamp()
        samples.append((t, float(clk), float(pw)))
    except Exception:
        pass
print(f"{'phase':<14} {'TFLOPS':>8} {'SM MHz':>7} {'W':>6} {'TFLOPS/GHz':>11}  samples")
for name, t0, t1, tf in phases:
    if name == "warm": continue
    span = t1 - t0
    mid = [(c, p) for t, c, p in samples if t0 + 0.25 * span <= t <= t1 - 0.1 * span]
    if not mid: print(name, "no samples"); continue
    c = statistics.median(x for x, _ in mid); p = statistics.median(y for _, y in mid)
    print(f"{name:<14} {tf:8.1f} {c:7.0f} {p:6.0f} {tf / c * 1000:11.1f}  {len(mid)}")
