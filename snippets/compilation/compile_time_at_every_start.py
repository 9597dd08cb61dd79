"""TP070: every process start pays Triton's compile (and autotune) again unless its cache survives and is shared.

Run it: python compile_time_at_every_start.py  (without a GPU it compiles for an H200 on the CPU and times that)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import inspect  # noqa: E402  (the autotuner's cache_results, Triton 3.4+)
import json  # noqa: E402  (fresh_process)
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def run_job():
    """What one job does at its start: its first launches pay Triton's compile, unless the cache has them."""
    x = torch.randn(1 << 20, device=DEVICE)
    out = torch.full_like(x, float("nan"))  # NaN until a program writes it
    scale[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), 2.0, BLOCK=1024)
    scale_tuned[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, out, x.numel(), 2.0)
    return out
# A job that starts in a new container or with TRITON_CACHE_DIR set to a fresh temporary folder
# compiles both kernels and benchmarks every autotune config again, every time.
# --8<-- [end:pitfall]


# --8<-- [start:fix]
# the fix, 1: one cache folder that outlives the job, shared by every job on the machine (set before the first launch)
os.environ.setdefault("TRITON_CACHE_DIR", os.path.expanduser("~/.triton/cache"))  # the default; mount it in containers

# the fix, 2: keep the autotuner's results on disk too (Triton 3.4 and later; older releases benchmark every start)
KEEP_TIMINGS = {"cache_results": True} if "cache_results" in inspect.signature(triton.autotune).parameters else {}


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (512, 1024, 2048) for w in (4, 8)],
                 key=["n"], **KEEP_TIMINGS)
@triton.jit
def scale_tuned(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)
# --8<-- [end:fix]


# --8<-- [start:measure]
def fresh_process(function, cache_dir):
    """Run `function` of this file in a new Python process whose Triton cache is `cache_dir`; what it returns."""
    code = (f"import json, runpy; f = runpy.run_path({__file__!r})[{function!r}]; "
            "print('RESULT' + json.dumps(f()))")
    env = {**os.environ, "TRITON_CACHE_DIR": cache_dir, "TORCHINDUCTOR_CACHE_DIR": os.path.join(cache_dir, "inductor")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.split("RESULT")[-1])


def timed_job():
    """Seconds of the job's first launches (compile, autotune, load), then of the same launches again."""
    started = time.perf_counter()
    run_job()
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    first = time.perf_counter() - started
    started = time.perf_counter()
    out = run_job()
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    return {"first": first, "again": time.perf_counter() - started, "nan": int(out.isnan().sum()),
            "benchmarked": hasattr(scale_tuned, "bench_time")}  # set only when the autotuner ran its configs


def timed_compile_for_h200():
    """Seconds to compile `scale` for an H200 (sm_90) with triton.compile, no GPU needed: first the hash of Triton's
    own files that every process computes once (cached nowhere), then the compile, which the cache can skip."""
    from triton.runtime.cache import triton_key

    started = time.perf_counter()
    triton_key()
    own_hash = time.perf_counter() - started
    fn = triton.runtime.jit.JITFunction(scale.fn)  # a fresh object: compiled, even under TRITON_INTERPRET=1
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "factor": "fp32", "BLOCK": "constexpr"}
    started = time.perf_counter()
    triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 1024}),
                   target=triton.backends.compiler.GPUTarget("cuda", 90, 32))
    return {"own_hash": own_hash, "first": time.perf_counter() - started}


def timed_torch_compile():
    """Seconds of a torch.compile'd function's first call (Inductor generates Triton kernels), then of a second call."""
    f = torch.compile(lambda x: torch.softmax(x * 2.0, dim=-1).sum(dim=0))
    x = torch.randn(512, 1000, device=DEVICE)
    started = time.perf_counter()
    f(x)
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    first = time.perf_counter() - started
    started = time.perf_counter()
    f(x)
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    return {"first": first, "again": time.perf_counter() - started}
# --8<-- [end:measure]


def main():
    if "__file__" not in globals():  # a notebook: there is no file for the new processes to run
        print("Each start is a new Python process that runs this file: run it as a script,")
        print("python compile_time_at_every_start.py")
        return
    what = "timed_job" if DEVICE == "cuda" else "timed_compile_for_h200"
    with tempfile.TemporaryDirectory() as cache:
        for start in ("a new, empty cache", "the same cache again", "the same cache, a third time"):
            print(f"{start:30} first launch {fresh_process(what, cache)['first'] * 1000:8.1f} ms")  # compile or load


if __name__ == "__main__":
    main()
