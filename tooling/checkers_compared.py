"""Which checker catches which bug: the same buggy and correct kernels under every tool.

    python tooling/checkers_compared.py            # CPU tools: triton_checked, the plain interpreter,
                                                   # triton-viz's sanitizer (if importable), + the overhead
    python tooling/checkers_compared.py --gpu      # on an NVIDIA GPU: the compiled run, compute-sanitizer
                                                   # memcheck with and without PyTorch's caching allocator,
                                                   # and racecheck
    python tooling/checkers_compared.py --gpu --out DIR   # write DIR/checkers-compared.json instead of data/
    python tooling/checkers_compared.py --merge DIR/checkers-compared.json   # fold a run into data/

Each (tool, case) runs in its own child process (``--child CASE --tool TOOL``); the parent reads
its exit status and output: ``reported`` (the tool's report), ``silent`` (the case finished, no
report), ``crashed`` (killed, or an error that is not a report), ``wrong result`` (a correct
case's assertion failed). The cases are in ``tooling/checker_cases.py``. The result is stored in
the format of the handbook's GPU data (one result per machine, tables in both languages, with
provenance and a hash of the code that produced it), so pages show it with
``<!-- gpu-data: NAME -->``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "checkers-compared.json"
VIZ = ROOT / ".cache" / "triton-viz"  # where VIZ_INSTALL puts it (beside, not inside, the virtual environment)
# triton-viz and what importing its sanitizer needs, without its own Triton (the one under test stays):
VIZ_INSTALL = ("pip install --no-deps --target .cache/triton-viz triton-viz==3.0 z3-solver anytree tqdm "
               "flask flask_cloudflared werkzeug itsdangerous blinker")
HARNESS = (Path("tooling") / "checker_cases.py", Path("tooling") / "checkers_compared.py")
CHECKER = Path("triton_checked")
COMMAND = "python tooling/checkers_compared.py"
FINISHED = "CASE-FINISHED"

CPU_TOOLS = {
    "checked": ("triton_checked.checked()", "triton_checked.checked()"),
    "interpreter": ("Triton's interpreter, plain", "Triton 解释器（不加检查）"),
    "triton-viz": ("triton-viz sanitizer", "triton-viz sanitizer"),
}
GPU_TOOLS = {
    "compiled": ("compiled, no tool", "编译运行，不加工具"),
    "memcheck": ("compute-sanitizer memcheck", "compute-sanitizer memcheck"),
    "memcheck-no-cache": ("memcheck, PYTORCH_NO_CUDA_MEMORY_CACHING=1", "memcheck，PYTORCH_NO_CUDA_MEMORY_CACHING=1"),
    "racecheck": ("compute-sanitizer racecheck", "compute-sanitizer racecheck"),
}
NEEDS = {  # {version}: triton-viz's (CPU run) or compute-sanitizer's (GPU run), from the run's provenance
    "checked": ("CPU, Triton's interpreter; numpy", "CPU，Triton 解释器；numpy"),
    "interpreter": ("CPU, Triton's interpreter", "CPU，Triton 解释器"),
    "triton-viz": ("CPU, Triton's interpreter; triton-viz {version} with z3-solver and flask",
                   "CPU，Triton 解释器；triton-viz {version}，以及 z3-solver 和 flask"),
    "compiled": ("an NVIDIA GPU", "NVIDIA GPU"),
    "memcheck": ("an NVIDIA GPU; compute-sanitizer {version} (CUDA toolkit)",
                 "NVIDIA GPU；compute-sanitizer {version}（CUDA toolkit）"),
    "memcheck-no-cache": ("an NVIDIA GPU; compute-sanitizer {version} (CUDA toolkit)",
                          "NVIDIA GPU；compute-sanitizer {version}（CUDA toolkit）"),
    "racecheck": ("an NVIDIA GPU; compute-sanitizer {version} (CUDA toolkit)",
                  "NVIDIA GPU；compute-sanitizer {version}（CUDA toolkit）"),
}
BUGS_ZH = {  # the kinds of bug in tooling/checker_cases.py, for the Chinese tables
    "out of bounds, inside the buffer": "越界，仍在同一块缓冲区内",
    "out of bounds, own allocation": "越界，张量独占一次分配",
    "out of bounds, far": "越界，远离张量",
    "outside the view, inside its span": "在视图之外、但在其跨度之内",
    "race between programs": "program 之间的竞争",
    "correct": "正确",
}
OUTCOMES = {
    "reported": ("reported", "报告"),
    "silent": ("silent", "无报告"),
    "crashed": ("crashed", "崩溃或报错"),
    "wrong result": ("wrong result", "结果错误"),
    "timed out": ("timed out", "超时"),
}
KERNELS_ZH = {  # triton_checked.bench's kernels, for the Chinese table
    "elementwise": "2x + y，1,024 个 program，每个 128 个元素",
    "reduction": "逐行求和，64 个 program，运行时循环 8 个 128 元素的块",
    "matmul": "128 x 128 x 128，16 个 program，32 x 32 的块，K 每步 32",
    "gather": "按索引取 2,048 行（每行 32 个元素），2,048 个 program",
    "gather-2M": "从 210 万元素的表中按索引取 64 行（每行 64 个元素），64 个 program",
    "gather-67M": "从 6,700 万元素的表中按索引取 64 行（每行 64 个元素），64 个 program",
    "gather-100M": "从 1 亿元素的表中按索引取 64 行（每行 64 个元素），64 个 program",
}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


# -- the child: one case under one tool ------------------------------------------------------------

def child(case: str, tool: str) -> int:
    if tool in CPU_TOOLS:
        os.environ["TRITON_INTERPRET"] = "1"
    sys.path.insert(0, str(ROOT))
    if tool == "triton-viz":
        import triton
        import triton.runtime.interpreter as interpreter
        from triton_viz.wrapper import create_patched_jit, sanitizer_wrapper

        patched = create_patched_jit(sanitizer_wrapper)  # what its triton-sanitizer command does
        triton.jit = triton.language.jit = interpreter.jit = patched
    from tooling import checker_cases

    _, run = checker_cases.CASES[case]
    began = time.perf_counter()
    if tool == "checked":
        import triton_checked

        with triton_checked.checked():
            run()
    else:
        run()
    if checker_cases.DEVICE == "cuda":
        import torch

        torch.cuda.synchronize()
    print(f"{FINISHED} {time.perf_counter() - began:.3f}", flush=True)
    return 0


# -- the parent: run, classify, tabulate -----------------------------------------------------------

def sanitizer() -> str:
    found = shutil.which("compute-sanitizer")
    if found is None and Path("/usr/local/cuda/bin/compute-sanitizer").is_file():
        found = "/usr/local/cuda/bin/compute-sanitizer"
    if found is None:
        raise SystemExit("compute-sanitizer is not on PATH (it ships with the CUDA toolkit, in cuda/bin)")
    return found


def command_for(case: str, tool: str) -> tuple[list[str], dict]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("TRITON_INTERPRET", "PYTORCH_NO_CUDA_MEMORY_CACHING", "TRITON_CHECKED", "TRITON_FAQ_CHECKED")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([str(VIZ)] if tool == "triton-viz" and VIZ.is_dir() else [])
                                        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    me = [sys.executable, str(Path(__file__).resolve()), "--child", case, "--tool", tool]
    if tool in ("memcheck", "memcheck-no-cache", "racecheck"):
        if tool == "memcheck-no-cache":
            env["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"
        return [sanitizer(), "--tool", "racecheck" if tool == "racecheck" else "memcheck", *me], env
    return me, env


def classify(tool: str, returncode: int, output: str) -> tuple[str, str]:
    """(outcome, the line that shows it)."""
    lines = [ANSI.sub("", line).strip() for line in output.splitlines()]
    finished = any(line.startswith(FINISHED) for line in lines)

    def first(pattern):
        return next((line for line in lines if re.search(pattern, line)), "")[:240]

    if tool == "checked":
        shown = first(r"(OutOfBounds|DataRace): ")
        if shown:
            return "reported", shown
    if tool == "triton-viz":
        shown = first(r"ILLEGAL MEMORY ACCESS DETECTED|[Rr]ace detected")
        if shown:
            return "reported", shown
    if tool in ("memcheck", "memcheck-no-cache", "racecheck"):
        summary = first(r"(ERROR|RACECHECK) SUMMARY: \d+")
        counted = re.search(r"SUMMARY: (\d+)", summary)
        if counted and int(counted.group(1)) > 0:
            return "reported", first(r"Invalid __global__|Race reported|Error|hazard") or summary
        if counted and "hazard" in summary and re.search(r"\((\d+) errors", summary) and \
                int(re.search(r"\((\d+) errors", summary).group(1)) > 0:
            return "reported", summary
    if finished:
        return "silent", ""
    if "AssertionError" in output:
        return "wrong result", first(r"AssertionError")
    if returncode < 0:
        return "crashed", f"killed by {signal.Signals(-returncode).name}"
    raised = [line for line in lines if re.match(r"[\w.]*(Error|Exception|Interrupt)\b.*?: ", line)]
    return "crashed", (raised[-1] if raised else first(r"Error|error") or f"exit status {returncode}")[:240]


def run_one(case: str, tool: str, timeout: int) -> dict:
    command, env = command_for(case, tool)
    began = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)
        outcome, shown = classify(tool, done.returncode, done.stdout + done.stderr)
        code = done.returncode
    except subprocess.TimeoutExpired:
        outcome, shown, code = "timed out", f"after {timeout} s", None
    return {"outcome": outcome, "shown": shown.replace(str(ROOT) + os.sep, ""), "returncode": code,
            "seconds": round(time.perf_counter() - began, 2)}


def viz_available() -> bool:
    probe = subprocess.run([sys.executable, "-c", "import triton_viz.wrapper"], capture_output=True, text=True,
                           env={**os.environ, "TRITON_INTERPRET": "1",
                                "PYTHONPATH": os.pathsep.join([str(VIZ), str(ROOT)])})
    return probe.returncode == 0


def code_files(root: Path, cpu: bool) -> list[Path]:
    """What a run's result depends on: the harness, the entries' reader's files the cases import, and
    (CPU run) triton_checked."""
    cases = (root / HARNESS[0]).read_text(encoding="utf-8")
    snippets = [Path("snippets", topic, f"{name}.py")
                for topic, name in re.findall(r"^from snippets\.(\w+) import (\w+)", cases, re.M)]
    checker = sorted(p.relative_to(root) for p in (root / CHECKER).glob("*.py")) if cpu else []
    return [*HARNESS, *sorted(snippets), *checker]


def code_hash(cpu: bool, root: Path = ROOT) -> str:
    """sha256 of the code (comments and docstrings left out) of ``code_files``: recorded with each run,
    compared by tests/test_gpu_data.py."""
    from triton_faq.code_hash import code_hash as hash_of_code

    return hash_of_code(root, *code_files(root, cpu))


def label(en: str, zh: str, key: str | None = None) -> dict:
    return {"en": en, "zh": zh, **({"key": key} if key else {})}


def of(part: int, whole: int) -> dict:
    return label(f"{part} of {whole}", f"{whole} 个中 {part} 个")


def tables(raw: dict, tools: dict, prefix: str, version: str) -> dict:
    """The verdicts (case x tool), the summary per tool, and what each tool printed when it spoke."""
    from tooling.checker_cases import BUGGY, CASES, CORRECT

    def outcome(tool, case):
        return label(*OUTCOMES[raw[tool][case]["outcome"]])

    verdicts = {"columns": [label("case", "用例", "case"), label("the bug", "错误", "bug")]
                + [label(en, zh, tool) for tool, (en, zh) in tools.items()],
                "rows": [[case, label(CASES[case][0], BUGS_ZH[CASES[case][0]])]
                         + [outcome(tool, case) for tool in tools] for case in CASES]}
    summary_rows = []
    for tool, (en, zh) in tools.items():
        def caught(cases):
            return sum(raw[tool][c]["outcome"] == "reported" for c in cases)
        views = [c for c in BUGGY if BUGGY[c][0].startswith("outside the view")]
        races = [c for c in BUGGY if BUGGY[c][0].startswith("race")]
        bounds = [c for c in BUGGY if c not in views and c not in races]
        needs = [text.format(version=version) for text in NEEDS[tool]]
        summary_rows.append([label(en, zh), of(caught(bounds), len(bounds)), of(caught(views), len(views)),
                             of(caught(races), len(races)),
                             of(sum(raw[tool][c]["outcome"] != "silent" for c in CORRECT), len(CORRECT)),
                             round(sum(raw[tool][c]["seconds"] for c in CASES), 1), label(*needs)])
    summary = {"columns": [label("tool", "工具", "tool"), label("out-of-bounds bugs reported", "越界错误：报告数", "bounds"),
                           label("view bugs reported", "视图错误：报告数", "views"),
                           label("races reported", "竞争：报告数", "races"),
                           label("correct kernels not left alone", "正确 kernel 被误报或出错", "false"),
                           label("seconds, all cases (one process each)", "全部用例秒数（每个用例一个进程）", "seconds"),
                           label("needs", "需要", "needs")],
               "rows": summary_rows}
    shown = {"columns": [label("case", "用例", "case"), label("tool", "工具", "tool"),
                         label("outcome", "结果", "outcome"), label("first line it printed", "输出的第一行", "shown")],
             "rows": [[case, label(*tools[tool]), outcome(tool, case), raw[tool][case]["shown"]]
                      for case in CASES for tool in tools if raw[tool][case]["outcome"] != "silent"]}
    return {f"{prefix}-verdicts": verdicts, f"{prefix}-summary": summary, f"{prefix}-shown": shown}


def overhead(repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "bench.json"
        subprocess.run([sys.executable, "-m", "triton_checked.bench", "--repeat", str(repeat), "--json", str(out)],
                       check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        bench = json.loads(out.read_text())
    rows = [[name, label(row["what"], KERNELS_ZH[name]), row["plain_s"], row["checked_s"], row["ratio"]]
            for name, row in bench["kernels"].items()]
    return {"columns": [label("kernel", "kernel", "kernel"), label("what it runs", "内容", "what"),
                        label("plain interpreter, s", "普通解释器（秒）", "plain_s"),
                        label("checked, s", "检查模式（秒）", "checked_s"), label("ratio", "倍数", "ratio")],
            "rows": rows, "repeat": repeat, "load_average": bench["provenance"]["load_average"]}


def provenance(gpu: bool, command: str) -> tuple[str, dict]:
    from importlib.metadata import version

    if gpu:
        import torch

        name = torch.cuda.get_device_name(0)
        try:
            driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                    capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            driver = "unknown"
        cuda = torch.version.cuda
        try:
            said = subprocess.run([sanitizer(), "--version"], capture_output=True, text=True).stdout
            tool = re.search(r"\d+(\.\d+)+", said.strip().splitlines()[-1]).group(0)
        except (OSError, IndexError, AttributeError):
            tool = "unknown"
    else:
        name = f"CPU: {platform.system()} {platform.machine()}, {os.cpu_count()} cores"
        driver, cuda, tool = "none", "none", "none"
    return name, {"gpu": name if gpu else "none", "machine": name, "driver": driver, "cuda": cuda, "torch": version("torch"), "triton": version("triton"),
                  "python": platform.python_version(), "compute_sanitizer": tool,
                  "triton_viz": _viz_version() if not gpu else "not run",
                  "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "command": command,
                  "code_sha256": code_hash(cpu=not gpu)}


def _viz_version() -> str:
    for place in (VIZ, *map(Path, sys.path)):
        found = sorted(place.glob("triton_viz-*.dist-info")) if place.is_dir() else []
        if found:
            return found[0].name.removeprefix("triton_viz-").removesuffix(".dist-info")
    return "not installed"


def merge(path: Path, run: dict) -> None:
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    data.setdefault("results", {}).update(run["results"])
    data["generated_by"] = f"{COMMAND}; do not edit by hand"
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    temporary.replace(path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", action="store_true", help="the GPU tools (compute-sanitizer) instead of the CPU ones")
    parser.add_argument("--out", help="a folder: write checkers-compared.json there instead of merging into data/")
    parser.add_argument("--merge", help="fold the results of this file into data/checkers-compared.json")
    parser.add_argument("--jobs", type=int, default=1, help="cases run at once (default 1)")
    parser.add_argument("--repeat", type=int, default=5, help="launches per kernel for the overhead (CPU run)")
    parser.add_argument("--only", help="comma-separated cases (a trial run: nothing is written)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per case")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--tool", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.tool)
    if args.merge:
        merge(DATA, json.loads(Path(args.merge).read_text(encoding="utf-8")))
        print(f"merged {args.merge} into {DATA.relative_to(ROOT)}")
        return 0
    sys.path.insert(0, str(ROOT))
    from tooling.checker_cases import CASES

    tools = dict(GPU_TOOLS if args.gpu else CPU_TOOLS)
    if args.gpu:
        import torch

        if not torch.cuda.is_available():
            print(f"{COMMAND} --gpu: PyTorch sees no CUDA GPU; nothing was run", file=sys.stderr)
            return 2
        sanitizer()
    elif not viz_available():
        print(f"triton-viz is not importable (install it with: {VIZ_INSTALL}): its column is left out",
              file=sys.stderr)
        tools.pop("triton-viz")
    cases = args.only.split(",") if args.only else list(CASES)
    began = time.monotonic()
    jobs = [(case, tool) for tool in tools for case in cases]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        done = list(pool.map(lambda job: run_one(*job, args.timeout), jobs))
    raw: dict = {tool: {} for tool in tools}
    for (case, tool), result in zip(jobs, done):
        raw[tool][case] = result
        print(f"{tool:18} {case:30} {result['outcome']:12} {result['seconds']:7.1f} s  {result['shown'][:100]}",
              flush=True)
    if args.only:
        return 0
    command = COMMAND + (" --gpu" if args.gpu else "")
    machine, recorded = provenance(args.gpu, command)
    evidence = tables(raw, tools, "gpu" if args.gpu else "cpu",
                      recorded["compute_sanitizer"] if args.gpu else recorded["triton_viz"])
    if not args.gpu:
        evidence["overhead"] = overhead(args.repeat)
    run = {"results": {machine: {"provenance": recorded, "evidence": evidence, "cases": raw,
                                 "seconds": round(time.monotonic() - began, 1)}}}
    if args.out:
        target = Path(args.out) / "checkers-compared.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(run, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {target}")
    else:
        merge(DATA, run)
        print(f"wrote {DATA.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
