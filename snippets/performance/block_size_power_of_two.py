"""TP009: a BLOCK_SIZE of 100 is not slow code, it is a compile error.

Run it: python block_size_power_of_two.py  (without a GPU, Triton's interpreter runs it on the CPU;
the PTX part compiles for an sm_90 GPU, an H100 or H200, on any machine)
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


# --8<-- [start:kernel]
@triton.jit
def scale_shift(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2 + 1, mask=mask)
# --8<-- [end:kernel]


# --8<-- [start:pitfall]
def scale_shift_block_100(x):
    y = torch.full_like(x, float("nan"))  # NaN until a program writes it
    scale_shift[(triton.cdiv(x.numel(), 100),)](x, y, x.numel(), BLOCK=100)  # 100: not a power of two
    return y
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def scale_shift_rows(x):
    """One program per row of a 2-D x, whatever the row length (a head dim of 100, say)."""
    n_rows, d = x.shape
    y = torch.full_like(x, float("nan"))
    block = triton.next_power_of_2(d)  # the fix: 100 -> 128, and the mask covers the 28 extra lanes
    for row in range(n_rows):
        scale_shift[(1,)](x[row], y[row], d, BLOCK=block)
    return y
# --8<-- [end:fix]


# --8<-- [start:ptx]
def global_loads(block, num_warps=4, x_aligned=True, n_multiple_of_16=True):
    """The global-load instructions in the PTX of `scale_shift` compiled for sm_90 (no GPU needed)."""
    import re

    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction

    fn = scale_shift if isinstance(scale_shift, JITFunction) else JITFunction(scale_shift.fn)
    aligned = [["tt.divisibility", 16]]  # what a launch records for a pointer or int divisible by 16
    attrs = {(1,): aligned}  # y_ptr: aligned, as torch allocations are
    if x_aligned:
        attrs[(0,)] = aligned
    if n_multiple_of_16:
        attrs[(2,)] = aligned
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    source = ASTSource(fn, signature, {"BLOCK": block}, attrs)
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps})
    return sorted(set(re.findall(r"ld\.global[.\w]*", compiled.asm["ptx"])))
# --8<-- [end:ptx]


# --8<-- [start:launch]
def launch_and_get_compiled(x, block=1024):
    """Launch scale_shift on all of x; on CUDA a launch returns the CompiledKernel (asm["ptx"], asm["sass"])."""
    y = torch.full((x.numel(),), float("nan"), device=x.device)
    return scale_shift[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), BLOCK=block)
# --8<-- [end:launch]


def main():
    # Compile for sm_90 first: once the interpreter has run a kernel, the real compiler fails in that process.
    print("ld.global in the PTX for sm_90, 4 warps:")
    for block in (128, 256, 512, 1024):
        print(f"  BLOCK={block:4d}:", global_loads(block))
    print("  BLOCK=1024, n not a multiple of 16:", global_loads(1024, n_multiple_of_16=False))
    print("  BLOCK=1024, x not 16-byte aligned:", global_loads(1024, x_aligned=False))
    try:
        scale_shift_block_100(torch.randn(1000, device=DEVICE))
    except Exception as error:
        print("BLOCK=100:", type(error).__name__, "->", str(error).strip().splitlines()[-1])
    x = torch.randn(3, 100, device=DEVICE)
    error = (scale_shift_rows(x).double() - (x.double() * 2 + 1)).abs().max().item()
    print("BLOCK=next_power_of_2(100) =", triton.next_power_of_2(100), "| max error vs float64:", error)


if __name__ == "__main__":
    main()
