"""TP088: tl.atomic_add is slow: a GPU-wide barrier around every add by default, and adds to one
address that wait in line.

Run it: python atomic_add_is_slow.py  (without a GPU, Triton's interpreter runs the kernels on the CPU;
the machine-code part compiles for an sm_90 GPU, an H100 or H200, on any machine)
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
def scatter_add_pitfall(x_ptr, index_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out[index[i]] += x[i] for every i, as torch's index_add_."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x, index = tl.load(x_ptr + offs, mask=mask), tl.load(index_ptr + offs, mask=mask)
    tl.atomic_add(out_ptr + index, x, mask=mask)  # sem defaults to "acq_rel": a barrier around each add


@triton.jit
def histogram_pitfall(index_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    """counts[b] = how many i have index[i] == b, as torch.bincount."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    index = tl.load(index_ptr + offs, mask=mask)
    tl.atomic_add(counts_ptr + index, 1, mask=mask, sem="relaxed")  # one add per element, few addresses
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def scatter_add_fixed(x_ptr, index_ptr, out_ptr, n, BLOCK: tl.constexpr):  # out[index[i]] += x[i]
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x, index = tl.load(x_ptr + offs, mask=mask), tl.load(index_ptr + offs, mask=mask)
    tl.atomic_add(out_ptr + index, x, mask=mask, sem="relaxed")  # the fix: nothing reads out until the kernel ends


@triton.jit
def histogram_fixed(index_ptr, counts_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):  # BINS: a power of 2
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    counts = tl.histogram(tl.load(index_ptr + offs, mask=mask).to(tl.int32), BINS, mask=mask)  # the fix
    tl.atomic_add(counts_ptr + tl.arange(0, BINS), counts, sem="relaxed")  # then one add per bin
# --8<-- [end:fix]


# --8<-- [start:sass]
def memory_instructions(kernel_name, num_warps=4):
    """The memory-ordering instructions, in order, in the machine code of this file's scatter-add
    kernel ``kernel_name`` compiled for sm_90 (no GPU needed): the atomic itself (ATOMG, or REDG, a
    reduction that returns nothing), and the barriers (MEMBAR, ERRBAR, CGAERRBAR) and cache control
    (CCTL) that an acquire or release semantic adds around it."""
    import re

    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction

    kernel = globals()[kernel_name]
    fn = kernel if isinstance(kernel, JITFunction) else JITFunction(kernel.fn)
    signature = {"x_ptr": "*fp32", "index_ptr": "*i32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    source = ASTSource(fn, signature, {"BLOCK": 1024})
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps})
    found = re.findall(r"\b(ATOMG|REDG|MEMBAR|CCTL|ERRBAR|CGAERRBAR)(\.[A-Z0-9_.]+)?\b", compiled.asm["sass"])
    return [opcode + modifiers for opcode, modifiers in found]
# --8<-- [end:sass]


# --8<-- [start:launch]
def scatter_add(kernel, x, index, size, BLOCK=1024):
    """out = zeros(size); out[index[i]] += x[i] (torch: out.index_add_(0, index, x))."""
    out = torch.zeros(size, device=x.device)
    kernel[(triton.cdiv(x.numel(), BLOCK),)](x, index, out, x.numel(), BLOCK=BLOCK)
    return out


def histogram(kernel, index, bins, BLOCK=1024):
    """counts[b] = (index == b).sum() (torch: torch.bincount(index, minlength=bins))."""
    counts = torch.zeros(bins, dtype=torch.int32, device=index.device)
    extra = {"BINS": bins} if kernel is histogram_fixed else {}
    kernel[(triton.cdiv(index.numel(), BLOCK),)](index, counts, index.numel(), BLOCK=BLOCK, **extra)
    return counts
# --8<-- [end:launch]


# --8<-- [start:timing]
def time_ms(fn):
    """Median milliseconds of fn on the GPU (CUDA events, through triton.testing.do_bench)."""
    return triton.testing.do_bench(fn, return_mode="median")


def compare_speed(n=2**26, timer=time_ms):
    """Each pitfall next to its fix and to torch's own op, on n random float32 values and n int32
    indices (2**26: 512 MiB together, far beyond L2): {(workload, implementation): timer(launch)}."""
    x = torch.randn(n, device="cuda")
    timings = {}
    for size in (2**20, 256):
        index = torch.randint(0, size, (n,), device="cuda", dtype=torch.int32)
        workload = f"scatter-add of {n:,} values into {size:,} rows"
        timings[workload, "default sem"] = timer(lambda: scatter_add(scatter_add_pitfall, x, index, size))
        timings[workload, "sem='relaxed'"] = timer(lambda: scatter_add(scatter_add_fixed, x, index, size))
        timings[workload, "torch index_add_"] = timer(lambda: torch.zeros(size, device="cuda").index_add_(0, index, x))
    bins = 16
    index = torch.randint(0, bins, (n,), device="cuda", dtype=torch.int32)
    workload = f"histogram of {n:,} values into {bins} bins"
    timings[workload, "one add per element"] = timer(lambda: histogram(histogram_pitfall, index, bins))
    timings[workload, "tl.histogram, one add per bin"] = timer(lambda: histogram(histogram_fixed, index, bins))
    timings[workload, "torch.bincount"] = timer(lambda: torch.bincount(index, minlength=bins))
    return timings
# --8<-- [end:timing]


def main():
    # Compile for sm_90 first: once the interpreter has run a kernel, the real compiler fails in that process.
    print("memory-ordering instructions of the first add, compiled for sm_90 (8 adds per thread in all):")
    for kernel_name in ("scatter_add_pitfall", "scatter_add_fixed"):
        found = memory_instructions(kernel_name)
        print(f"  {kernel_name}: {found[:len(found) // 8]}")
    x = torch.randn(10_000, device=DEVICE)
    index = torch.randint(0, 100, (10_000,), device=DEVICE, dtype=torch.int32)
    reference = torch.zeros(100, dtype=torch.float64, device=DEVICE).index_add_(0, index.long(), x.double())
    for kernel in (scatter_add_pitfall, scatter_add_fixed):
        error = (scatter_add(kernel, x, index, 100).double() - reference).abs().max().item()
        print(f"{kernel.__name__}: max error vs float64 {error:.2e}")
    few = torch.randint(0, 16, (10_000,), device=DEVICE, dtype=torch.int32)
    expected = torch.bincount(few.long(), minlength=16)
    for kernel in (histogram_pitfall, histogram_fixed):
        print(f"{kernel.__name__}: equals torch.bincount: {torch.equal(histogram(kernel, few, 16).long(), expected)}")
    if DEVICE == "cuda":
        for (workload, implementation), ms in compare_speed().items():
            print(f"  {ms:8.3f} ms  {workload}: {implementation}")


if __name__ == "__main__":
    main()
