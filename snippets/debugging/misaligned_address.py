"""TP062: "Triton Error [CUDA]: misaligned address": a promise the kernel made, or the compiler's bug.

Run it: python misaligned_address.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import inspect  # noqa: E402  (in_new_process)
import re  # noqa: E402  (load_widths)
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def copy_window_pitfall(x_ptr, y_ptr, start, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    src = tl.max_contiguous(tl.multiple_of(start + offs, BLOCK), BLOCK)  # a promise: src starts on a multiple of BLOCK
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + src, mask=mask), mask=mask)
# --8<-- [end:pitfall]


# --8<-- [start:launch]
def copy_window(kernel, x, start, n, BLOCK=1024):
    """y = x[start:start + n], copied by `kernel`."""
    y = torch.full((n,), float("nan"), device=x.device)  # NaN until a program writes it
    kernel[(triton.cdiv(n, BLOCK),)](x, y, start, n, BLOCK=BLOCK)
    return y
# --8<-- [end:launch]


# --8<-- [start:fix]
@triton.jit
def copy_window_fixed(x_ptr, y_ptr, start, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + start + offs, mask=mask), mask=mask)  # the fix: no promise to break
# --8<-- [end:fix]


# --8<-- [start:offline]
def load_widths(kernel, start_is_multiple_of_16):
    """{bits per load: count} of `kernel` compiled for sm_90 without a GPU, for a `start` that a launch
    would mark divisible by 16 (start % 16 == 0) or not, and n = 4096."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object, as in a new process
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "start": "i32", "n": "i32", "BLOCK": "constexpr"}
    aligned = [["tt.divisibility", 16]]  # what a launch records for torch's allocations and for ints % 16 == 0
    attrs = {(0,): aligned, (1,): aligned, (3,): aligned, **({(2,): aligned} if start_is_multiple_of_16 else {})}
    compiled = triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 1024}, attrs),
                              target=triton.backends.compiler.GPUTarget("cuda", 90, 32))
    loads = re.findall(r"ld\.global(?:\.\w+)*?(?:\.v(\d))?\.b(\d+)", compiled.asm["ptx"])
    widths = {}
    for vector, bits in loads:
        width = int(vector or 1) * int(bits)
        widths[width] = widths.get(width, 0) + 1
    return dict(sorted(widths.items()))
# --8<-- [end:offline]


# --8<-- [start:child]
CHILD = """
x = torch.randn(8192, device="cuda")
start = int(sys.argv[2])
y = copy_window(globals()[sys.argv[1]], x, start, 4096)
torch.cuda.synchronize()
print("equal:", torch.equal(y, x[start:start + 4096]))
"""


def reproducer():
    """A program of its own: the kernels, copy_window and CHILD (inspect: it works from a notebook too)."""
    code = [inspect.getsource(f) for f in (copy_window_pitfall.fn, copy_window_fixed.fn, copy_window)]
    return "\n\n".join(["import sys\n\nimport torch\nimport triton\nimport triton.language as tl", *code, CHILD])


def in_new_process(kernel_name, start, blocking=False, prefix=()):
    """Run one copy on the GPU in a new process (a CUDA error spoils the process it happens in), under
    `prefix` (a tool such as compute-sanitizer) if given; return (exit code, the error line, the output)."""
    env = dict(os.environ, CUDA_LAUNCH_BLOCKING="1" if blocking else "0")
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "reproducer.py")  # @triton.jit reads a kernel's source from its file
        with open(script, "w", encoding="utf-8") as stream:
            stream.write(reproducer())
        done = subprocess.run([*prefix, sys.executable, script, kernel_name, str(start)],
                              capture_output=True, text=True, env=env, timeout=300)
    output = done.stdout + done.stderr
    errors = [line for line in output.splitlines() if re.match(r"\w+(\.\w+)*Error: ", line)]
    return done.returncode, errors[-1] if errors else output.strip().splitlines()[-1], output
# --8<-- [end:child]


def main():
    for name, kernel in (("pitfall", copy_window_pitfall), ("fix", copy_window_fixed)):
        print(f"{name}: bits per load, compiled for sm_90, start = 3:", load_widths(kernel, False),
              "start = 16:", load_widths(kernel, True))
    x = torch.randn(8192, device=DEVICE)
    if DEVICE == "cuda":
        print("pitfall, start = 3, on the GPU:", in_new_process("copy_window_pitfall", 3, blocking=True)[:2])
        print("fix, start = 3, on the GPU:", in_new_process("copy_window_fixed", 3)[:2])
    else:  # the interpreter ignores the promise: both copies are right here
        for name, kernel in (("pitfall", copy_window_pitfall), ("fix", copy_window_fixed)):
            print(f"{name}, start = 3, interpreted: equal:", torch.equal(copy_window(kernel, x, 3, 4096), x[3:4099]))


if __name__ == "__main__":
    main()
