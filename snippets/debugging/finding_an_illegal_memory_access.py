"""TP023: "CUDA error: an illegal memory access was encountered": which kernel, which line?

Run it: python finding_an_illegal_memory_access.py  (without a GPU, Triton's interpreter runs it on the CPU)
`python finding_an_illegal_memory_access.py --workflow` runs the buggy program: on a GPU it raises
the CUDA error, on the interpreter the bad read kills the process (add `-X faulthandler` to see where).
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
def gather_rows(table_ptr, idx_ptr, out_ptr, D, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    row = tl.load(idx_ptr + i)  # trusts the index: no check against the table's size
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    x = tl.load(table_ptr + row * D + cols, mask=mask)  # <- the bad read
    tl.store(out_ptr + i * D + cols, x, mask=mask)


def embed(table: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """out[i] = table[idx[i]] for a contiguous 2-D table and 1-D int64 indices."""
    n_rows, d = table.shape
    out = torch.empty(len(idx), d, device=table.device)
    gather_rows[(len(idx),)](table, idx, out, d, BLOCK=triton.next_power_of_2(d))  # <- the launch
    return out
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def check_indices(idx: torch.Tensor, n_rows: int) -> None:
    """Raise on the host, at the caller's line, before a bad index reaches the kernel."""
    bad = (idx < 0) | (idx >= n_rows)
    if bad.any():  # one synchronising call: cheap next to a lost CUDA context
        raise IndexError(f"index {int(idx[bad][0])} is out of range for a table of {n_rows} rows")


def embed_checked(table: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    check_indices(idx, table.shape[0])  # the fix: check the indices before the launch
    return embed(table, idx)
# --8<-- [end:fix]


# --8<-- [start:workflow]
N_ROWS, D = 1000, 64
BAD_INDEX = 2**34  # a corrupted index: row 17179869184 of a 1000-row table


def workflow():
    table = torch.randn(N_ROWS, D, device=DEVICE)
    idx = torch.tensor([3, 1, BAD_INDEX, 7], device=DEVICE)
    out = embed(table, idx)
    print("launch returned", flush=True)
    scale = 1 / D  # plain Python: nothing here touches the GPU
    total = out.sum().item() * scale  # <- the first call that waits for the GPU
    print("total:", total, flush=True)
# --8<-- [end:workflow]


def main():
    import sys

    if "--workflow" in sys.argv:
        workflow()  # raises on a GPU; kills the process on the interpreter
        return
    table = torch.randn(N_ROWS, D, device=DEVICE)
    try:
        embed_checked(table, torch.tensor([3, 1, BAD_INDEX, 7], device=DEVICE))
    except IndexError as error:
        print("fix: embed_checked refuses the bad index:", error)
    good = torch.tensor([3, 1, 7], device=DEVICE)
    print("fix: embed_checked on valid indices matches table[idx]:", torch.equal(embed_checked(table, good), table[good]))
    print("the pitfall: python -X faulthandler finding_an_illegal_memory_access.py --workflow")


if __name__ == "__main__":
    main()
