"""TP063: when the error is Triton's bug, not yours: two Triton 3.6 bugs that look like user mistakes.

Run it: python when_it_is_a_triton_bug.py  (needs no GPU: it compiles for sm_80 and sm_90 and runs a kernel on Triton's interpreter)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"

import inspect  # noqa: E402  (in_new_process)
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
@triton.jit  # a valid kernel for fp32, fp16, e5m2 and e4m3 inputs
def to_float32(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float32), mask=mask)


@triton.jit
def row_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(x, axis=0))  # tl.sum is itself a @triton.jit function: a nested call


def compile_kernel(capability, x_type="fp32"):
    """Compile to_float32 for sm_<capability>, x_ptr of element type x_type; no GPU needed."""
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # an empty cache: a cached kernel would hide the bug
    fn = triton.runtime.jit.JITFunction(to_float32.fn)
    signature = {"x_ptr": f"*{x_type}", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    target = triton.backends.compiler.GPUTarget("cuda", capability, 32)
    return triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 128}), target=target)


def compile_for(capability, x_type="fp32"):
    """"compiled", or what the compiler said: ptxas's error line, or the whole error."""
    try:
        compile_kernel(capability, x_type)
    except Exception as error:
        ptxas = [line.split("error   : ")[-1] for line in str(error).splitlines() if "error   : " in line]
        return ptxas[0] if ptxas else f"{type(error).__name__}: {error}"
    return "compiled"


def newer_target_first():
    """Bug 1, in one process: an fp8 compile for sm_90, then the e5m2 kernel for sm_80."""
    return [compile_for(90, "fp8e4nv"), compile_for(80, "fp8e5")]


def interpreter_then_compile():
    """Bug 2, in a process that interprets kernels: compile for sm_90, run row_sum, compile again."""
    before = compile_for(90)
    x, out = torch.arange(64, dtype=torch.float32), torch.full((1,), float("nan"))
    row_sum[(1,)](x, out, BLOCK=64)  # on the interpreter: patches triton.language, leaves some behind
    return [before, out.item(), compile_for(90)]
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def compile_fresh(capability, x_type="fp32"):
    """The workaround while your release has the bug: compile where nothing compiled or ran before."""
    return in_new_process("compile_for", capability, x_type)  # the fix: a new process
# --8<-- [end:fix]


# --8<-- [start:fresh]
def in_new_process(function, *args, interpret=False):
    """function(*args) of the code above, run in a new Python process; interpret: TRITON_INTERPRET=1 there.

    The new process gets a copy of the kernels and functions (inspect: it works from a notebook too).
    """
    code = [inspect.getsource(f) for f in (to_float32.fn, row_sum.fn, compile_kernel, compile_for,
                                           newer_target_first, interpreter_then_compile)]
    header = "import json, os, sys, tempfile\n\n"
    if interpret:  # set before triton is imported, as a CPU-only run of this file does
        header += 'os.environ["TRITON_INTERPRET"] = "1"\nimport torch\n'
    header += "import triton\nimport triton.language as tl"
    call = "print(json.dumps(globals()[sys.argv[1]](*json.loads(sys.argv[2]))))"
    env = {name: value for name, value in os.environ.items() if name != "TRITON_INTERPRET"}
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "reproducer.py")  # @triton.jit reads a kernel's source from its file
        with open(script, "w", encoding="utf-8") as stream:
            stream.write("\n\n".join([header, *code, call]) + "\n")
        done = subprocess.run([sys.executable, script, function, json.dumps(args)], env=env,
                              capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{function} failed in the new process:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])
# --8<-- [end:fresh]


# --8<-- [start:report]
def environment():
    """What a bug report names besides the reproducer: the versions and the GPU (or the target)."""
    gpu = "none: compiled for a GPUTarget"
    if torch.cuda.is_available():
        gpu = f"{torch.cuda.get_device_name()} (sm_{''.join(map(str, torch.cuda.get_device_capability()))})"
    return {"triton": triton.__version__, "torch": torch.__version__, "cuda": torch.version.cuda,
            "python": platform.python_version(), "gpu": gpu}
# --8<-- [end:report]


def main():
    print("environment:", environment())
    print("1. fp8 for sm_90, then e5m2 for sm_80, one new process:", in_new_process("newer_target_first"))
    print("   e5m2 for sm_80 alone, a new process:", compile_fresh(80, "fp8e5"))
    before, total, after = in_new_process("interpreter_then_compile", interpret=True)
    print("2. compile for sm_90, then row_sum on the interpreter, then the same compile, one new process:")
    print("   before:", before, "| row_sum:", total, "| after:", after.splitlines()[0], after.splitlines()[-1])
    print("   the same compile, a new process:", compile_fresh(90))


if __name__ == "__main__":
    main()
