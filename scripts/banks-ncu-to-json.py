#!/usr/bin/env python3
"""Joins the patterns and Nsight Compute's CSV of one scripts/measure-banks run into the measured
bank file that tests/test_banks_measured.cpp checks sim/banks against.

    scripts/banks-ncu-to-json.py OUT_DIR [data/measured/h100/banks.json] [--date YYYY-MM-DD]

OUT_DIR holds what measure-banks wrote: patterns.txt, ncu-raw.csv (one row per launch, in launch
order), ncu-control.csv (launches with no shared instruction) and env.txt. Rows are joined in launch
order; each row's kernel (one_access<OP>) must be the pattern's op, or the join stops.

Per pattern it records:
  wavefronts          the instruction's wavefronts: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
                      + ..._op_st.sum (a load counts only in op_ld, a store only in op_st)
  ncu_bank_conflicts  l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
  ideal_wavefronts    the op's nominal ideal: 1 (32-bit, ldmatrix.x1), 2 (64-bit, .x2), 4 (128-bit, .x4)
  conflicts           wavefronts - ideal_wavefronts (negative where paired lanes make a 64/128-bit
                      load cheaper than its nominal ideal; ncu_bank_conflicts is then measured
                      against the merged phases instead, and is what sim/banks reports)
  wavefronts_sum      l1tex__data_pipe_lsu_wavefronts_mem_shared.sum: the instruction's wavefronts plus
                      the one wavefront (op_misc) that every launch counts, with or without a shared
                      instruction (see control)
"""
import csv
import json
import re
import sys
from pathlib import Path

OPS = ["ld32", "ld64", "ld128", "st32", "st64", "st128", "ldsm1", "ldsm2", "ldsm4", "ldsm4t", "stsm4", "none"]
IDEAL = {"ld32": 1, "ld64": 2, "ld128": 4, "st32": 1, "st64": 2, "st128": 4,
         "ldsm1": 1, "ldsm2": 2, "ldsm4": 4, "ldsm4t": 4, "stsm4": 4}
WF = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
BC = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared"


