"""A fresh Python process that runs functions of one file (see triton_faq/fresh.py).

``fresh_call.py call FILE FUNCTION CALLS MODE``: one process, its results printed as JSON.
``fresh_call.py starter MODE``: imports torch and Triton once, then forks one child per request
line read from standard input (see triton_faq/fresh.py for the protocol).
MODE is ``compile-ready`` (Triton imported without the interpreter) or empty.
"""
import sys

sys.path[0] = ""  # as under ``python -c``: the working directory first, not this folder
MODE = sys.argv.pop(1)

def _calls(snippet, function, calls):
    import runpy, traceback
    namespace = runpy.run_path(snippet)
    results = []
    for args in calls:
        try:
            value = namespace[function](*args)
            results.append({"value": sorted(value) if isinstance(value, set) else value})
        except Exception as error:
            results.append({"error": type(error).__name__, "message": str(error),
                            "traceback": "".join(traceback.format_exception(error))})
    return results


def _import_triton(compile_ready):
    import os
    interpret = os.environ.pop("TRITON_INTERPRET", None) if compile_ready else None
    import torch, triton, triton.language  # noqa: F401
    if interpret is not None:
        os.environ["TRITON_INTERPRET"] = interpret


def _hash_triton_once():
    """Triton's hash of its own installed files (its compiler's modules and the 400 MB libtriton), which
    every compile puts in its cache key: the same in every process of one installation, so the starter
    computes it once and each child it forks has it, instead of each child hashing the library again."""
    try:
        from triton.runtime.cache import triton_key
    except ImportError:  # older releases keep it beside the compiler
        try:
            from triton.compiler.compiler import triton_key
        except ImportError:
            return
    triton_key()


def call():
    import json, sys
    _import_triton(sys.argv[4] == "compile-ready")
    print(json.dumps(_calls(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]))))


def starter():
    import json, os, sys
    _import_triton(sys.argv[1] == "compile-ready")
    _hash_triton_once()
    protocol = os.fdopen(os.dup(1), "w")
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush(); sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(log, 1); os.dup2(log, 2)
            os.environ.clear(); os.environ.update(request["env"])
            code = 1
            try:
                results = _calls(request["snippet"], request["function"], request["calls"])
                with open(request["result"] + ".tmp", "w", encoding="utf-8") as stream:
                    json.dump(results, stream)
                os.replace(request["result"] + ".tmp", request["result"])
                code = 0
            except BaseException:
                import traceback
                traceback.print_exc()
            finally:
                sys.stdout.flush(); sys.stderr.flush()
                os._exit(code)
        protocol.write(f"pid {pid}\n"); protocol.flush()
        _, status = os.waitpid(pid, 0)
        protocol.write(f"done {status}\n"); protocol.flush()


{"call": call, "starter": starter}[MODE]()
