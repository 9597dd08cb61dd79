"""TP072: module 'triton.language' has no attribute 'gather': code written for a newer Triton.

Run it: python api_from_a_newer_triton.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
def permute_gather(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    """out[i] = x[idx[i]] within one block, with tl.gather (added in Triton 3.3)."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    idx = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(x, idx, 0))
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def permute_load(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    """The same result on any release: gather straight from memory."""
    offs = tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.load(x_ptr + idx))


def choose_permute():
    """The fix: choose a kernel in Python, once; a tl.constexpr `if` inside one kernel does not hide the name."""
    return permute_gather if hasattr(tl, "gather") else permute_load
# --8<-- [end:fix]


# --8<-- [start:launch]
permute = choose_permute()


def run(kernel, x, idx):
    out = torch.full_like(x, float("nan"))
    kernel[(1,)](x, idx, out, BLOCK=x.numel())
    return out
# --8<-- [end:launch]


# --8<-- [start:constexpr-if]
@triton.jit
def permute_constexpr_if(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr, HAS_GATHER: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs)
    if HAS_GATHER:
        y = tl.gather(tl.load(x_ptr + offs), idx, 0)
    else:
        y = tl.load(x_ptr + idx)
    tl.store(out_ptr + offs, y)
# --8<-- [end:constexpr-if]


def main():
    x = torch.arange(10.0, 18.0, device=DEVICE)
    idx = torch.tensor([7, 6, 5, 4, 3, 2, 1, 0], dtype=torch.int32, device=DEVICE)
    print("Triton", triton.__version__, "has tl.gather:", hasattr(tl, "gather"))
    try:
        print("tl.gather kernel:", run(permute_gather, x, idx).tolist())
    except Exception as error:
        print("tl.gather kernel:", type(error).__name__, str(error).strip().splitlines()[-1][:100])
    print("chosen kernel:   ", run(permute, x, idx).tolist())


if __name__ == "__main__":
    main()
