"""TP039: "RuntimeError: PassManager::run failed": the compiler itself crashed; how to narrow it down.

Run it: python compiler_crash.py  (needs no GPU: it compiles for sm_90 and runs the kernels on Triton's interpreter)
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
def matmul_ws(a_ptr, b_ptr, c_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """One BLOCK_M x BLOCK_N tile of C = A @ B; A is BLOCK_M x K, B is K x BLOCK_N, row-major, K % BLOCK_K == 0."""
    rm, rn, rk = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N), tl.arange(0, BLOCK_K)
    acc = tl.full((BLOCK_M, BLOCK_N), 0.0, tl.float32)
    for k in tl.range(0, K, BLOCK_K, warp_specialize=True):  # a valid kernel that the sm_90 compiler fails on
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BLOCK_N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def matmul_plain(a_ptr, b_ptr, c_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm, rn, rk = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N), tl.arange(0, BLOCK_K)
    acc = tl.full((BLOCK_M, BLOCK_N), 0.0, tl.float32)
    for k in tl.range(0, K, BLOCK_K):  # the workaround the bisection found: no warp_specialize=True
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BLOCK_N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc)
# --8<-- [end:fix]


# --8<-- [start:launch]
def matmul(kernel, a, b, block_k=32):
    """C = A @ B with one program; A and B are float16, C float32 (NaN until the kernel writes it)."""
    (m, k), n = a.shape, b.shape[1]
    c = torch.full((m, n), float("nan"), device=a.device)
    kernel[(1,)](a, b, c, k, BLOCK_M=m, BLOCK_N=n, BLOCK_K=block_k)
    return c
# --8<-- [end:launch]


# --8<-- [start:offline]
H200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU
A100 = triton.backends.compiler.GPUTarget("cuda", 80, 32)  # another target, for comparison
SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "K": "i32"}
TILE = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}


def compile_for(kernel, target=H200, constexprs=TILE):
    """Compile a kernel for `target` without launching it (and without a GPU)."""
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object: no kernel cached in this process
    signature = dict(SIGNATURE, **{name: "constexpr" for name in constexprs})
    return triton.compile(triton.compiler.ASTSource(fn, signature, constexprs), target=target)


def with_stderr(function):
    """Call `function()`; return (its result or the exception, what C++ wrote to stderr meanwhile)."""
    import tempfile

    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)  # MLIR writes to file descriptor 2, not to sys.stderr
        try:
            result = function()
        except Exception as error:
            result = error
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        return result, captured.read().decode(errors="replace")
# --8<-- [end:offline]


# --8<-- [start:simulated-crash]
def crash_inside_compile():
    """Stand-in for a compiler pass that segfaults: a compilation listener that crashes the process.

    Run it in a child process only: `python -X faulthandler compiler_crash.py crash`.
    """
    import faulthandler

    triton.knobs.compilation.listener = lambda **_: faulthandler._sigsegv()
    compile_for(matmul_plain, constexprs={"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16})


def run_child(*args, env=None):
    """Run this file in a new `python -X faulthandler` process; return (exit code, the end of its stderr)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-X", "faulthandler", __file__, *args], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})), timeout=300)
    return done.returncode, done.stderr[-3000:]
# --8<-- [end:simulated-crash]


def main():
    import sys

    if sys.argv[1:] == ["crash"]:
        crash_inside_compile()
    result, stderr = with_stderr(lambda: compile_for(matmul_ws))
    print("matmul_ws    for sm_90:", repr(result))
    print("  stderr:", [line for line in stderr.splitlines() if "Pipeline failed" in line])
    print("matmul_ws    for sm_80:", type(compile_for(matmul_ws, A100)).__name__)
    print("matmul_plain for sm_90:", type(compile_for(matmul_plain)).__name__)
    a, b = torch.randn(64, 64, device=DEVICE).half(), torch.randn(64, 64, device=DEVICE).half()
    if DEVICE == "cpu":  # the interpreter runs no compiler passes: the kernel that fails to compile runs there
        print("matmul_ws    on the interpreter, max error:", (matmul(matmul_ws, a, b) - a.float() @ b.float()).abs().max().item())
    print("matmul_plain launched, max error:", (matmul(matmul_plain, a, b) - a.float() @ b.float()).abs().max().item())


if __name__ == "__main__":
    main()
