#!/usr/bin/env python3
"""Joins gemm_once's launch lines with Nsight Compute's rows (scripts/measure-gemm-dram) into the
measured DRAM traffic of our GEMM that the simulator's L2/HBM model is checked against.

    scripts/gemm-dram-to-json.py OUT_DIR [DEST (default data/measured/h100/gemm_dram.json)]
    scripts/gemm-dram-to-json.py --merge DEST RUN.json...

The second form joins files of the first form from several runs: every row keeps its run number,
"runs" lists each run's date, command and commit, and "summary" gives, per configuration, the
mean, min and max bytes over the runs (the spread between runs is the measurement's noise).

OUT_DIR holds dram-env.txt, gemm-once.txt (one "launch I key=value ..." line per launch, in launch
order) and ncu-dram.csv (ncu --csv --page raw --print-units base, one row per profiled launch).
Rows are joined in launch order; the counts must match or nothing is written.
"""
import csv
import json
import re
import sys
from pathlib import Path


def number(text):
    return float(text.replace(",", "")) if text.strip() else None


def read_ncu(path):
    rows = list(csv.reader(open(path)))
    head = next((r for r in rows if "dram__bytes_read.sum" in r), None)
    if head is None:
        sys.exit(f"{path}: no dram__bytes_read.sum column (did ncu run?)")
    col = {h: i for i, h in enumerate(head)}
    out = []
    for r in rows:
        if len(r) != len(head) or not r[0].strip().isdigit():
            continue  # header, units line, ncu's own messages
        out.append({"kernel": r[col["Kernel Name"]], "device": r[col["Device"]] if "Device" in col else None,
                    "dram_bytes_read": int(number(r[col["dram__bytes_read.sum"]])),
                    "dram_bytes_write": int(number(r[col["dram__bytes_write.sum"]])),
                    "gpu_time_ns": number(r[col["gpu__time_duration.sum"]]) if "gpu__time_duration.sum" in col else None})
    return out


CONFIG_KEYS = ("m", "n", "k", "order", "group_size", "persistent", "stages", "block_n", "b_row_major", "out")


def merge(dst, sources):
    docs = [json.load(open(p)) for p in sources]
    devices = {d["device"] for d in docs}
    if len(devices) != 1:
        sys.exit(f"runs on different devices: {sorted(devices)}")
    merged = {k: docs[0][k] for k in ("kernel", "device", "driver", "ncu", "metrics", "method")}
    merged["runs"] = [{"run": i + 1, "date_utc": d["date_utc"], "command": d["command"], "commit": d["commit"]}
                      for i, d in enumerate(docs)]
    merged["rows"] = [dict(r, run=i + 1) for i, d in enumerate(docs) for r in d["rows"]]
    summary = {}
    for r in merged["rows"]:
        key = tuple(r[k] for k in CONFIG_KEYS)
        summary.setdefault(key, []).append(r)
    merged["summary"] = []
    for key, rows in summary.items():
        entry = dict(zip(CONFIG_KEYS, key))
        for metric in ("dram_bytes_read", "dram_bytes_write"):
            values = [r[metric] for r in rows]
            entry[metric + "_mean"] = round(sum(values) / len(values))
            entry[metric + "_min"], entry[metric + "_max"] = min(values), max(values)
        entry["runs"] = len(rows)
        merged["summary"].append(entry)
    Path(dst).write_text(json.dumps(merged, indent=2) + "\n")
    print(f"{'order':<10} {'group':>5} {'persistent':>10} {'runs':>4} {'read GB mean':>12} {'min':>7} {'max':>7}")
    for e in merged["summary"]:
        print(f"{e['order']:<10} {e['group_size']:>5} {str(e['persistent']):>10} {e['runs']:>4} "
              f"{e['dram_bytes_read_mean'] / 1e9:12.2f} {e['dram_bytes_read_min'] / 1e9:7.2f} {e['dram_bytes_read_max'] / 1e9:7.2f}")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    if argv[1] == "--merge":
        if len(argv) < 4:
            sys.exit(__doc__)
        return merge(argv[2], argv[3:])
    src = Path(argv[1])
    dst = Path(argv[2]) if len(argv) > 2 else Path("data/measured/h100/gemm_dram.json")
    launches = []
    for line in open(src / "gemm-once.txt"):
        if line.startswith("launch "):
            fields = dict(kv.split("=", 1) for kv in line.split()[2:])
            launches.append(fields)
    rows = read_ncu(src / "ncu-dram.csv")
    if len(rows) != len(launches):
        sys.exit(f"{len(rows)} ncu rows for {len(launches)} launches: cannot join")
    env = (src / "dram-env.txt").read_text()
    gpu = re.search(r"^(NVIDIA [^,]+), ([\d.]+), (\d+) MHz, (\d+) MHz, (\d+) MHz$", env, re.M)
    date = re.search(r"^date_utc: (\S+)", env, re.M).group(1)
    command = re.search(r"^command: (.+)$", env, re.M).group(1)
    ncu = re.search(r"^Version (\S+)", env, re.M)
    commit = re.search(r"^commit: (.+)$", env, re.M)
    out_rows = []
    for fields, row in zip(launches, rows):
        m, n, k = int(fields["m"]), int(fields["n"]), int(fields["k"])
        out_rows.append({
            "m": m, "n": n, "k": k,
            "order": fields["order"], "group_size": int(fields["group"]),
            "persistent": fields["persistent"] == "1", "stages": int(fields["stages"]),
            "block_m": 128, "block_n": int(fields["block_n"]), "block_k": 64,
            "b_row_major": fields["b_row_major"] == "1", "out": fields["out"],
            "dram_bytes_read": row["dram_bytes_read"], "dram_bytes_write": row["dram_bytes_write"],
            "gpu_time_ns_under_ncu": row["gpu_time_ns"],
            # The least any order can move: A and B read once, C written once (bf16).
            "compulsory_bytes_read": 2 * (m * k + k * n),
            "compulsory_bytes_write": (2 if fields["out"] == "bf16" else 4) * m * n,
            "kernel": row["kernel"],
        })
    doc = {
        "kernel": "gemm",
        "device": gpu.group(1) if gpu else rows[0]["device"],
        "driver": gpu.group(2) if gpu else None,
        "date_utc": date,
        "command": command,
        "ncu": ncu.group(1) if ncu else None,
        "commit": commit.group(1) if commit else None,
        "metrics": ["dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"],
        "method": "Nsight Compute, one profiled launch per configuration (kernels/calibrate/gemm_once, fresh random "
                  "bf16 inputs), --clock-control none, default --cache-control all (L2 flushed before the launch); "
                  "scripts/measure-gemm-dram",
        "rows": out_rows,
    }
    dst.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"{'order':<10} {'group':>5} {'persistent':>10} {'read GB':>9} {'write GB':>9} {'read/compulsory':>16}")
    for r in out_rows:
        print(f"{r['order']:<10} {r['group_size']:>5} {str(r['persistent']):>10} {r['dram_bytes_read'] / 1e9:9.2f} "
              f"{r['dram_bytes_write'] / 1e9:9.2f} {r['dram_bytes_read'] / r['compulsory_bytes_read']:16.2f}")


if __name__ == "__main__":
    main(sys.argv)