def read_ncu(path):
    rows = list(csv.reader(open(path)))
    if not rows:
        sys.exit(f"{path}: empty")
    head = rows[0]
    col = {h: i for i, h in enumerate(head)}
    out = []
    for r in rows:
        if not r or not r[0].strip().isdigit():
            continue  # repeated header and unit lines between chunks
        m = re.search(r"one_access(?:<|ILi)(\d+)", r[col["Kernel Name"]])
        rec = {"op": OPS[int(m.group(1))] if m else None, "device": r[col["Device"]] if "Device" in col else None}
        for h, i in col.items():
            if h.endswith(".sum"):
                rec[h[:-4]] = int(float(r[i].replace(",", ""))) if r[i].strip() else None
        out.append(rec)
    return out


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    date = "2026-11-22"
    for a in argv[1:]:
        if a.startswith("--date="):
            date = a.split("=", 1)[1]
    if not args:
        sys.exit(__doc__)
    src = Path(args[0])
    dst = Path(args[1]) if len(args) > 1 else Path("data/measured/h100/banks.json")
    patterns = [line.split() for line in open(src / "patterns.txt") if line.strip()]
    env = (src / "env.txt").read_text()
    m = re.search(r"measured: first=(\d+) count=(\d+)", env)
    first, count = (int(m.group(1)), int(m.group(2))) if m else (0, len(patterns))
    patterns = patterns[first:first + count]
    rows = read_ncu(src / "ncu-raw.csv")
    if len(rows) != len(patterns):
        sys.exit(f"{len(rows)} ncu rows for {len(patterns)} patterns: cannot join")
    control = read_ncu(src / "ncu-control.csv") if (src / "ncu-control.csv").exists() else []

    gpu = re.search(r"^(NVIDIA [^,]+), ([\d.]+), (\d+) MHz, (\d+) MHz, ([\d.]+)$", env, re.M)
    nvcc = re.search(r"release ([\d.]+), (V[\d.]+)", env)
    ncu = re.search(r"^Version (\S+)", env, re.M)
    metrics = re.search(r"^metrics: (.+)$", env, re.M).group(1)
    measured_on = re.search(r"^date_utc: (\S+)", env, re.M)

    out_rows = []
    for p, r in zip(patterns, rows):
        op, offs = p[0], [int(x) for x in p[1:]]
        if r["op"] != op:
            sys.exit(f"launch order broken: pattern {op} met kernel {r['op']}")
        for k in ("smsp__inst_executed_op_ldsm", "sm__inst_executed_op_shared_stsm"):
            want = 1 if (k.endswith("ldsm") and op.startswith("ldsm")) or (k.endswith("stsm") and op == "stsm4") else 0
            if r.get(k) is not None and r[k] != want:
                sys.exit(f"{op}: {k} = {r[k]}, expected {want}")
        wf = r[f"{WF}_op_ld"] + r[f"{WF}_op_st"]
        out_rows.append({
            "op": op,
            "offsets": offs,
            "wavefronts": wf,
            "ncu_bank_conflicts": r[BC],
            "ideal_wavefronts": IDEAL[op],
            "conflicts": wf - IDEAL[op],
            "wavefronts_sum": r[WF],
        })

    doc = {
        "what": "Shared-memory wavefronts and bank conflicts of one warp executing one shared instruction, "
                "lane i at byte offset offsets[i], as Nsight Compute counts them; checked against sim/banks "
                "by tests/test_banks_measured.cpp",
        "device": gpu.group(1) if gpu else None,
        "compute_capability": gpu.group(5) if gpu else None,
        "driver": gpu.group(2) if gpu else None,
        "sm_clock_mhz_at_start": int(gpu.group(3)) if gpu else None,
        "nvcc": f"{nvcc.group(1)} {nvcc.group(2)}" if nvcc else None,
        "ncu": ncu.group(1) if ncu else None,
        "date": date,
        "measured_utc": measured_on.group(1) if measured_on else None,
        "command": "OUT=out/banks scripts/measure-banks && scripts/banks-ncu-to-json.py out/banks "
                   "data/measured/h100/banks.json",
        "ncu_command": f"ncu --clock-control none --cache-control none --csv --page raw --metrics {metrics} "
                       "smem_banks_probe PATTERNS (probe: kernels/probes/smem_banks_probe.cu built with "
                       "nvcc -gencode=arch=compute_90a,code=sm_90a -O2; patterns: scripts/bank-patterns.py)",
        "fields": {
            "wavefronts": f"{WF}_op_ld.sum + {WF}_op_st.sum: the instruction's own wavefronts",
            "ncu_bank_conflicts": f"{BC}.sum",
            "ideal_wavefronts": "the op's nominal ideal: 1 (32-bit, ldmatrix.x1), 2 (64-bit, x2), 4 (128-bit, x4)",
            "conflicts": "wavefronts - ideal_wavefronts; negative for 64/128-bit loads whose lanes share addresses "
                         "in pairs (i^1 or i^2), where the hardware merges phases. ncu_bank_conflicts counts "
                         "against the merged phases (ideal 1 for such a 64-bit load, 2 for a 128-bit one) and "
                         "never goes negative; sim/banks reports that one as 'conflicts'",
            "wavefronts_sum": f"{WF}.sum: also counts one op_misc wavefront that every launch has",
        },
        "control": {
            "what": "launches of the probe's kernel that executes no shared instruction",
            "wavefronts_sum": [c[WF] for c in control],
            "wavefronts_op_misc": [c.get(f"{WF}_op_misc") for c in control],
        },
        "patterns": out_rows,
    }
    dst.parent.mkdir(parents=True, exist_ok=True)
    # One pattern per line: the file diffs line by line when re-measured.
    text = json.dumps({k: v for k, v in doc.items() if k != "patterns"}, indent=2)[:-2]
    text += ',\n  "patterns": [\n' + ",\n".join("    " + json.dumps(r) for r in out_rows) + "\n  ]\n}\n"
    json.loads(text)
    dst.write_text(text)
    # The evidence beside it: ncu's rows cut to the .sum columns (in launch order, the header once),
    # the run's environment, and the probe's SASS (one shared instruction per kernel).
    stem = dst.with_suffix("")
    for name, path in (("ncu-raw.csv", f"{stem}-ncu.csv"), ("ncu-control.csv", f"{stem}-ncu-control.csv")):
        if not (src / name).exists():
            continue
        rows = [r for r in csv.reader(open(src / name)) if r]
        keep = [i for i, h in enumerate(rows[0]) if h in ("ID", "Kernel Name") or h.endswith(".sum")]
        with open(path, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow([rows[0][i] for i in keep])
            for r in rows[1:]:
                if r[0].strip().isdigit():
                    w.writerow([r[i] for i in keep])
    Path(f"{stem}-env.txt").write_text(env)
    if (src / "probe-sass.txt").exists():
        Path(f"{stem}-probe-sass.txt").write_text((src / "probe-sass.txt").read_text())
    print(f"{dst}: {len(out_rows)} patterns from {src} ({doc['device']}, {date})")


if __name__ == "__main__":
    main(sys.argv)
