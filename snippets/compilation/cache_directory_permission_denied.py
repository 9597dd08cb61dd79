"""TP038: "PermissionError: [Errno 13] Permission denied: '/.triton'": Triton's kernel cache under a home you cannot write.

Run it: python cache_directory_permission_denied.py  (no GPU needed: the job compiles its kernel for sm_90,
in a new process whose home is /, as the unprivileged user `nobody` when run by root)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

import subprocess
import sys
import tempfile

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
JOB = """
import os
import sysconfig

import triton
import triton.language as tl


@triton.jit
def store_one(y_ptr):
    tl.store(y_ptr, 1.0)


if os.geteuid() == 0:  # root may write anywhere: run as `nobody`, as many containers do
    sysconfig.get_config_vars()  # read now: a Python installed under /root is unreadable once we are nobody
    os.setgid(65534)
    os.setuid(65534)
sm90 = triton.backends.compiler.GPUTarget("cuda", 90, 32)  # an H100/H200: compiling for it needs no GPU
triton.compile(triton.compiler.ASTSource(store_one, {"y_ptr": "*fp32"}, {}), target=sm90)
print("compiled")
"""

NOBODY = 65534


def run_job(job=JOB, **env):
    """Run `job` in a new process with HOME=/ (a container user without a home) plus `env`; return the last
    line it printed, or of its error when it failed."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:  # @triton.jit reads its source from a file
        script.write(job)
    for name in ("TRITON_CACHE_DIR", "TRITON_HOME"):
        if name in env and os.geteuid() == 0:
            os.chown(env[name], NOBODY, NOBODY)  # the job's directory belongs to the user it runs as
    inherited = {k: v for k, v in os.environ.items() if k not in ("TRITON_CACHE_DIR", "TRITON_HOME", "TRITON_INTERPRET")}
    done = subprocess.run([sys.executable, script.name], env={**inherited, "HOME": "/", **env},
                          capture_output=True, text=True, timeout=300)
    os.unlink(script.name)
    lines = (done.stdout if done.returncode == 0 else done.stderr).strip().splitlines()  # a warning is no result
    return lines[-1] if lines else f"exit code {done.returncode}, no output"
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def job_env():
    """What to add to a job's environment: a Triton cache of its own, on local disk."""
    cache = tempfile.mkdtemp(prefix="triton-cache-")  # local disk, a new directory per job, owned by its user
    return {"TRITON_CACHE_DIR": cache}  # the fix: Triton writes compiled kernels here, not under $HOME/.triton
# --8<-- [end:fix]


# --8<-- [start:launch]
@triton.jit
def double_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def double(x, block=128):
    y = torch.full_like(x, float("nan"))  # NaN until a program writes it
    double_kernel[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), BLOCK=block)
    return y


def cached_files(cache):
    """The files under a cache directory, by name."""
    return sorted(name for _, _, names in os.walk(cache) for name in names)
# --8<-- [end:launch]


def main():
    print("HOME=/, no TRITON_CACHE_DIR:", run_job())
    env = job_env()
    print("TRITON_CACHE_DIR set:       ", run_job(**env))
    print("  it now holds:", ", ".join(cached_files(env["TRITON_CACHE_DIR"])))
    home = tempfile.mkdtemp(prefix="triton-home-")
    print("TRITON_HOME set:            ", run_job(TRITON_HOME=home), "->", sorted(os.listdir(home)))
    print("double(x) in this process:  ", double(torch.arange(4.0, device=DEVICE)).tolist())


if __name__ == "__main__":
    main()
