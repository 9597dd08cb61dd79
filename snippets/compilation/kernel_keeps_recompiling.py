"""TP029: a kernel that keeps recompiling: a size passed as `tl.constexpr`, and Triton's integer specialisation.

Run it: python kernel_keeps_recompiling.py  (without a GPU, Triton's interpreter runs it on the CPU; the
interpreter compiles nothing, so only the specialisation classes and the results show there)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def add_one_n_constexpr(x_ptr, out_ptr, n: tl.constexpr, BLOCK: tl.constexpr):  # n: one binary per value
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):  # the fix: n is a plain int argument
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@triton.jit(do_not_specialize=["n"])  # and, if even a few variants are too many: one binary for every n
def add_one_any_n(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:more-keys]
@triton.jit(do_not_specialize_on_alignment=["x_ptr"])  # one binary for aligned and misaligned x
def add_one_any_alignment(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)
# --8<-- [end:more-keys]


# --8<-- [start:launch]
BLOCK = 1024


def launch(kernel, x):
    """out = x + 1 with one of the add-one kernels."""
    n = x.numel()
    out = torch.full((n,), float("nan"), device=x.device)  # NaN until a program writes it
    kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out
# --8<-- [end:launch]


# --8<-- [start:count]
def fresh_copy(kernel):
    """The same @triton.jit kernel with its own, empty, in-memory cache."""
    return triton.jit(kernel.fn, do_not_specialize=kernel.do_not_specialize,
                      do_not_specialize_on_alignment=kernel.do_not_specialize_on_alignment)


def compiled_variants(kernel):
    """GPU only: how many binaries the kernel holds for the current GPU (Triton 3.6's cache layout)."""
    device = triton.runtime.driver.active.get_current_device()
    return len(kernel.device_caches[device][0])


def variants_after(kernel, sizes):
    """GPU only: launch a fresh copy of `kernel` once per n in `sizes`; count what it compiled."""
    kernel = fresh_copy(kernel)
    for n in sizes:
        launch(kernel, torch.zeros(n, device=DEVICE))
    return compiled_variants(kernel)


def specialization(value, specialize=True):
    """How Triton (3.6 and later) classes an argument for its cache key; runs without a GPU."""
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.runtime.jit import native_specialize_impl

    backend = CUDABackend(GPUTarget("cuda", 90, 32))  # an H100/H200-class target
    return native_specialize_impl(backend, value, False, specialize, True)
# --8<-- [end:count]


SIZES = [1000, 1001, 1002, 1003, 1008, 1024, 1]  # 1008 and 1024 are multiples of 16; 1 is special


def main():
    try:
        print("the cache-key class of each n:", {n: specialization(n) for n in SIZES + [2**31]})
        print("with do_not_specialize:", {n: specialization(n, False) for n in (1, 1000, 1008)})
    except ImportError as error:  # native_specialize_impl came with Triton 3.6
        print("no native_specialize_impl in this Triton:", error)
    x = torch.randn(1003, device=DEVICE)
    for kernel in (add_one_n_constexpr, add_one, add_one_any_n):
        print(f"{kernel.fn.__name__:20} n=1003: max |out - (x + 1)| = {(launch(kernel, x) - (x + 1)).abs().max().item()}")
    if DEVICE == "cpu":
        print("the interpreter compiles nothing: count compiled variants on a GPU")
        return
    print("n =", SIZES)
    for kernel in (add_one_n_constexpr, add_one, add_one_any_n):
        print(f"  {kernel.fn.__name__:20} compiled variants: {variants_after(kernel, SIZES)}")


if __name__ == "__main__":
    main()
