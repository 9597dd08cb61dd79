"""Run readers' files cell by cell, outside the repository, without the handbook (see triton_faq/download.py).

``run_reader_file.py JOBS ROOT``: JOBS is a JSON file of ``[name, cells, folder]``.
"""
import sys

sys.path[0] = ""  # as under ``python -c``: dropped below with the repository
import contextlib, io, json, linecache, os, sys, traceback
sys.modules["triton_faq"] = None  # a reader does not have the handbook's tooling
sys.path[:] = [p for p in sys.path if p not in ("", ".", sys.argv[2], sys.argv[2] + "/")]  # not the repository
if os.environ.get("TRITON_INTERPRET") == "1":
    import torch, triton  # noqa: F401  (loaded once, before the forks)


def run(name, cells):
    namespace, outputs = {"__name__": "__main__"}, []
    for number, source in enumerate(cells):
        filename = f"<{name}, cell {number}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        stream = io.StringIO()
        try:
            with contextlib.redirect_stdout(stream):
                exec(compile(source, filename, "exec"), namespace)
            outputs.append({"stdout": stream.getvalue(), "error": None})
        except BaseException as error:
            outputs.append({"stdout": stream.getvalue(), "error": "".join(traceback.format_exception(error))})
            break
    return outputs


results = {}
for name, cells, folder in json.load(open(sys.argv[1], encoding="utf-8")):
    result = os.path.join(folder, "result.json")
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.chdir(folder)
        with open(result, "w", encoding="utf-8") as stream:
            json.dump(run(name, cells), stream)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.path.exists(result):
        results[name] = json.load(open(result, encoding="utf-8"))
    else:
        results[name] = [{"stdout": "", "error": f"the process running {name} died (wait status {status})"}]
print(json.dumps(results))
