#!/usr/bin/env python3
"""Times TileScope's attention against PyTorch's SDPA with the cuDNN and FlashAttention-2 backends,
forward and backward, in one process on the same random inputs.

    python3 python/bench_attention.py                 # the sweep (24 rows), writes data/measured/h100/attention.json
    python3 python/bench_attention.py --quick         # 4 rows, no JSON unless --json
    python3 python/bench_attention.py --shape 2,16,4096,128,causal,hkv=4 --only bwd

Progress goes to stderr, the table (last) to stdout. Exit status 1 when a row of ours failed or was
off the reference, 2 for bad arguments or a machine that cannot run it.
"""
import argparse
import datetime
import json
import math
import statistics
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_JSON = REPO / "data/measured/h100/attention.json"
TOKENS, HEADS = 16384, 16  # the sweep: B * N = 16384 tokens, 16 heads
CHECK_LIMIT = 2e-2
WARMUPS = 3


@dataclass(frozen=True)
class Shape:
    b: int
    h: int
    hkv: int
    n: int
    d: int
    causal: bool

    def label(self):
        heads = f"H{self.h}" + (f"/{self.hkv}" if self.hkv != self.h else "")
        return f"B{self.b} {heads} N{self.n} D{self.d}" + (" causal" if self.causal else "")


@dataclass
class Row:
    group: str  # "sweep" or "user"
    pass_: str  # "fwd" or "bwd"
    shape: Shape
    ms: dict = field(default_factory=dict)  # "ours" / "cudnn" / "fa2" -> median ms, None when it did not run
    sm_clock_mhz: float = None  # the timed launches of ours: the median of their own clocks
    sm_clock_after_mhz: float = None  # one more launch of ours after them
    failed: str = None

    def label(self):
        return f"{self.pass_} {self.shape.label()}"

    def flops(self):
        s = self.shape
        fwd = 4.0 * s.b * s.h * s.n * s.n * s.d / (2 if s.causal else 1)
        return fwd * (2.5 if self.pass_ == "bwd" else 1.0)

    def tflops(self, who):
        ms = self.ms.get(who)
        return None if ms is None else self.flops() / ms / 1e9


def parse_shape(text):
    parts = [p.strip() for p in text.split(",")]
    try:
        b, h, n, d = (int(p) for p in parts[:4])
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': expected B,H,N,D[,causal][,hkv=K] with integer B, H, N, D")
    causal, hkv = False, h
    for p in parts[4:]:
        if p == "causal":
            causal = True
        elif p.startswith("hkv=") and p[4:].isdigit():
            hkv = int(p[4:])
        else:
            raise argparse.ArgumentTypeError(f"'{text}': unknown field '{p}' (expected 'causal' or 'hkv=K')")
    if min(b, h, n, d, hkv) <= 0 or h % hkv:
        raise argparse.ArgumentTypeError(f"'{text}': sizes must be positive and H a multiple of hkv")
    return Shape(b, h, hkv, n, d, causal)


def parse_args(argv):
    p = argparse.ArgumentParser(description="TileScope attention vs PyTorch SDPA (cuDNN, FlashAttention-2) on this GPU")
    p.add_argument("--quick", action="store_true", help="a few rows instead of the sweep")
    p.add_argument("--shape", action="append", type=parse_shape, default=[], metavar="B,H,N,D[,causal][,hkv=K]",
                   help="time this shape instead of the sweep (repeatable)")
    p.add_argument("--only", choices=["fwd", "bwd"], help="one pass")
    p.add_argument("--json", type=Path, help=f"write results here (default for the full sweep: {DEFAULT_JSON.relative_to(REPO)})")
    return p.parse_args(argv)


