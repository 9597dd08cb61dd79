"""TP056's GPU evidence (`triton-faq bench`): how many waiting programs give up, per grid size and order."""

from snippets.debugging import deadlock_between_programs as entry
from triton_faq.evidence import gpu_evidence, label, table

PROGRAMS_PER_SM = (1, 4, 8, 16, 17, 32, 64)  # grid sizes, in programs per SM; a grid of 2 comes first
BLOCKS_PER_SM_LIMIT = 32  # CUDA's limit of resident blocks per SM for compute capability 9.0


@gpu_evidence("deadlock-grid-sizes")
def give_ups_per_grid_size():
    """The handoff kernel of the page on grids from 2 programs to 64 per SM, in both orders.

    "Fit at once" is an estimate from the SM count, the warps per program and the registers of the
    compiled kernel (resident programs per SM = the smallest of 32, 2048 threads / threads per
    program, 65536 registers / registers per program); the count of programs that gave up
    is measured. Every waiting program spins at most `entry.MAX_SPINS` times.
    """
    import time

    import torch

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    x = torch.rand(128, device="cuda")  # positive: the float32 sum is close to the float64 one
    total = x.double().sum().item()
    kernel = entry.handoff_kernel[(1,)](x, torch.empty(1, device="cuda"), torch.zeros(1, dtype=torch.int32, device="cuda"),
                                        torch.empty(1, device="cuda"), torch.empty(1, dtype=torch.int32, device="cuda"),
                                        MAX_SPINS=entry.MAX_SPINS, PRODUCER_IS_LAST=True, BLOCK=128)
    threads = 32 * kernel.metadata.num_warps
    per_sm = min(BLOCKS_PER_SM_LIMIT, 2048 // threads, 65536 // max(1, kernel.n_regs * threads))
    rows = []
    for n_programs in (2, *(k * sms for k in PROGRAMS_PER_SM)):
        row = [n_programs, round(n_programs / sms, 2), n_programs <= per_sm * sms]
        for producer_is_last in (True, False):
            start = time.perf_counter()
            out, gave_up = entry.handoff(x, n_programs, producer_is_last)
            torch.cuda.synchronize()
            seconds = time.perf_counter() - start
            if bool((gave_up < 0).any()):
                raise AssertionError("a program did not write its gave-up flag")
            wrong = int((~torch.isclose(out.double(), torch.tensor(total, dtype=torch.float64, device="cuda"),
                                        rtol=1e-5, atol=1e-5)).sum())
            row += [int(gave_up.sum()), wrong, round(seconds * 1e3, 1)]
        rows.append(row)
    return table(
        [label("programs", "program 数"), label("programs per SM", "每个 SM 的 program 数"),
         label("fit at once (estimate)", "能否同时驻留（估算）"),
         label("gave up: waiting on the last program", "放弃等待：等最后一个 program"),
         label("wrong totals: waiting on the last program", "结果错误：等最后一个 program"),
         label("ms: waiting on the last program", "毫秒：等最后一个 program"),
         label("gave up: waiting on program 0", "放弃等待：等 program 0"),
         label("wrong totals: waiting on program 0", "结果错误：等 program 0"),
         label("ms: waiting on program 0", "毫秒：等 program 0")],
        rows,
        sms=sms,
        resident_programs_per_sm_estimate=per_sm,
        registers_per_thread=kernel.n_regs,
        num_warps=kernel.metadata.num_warps,
        max_spins=entry.MAX_SPINS,
    )
