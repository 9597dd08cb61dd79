"""TP059: a kernel suddenly got much slower: check for register spills, then the tile size, then num_warps.

Run it: python diagnosing_a_slowdown.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import inspect  # noqa: E402  (resources, compiled_resources, compile_in_new_process)
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def rms_norm_row(x_ptr, w_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)  # the whole row, held in registers
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    tl.store(y_ptr + row * N + cols, x * rstd * w, mask=mask)


def rms_norm_whole_row(x, w, eps=1e-6, num_warps=4, y=None):
    """RMS-norm of each row of a contiguous float32 x (M x N); returns y and what the launch returned."""
    M, N = x.shape
    y = torch.full_like(x, float("nan")) if y is None else y  # NaN until a program writes it
    ret = rms_norm_row[(M,)](x, w, y, N, eps, BLOCK=triton.next_power_of_2(N),  # a tile as wide as the row
                             num_warps=num_warps)
    return y, ret
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def rms_norm_chunked(x_ptr, w_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, N, BLOCK):  # the fix: walk the row one BLOCK-wide tile at a time
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        acc += x * x
    rstd = tl.rsqrt(tl.sum(acc, axis=0) / N + eps)
    for start in range(0, N, BLOCK):  # a second pass over the row writes it
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=mask)
        tl.store(y_ptr + row * N + cols, x * rstd * w, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:fix-more]
def rms_norm(x, w, eps=1e-6, BLOCK=4096, num_warps=4, y=None):
    """The same RMS-norm with a tile of at most BLOCK columns; then time num_warps 4, 8 and 16."""
    M, N = x.shape
    y = torch.full_like(x, float("nan")) if y is None else y  # NaN until a program writes it
    ret = rms_norm_chunked[(M,)](x, w, y, N, eps, BLOCK=min(BLOCK, triton.next_power_of_2(N)),
                                 num_warps=num_warps)
    return y, ret
# --8<-- [end:fix-more]


# --8<-- [start:diagnose]
def diagnose(launch):
    """On a GPU: the registers and spills of a launch and its median time in ms, one step of the walk."""
    _, ret = launch()  # the launch returns the compiled kernel
    ms = triton.testing.do_bench(launch, return_mode="median")
    return {"n_regs": ret.n_regs, "n_spills": ret.n_spills, "median_ms": ms}
# --8<-- [end:diagnose]


# --8<-- [start:offline]
def resources(cubin):
    """Registers and stack frame (bytes) per thread of a cubin, from cuobjdump (it ships with Triton).

    The stack frame is the local memory a launch reports as n_spills, in 4-byte words.
    """
    from triton.tools.disasm import path_to_cuobjdump

    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as file:
        file.write(cubin)
    usage = subprocess.run([path_to_cuobjdump(), "--dump-resource-usage", file.name],
                           capture_output=True, text=True, check=True).stdout
    os.unlink(file.name)
    return {"registers": int(re.search(r"REG:(\d+)", usage)[1]),
            "stack_bytes": int(re.search(r"STACK:(\d+)", usage)[1])}


def compiled_resources(kernel_name, N, BLOCK, num_warps=4):
    """Compile a kernel for sm_90 without a GPU, specialized as a launch on contiguous float32 rows of N."""
    kernel = {"rms_norm_row": rms_norm_row, "rms_norm_chunked": rms_norm_chunked}[kernel_name]
    signature = {"x_ptr": "*fp32", "w_ptr": "*fp32", "y_ptr": "*fp32", "N": "i32", "eps": "fp32",
                 "BLOCK": "constexpr"}
    aligned = [["tt.divisibility", 16]]  # what a launch records for torch's allocations, and for N % 16 == 0
    attrs = {(0,): aligned, (1,): aligned, (2,): aligned, **({(3,): aligned} if N % 16 == 0 else {})}
    source = triton.compiler.ASTSource(kernel, signature, {"BLOCK": BLOCK}, attrs)
    h200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU
    compiled = triton.compile(source, target=h200, options={"num_warps": num_warps})
    return {"kernel": kernel_name, "N": N, "BLOCK": BLOCK, "num_warps": num_warps, **resources(compiled.asm["cubin"])}


def compile_in_new_process(function, calls):
    """[function(*args) for args in calls], run in a new Python process whose Triton compiles.

    A process that imported Triton under TRITON_INTERPRET=1 has interpreted versions of
    triton.language's own @jit helpers (tl.sum), which the compiler cannot use. The new process
    runs without the variable, on a copy of the two kernels and the two functions above (taken
    with inspect, so that it works from a notebook as well as from this file).
    """
    code = [inspect.getsource(f) for f in (rms_norm_row.fn, rms_norm_chunked.fn, resources, compiled_resources)]
    header = "import json, os, re, subprocess, sys, tempfile\n\nimport triton\nimport triton.language as tl"
    footer = "print(json.dumps([globals()[sys.argv[1]](*args) for args in json.loads(sys.argv[2])]))"
    program = "\n\n".join([header, *code, footer])
    env = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "compile_for_h200.py")  # @triton.jit reads a kernel's source from its file
        with open(script, "w", encoding="utf-8") as stream:
            stream.write(program)
        done = subprocess.run([sys.executable, script, function, json.dumps(calls)], env=env, capture_output=True,
                              text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{function} failed in the new process:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])
# --8<-- [end:offline]


def relative_error(y, x, w, eps=1e-6):
    x64 = x.double()
    reference = x64 * torch.rsqrt((x64 * x64).mean(dim=1, keepdim=True) + eps) * w.double()
    return float((y.double() - reference).norm() / reference.norm())


def main():
    calls = [("rms_norm_row", N, N) for N in (4096, 16384, 65536)] + [
        ("rms_norm_row", 65536, 65536, 16), ("rms_norm_chunked", 65536, 4096)]
    for r in compile_in_new_process("compiled_resources", calls):  # compiled for sm_90, no GPU needed
        print(f"{r['kernel']:16} N={r['N']:5} BLOCK={r['BLOCK']:5} num_warps={r['num_warps']:2}: "
              f"{r['registers']:3} registers, stack frame {r['stack_bytes']} bytes")
    M, N = (4096, 65536) if DEVICE == "cuda" else (4, 3000)  # a small row on the interpreter
    x, w = torch.randn(M, N, device=DEVICE), torch.randn(N, device=DEVICE)
    y, _ = rms_norm_whole_row(x, w)
    print("whole row: relative error", relative_error(y, x, w))
    y, _ = rms_norm(x, w, BLOCK=4096 if DEVICE == "cuda" else 512)
    print("chunked:   relative error", relative_error(y, x, w))
    if DEVICE == "cuda":
        y = torch.empty_like(x)
        print("whole row:", diagnose(lambda: rms_norm_whole_row(x, w, y=y)))
        for num_warps in (4, 8, 16):
            print(f"chunked, BLOCK=4096, num_warps={num_warps}:",
                  diagnose(lambda: rms_norm(x, w, num_warps=num_warps, y=y)))
        print("torch rms_norm:", triton.testing.do_bench(
            lambda: torch.nn.functional.rms_norm(x, (N,), w, 1e-6), return_mode="median"), "ms")


if __name__ == "__main__":
    main()
