"""TP086: `ptxas` failed with error code 4294967295 (Windows), Internal Triton PTX codegen error (Linux): the cause is in ptxas's log.

Run it: python ptxas_failed_with_error_code.py  (no GPU needed: it compiles for sm_90 without one; with a GPU it also runs the fix)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import contextlib, io, re, tempfile  # noqa: E401, E402  (compile_for_sm_90, ptxas_errors)
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def add_one_pitfall(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.inline_asm_elementwise("add.rn.f32x $0, $1, 0f3F800000;", "=r,r", [x],  # a typo in the PTX: .f32x
                                  dtype=tl.float32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, y, mask=mask)


def what_the_app_shows(error):
    return str(error).splitlines()[0]  # an error report that keeps the first line only
# --8<-- [end:pitfall]


# --8<-- [start:compile]
def compile_for_sm_90(kernel):
    """Compile `kernel` for an H100 / H200 (sm_90) without a GPU, in an empty kernel cache.
    Returns (the exception or None, what the compile printed to stdout)."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a new JITFunction: compiled even when the interpreter is on
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    printed, cache = io.StringIO(), os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory() as empty, contextlib.redirect_stdout(printed):
        os.environ["TRITON_CACHE_DIR"] = empty  # an empty kernel cache: ptxas runs, whatever compiled before
        try:
            triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 1024}),
                           target=triton.backends.compiler.GPUTarget("cuda", 90, 32))
            error = None
        except Exception as raised:  # triton.runtime.errors.PTXASError (a RuntimeError on Triton 3.2)
            error = raised
        finally:
            os.environ.pop("TRITON_CACHE_DIR")
            if cache is not None:
                os.environ["TRITON_CACHE_DIR"] = cache
    return error, printed.getvalue()
# --8<-- [end:compile]


# --8<-- [start:fix]
def ptxas_errors(error):
    """Why ptxas refused the kernel: the distinct `error` and `fatal` lines of its log, which follow the
    first line of the message (an exception, or its text pasted), on Linux and on Windows alike."""
    log = str(error).split("`ptxas` stderr:", 1)[-1].split("Repro command:", 1)[0]
    found = []
    for line in log.splitlines():
        if re.match(r"\s*ptxas[\w-]*\s.*\b(error|fatal)\s*:", line):
            line = re.sub(r"^\s*ptxas[\w-]*\s+([^;]*;\s*)?", "", line)  # drop "ptxas /tmp/x.ptx, line 104; "
            found.append(re.sub(r"^(\w+)\s+:", r"\1:", line.rstrip()))  # "error   :" -> "error:"
    return list(dict.fromkeys(found))
# --8<-- [end:fix]


# --8<-- [start:fix-ptx]
@triton.jit
def add_one_fixed(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.inline_asm_elementwise("add.rn.f32 $0, $1, 0f3F800000;", "=r,r", [x],  # the fix: what the log named
                                  dtype=tl.float32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, y, mask=mask)
# --8<-- [end:fix-ptx]


# --8<-- [start:launch]
def add_one(kernel, x):
    """x + 1 for a contiguous float32 x on a GPU (inline PTX needs one); the output starts as NaN."""
    out = torch.full_like(x, float("nan"))
    kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out
# --8<-- [end:launch]


def main():
    print(f"Triton {triton.__version__}, compiling for sm_90 (no GPU needed)")
    error, printed = compile_for_sm_90(add_one_pitfall)
    print(f"what an app's error report shows: {what_the_app_shows(error)}")
    print("what ptxas said:", *ptxas_errors(error), sep="\n  ")
    print(f"the log was also printed to stdout: {'yes' if '`ptxas` stderr:' in printed else 'no'}")
    fixed, _ = compile_for_sm_90(add_one_fixed)
    print(f"with the PTX corrected: {'compiled' if fixed is None else what_the_app_shows(fixed)}")
    if DEVICE == "cuda":
        x = torch.randn(3000, device=DEVICE)
        print(f"on this GPU, x + 1: {torch.equal(add_one(add_one_fixed, x), x + 1)}")


if __name__ == "__main__":
    main()
