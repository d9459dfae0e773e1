"""TileScope's Hopper kernels as PyTorch ops: attention (forward and backward), a bf16 GEMM and an FP8 one.

    import tilescope_torch as ts
    o = ts.attention(q, k, v, causal=True)   # q [B, Hq, N, D], k/v [B, Hkv, N, D], bf16, CUDA
    o.sum().backward()                       # dq, dk, dv from our backward kernel
    c = ts.gemm(a, b)                        # a [M, K] @ b [K, N], bf16
    c = ts.gemm_fp8(a8, b8_t, 0.5, 2.0)      # 0.5 * 2.0 * a8 @ b8_t.T, float8_e4m3fn in, bf16 out

The extension is compiled on first use (see _build.py) and cached in the repository's build-torch/.
"""
import threading

import torch

from . import _build

__all__ = ["attention", "gemm", "gemm_fp8", "extension"]

_ext = None
_failure = None
_lock = threading.Lock()


def extension():
    """The compiled module (built on first call): attention_forward, attention_backward,
    attention_forward_sm_clock_mhz, gemm, gemm_fp8."""
    global _ext, _failure
    with _lock:
        # A failed build is not retried in the same process: each retry would run the compiler
        # again only to print the same error.
        if _failure is not None:
            raise _failure
        if _ext is None:
            try:
                _ext = _build.load()
            except Exception as e:
                _failure = e
                raise
    return _ext


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal, scale):
        o, lse = extension().attention_forward(q, k, v, causal, scale)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.causal, ctx.scale = causal, scale
        return o

    @staticmethod
    def backward(ctx, dout):
        q, k, v, o, lse = ctx.saved_tensors
        # Upstream gradients are often expanded views (the gradient of a sum is): the kernel reads
        # dout row-major, so give it a real copy.
        dq, dk, dv = extension().attention_backward(q, k, v, o, dout.contiguous(), lse, ctx.causal, ctx.scale)
        return dq, dk, dv, None, None


def attention(q, k, v, causal=False, scale=None):
    """softmax(scale * q k^T [causal mask]) v for bf16 CUDA tensors q [B, Hq, N, D] and k, v
    [B, Hkv, N, D] (Hq a multiple of Hkv, D 64 or 128), contiguous; scale defaults to 1/sqrt(D).
    Same semantics as torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
    scale=scale, enable_gqa=True). Differentiable in q, k and v."""
    return _Attention.apply(q, k, v, bool(causal), None if scale is None else float(scale))


def gemm(a, b):
    """a @ b for bf16 CUDA tensors a [M, K] and b [K, N] (row-major, K and N multiples of 8)."""
    return extension().gemm(a, b)


def gemm_fp8(a, b_t, scale_a=1.0, scale_b=1.0):
    """scale_a * scale_b * (a @ b_t.T) in bf16 for float8_e4m3fn CUDA tensors a [M, K] and b_t [N, K]
    (both row-major, K a multiple of 16, N of 8), fp32 accumulation: what
    torch._scaled_mm(a, b_t.t(), scale_a, scale_b, out_dtype=torch.bfloat16) computes, with the
    scales as Python numbers."""
    return extension().gemm_fp8(a, b_t, float(scale_a), float(scale_b))