def make_rows(args):
    passes = [args.only] if args.only else ["fwd", "bwd"]
    if args.shape:
        shapes, group = args.shape, "user"
    elif args.quick:
        shapes, group = [Shape(4, HEADS, HEADS, 4096, 128, c) for c in (False, True)], "sweep"
    else:
        shapes = [Shape(TOKENS // n, HEADS, HEADS, n, d, c) for n in (1024, 4096, 16384) for d in (64, 128) for c in (False, True)]
        group = "sweep"
    return [Row(group, p, s) for s in shapes for p in passes]


def first_line(e):
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0][:200]


def clock_limits_mhz(torch):
    """(max SM clock, max memory clock) from nvidia-smi, or (None, None): PyTorch does not report them."""
    try:
        uuid = str(torch.cuda.get_device_properties(torch.cuda.current_device()).uuid)
        sel = ["-i", uuid if uuid.startswith("GPU-") else "GPU-" + uuid]
        out = subprocess.run(["nvidia-smi", *sel, "--query-gpu=clocks.max.sm,clocks.max.mem", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=30, check=True).stdout
        sm, mem = (int(float(x)) for x in out.strip().splitlines()[0].split(","))
        return sm, mem
    except Exception:
        return None, None


class Bench:
    def __init__(self, torch, ts):
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel

        self.torch, self.ts, self.ext, self.F, self.sdpa_kernel = torch, ts, ts.extension(), F, sdpa_kernel
        self.backends = {"cudnn": SDPBackend.CUDNN_ATTENTION, "fa2": SDPBackend.FLASH_ATTENTION}
        self.fallbacks = [SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]  # check only, when both are unavailable

    def sdpa(self, backend, shape):
        def run(q, k, v):
            with self.sdpa_kernel(backend):
                return self.F.scaled_dot_product_attention(q, k, v, is_causal=shape.causal, enable_gqa=shape.hkv != shape.h)
        return run

    def warm_up(self, seconds=0.3):
        # A GPU fresh from idle needs a moment of work before its clocks settle (the GEMM bench
        # saw its first row at half speed without this).
        q = self.torch.randn(4, HEADS, 4096, 128, dtype=self.torch.bfloat16, device="cuda")
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(10):
                self.ext.attention_forward(q, q, q, False, None)
            self.torch.cuda.synchronize()

    def time_interleaved(self, runners, sets, reps, clocks_of=None):
        """Median ms of each runner, run by run in turn (A B C A B C ...) so that all see the same
        clocks and power state, and with clocks_of = (q, k, v, causal, backward) the SM clock of each
        timed launch of ours (MHz, its blocks' median). Before each timed run a GPU spin keeps the
        stream busy while the host enqueues the work, so that the events bracket GPU time rather
        than Python's launch overhead."""
        torch = self.torch
        host_s = {name: 0.0 for name in runners}
        for w in range(WARMUPS):
            for name, run in runners.items():
                t0 = time.perf_counter()
                run(w % sets)
                host_s[name] = time.perf_counter() - t0  # the last warm-up's: past first-call set-up
        torch.cuda.synchronize()
        spin_cycles = int(min(max(4e9 * max(host_s.values()), 1e5), 2e7))  # twice the host time at 2 GHz
        spin = getattr(torch.cuda, "_sleep", None)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = {name: [] for name in runners}
        if clocks_of:
            self.ext.clock_recording_start(*clocks_of, reps)
        try:
            for r in range(reps):
                for name, run in runners.items():
                    if spin:
                        spin(spin_cycles)
                    start.record()
                    run(r % sets)
                    stop.record()
                    stop.synchronize()
                    times[name].append(start.elapsed_time(stop))
        finally:
            clocks = self.ext.clock_recording_stop() if clocks_of else []
        return {name: statistics.median(t) for name, t in times.items()}, clocks

    def run_row(self, row):
        torch, s, bwd = self.torch, row.shape, row.pass_ == "bwd"
        # Enough input sets that one pass over them is well past the 50 MB L2 (as the GEMM bench).
        set_bytes = 2 * s.b * s.n * s.d * (s.h + 2 * s.hkv + (2 * s.h if bwd else 0))
        sets = min(max(math.ceil(200e6 / set_bytes), 1), 8)

        def randn(h):
            return torch.randn(s.b, h, s.n, s.d, dtype=torch.bfloat16, device="cuda").requires_grad_(bwd)

        inputs = [(randn(s.h), randn(s.hkv), randn(s.hkv)) for _ in range(sets)]
        douts = [torch.randn(s.b, s.h, s.n, s.d, dtype=torch.bfloat16, device="cuda") for _ in range(sets)] if bwd else None

        forwards = {"ours": (lambda q, k, v: self.ts.attention(q, k, v, causal=s.causal)) if bwd
                    else (lambda q, k, v: self.ext.attention_forward(q, k, v, s.causal, None)[0])}
        forwards.update({name: self.sdpa(b, s) for name, b in self.backends.items()})

        runners, first = {}, {}  # name -> run(i); name -> its result on set 0, for the check
        for name, fwd in forwards.items():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # SDPA explains at length why a backend does not fit
                    if bwd:
                        outs = [fwd(*qkv) for qkv in inputs]  # graphs kept: each timed run is the backward alone

                        def run(i, outs=outs):
                            return torch.autograd.grad(outs[i], inputs[i], douts[i], retain_graph=True)
                    else:
                        def run(i, fwd=fwd):
                            return fwd(*inputs[i])
                    first[name] = run(0)
                    torch.cuda.synchronize()
                runners[name] = run
            except Exception as e:
                if name == "ours":
                    row.failed = f"ours failed: {first_line(e)}"
                    return
                print(f"  {row.label()}: {name} not available: {first_line(e)}", file=sys.stderr, flush=True)
                row.ms[name] = None

        ref_name = next((n for n in ("cudnn", "fa2") if n in first), None)
        ref = first[ref_name] if ref_name else self.fallback_reference(inputs[0], douts[0] if bwd else None, s)
        err = self.rel_err(first["ours"], ref)
        print(f"  {row.label()}: check vs {ref_name or 'SDPA fallback'}: rel. error {err:.2e}", file=sys.stderr, flush=True)
        if not err <= CHECK_LIMIT:  # also catches NaN
            row.failed = f"ours is off the reference: relative error {err:.3e} > {CHECK_LIMIT}"
            return
        del first

        torch.cuda.synchronize()
        time.sleep(0.5)  # idle, so that the power state one row leaves does not carry into the next
        reps = 30 if row.flops() > 1e12 else 50
        ms, clocks = self.time_interleaved(runners, sets, reps, clocks_of=(*inputs[0], s.causal, bwd))
        row.ms.update(ms)
        if len(clocks) != reps or not all(clocks):
            row.failed = f"the clock recording saw {len(clocks)} launches of ours for {reps} timed runs, or a launch without a clock"
            return
        row.sm_clock_mhz = statistics.median(clocks)
        row.sm_clock_after_mhz = self.ext.attention_forward_sm_clock_mhz(*inputs[0], s.causal, None, bwd)

    def fallback_reference(self, qkv, dout, s):
        for backend in self.fallbacks:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    o = self.sdpa(backend, s)(*qkv)
                    return o if dout is None else self.torch.autograd.grad(o, qkv, dout)
            except Exception:
                continue
        raise RuntimeError("no SDPA backend could compute a reference for this shape")

    def rel_err(self, ours, ref):
        """Relative Frobenius error; for the backward, the worst of dq, dk, dv."""
        if isinstance(ours, self.torch.Tensor):
            ours, ref = (ours,), (ref,)
        errs = [((x.double() - y.double()).norm() / y.double().norm().clamp_min(1e-30)).item() for x, y in zip(ours, ref)]
        return max(errs)


def rounded(x, digits=6):
    return None if x is None else float(f"{x:.{digits}g}")


def json_row(r):
    s = r.shape
    return {"group": r.group, "pass": r.pass_, "b": s.b, "h_q": s.h, "h_kv": s.hkv, "n": s.n, "d": s.d, "causal": s.causal,
            "median_ms": rounded(r.ms.get("ours")), "tflops": rounded(r.tflops("ours")),
            "cudnn_ms": rounded(r.ms.get("cudnn")), "cudnn_tflops": rounded(r.tflops("cudnn")),
            "fa2_ms": rounded(r.ms.get("fa2")), "fa2_tflops": rounded(r.tflops("fa2")),
            "sm_clock_mhz": None if not r.sm_clock_mhz else round(r.sm_clock_mhz),
            "sm_clock_after_mhz": None if not r.sm_clock_after_mhz else round(r.sm_clock_after_mhz)}


def write_json(path, header, rows):
    # One row a line, as data/measured/h100/gemm.json, so that a re-measurement diffs row by row.
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in header.items()] + ['  "rows": [']
    lines += ["    " + json.dumps(json_row(r)) + ("," if i + 1 < len(rows) else "") for i, r in enumerate(rows)]
    lines += ["  ]", "}"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def print_table(device, date, rows):
    def num(x, fmt):
        return "-" if x is None else format(x, fmt)

    def ratio(r, other):
        a, b = r.tflops("ours"), r.tflops(other)
        return None if a is None or b is None else a / b

    width = max(len(r.label()) for r in rows)
    print(f"\n{device}, {date}")
    print(f"{'row':<{width}} {'ours':>8} {'cuDNN':>8} {'FA2':>8} {'/cuDNN':>7} {'/FA2':>7} {'MHz':>6} {'after':>6}   (TFLOPS)")
    for r in rows:
        print(f"{r.label():<{width}} {num(r.tflops('ours'), '8.1f')} {num(r.tflops('cudnn'), '8.1f')} "
              f"{num(r.tflops('fa2'), '8.1f')} {num(ratio(r, 'cudnn'), '7.3f')} {num(ratio(r, 'fa2'), '7.3f')} "
              f"{num(r.sm_clock_mhz or None, '6.0f')} {num(r.sm_clock_after_mhz or None, '6.0f')}" +
              (f"   FAILED: {r.failed}" if r.failed else ""))


def main(argv=None):
    args = parse_args(argv)
    try:
        import torch
    except ImportError:
        print("bench_attention: needs PyTorch, and this python3 cannot import torch (see python/README.md)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO / "python"))
    import tilescope_torch as ts

    rows = make_rows(args)
    json_path = args.json or (DEFAULT_JSON if not (args.quick or args.shape or args.only) else None)
    try:
        bench = Bench(torch, ts)  # checks the GPU and builds the extension
    except RuntimeError as e:
        print(f"bench_attention: {e}", file=sys.stderr)
        return 2

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    bench.warm_up()
    for row in rows:
        try:
            bench.run_row(row)
        except Exception as e:  # one broken row must not cost the others
            row.failed = f"{type(e).__name__}: {first_line(e)}"
        if row.failed:
            row.ms["ours"] = None
        torch.cuda.empty_cache()
        print(f"{row.label():<30} ours {row.ms.get('ours') or float('nan'):8.3f} ms {row.tflops('ours') or float('nan'):7.1f} TFLOPS"
              f" | cuDNN {row.tflops('cudnn') or float('nan'):7.1f} | FA2 {row.tflops('fa2') or float('nan'):7.1f}"
              f" | {row.sm_clock_mhz or 0:5.0f} MHz" + (f" | FAILED: {row.failed}" if row.failed else ""),
              file=sys.stderr, flush=True)

    if json_path:
        sm_max, mem_max = clock_limits_mhz(torch)
        header = {
            "kernel": "attention",
            "device": props.name,
            "date": date,
            "sm_count": props.multi_processor_count,
            "sm_clock_max_mhz": sm_max,
            "mem_clock_max_mhz": mem_max,
            "reference": f"PyTorch {torch.__version__} scaled_dot_product_attention, bf16: the cuDNN backend "
                         f"(cuDNN {torch.backends.cudnn.version()}) and the FlashAttention-2 backend (SDPBackend.FLASH_ATTENTION), "
                         "same process, same inputs",
            "method": "median of timed runs (CUDA events) after 3 warm-ups, ours, cuDNN and FA2 alternating run by run on "
                      "the same inputs, input sets rotated past the L2, a GPU spin before each timed run so that host launch "
                      "overhead is not timed, 0.3 s of our forward before the first row, 0.5 s idle before each row; "
                      "fwd: one forward call on inputs without grad (ours: attention_forward; theirs: "
                      "F.scaled_dot_product_attention under sdpa_kernel(backend)); bwd: the backward alone, "
                      "torch.autograd.grad(out, (q, k, v), dout, retain_graph=True) on a graph built once, for all three; "
                      "FLOPs 4 B H N^2 D (halved when causal), backward 2.5 times that; "
                      "sm_clock_mhz: each timed launch of ours (the backward's main kernel for bwd rows) has its blocks "
                      "time themselves (clock64 cycles over global-timer ns), median over blocks, then over the timed "
                      "launches; sm_clock_after_mhz: the same from one more launch right after the timed runs (the "
                      "reading before 2026-12-07)",
        }
        write_json(json_path, header, rows)
        print(f"wrote {json_path}", file=sys.stderr)

    print_table(props.name, date, rows)
    return 1 if any(r.failed for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
