"""TP014: `tl.device_assert` does nothing unless debug mode is on (and never on the interpreter).

Run it: python device_assert.py  (without a GPU, Triton's interpreter runs it on the CPU)
On a GPU, `TRITON_DEBUG=1 python device_assert.py` makes the failing assert stop the program.
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
def add_one_checked(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x > 0, "x must be positive")  # compiled out: debug mode is off
    tl.store(x_ptr + offs, x + 1)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit(debug=True)  # the fix: debug mode for this kernel (or TRITON_DEBUG=1 for every kernel)
def add_one_checked_debug(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x > 0, "x must be positive")
    tl.store(x_ptr + offs, x + 1)
# --8<-- [end:fix]


# --8<-- [start:mask]
@triton.jit
def add_one_tail(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)  # lanes past n hold `other`: 0.0
    tl.device_assert(x > 0, "x must be positive")    # checks every lane, padding included
    tl.store(x_ptr + offs, x + 1, mask=mask)


@triton.jit
def add_one_tail_masked_assert(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.device_assert(x > 0, "x must be positive", mask=mask)  # only the lanes of the mask
    tl.store(x_ptr + offs, x + 1, mask=mask)
# --8<-- [end:mask]


# --8<-- [start:static-assert]
@triton.jit
def add_one_block_multiple_of_4(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 4 == 0, "BLOCK must be a multiple of 4")  # checked at compile time
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)
# --8<-- [end:static-assert]


# --8<-- [start:python-assert]
@triton.jit
def add_one_python_assert(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    assert x > 0, "block condition"  # a block of booleans
    assert tl.min(x, axis=0) > 0, "scalar condition"  # one boolean
    tl.store(x_ptr + offs, x + 1)
# --8<-- [end:python-assert]


def main():
    x = torch.zeros(4, device=DEVICE)  # every element fails `x > 0`
    add_one_checked[(1,)](x, BLOCK=4)
    debug = os.environ.get("TRITON_DEBUG") == "1" and DEVICE == "cuda"
    print("tl.device_assert(x > 0) on x = 0, debug mode", "on:" if debug else "off:", x.tolist())
    if DEVICE == "cpu":
        x = torch.zeros(4, device=DEVICE)
        add_one_checked_debug[(1,)](x, BLOCK=4)
        print("@triton.jit(debug=True) on the interpreter: never fires:", x.tolist())
        try:
            add_one_python_assert[(1,)](torch.zeros(4, device=DEVICE), BLOCK=4)
        except Exception as error:
            print("a Python assert on a scalar:", type(error).__name__, error)


if __name__ == "__main__":
    main()
