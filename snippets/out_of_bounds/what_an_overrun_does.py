"""TP004: what an out-of-bounds access actually does, per backend and per distance.

Run it: python what_an_overrun_does.py  (without a GPU, Triton's interpreter runs it on the CPU)

`python what_an_overrun_does.py --overrun near|far` runs one overrun past a real allocation and
reports how it ended. Everything else runs it in a child process: a far overrun can kill the
interpreter's process or break the CUDA context.
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

import inspect
import subprocess
import sys
import traceback

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit
def copy_at(x_ptr, out_ptr, offset, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offset + offs)  # no mask: reads x[offset : offset + BLOCK]
    tl.store(out_ptr + offs, x)
# --8<-- [end:pitfall]


# --8<-- [start:fix]
@triton.jit
def copy_at_masked(x_ptr, out_ptr, offset, n, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    in_bounds = offset + lanes < n  # the fix: only lanes inside the n elements of x touch memory
    x = tl.load(x_ptr + offset + lanes, mask=in_bounds)
    tl.store(out_ptr + lanes, x, mask=in_bounds)
# --8<-- [end:fix]


# --8<-- [start:near-view]
BLOCK = 8
NEAR = BLOCK  # the 8 elements right after an 8-element tensor
FAR = 2**40  # 2**40 elements (4 TiB of float32) past its start
SENTINEL = 1000.0


def near_overrun_in_a_view():
    """Read the 8 elements after an 8-element tensor that is a view of a 16-element buffer."""
    buffer = torch.full((2 * BLOCK,), SENTINEL, device=DEVICE)
    buffer[:BLOCK] = torch.arange(BLOCK, device=DEVICE)
    x = buffer[:BLOCK]  # an 8-element tensor with 8 sentinels behind it
    out = torch.full((BLOCK,), float("nan"), device=DEVICE)
    copy_at[(1,)](x, out, NEAR, BLOCK=BLOCK)
    return out
# --8<-- [end:near-view]


# --8<-- [start:overrun]
def overrun(offset):
    """Read BLOCK elements at `offset` from an 8-element tensor, then report how it went."""
    x = torch.arange(BLOCK, dtype=torch.float32, device=DEVICE)
    out = torch.zeros(BLOCK, device=DEVICE)
    try:
        copy_at[(1,)](x, out, offset, BLOCK=BLOCK)
        print("launch returned", flush=True)
        if DEVICE == "cuda":
            torch.cuda.synchronize()
        print("finished without an error", flush=True)
    except Exception as error:
        here = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == __file__]
        print(f"failed at: {here[-1].line}")
        print(f"is a RuntimeError: {isinstance(error, RuntimeError)}")
        print(f"error: {str(error).splitlines()[0]}", flush=True)
        os._exit(3)  # skip interpreter teardown: the CUDA context is unusable now
# --8<-- [end:overrun]


# --8<-- [start:child]
def run_child(distance, *python_flags, **env):
    """Run `overrun(NEAR)` or `overrun(FAR)` in a fresh Python process on the same backend."""
    environ = {k: v for k, v in os.environ.items() if k != "CUDA_LAUNCH_BLOCKING"}
    environ.update(env)
    script = inspect.getsourcefile(run_child)  # this file, run as a script with --overrun
    command = [sys.executable, *python_flags, script, "--overrun", distance]
    return subprocess.run(command, env=environ, capture_output=True, text=True, timeout=300)
# --8<-- [end:child]


def main():
    if "--overrun" in sys.argv:
        overrun(NEAR if sys.argv[sys.argv.index("--overrun") + 1] == "near" else FAR)
        return
    print(f"near overrun inside an allocation reads the sentinels behind x: {near_overrun_in_a_view().tolist()}")
    child = run_child("far", "-X", "faulthandler")
    print(f"far overrun ({FAR} elements) in a child process on {DEVICE}: return code {child.returncode}")
    print("  stdout:", child.stdout.splitlines())
    print("  stderr:", [line for line in child.stderr.splitlines() if "Fatal" in line or "copy_at" in line])
    out = torch.full((BLOCK,), float("nan"), device=DEVICE)
    copy_at_masked[(1,)](torch.arange(8.0, device=DEVICE), out, FAR, 8, BLOCK=BLOCK)
    print(f"the masked kernel at the same offset reads nothing: {out.tolist()}")


if __name__ == "__main__":
    main()
