"""TP032: tl.make_block_ptr, deprecated from Triton 3.7 (once per file)."""

from ..core import Rule
from ._common import kernels

RULE = Rule("TP032", "compilation/block-pointers-and-tensor-descriptors", True,
            "tl.make_block_ptr: warns from Triton 3.7, block-pointer kernels fail from 3.9 (once per file)",
            since=(3, 7), once_per_file=True)


def check(f):
    for s in kernels(f):
        for call in s.calls:
            if f.tl(call.func, s) == "make_block_ptr":
                yield call, ("tl.make_block_ptr warns from Triton 3.7 and block-pointer kernels fail from 3.9; use a "
                             "tensor descriptor or plain pointers with masks")


BAD = ['''
@triton.jit
def k(x_ptr, M, N, s, BM: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(s, 1), offsets=(0, 0), block_shape=(BM, BN), order=(1, 0))
    tl.store(p, tl.load(p) + 1)
''']
GOOD = ['''
@triton.jit
def k(x_ptr, M, N, s, BM: tl.constexpr, BN: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[s, 1], block_shape=[BM, BN])
    d.store([0, 0], d.load([0, 0]) + 1)
''']
