"""tilescope_torch on a Hopper GPU: attention forward, log-sum-exp and gradients against PyTorch's
SDPA and an fp32 reference, the GEMM against torch.matmul, the SM clock record, and bad input.

Every test draws fresh inputs (torch.randn) from a new seed, which failures print.
Run: python3 -m pytest python/tests   (the whole module skips without PyTorch, CUDA or sm_90)
"""
import math
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="tilescope_torch needs PyTorch, which this python3 lacks")
if not torch.cuda.is_available():
    pytest.skip("tilescope_torch needs a CUDA GPU; torch.cuda.is_available() is False", allow_module_level=True)
if torch.cuda.get_device_capability() != (9, 0):
    _cap = torch.cuda.get_device_capability()
    pytest.skip(f"tilescope_torch's kernels need sm_90 (H100/H200); this is {torch.cuda.get_device_name()}, "
                f"sm_{_cap[0]}{_cap[1]}", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tilescope_torch as ts  # noqa: E402

BF16 = torch.bfloat16
# The fp32 reference must really be fp32: TF32 matmuls would put it as far off as bf16 is.
torch.set_float32_matmul_precision("highest")


@pytest.fixture(scope="module")
def ext():
    return ts.extension()  # one build for the module; a build error fails every test with it


@pytest.fixture
def seed():
    return torch.seed()  # fresh inputs each test, reproducible from the failure message


def randn(*shape, dtype=BF16, device="cuda"):
    return torch.randn(*shape, dtype=dtype, device=device)


def reference(q, k, v, causal, scale):
    """fp32 attention of the upcast inputs, and its log-sum-exp; GQA by repeating k/v heads
    (autograd then sums each group's gradients, as the kernel must)."""
    group = q.shape[1] // k.shape[1]
    q, k, v = q.float(), k.float().repeat_interleave(group, dim=1), v.float().repeat_interleave(group, dim=1)
    s = (q @ k.transpose(-1, -2)) * scale
    if causal:
        n = q.shape[2]
        keep = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, dim=-1) @ v, torch.logsumexp(s, dim=-1)


def rel_err(x, ref):
    """||x - ref|| / ||ref||, Frobenius. A reference of RMS below 1e-3 counts as 1e-3: some
    gradients are exactly zero (dq and dk when N = 1) and any rounding would be an infinite error."""
    x, ref = x.double(), ref.double()
    return ((x - ref).norm() / ref.norm().clamp_min(1e-3 * math.sqrt(ref.numel()))).item()


def check_against(name, ours, sdpa, ref, ctx, atol=2e-2, rtol=2e-2):
    """bf16 agreement with SDPA element by element, then accuracy against the fp32 reference:
    below 1e-2 relative, and no worse than twice SDPA's own error (+1e-3)."""
    torch.testing.assert_close(ours, sdpa, atol=atol, rtol=rtol, msg=lambda m: f"{name} vs SDPA bf16, {ctx}: {m}")
    e_ours, e_sdpa = rel_err(ours, ref), rel_err(sdpa, ref)
    assert e_ours < 1e-2, f"{name}: relative error {e_ours:.3e} vs the fp32 reference (limit 1e-2), {ctx}"
    assert e_ours <= 2 * e_sdpa + 1e-3, (f"{name}: relative error {e_ours:.3e} vs the fp32 reference, more than twice "
                                         f"SDPA's {e_sdpa:.3e} (+1e-3), {ctx}")


def sdpa(q, k, v, causal, scale):
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale, enable_gqa=q.shape[1] != k.shape[1])


# (B, H_q, H_kv): plain, odd head count, and grouped-query
HEADS = [(2, 3, 3), (1, 8, 2)]
SHAPES = [(b, hq, hkv, n, d, causal)
          for (b, hq, hkv) in HEADS for n in (1, 63, 128, 200, 1000) for d in (64, 128) for causal in (False, True)]


