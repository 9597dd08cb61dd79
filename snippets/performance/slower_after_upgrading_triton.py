"""TP073: slower after upgrading Triton: the same kernel and config, other registers per thread.

Run it: python slower_after_upgrading_triton.py  (without a GPU, Triton's interpreter runs it on the CPU)
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
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


TUNED = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=4)  # tuned once, on an older release
# --8<-- [end:pitfall]


# --8<-- [start:fix]
CONFIGS = [triton.Config(dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=32), num_warps=w, num_stages=s)
           for bm, bn in ((64, 64), (128, 64), (128, 128)) for w in (4, 8) for s in (3, 4)]



def tuned_per_release(kernel):
    """The fix: each release (and each shape, by the key) picks its own config, instead of one frozen config."""
    return triton.autotune(configs=CONFIGS, key=["M", "N", "K"])(kernel)
# --8<-- [end:fix]


# --8<-- [start:launch]
AUTOTUNED = {}  # made on first use: on a CPU, Triton 3.2 and 3.3 refuse to build an autotuner (0 active drivers)


def autotuned():
    if "matmul" not in AUTOTUNED:
        AUTOTUNED["matmul"] = tuned_per_release(matmul_kernel)
    return AUTOTUNED["matmul"]


def matmul(a, b, config=None):
    """a @ b for float16 matrices; `config` None autotunes. The output starts as NaN."""
    M, K = a.shape
    N = b.shape[1]
    c = torch.full((M, N), float("nan"), device=a.device, dtype=torch.float16)
    args = (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    if config is None:
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))  # noqa: E731
        return c, autotuned()[grid](*args)
    grid = (triton.cdiv(M, config["BLOCK_M"]), triton.cdiv(N, config["BLOCK_N"]))
    return c, matmul_kernel[grid](*args, **config)
# --8<-- [end:launch]


# --8<-- [start:registers]
def registers_for_sm_90(configs=(TUNED,), triton_path=None):
    """Registers per thread and stack bytes of matmul_kernel compiled for sm_90 with each config,
    by the Triton in `triton_path` (a `pip install --target` folder) or the installed one; no GPU.

    Specialized as a launch on contiguous float16 matrices whose sizes are multiples of 16 would be:
    the unit strides become constants, the other integers and the pointers are marked 16-divisible.
    """
    script = "\n".join([
        "import json, re, subprocess, sys, tempfile",
        "import triton, triton.language as tl",
        "from triton.backends.compiler import GPUTarget",
        "from triton.tools.disasm import path_to_cuobjdump",
        inspect.getsource(matmul_kernel.fn),
        "tool = path_to_cuobjdump()",
        "tool = tool[0] if isinstance(tool, (tuple, list)) else tool",  # 3.2 and 3.3 return (path, version)
        "results = []",
        "names = ('a_ptr', 'b_ptr', 'c_ptr', 'M', 'N', 'K', 'stride_am', 'stride_ak', 'stride_bk', 'stride_bn',"
        " 'stride_cm', 'stride_cn')",
        "ones = ('stride_ak', 'stride_bn', 'stride_cn')",  # a launch makes an int equal to 1 a constant
        "aligned = [i for i, n in enumerate(names) if n not in ones]",  # 16-byte pointers, sizes % 16 == 0
        "for config in json.loads(sys.argv[1]):",
        "    sig = {n: 'constexpr' if n in ones else '*fp16' if n.endswith('_ptr') else 'i32' for n in names}",
        "    consts = {k: config[k] for k in ('BLOCK_M', 'BLOCK_N', 'BLOCK_K')}",
        "    consts.update({n: 1 for n in ones})",
        "    if triton.__version__.startswith('3.2.'):",  # 3.2: constants by name, outside the signature
        "        sig = {n: t for n, t in sig.items() if t != 'constexpr'}",
        "        from triton.backends.compiler import AttrsDescriptor",
        "        hints = {i: 16 for i in aligned}",
        "        hints.update({names.index(n): 1 for n in ones})",
        "        attrs = AttrsDescriptor.from_hints(hints)",
        "    else:",
        "        sig.update({name: 'constexpr' for name in consts})",  # in parameter order: BLOCK_* come last
        "        attrs = {(i,): [['tt.divisibility', 16]] for i in aligned}",
        "    options = {'num_warps': config['num_warps'], 'num_stages': config['num_stages']}",
        "    k = triton.compile(triton.compiler.ASTSource(matmul_kernel, sig, consts, attrs),"
        " target=GPUTarget('cuda', 90, 32), options=options)",
        "    with tempfile.NamedTemporaryFile(suffix='.cubin') as f:",
        "        f.write(k.asm['cubin']); f.flush()",
        "        usage = subprocess.run([tool, '--dump-resource-usage', f.name], capture_output=True, text=True).stdout",
        "    results.append({'triton': triton.__version__, 'registers': int(re.search(r'REG:(\\d+)', usage)[1]),",
        "                    'stack_bytes': int(re.search(r'STACK:(\\d+)', usage)[1])})",
        "print(json.dumps(results))",
    ])
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    if triton_path:
        env["PYTHONPATH"] = triton_path
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "registers.py")
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(script)
        done = subprocess.run([sys.executable, path, json.dumps(list(configs))], env=env, capture_output=True, text=True,
                              timeout=300)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1])
    return json.loads(done.stdout.strip().splitlines()[-1])
# --8<-- [end:registers]


def main():
    print("the tuned config, compiled for sm_90 by this Triton:", registers_for_sm_90()[0])
    a = torch.randn(96, 80, device=DEVICE, dtype=torch.float16)
    b = torch.randn(80, 72, device=DEVICE, dtype=torch.float16)
    c, _ = matmul(a, b, TUNED)
    print("largest error against torch:", float((c.float() - (a.float() @ b.float())).abs().max()))


if __name__ == "__main__":
    main()
