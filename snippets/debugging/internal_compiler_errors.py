"""TP074: TODO(new entry) the question in one line.

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
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
# TODO(new entry): the kernel that goes wrong
# --8<-- [end:pitfall]


# --8<-- [start:fix]
# TODO(new entry): the kernel that is right; a comment marks the line that fixes it
# --8<-- [end:fix]


def main():
    print("TODO(new entry): print the pitfall's wrong result next to the fix's right one")


if __name__ == "__main__":
    main()
