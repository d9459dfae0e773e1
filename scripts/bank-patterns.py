#!/usr/bin/env python3
"""Writes the access patterns that calibrate sim/banks against Nsight Compute on a real GPU.

One line per pattern: "op o0 ... o31" (byte offsets). Deterministic (fixed seed), so the
measured file data/measured/h100/banks.json can be regenerated and compared line by line.
"""
import random
import sys

WIDTH = {"ld32": 4, "ld64": 8, "ld128": 16, "st32": 4, "st64": 8, "st128": 16,
         "ldsm1": 16, "ldsm2": 16, "ldsm4": 16, "ldsm4t": 16, "stsm4": 16}


def swz128(o):
    return o ^ (((o >> 7) & 7) << 4)


def patterns():
    rng = random.Random(20261122)
    out = []
    for op, w in WIDTH.items():
        # The reference cases and plain strides, in units of the access width and of words.
        for stride_words in [0, 1, 2, 3, 4, 5, 8, 16, 17, 32, 33]:
            out.append((op, [(i * stride_words * 4) // w * w for i in range(32)]))
        for stride in [w, 2 * w, 4 * w, 8 * w, 128, 144, 256, 1024]:
            out.append((op, [i * stride for i in range(32)]))
        # ldmatrix-style rows: lane i -> row (i mod 16), column half (i div 16), several pitches.
        for pitch in [64, 128, 144, 256, 272]:
            plain = [(i % 16) * pitch + (i // 16) * 16 for i in range(32)]
            out.append((op, [o // w * w for o in plain]))
        out.append((op, [swz128((i % 16) * 128 + (i // 16) * 16) // w * w for i in range(32)]))
        # Broadcasts: everyone on one address; pairs and quads on one address; half-warps mirrored.
        out.append((op, [64] * 32))
        out.append((op, [(i // 2) * w for i in range(32)]))
        out.append((op, [(i // 4) * 128 for i in range(32)]))
        out.append((op, [(i % 16) * w for i in range(32)]))
        out.append((op, [(i % 8) * w for i in range(32)]))
        out.append((op, [(i % 16) * 128 for i in range(32)]))
        out.append((op, [(i % 8) * 128 for i in range(32)]))
        out.append((op, [(i % 4) * 256 + (i // 16) * 16 for i in range(32)]))
        out.append((op, [0 if i < 16 else 4096 for i in range(32)]))
        out.append((op, [i * w if i < 16 else (i - 16) * w + 128 for i in range(32)]))
        # Random offsets over small and large windows.
        for window in [128, 256, 512, 1024, 4096, 32768]:
            for _ in range(4):
                out.append((op, [rng.randrange(0, window // w) * w for _ in range(32)]))
        # Random permutations of a conflict-free contiguous block, and random rows of a 128B-pitch tile.
        for _ in range(3):
            perm = list(range(32))
            rng.shuffle(perm)
            out.append((op, [p * w for p in perm]))
            out.append((op, [rng.randrange(0, 64) * 128 + rng.randrange(0, 128 // w) * w for _ in range(32)]))
    return out + targeted() + paired()


def targeted():
    """Patterns that tell candidate rules apart (appended, so the list above keeps its order).

    Lanes sharing addresses in groups (Tn == Tn^1, Tn^2, ...), phases that repeat or overlap each
    other, phases with different conflict degrees, lanes that ldmatrix.x1/x2 ignore, and random
    patterns drawn from a few distinct addresses.
    """
    rng = random.Random(20261123)
    out = []
    for op, w in WIDTH.items():
        def add(offs):
            out.append((op, [o // w * w for o in offs]))
        # Groups of k consecutive lanes on one address, groups contiguous.
        for k in [4, 8, 16]:
            add([(i // k) * w for i in range(32)])
        # Lanes i and i^2 share (pairs not adjacent); lanes i and i^8; lanes i and i^16 shifted.
        add([((i // 4) * 2 + (i % 2)) * w for i in range(32)])
        add([((i // 16) * 8 + (i % 8)) * w for i in range(32)])
        add([(i % 16) * w + 4096 * (i // 16) for i in range(32)])
        # Second half-warp (or quarter) overlapping the first by half, or offset by 64/256 bytes.
        add([i * w if i < 16 else (i - 8) * w for i in range(32)])
        add([i * w if i < 16 else (i - 16) * w + 64 for i in range(32)])
        add([i * w if i < 16 else (i - 16) * w + 256 for i in range(32)])
        add([(i % 8) * w + (i // 8) * 64 for i in range(32)])
        add([(i % 4) * w + (i // 8) * 128 for i in range(32)])
        add([(i % 8) * w if i < 8 else i * w for i in range(32)])
        # Each phase of 8 lanes covering one 128-byte row, the rows conflicting or not.
        add([(i % 8) * 16 + (i // 8) * 128 for i in range(32)])
        add([(i % 8) * 16 + (i // 8) * 144 for i in range(32)])
        add([(i % 8) * 16 + (i // 16) * 128 for i in range(32)])
        # Different conflict degrees per phase (quarter q: rows of pitch 128, q+1 distinct rows).
        add([((i % 8) % (i // 8 + 1)) * 128 for i in range(32)])
        add([(i % (1 + (i // 8) * 2)) * 128 for i in range(32)])
        add([((i % 16) % (1 + (i // 16) * 3)) * 128 + (i % 2) * 16 for i in range(32)])
        # Only one lane conflicting, in the first or in the last phase.
        add([128 * 8 if i == 1 else i * w for i in range(32)])
        add([128 * 8 + 31 * w if i == 30 else i * w for i in range(32)])
        # Two words of one lane's 64/128-bit access in the same bank as another lane's word.
        add([i * w + (128 if i % 2 else 0) for i in range(32)])
        add([(i * w * 2) % 512 for i in range(32)])
        add([(i * 40) for i in range(32)])
        add([(i * 24) for i in range(32)])
        add([(i * 48) for i in range(32)])
        add([(i * 80) for i in range(32)])
        # ldmatrix.x1/x2 ignore lanes past 8/16: here they collide, if anything reads them.
        add([i * 16 if i < 8 else 4096 + (i % 4) * 1024 for i in range(32)])
        add([i * 16 if i < 16 else 8192 + (i % 8) * 512 for i in range(32)])
        # Random lanes over a few distinct addresses (broadcast and multicast).
        for distinct in [2, 3, 4, 8, 16]:
            for window in [256, 2048]:
                pool = [rng.randrange(0, window // w) * w for _ in range(distinct)]
                add([rng.choice(pool) for _ in range(32)])
        # Random offsets where each phase keeps within one 128-byte row or two.
        for _ in range(3):
            add([rng.randrange(0, 2) * 128 * rng.randrange(1, 9) + rng.randrange(0, 128 // w) * w for _ in range(32)])
        # Random multiples of 128 bytes plus a random small column: heavy conflicts.
        for _ in range(3):
            add([rng.randrange(0, 32) * 128 + rng.randrange(0, 2) * w for _ in range(32)])
    return out


def paired():
    """Round 2, after the first measurement: 64- and 128-bit loads whose lanes share addresses in
    pairs measured fewer wavefronts than phases of 16 / 8 lanes allow. These patterns pin the rule
    down: which pairings count (lane i with i^1, i^2, i^3, i^4, i^8, i^16), whether the whole warp
    must be paired, how the merged phases are grouped, and conflicts inside merged phases. Every
    op gets them, so stores and ldmatrix show whether they behave the same.
    """
    rng = random.Random(20261124)
    out = []
    pairings = {  # lane -> index into 16 pair addresses
        "x1": lambda l: l // 2,
        "x2": lambda l: (l // 4) * 2 + l % 2,
        "x3": lambda l: (l // 4) * 2 + (0 if l % 4 in (0, 3) else 1),
        "x4": lambda l: (l // 8) * 4 + l % 4,
        "x8": lambda l: (l // 16) * 8 + l % 8,
        "x16": lambda l: l % 16,
    }
    for op, w in WIDTH.items():
        def add(offs):
            assert len(offs) == 32
            out.append((op, [o // w * w for o in offs]))
        u = max(w, 8)  # a pair's address unit: the access width (ldmatrix rows: 16 bytes)
        sets = {
            "contiguous": [p * u for p in range(16)],
            # Pairs 0-3 and 8-11 on row 0, pairs 4-7 and 12-15 on row 1 of a 128-byte pitch: tells
            # quarters (0,1)+(2,3) from (0,2)+(1,3) when merged.
            "rows": [(p % 4) * u + (128 if (p // 4) % 2 else 0) + (4 * u if p >= 8 else 0) for p in range(16)],
            # A 2-way conflict in the first half of the pairs and another in the second half.
            "two2way": [0, 256] + [p * u for p in range(2, 15)] + [14 * u + 256],
            # One 4-way conflict among the pairs.
            "fourway": [p * 128 if p < 4 else (p % 16) * u + 1024 for p in range(16)],
        }
        for pname in ["x1", "x2", "x3", "x4", "x8", "x16"]:
            f = pairings[pname]
            for sname, a in sets.items():
                if pname in ("x3", "x8", "x16") and sname in ("two2way", "fourway"):
                    continue
                add([a[f(l)] for l in range(32)])
        for pname in ["x1", "x2"]:
            f = pairings[pname]
            for window in [256, 1024, 4096]:
                for _ in range(2):
                    a = [rng.randrange(0, window // u) * u for _ in range(16)]
                    add([a[f(l)] for l in range(32)])
        # Only part of the warp paired: the first half, the first three quarters, all but one lane.
        a = sets["contiguous"]
        add([a[l // 2] if l < 16 else 512 + (l - 16) * w for l in range(32)])
        add([a[l // 2] if l < 24 else 512 + (l - 24) * w for l in range(32)])
        add([a[l // 2] if l < 31 else 31 * u + 2048 for l in range(32)])
        # Half 0 paired as i^1, half 1 paired as i^2.
        add([a[l // 2] if l < 16 else a[(l // 4) * 2 + l % 2] for l in range(32)])
        # Quads (i^1 and i^2) with conflicts, and octets.
        for _ in range(2):
            b = [rng.randrange(0, 2048 // u) * u for _ in range(8)]
            add([b[l // 4] for l in range(32)])
        add([(l // 8) * 128 for l in range(32)])
        add([(l // 8) * 128 * 2 + (l // 4 % 2) * u for l in range(32)])
    return out


def main():
    for op, offs in patterns():
        assert all(o % WIDTH[op] == 0 and o + 16 <= 48 * 1024 for o in offs), (op, offs)
        print(op, " ".join(map(str, offs)))


if __name__ == "__main__":
    sys.exit(main())
