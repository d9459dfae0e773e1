"""Builds the TileScope kernels as a PyTorch extension (JIT, cached under build-torch/).

The sources are the repository's own launchers plus ext.cpp; nothing is copied. Ninja tracks
header dependencies, so an edit to a kernel's .cuh rebuilds what uses it on the next load.
"""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = REPO / "build-torch"
NAME = "tilescope_torch_ext"

SOURCES = [
    Path(__file__).resolve().parent / "ext.cpp",
    REPO / "kernels/attention/attention_launch.cu",
    REPO / "kernels/attention/attention_config.cpp",
    REPO / "kernels/gemm/gemm_launch.cu",
    REPO / "kernels/gemm/gemm_config.cpp",
]

CUDA_FLAGS = [
    # wgmma and setmaxnreg exist only on the arch-specific sm_90a target; naming an arch here also
    # stops PyTorch from adding its own list (TORCH_CUDA_ARCH_LIST).
    "-gencode=arch=compute_90a,code=sm_90a",
    "--expt-relaxed-constexpr",
    "-std=c++20",
    "-O3",
    "-lineinfo",
    "-DTILESCOPE_HAVE_CUDA=1",
    # PyTorch defines these for every .cu it builds; they hide CUDA's own bf16/half operators and
    # conversions, which the kernels (built elsewhere with plain nvcc) may use.
    "-U__CUDA_NO_HALF_OPERATORS__",
    "-U__CUDA_NO_HALF_CONVERSIONS__",
    "-U__CUDA_NO_HALF2_OPERATORS__",
    "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
]
CXX_FLAGS = ["-std=c++20", "-O3", "-DTILESCOPE_HAVE_CUDA=1"]
# Link the shared libstdc++ that PyTorch itself uses, by file name: a compiler set up to link it
# statically (CXX on some GPU images, whose -lstdc++ finds only libstdc++.a) would put a second
# copy into the extension, half of whose symbols bind to PyTorch's copy at load time; the first
# integer formatted into an error message then crashes the process.
LD_FLAGS = ["-l:libstdc++.so.6"]


class BuildError(RuntimeError):
    pass


def check_device():
    """Raises a one-line RuntimeError unless the current CUDA device is an sm_90 (Hopper) GPU."""
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("tilescope_torch needs a CUDA GPU, and torch.cuda.is_available() is False")
    cap = torch.cuda.get_device_capability()
    if cap != (9, 0):
        name = torch.cuda.get_device_name()
        raise RuntimeError(
            f"tilescope_torch's kernels are for sm_90 (H100/H200); this GPU is {name}, sm_{cap[0]}{cap[1]}")


def load(verbose=None):
    """Builds (or reuses) the extension and returns the module."""
    check_device()
    from torch.utils import cpp_extension

    if cpp_extension.CUDA_HOME is None:
        raise BuildError("tilescope_torch: nvcc not found (set CUDA_HOME, e.g. CUDA_HOME=/usr/local/cuda)")
    missing = [str(p.relative_to(REPO)) for p in SOURCES if not p.is_file()]
    if missing:
        raise BuildError("tilescope_torch: missing source(s): " + ", ".join(missing))
    if verbose is None:
        verbose = os.environ.get("TILESCOPE_TORCH_VERBOSE", "") not in ("", "0")
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    try:
        return cpp_extension.load(
            name=NAME,
            sources=[str(p) for p in SOURCES],
            extra_include_paths=[str(REPO)],
            extra_cflags=CXX_FLAGS,
            extra_cuda_cflags=CUDA_FLAGS,
            extra_ldflags=LD_FLAGS,
            build_directory=str(BUILD_DIR),
            verbose=verbose,
        )
    except Exception as e:
        # PyTorch's message ends with the compiler output, which can be long: keep it, but say
        # first what failed and where the log is.
        raise BuildError(f"tilescope_torch: building the extension in {BUILD_DIR} failed "
                         f"(TILESCOPE_TORCH_VERBOSE=1 shows the commands): {e}") from e
