"""TP058: `num_stages` pipelines the loads of a loop (a `tl.dot` over K); a kernel with no loop has nothing to pipeline.

Run it: python num_stages_and_pipelining.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import hashlib  # noqa: E402  (compile_report, compile_in_new_process)
import inspect  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def scale_shift(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)  # one load per program and no loop: nothing to pipeline
    tl.store(y_ptr + offs, x * 2.0 + 1.0, mask=mask)


def scale_shift_launch(x, num_stages, BLOCK=1024):
    """y = 2x + 1 with a given num_stages; returns y and what the launch returned."""
    y = torch.full_like(x, float("nan"))  # NaN until a program writes it
    ret = scale_shift[(triton.cdiv(x.numel(), BLOCK),)](x, y, x.numel(), BLOCK=BLOCK, num_stages=num_stages)
    return y, ret
# --8<-- [end:pitfall]


# --8<-- [start:kernel]
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):  # the loop that num_stages pipelines
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))
# --8<-- [end:kernel]


# --8<-- [start:fix]
def matmul(a, b, num_stages=3, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8):
    """C = A @ B for fp16 A (M x K) and B (K x N), accumulated in fp32; returns C and what the launch returned."""
    (M, K), N = a.shape, b.shape[1]
    c = torch.full((M, N), float("nan"), device=a.device, dtype=a.dtype)  # NaN until a program writes it
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    ret = matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                              c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                              num_warps=num_warps,
                              num_stages=num_stages)  # the fix: 2 or more stages on a loop; time 2 to 4
    return c, ret
# --8<-- [end:fix]


# --8<-- [start:offline]
def compile_for_h200(kernel, args, constexprs, num_stages, num_warps=4):
    """Compile `kernel` for sm_90 without a GPU, specialized as a launch with these arguments would be.

    `args` are the run-time arguments in order: tensors (assumed 16-byte aligned, as torch allocates
    them) and ints. Like a launch, an int equal to 1 becomes a constant and one divisible by 16 is
    marked so; the compiler uses both to decide how wide the loads are.
    """
    h200 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # sm_90; compiling for it needs no GPU
    dtypes = {torch.float16: "*fp16", torch.float32: "*fp32"}
    fn = triton.runtime.jit.JITFunction(kernel.fn)  # a fresh object: its cache key is computed afresh
    signature, attrs, constants = {}, {}, dict(constexprs)
    for index, (name, value) in enumerate(zip(fn.arg_names, args)):
        if isinstance(value, torch.Tensor):
            signature[name], divisible = dtypes[value.dtype], True
        elif value == 1:
            constants[name] = 1
            continue
        else:
            signature[name], divisible = "i32", value % 16 == 0
        if divisible:
            attrs[(index,)] = [["tt.divisibility", 16]]
    signature.update({name: "constexpr" for name in constants})
    source = triton.compiler.ASTSource(fn, signature, constants, attrs)
    return triton.compile(source, target=h200, options={"num_stages": num_stages, "num_warps": num_warps})


def compile_report(kernel_name, num_stages, K=4096):
    """What the compiler made of `num_stages`, for the matmul (M = N = 4096, 128 x 128 x 64 tiles, 8 warps)
    or for scale_shift (2**20 float32, BLOCK 1024, 4 warps), compiled for sm_90 without a GPU."""
    if kernel_name == "matmul":
        M = N = 4096
        a, b, c = (torch.empty(shape, dtype=torch.float16) for shape in ((M, K), (K, N), (M, N)))
        args = (a, b, c, M, N, K, K, 1, N, 1, N, 1)  # what `matmul` passes for contiguous A, B and C
        compiled = compile_for_h200(matmul_kernel, args, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
                                    num_stages, num_warps=8)
    else:
        x = torch.empty(2**20)
        compiled = compile_for_h200(scale_shift, (x, x, x.numel()), {"BLOCK": 1024}, num_stages)
    ptx = compiled.asm["ptx"]
    return {"kernel": kernel_name, "num_stages": num_stages, "K": K, "shared": compiled.metadata.shared,
            "cp_async": ptx.count("cp.async.cg.shared.global"), "ptx_sha256": hashlib.sha256(ptx.encode()).hexdigest()}


def compile_in_new_process(function, calls):
    """[function(*args) for args in calls], run in a new Python process whose Triton compiles.

    A process that imported Triton under TRITON_INTERPRET=1 has interpreted versions of
    triton.language's own @jit helpers (tl.zeros, tl.sum), which the compiler cannot use. The new
    process runs without the variable, on a copy of the kernels and of the two functions above
    (taken with inspect, so that it works from a notebook as well as from this file).
    """
    code = [inspect.getsource(f) for f in (scale_shift.fn, matmul_kernel.fn, compile_for_h200, compile_report)]
    program = "\n\n".join(["import hashlib, json, sys\n\nimport torch\nimport triton\nimport triton.language as tl",
                            *code, "print(json.dumps([globals()[sys.argv[1]](*args) for args in json.loads(sys.argv[2])]))"])
    env = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    with tempfile.TemporaryDirectory() as folder:
        env["TRITON_CACHE_DIR"] = os.path.join(folder, "cache")  # an empty cache: every kernel is compiled here
        script = os.path.join(folder, "compile_for_h200.py")  # @triton.jit reads a kernel's source from its file
        with open(script, "w", encoding="utf-8") as stream:
            stream.write(program)
        done = subprocess.run([sys.executable, script, function, json.dumps(calls)], env=env, capture_output=True,
                              text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{function} failed in the new process:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])
# --8<-- [end:offline]


def main():
    a = torch.randn(96, 80, device=DEVICE, dtype=torch.float16)
    b = torch.randn(80, 64, device=DEVICE, dtype=torch.float16)
    block = {} if DEVICE == "cuda" else {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}  # small tiles on the CPU
    for num_stages in (1, 3):
        c, ret = matmul(a, b, num_stages=num_stages, **block)
        error = float((c.double() - a.double() @ b.double()).norm() / (a.double() @ b.double()).norm())
        shared = ret.metadata.shared if ret is not None else "(interpreter: no compiled kernel)"
        print(f"matmul, num_stages={num_stages}: relative error {error:.1e}, shared memory {shared}")
    calls = [("matmul", stages) for stages in (1, 3)] + [("scale_shift", stages) for stages in (1, 4)]
    for report in compile_in_new_process("compile_report", calls):  # compiled for sm_90, no GPU needed
        print(f"{report['kernel']}, compiled with num_stages={report['num_stages']}: shared memory "
              f"{report['shared']} bytes, {report['cp_async']} cp.async, PTX {report['ptx_sha256'][:12]}")
    x = torch.randn(5000, device=DEVICE)
    y, _ = scale_shift_launch(x, num_stages=4)
    print("scale_shift, num_stages=4: right?", torch.equal(y, x * 2 + 1))


if __name__ == "__main__":
    main()
