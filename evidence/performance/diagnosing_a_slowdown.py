"""TP059's GPU evidence (`triton-faq bench`): one slow RMS-norm diagnosed in order, spills, tile, num_warps.

Every tensor is 2**28 float32 (1 GiB) or more, far beyond the L2 cache. Each row records the
registers and spills of the launch (`ret.n_regs`, `ret.n_spills`) and do_bench's quantiles; the
bytes counted are one read of x and one write of y (the fewest a row-wise norm can move), so a
kernel that reads x twice or spills shows as fewer GB/s. torch's rms_norm is timed on the same
inputs in the same run, and every fraction is of torch's copy_ of 1 GiB measured in that run
(`copy_ceiling_gbps`): a measured reference, not a physical bound. Every output is checked
against float64 before it is timed.
"""

import csv
import glob
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import triton

from snippets.performance import diagnosing_a_slowdown as entry
from triton_faq.evidence import (copy_ceiling_gbps, gpu_evidence, label, median_ms, memory_bound_cells,
                                 memory_bound_columns, table)

ELEMENTS = 2**28  # float32: 1 GiB in, 1 GiB out
EPS = 1e-6
N_SWEEP = [1024, 2048, 4096, 8192, 16384, 32768, 65536]
N_SLOW = 65536  # the row length at which the whole-row kernel is slow
BLOCKS = [1024, 2048, 4096, 8192]
WARPS = [4, 8, 16]


