"""TP074: an internal compiler error (Assertion ... failed, LLVM ERROR, map::at): shrink, try a release, report.

Run it: python internal_compiler_errors.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import inspect  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def batched_dot_3d(a_ptr, b_ptr, c_ptr, L: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """C[l] = A[l] @ B[l] for L small matrices, one 3-D tl.dot in full float32 ("ieee")."""
    l = tl.arange(0, L)[:, None, None]
    a = tl.load(a_ptr + l * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :])
    b = tl.load(b_ptr + l * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    c = tl.dot(a, b, input_precision="ieee")  # Triton 3.2's compiler aborts here (issue 6157)
    tl.store(c_ptr + l * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def batched_dot_2d(a_ptr, b_ptr, c_ptr, L: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """The same product as L two-dimensional dots: the workaround for the releases that crash."""
    m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    for l in tl.static_range(L):  # the fix: avoid the one feature that crashes (a 3-D ieee dot)
        a = tl.load(a_ptr + l * M * K + m[:, None] * K + k[None, :])
        b = tl.load(b_ptr + l * K * N + k[:, None] * N + n[None, :])
        tl.store(c_ptr + l * M * N + m[:, None] * N + n[None, :], tl.dot(a, b, input_precision="ieee"))
# --8<-- [end:fix]


# --8<-- [start:launch]
def batched_matmul(kernel, a, b):
    """a: (L, M, K), b: (L, K, N), contiguous float32; the output starts as NaN."""
    L, M, K = a.shape
    c = torch.full((L, M, b.shape[2]), float("nan"), device=a.device)
    kernel[(1,)](a, b, c, L=L, M=M, N=b.shape[2], K=K)
    return c
# --8<-- [end:launch]


# --8<-- [start:reproducer]
def compile_in_new_process(kernel, shapes=(2, 16, 16, 16), capability=90, triton_path=None):
    """Compile `kernel` for a GPU of this capability in a new Python process (no GPU needed).

    Returns (exit code, last line printed: of stderr if it failed, of stdout if not): a compiler that
    aborts takes only that process with it.
    `triton_path`: a folder holding another Triton release (pip install --target FOLDER triton==3.3.1).
    """
    L, M, N, K = shapes
    script = "\n".join([
        "import triton, triton.language as tl",
        "from triton.backends.compiler import GPUTarget",
        inspect.getsource(kernel.fn),
        f"sig = {{'a_ptr': '*fp32', 'b_ptr': '*fp32', 'c_ptr': '*fp32'}}",
        f"consts = {{'L': {L}, 'M': {M}, 'N': {N}, 'K': {K}}}",
        "if not triton.__version__.startswith('3.2.'):",  # 3.3 and later list constexprs in the signature
        "    sig.update({name: 'constexpr' for name in consts})",
        f"triton.compile(triton.compiler.ASTSource({kernel.fn.__name__}, sig, consts),",
        f"               target=GPUTarget('cuda', {capability}, 32))",
        "print('compiled with Triton', triton.__version__)",
    ])
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # compile for real, not from the cache
    if triton_path:
        env["PYTHONPATH"] = triton_path
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "reproducer.py")  # @triton.jit needs a file to read the source from
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(script)
        done = subprocess.run([sys.executable, path], env=env, capture_output=True, text=True, timeout=300)
    lines = (done.stderr if done.returncode else done.stdout).strip().splitlines()  # a compile may warn on stderr
    return done.returncode, lines[-1] if lines else ""
# --8<-- [end:reproducer]


def main():
    a, b = torch.randn(2, 16, 16, device=DEVICE), torch.randn(2, 16, 16, device=DEVICE)
    print("compile the 3-D dot with this Triton:", compile_in_new_process(batched_dot_3d))
    c = batched_matmul(batched_dot_2d, a, b)
    print("workaround, largest error against torch:", float((c - a @ b).abs().max()))


if __name__ == "__main__":
    main()