def shape_id(s):
    b, hq, hkv, n, d, causal = s
    return f"B{b}-Hq{hq}-Hkv{hkv}-N{n}-D{d}" + ("-causal" if causal else "")


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_forward_and_lse(ext, seed, shape):
    b, hq, hkv, n, d, causal = shape
    q, k, v = randn(b, hq, n, d), randn(b, hkv, n, d), randn(b, hkv, n, d)
    ctx = f"{shape_id(shape)} seed {seed}"
    o, lse = ext.attention_forward(q, k, v, causal, None)
    assert o.shape == q.shape and o.dtype == BF16 and lse.shape == (b, hq, n) and lse.dtype == torch.float32
    ref_o, ref_lse = reference(q, k, v, causal, 1 / math.sqrt(d))
    check_against("o", o, sdpa(q, k, v, causal, None), ref_o, ctx)
    torch.testing.assert_close(lse, ref_lse, atol=1e-3, rtol=1e-3, msg=lambda m: f"lse vs fp32 logsumexp, {ctx}: {m}")


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_gradients(ext, seed, shape):
    b, hq, hkv, n, d, causal = shape
    q, k, v = (randn(b, h, n, d).requires_grad_() for h in (hq, hkv, hkv))
    dout = randn(b, hq, n, d)
    ctx = f"{shape_id(shape)} seed {seed}"
    ours = torch.autograd.grad(ts.attention(q, k, v, causal=causal), (q, k, v), dout)
    theirs = torch.autograd.grad(sdpa(q, k, v, causal, None), (q, k, v), dout)
    q32, k32, v32 = (t.detach().float().requires_grad_() for t in (q, k, v))
    ref = torch.autograd.grad(reference(q32, k32, v32, causal, 1 / math.sqrt(d))[0], (q32, k32, v32), dout.float())
    for name, x, y, r in zip(("dq", "dk", "dv"), ours, theirs, ref):
        assert x.shape == r.shape and x.dtype == BF16, f"{name}: shape {tuple(x.shape)} dtype {x.dtype}, {ctx}"
        # Gradients grow with |dout| and N; keep the element-wise check relative to their scale.
        check_against(name, x, y, r, ctx, atol=2e-2 * max(1.0, r.pow(2).mean().sqrt().item()))


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_explicit_scale_and_loss_backward(ext, seed, causal):
    """A scale other than 1/sqrt(D), and loss.backward() through a reduction (whose upstream gradient
    is an expanded, non-contiguous view)."""
    b, hq, hkv, n, d, scale = 2, 4, 2, 300, 128, 0.3
    q, k, v = (randn(b, h, n, d).requires_grad_() for h in (hq, hkv, hkv))
    ctx = f"scale {scale} causal {causal} seed {seed}"
    o = ts.attention(q, k, v, causal=causal, scale=scale)
    o.sum().backward()
    q32, k32, v32 = (t.detach().float().requires_grad_() for t in (q, k, v))
    ref_o = reference(q32, k32, v32, causal, scale)[0]
    ref_o.sum().backward()
    assert rel_err(o.detach(), ref_o.detach()) < 1e-2, f"o off the reference, {ctx}"
    for name, x, r in (("dq", q.grad, q32.grad), ("dk", k.grad, k32.grad), ("dv", v.grad, v32.grad)):
        assert rel_err(x, r) < 1e-2, f"{name}: relative error {rel_err(x, r):.3e} vs the fp32 reference, {ctx}"


@pytest.mark.parametrize("backward", [False, True], ids=["fwd", "bwd"])
def test_sm_clock_record(ext, backward):
    q, k, v = randn(2, 8, 1024, 128), randn(2, 8, 1024, 128), randn(2, 8, 1024, 128)
    mhz = ext.attention_forward_sm_clock_mhz(q, k, v, False, None, backward)
    assert 100 < mhz < 3000, f"median SM clock read inside the kernel: {mhz} MHz"


def test_clock_recording(ext):
    """The bench's recording: each launch of ours while it is on (forward, or the backward through
    autograd) reads its own clock; more launches than asked for, or a stop without a start, raise."""
    q, k, v = randn(2, 8, 1024, 128), randn(2, 8, 1024, 128), randn(2, 8, 1024, 128)
    ext.clock_recording_start(q, k, v, False, False, 3)
    try:
        for _ in range(2):
            ext.attention_forward(q, k, v, False, None)
    finally:
        mhz = ext.clock_recording_stop()
    assert len(mhz) == 2 and all(100 < x < 3000 for x in mhz), f"two forwards' clocks: {mhz}"
    qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
    o = ts.attention(qg, kg, vg)
    ext.clock_recording_start(q, k, v, False, True, 1)
    try:
        o.sum().backward()  # one backward: its main kernel records
        with pytest.raises(RuntimeError, match="clock recording is full"):
            ext.attention_forward(q, k, v, False, None)
    finally:
        mhz = ext.clock_recording_stop()
    assert len(mhz) == 1 and 100 < mhz[0] < 3000, f"the backward's clock: {mhz}"
    with pytest.raises(RuntimeError, match="without clock_recording_start"):
        ext.clock_recording_stop()
    ext.attention_forward(q, k, v, False, None)  # recording off: no slot asked for


def _misaligned(shape):
    """A contiguous bf16 tensor whose data starts 2 bytes past an aligned address."""
    return torch.empty(math.prod(shape) + 1, dtype=BF16, device="cuda")[1:].view(shape).normal_()


