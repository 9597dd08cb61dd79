"""TP040: "RuntimeError: Cannot call @triton.jit'd outside of the scope of a kernel".

Run it: python jit_function_called_from_host.py  (without a GPU, Triton's interpreter runs the kernels on the CPU)
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
def leaky_relu(x, slope):  # a device helper: kernels call it on blocks
    return tl.where(x >= 0, x, x * slope)


@triton.jit
def axpb(x, a, b):  # a device helper made of plain operators only
    return x * a + b


def leaky_relu_reference_pitfall(x, slope):
    return leaky_relu(x, slope)  # host code calling a @triton.jit function
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def leaky_relu_kernel(x_ptr, y_ptr, n, slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, leaky_relu(tl.load(x_ptr + offs, mask=mask), slope), mask=mask)  # called inside a kernel


def leaky_relu_launch(x, slope, block=128):  # fix 1: launch a kernel that calls the helper
    y = torch.full_like(x, float("nan"))  # NaN until a program writes it
    leaky_relu_kernel[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), slope, BLOCK=block)
    return y
# --8<-- [end:fix]


# --8<-- [start:fix-more]
def leaky_relu_torch(x, slope):  # fix 2: a plain Python twin for host code and tests
    return torch.where(x >= 0, x, x * slope)


def axpb_on_host(x, a, b):  # fix 3: `.fn` is the undecorated function; it works if the body uses no tl.*
    return axpb.fn(x, a, b)
# --8<-- [end:fix-more]


# --8<-- [start:late]
LATE_SCRIPT = """
import os

import torch
import triton
import triton.language as tl

os.environ["TRITON_INTERPRET"] = "1"  # too late: triton.language's own @triton.jit helpers were made before this


@triton.jit
def ones(y_ptr, BLOCK: tl.constexpr):
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.zeros((BLOCK,), dtype=tl.float32) + 1)  # tl.zeros is one of them


y = torch.zeros(16)
ones[(1,)](y, BLOCK=16)
print(y.tolist())
"""


def run_script(source):
    """Run `source` as a script in a new Python process; return (exit code, the last line of its stderr)."""
    import subprocess
    import sys
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:  # @triton.jit needs a file
        script.write(source)
    env = {name: value for name, value in os.environ.items() if name != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, script.name], capture_output=True, text=True, env=env, timeout=300)
    os.unlink(script.name)
    return done.returncode, (done.stderr.strip().splitlines() or [""])[-1]
# --8<-- [end:late]


def main():
    x = torch.tensor([-2.0, -0.5, 1.0, 3.0], device=DEVICE)
    compiled = triton.runtime.jit.JITFunction(leaky_relu.fn)  # what @triton.jit gives without TRITON_INTERPRET=1
    try:
        compiled(x, 0.1)
    except RuntimeError as error:
        print("host call of the compiled helper:", error)
    print("fix 1, a kernel:    ", leaky_relu_launch(x, 0.1).tolist())
    print("fix 2, a torch twin:", leaky_relu_torch(x, 0.1).tolist())
    print("fix 3, axpb.fn:     ", axpb_on_host(x, 2.0, 1.0).tolist())
    try:
        leaky_relu.fn(x, 0.1)
    except ValueError as error:
        print("leaky_relu.fn (uses tl.where):", error)
    print("TRITON_INTERPRET=1 set after import triton:", run_script(LATE_SCRIPT))


if __name__ == "__main__":
    main()
