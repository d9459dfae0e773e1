"""The producer's TMA loads of a GEMM timeline (Chrome trace, simulated or measured: warp 8's tma_load spans), read
as a stream so that a file of gigabytes is fine. Shared by scripts/l2-replay and scripts/tile-speed-by-sm."""
import collections, re

_EVENT = re.compile(r'\{[^{}]*"name":"tma_load"[^{}]*\{[^{}]*\}[^{}]*\}')


def producer_loads(path, warp=8):
    """Per block, the start times (us) of its producer's loads, in file order; and each block's SM."""
    loads, sm_of = collections.defaultdict(list), {}
    tid = re.compile(r'"tid":\s*%d\b' % warp)
    with open(path) as f:
        tail = ""
        while chunk := f.read(1 << 24):
            text, last = tail + chunk, 0
            for m in _EVENT.finditer(text):
                e, last = m.group(0), m.end()
                if not tid.search(e):
                    continue
                b = int(re.search(r'"block":\s*(\d+)', e).group(1))
                loads[b].append(float(re.search(r'"ts":\s*([0-9.eE+-]+)', e).group(1)))
                sm_of[b] = int(re.search(r'"pid":\s*(\d+)', e).group(1))
            tail = text[last:][-4096:] if last else text[-4096:]
    return loads, sm_of


def tile_position(i, order, tm, tn):
    """Row and column of the i-th tile of a tm x tn grid of tiles in a block order: "row", "col" or "grouped:G" (bands
    of G tile rows walked column by column, the last band possibly shorter), as kernels/gemm's block orders place them."""
    if order == "row":
        return i // tn, i % tn
    if order == "col":
        return i % tm, i // tm
    g = int(order.split(":")[1])
    band, j = i // (g * tn), i % (g * tn)
    rows = min(g, tm - band * g)
    return band * g + j % rows, j // rows