BAD_INPUTS = {
    # name: (q, k, v) maker, what the message must say
    "D96": (lambda: (randn(1, 2, 64, 96),) * 3, r"tilescope attention"),
    "Hq-not-multiple-of-Hkv": (lambda: (randn(1, 6, 64, 64), randn(1, 4, 64, 64), randn(1, 4, 64, 64)), r"multiple"),
    "fp16": (lambda: tuple(randn(1, 2, 64, 64, dtype=torch.float16) for _ in range(3)), r"BFloat16"),
    "non-contiguous": (lambda: (randn(1, 64, 2, 64).transpose(1, 2), randn(1, 2, 64, 64), randn(1, 2, 64, 64)),
                       r"contiguous"),
    "cpu": (lambda: tuple(randn(1, 2, 64, 64, device="cpu") for _ in range(3)), r"CUDA"),
    "N-mismatch": (lambda: (randn(1, 2, 64, 64), randn(1, 2, 32, 64), randn(1, 2, 32, 64)), r"agree"),
    "3-D": (lambda: (randn(2, 64, 64),) * 3, r"4-D"),
    "misaligned": (lambda: (_misaligned((1, 2, 64, 64)), randn(1, 2, 64, 64), randn(1, 2, 64, 64)), r"aligned"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_raises(ext, case):
    make, says = BAD_INPUTS[case]
    q, k, v = make()
    with pytest.raises((RuntimeError, ValueError), match=says) as err:
        ext.attention_forward(q, k, v, False, None)
    assert "\n" not in str(err.value).strip(), f"expected a one-line message, got: {err.value}"
    with pytest.raises((RuntimeError, ValueError), match=says):  # the autograd path checks the same
        ts.attention(q, k, v)


def test_bad_scale_raises(ext):
    q = randn(1, 2, 64, 64)
    with pytest.raises(ValueError, match="scale"):
        ext.attention_forward(q, q, q, False, 0.0)


@pytest.mark.parametrize("m,n,k", [(128, 256, 64), (1000, 264, 72), (2048, 2048, 512), (4096, 4096, 4096)])
def test_gemm(ext, seed, m, n, k):
    a, b = randn(m, k), randn(k, n)
    c = ts.gemm(a, b)
    ctx = f"{m}x{n}x{k} seed {seed}"
    assert c.shape == (m, n) and c.dtype == BF16
    torch.testing.assert_close(c, torch.matmul(a, b), atol=2e-2, rtol=2e-2, msg=lambda msg: f"gemm vs torch.matmul, {ctx}: {msg}")
    err = rel_err(c, a.float() @ b.float())
    assert err < 1e-2, f"gemm: relative error {err:.3e} vs fp32 matmul, {ctx}"


def test_gemm_bad_input(ext):
    with pytest.raises((RuntimeError, ValueError), match="K"):
        ts.gemm(randn(64, 12), randn(12, 64))  # rows of 24 bytes: TMA needs 16-byte multiples
    with pytest.raises((RuntimeError, ValueError), match="M x K"):
        ts.gemm(randn(64, 64), randn(32, 64))
    with pytest.raises((RuntimeError, ValueError), match="BFloat16"):
        ts.gemm(randn(64, 64, dtype=torch.float32), randn(64, 64, dtype=torch.float32))


def fp8(*shape):
    """float8_e4m3fn values spread over [-4, 4) (subnormals included)."""
    return (torch.rand(*shape, device="cuda") * 8 - 4).to(torch.float8_e4m3fn)


@pytest.mark.parametrize("m,n,k", [(128, 256, 128), (1000, 264, 80), (2048, 2048, 512), (4096, 4096, 4096)])
def test_gemm_fp8(ext, seed, m, n, k):
    a, b_t = fp8(m, k), fp8(n, k)
    sa, sb = 0.5, 0.25
    c = ts.gemm_fp8(a, b_t, sa, sb)
    ctx = f"{m}x{n}x{k} seed {seed}"
    assert c.shape == (m, n) and c.dtype == BF16
    exact = (a.float() @ b_t.float().t()) * (sa * sb)  # products of e4m3 values are exact in fp32
    err = rel_err(c, exact)
    assert err < 3e-3, f"gemm_fp8: relative error {err:.3e} vs fp32, {ctx}"  # bf16 rounding: ~1.7e-3
    if n % 16 == 0:  # torch._scaled_mm (cuBLASLt) wants both of mat2's sides multiples of 16
        one = torch.tensor(1.0, device="cuda")
        theirs = torch._scaled_mm(a, b_t.t(), scale_a=one * sa, scale_b=one * sb, out_dtype=BF16)
        assert rel_err(c, theirs) < 4e-3, f"gemm_fp8 vs torch._scaled_mm, {ctx}"


def test_gemm_fp8_bad_input(ext):
    with pytest.raises((RuntimeError, ValueError), match="multiple of 16"):
        ts.gemm_fp8(fp8(64, 24), fp8(64, 24))
    with pytest.raises((RuntimeError, ValueError), match="N x K"):
        ts.gemm_fp8(fp8(64, 64), fp8(64, 32))
    with pytest.raises((RuntimeError, ValueError), match="Float8_e4m3fn"):
        ts.gemm_fp8(randn(64, 64), randn(64, 64))
    with pytest.raises((RuntimeError, ValueError), match="finite"):
        ts.gemm_fp8(fp8(64, 64), fp8(64, 64), float("inf"), 1.0)