def inputs(N):
    x = torch.randn(ELEMENTS // N, N, device="cuda")
    w = torch.randn(N, device="cuda")
    x64 = x.double()
    reference = x64 * torch.rsqrt((x64 * x64).mean(dim=1, keepdim=True) + EPS) * w.double()
    del x64
    return x, w, reference


def checked(launch, reference, what):
    """Launch once into a NaN-filled output, check it against float64, return what the launch returned."""
    y, ret = launch(None)
    error = float((y.double() - reference).norm() / reference.norm())
    if torch.isnan(y).any() or error > 1e-5:
        raise AssertionError(f"{what}: wrong result (relative error {error:.2e})")
    return ret


def torch_rms_norm(x, w):
    return torch.nn.functional.rms_norm(x, (x.shape[1],), w, EPS)


def torch_ms(x, w, reference):
    """Median ms of torch's rms_norm on the same inputs, checked against float64 first."""
    y = torch_rms_norm(x, w)
    if float((y.double() - reference).norm() / reference.norm()) > 1e-5:
        raise AssertionError("torch's rms_norm: wrong result")
    return median_ms(lambda: torch_rms_norm(x, w))


def timed_row(launch, x, reference, what, bytes_moved, ceiling):
    """n_regs, n_spills and the memory-bound cells of one launch configuration."""
    ret = checked(launch, reference, what)
    y = torch.empty_like(x)
    return [ret.n_regs, ret.n_spills, *memory_bound_cells(median_ms(lambda: launch(y)), bytes_moved, ceiling)]


@gpu_evidence("whole-row-against-n")
def whole_row_against_n():
    """The whole-row kernel (4 warps) on 1 GiB of rows of N, next to torch's rms_norm: where the slowdown starts."""
    ceiling = copy_ceiling_gbps()
    rows = []
    for N in N_SWEEP:
        x, w, reference = inputs(N)
        cells = timed_row(lambda y: entry.rms_norm_whole_row(x, w, EPS, num_warps=4, y=y), x, reference,
                          f"whole row, N={N}", 2 * ELEMENTS * 4, ceiling)
        torch_median = torch_ms(x, w, reference)["median_ms"]
        rows.append([N, ELEMENTS // N, triton.next_power_of_2(N), cells[1] > 0, *cells, torch_median,
                     torch_median / cells[3]])
        del x, w, reference
    return table(
        [label("N (row length)", "N（行长）", "n"), label("rows", "行数", "rows"),
         label("BLOCK", "BLOCK", "block"), label("spills", "有溢出", "spills"), label("n_regs", "n_regs", "n_regs"),
         label("n_spills", "n_spills", "n_spills"), *memory_bound_columns(),
         label("torch rms_norm, median ms", "torch rms_norm 中位数 毫秒", "torch_ms"),
         label("torch time / kernel time", "torch 耗时 / kernel 耗时", "speedup_over_torch")],
        rows,
        chart={"x": "n", "y": "gbps", "series": None, "mark": "spills"},
        ceiling_gbps=ceiling,
        n_elements=ELEMENTS,
        num_warps=4,
    )


@gpu_evidence("diagnosis-steps")
def diagnosis_steps():
    """At N = 65536: the whole row with 4, 8, 16 warps; then BLOCK-wide tiles; then num_warps; then torch."""
    ceiling = copy_ceiling_gbps()
    x, w, reference = inputs(N_SLOW)
    bytes_moved = 2 * ELEMENTS * 4
    rows = []
    for num_warps in WARPS:
        rows.append(["1: spills", "rms_norm_whole_row", N_SLOW, num_warps, *timed_row(
            lambda y: entry.rms_norm_whole_row(x, w, EPS, num_warps=num_warps, y=y), x, reference,
            f"whole row, num_warps={num_warps}", bytes_moved, ceiling)])
    for step, warps in (("2: tile", [4]), ("3: num_warps", [8, 16])):
        for num_warps in warps:
            for block in BLOCKS:
                rows.append([step, "rms_norm (chunked)", block, num_warps, *timed_row(
                    lambda y: entry.rms_norm(x, w, EPS, BLOCK=block, num_warps=num_warps, y=y), x, reference,
                    f"chunked, BLOCK={block}, num_warps={num_warps}", bytes_moved, ceiling)])
    rows.append(["reference", "torch.nn.functional.rms_norm", "-", "-", "-", "-",
                 *memory_bound_cells(torch_ms(x, w, reference), bytes_moved, ceiling)])
    return table(
        [label("step", "步骤", "step"), label("implementation", "实现", "implementation"),
         label("BLOCK", "BLOCK", "block"), label("num_warps", "num_warps", "num_warps"),
         label("n_regs", "n_regs", "n_regs"), label("n_spills", "n_spills", "n_spills"), *memory_bound_columns()],
        rows,
        ceiling_gbps=ceiling,
        n_elements=ELEMENTS,
        n=N_SLOW,
    )


NCU_METRICS = {  # Nsight Compute metric: (English, Chinese, key)
    "launch__registers_per_thread": ("registers per thread", "每线程寄存器数", "registers"),
    "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum": ("local memory stored, bytes", "写入局部内存的字节数",
                                                    "local_store_bytes"),
    "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum": ("local memory loaded, bytes", "从局部内存读取的字节数",
                                                    "local_load_bytes"),
    "dram__bytes_read.sum": ("DRAM read, bytes", "DRAM 读取字节数", "dram_read_bytes"),
    "dram__bytes_write.sum": ("DRAM written, bytes", "DRAM 写入字节数", "dram_write_bytes"),
    "gpu__time_duration.sum": ("duration, ns", "耗时 纳秒", "duration_ns"),
}
NCU_SCRIPT = """
import sys
import torch
sys.path.insert(0, sys.argv[1])
from snippets.performance import diagnosing_a_slowdown as entry
x, w = torch.randn(4096, 65536, device="cuda"), torch.randn(65536, device="cuda")
entry.rms_norm_whole_row(x, w, 1e-6, num_warps=4)
entry.rms_norm(x, w, 1e-6, BLOCK=4096, num_warps=4)
torch.cuda.synchronize()
"""


def ncu_table(rows):
    columns = [label("kernel", "kernel", "kernel")] + [label(en, zh, key) for en, zh, key in NCU_METRICS.values()]
    return table(columns, rows, n=N_SLOW, rows_of_x=ELEMENTS // N_SLOW)


def ncu_failed(message):
    """The table when ncu cannot read the counters here: one row that holds its message."""
    return ncu_table([[f"ncu: {message}"] + ["-"] * len(NCU_METRICS)])


def ncu_path():
    found = shutil.which("ncu") or sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"))
    return found if isinstance(found, str) else (found[-1] if found else None)


@gpu_evidence("nsight-compute")
def nsight_compute():
    """Nsight Compute's counters for the pitfall (whole row, 4 warps) and the fix (BLOCK 4096, 4 warps) at N = 65536.

    Where ncu cannot read the counters on this machine, the table says so and holds its message.
    """
    ncu = ncu_path()
    if ncu is None:
        return ncu_failed("not found on this machine")
    root = Path(__file__).resolve().parents[2]
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(NCU_SCRIPT)
    command = [ncu, "--clock-control", "none", "--kernel-name", "regex:^rms_norm_(row|chunked)$", "--csv",
               "--page", "details", "--print-units", "base", "--metrics", ",".join(NCU_METRICS),
               sys.executable, script.name, str(root)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as error:
        return ncu_failed(f"did not run ({type(error).__name__}: {error})")
    finally:
        os.unlink(script.name)
    values = {}
    lines = [line for line in done.stdout.splitlines() if line.startswith('"')]
    for record in csv.DictReader(io.StringIO("\n".join(lines))):
        if record.get("Metric Name") in NCU_METRICS:
            text = record["Metric Value"].replace(",", "")
            number = float(text) if text.replace(".", "", 1).isdigit() else text
            kernel = record.get("Kernel Name") or record.get("Function Name")
            values.setdefault(kernel, {})[record["Metric Name"]] = number
    if done.returncode != 0 or set(values) != {"rms_norm_row", "rms_norm_chunked"}:
        message = (done.stderr.strip() or done.stdout.strip()).splitlines()[-3:]
        return ncu_failed(f"exit code {done.returncode}: {' | '.join(message)}")
    rows = [[kernel, *(values[kernel].get(metric, "-") for metric in NCU_METRICS)]
            for kernel in ("rms_norm_row", "rms_norm_chunked")]
    return ncu_table(rows)
