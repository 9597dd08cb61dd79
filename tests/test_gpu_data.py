"""GPU data: never stale, rendered in both languages, refused cleanly without a GPU."""

import importlib.util
import json
import re
import shutil

import pytest

from conftest import ROOT
from triton_faq import bench, handbook
from triton_faq.code_hash import data_hash

spec = importlib.util.spec_from_file_location("gpu_data_hook", ROOT / "hooks" / "gpu_data.py")
hook = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hook)

EVIDENCE = re.compile(r'@gpu_evidence\("(?P<name>[A-Za-z0-9_-]+)"\)')
TP001 = handbook.load(ROOT).find("TP001")


def test_no_gpu_data_is_stale():
    assert bench.stale(ROOT) == []


def _measured_copy(tmp_path):
    for name in ("docs", "snippets", "data", "evidence", "tests/entries"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")  # a checkout: where its pages are
    data = bench.read(tmp_path / TP001.data)
    data["results"]["Test GPU"] = {"provenance": {"date": "2026-01-01T00:00:00Z",
                                                  "code_sha256": data_hash(tmp_path, TP001)},
                                   "evidence": {}}
    bench.write_atomically(tmp_path / TP001.data, data)
    assert not [p for p in bench.stale(tmp_path) if "Test GPU" in p]
    return tmp_path


def _edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


STALE = (f"{TP001.data} is stale for TP001: the code of {TP001.snippet} or {TP001.evidence} changed after it was "
         "measured on Test GPU (2026-01-01); regenerate on a CUDA machine with `make bench ONLY=TP001`")


def test_editing_a_kernel_makes_its_gpu_data_stale(tmp_path):
    root = _measured_copy(tmp_path)
    _edit(root / TP001.snippet, "offs < n)", "offs <= n)")
    assert STALE in bench.stale(root)


def test_editing_an_evidence_function_makes_its_gpu_data_stale(tmp_path):
    root = _measured_copy(tmp_path)
    _edit(root / TP001.evidence, 'DTYPES = ("float32", "float16", "int32")', 'DTYPES = ("float32",)')
    assert STALE in bench.stale(root)


def test_editing_a_test_a_comment_or_a_docstring_leaves_gpu_data_current(tmp_path):
    root = _measured_copy(tmp_path)
    _edit(root / TP001.proof, "def test_pitfall_max_is_zero", "def test_pitfall_max_is_exactly_zero")
    _edit(root / TP001.snippet, "# store every lane, the masked ones too", "# store all the lanes, masked ones too")
    _edit(root / TP001.snippet, "What a masked load without `other` leaves", "What a masked load with no `other` leaves")
    _edit(root / TP001.evidence, "with a sentinel of 77", "with the sentinel 77")
    _edit(root / TP001.page, "Give the masked", "Pass the masked")
    assert not [p for p in bench.stale(root) if "Test GPU" in p]


def test_bench_without_a_gpu_refuses_and_writes_nothing(tmp_path, capsys, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert bench.run(tmp_path) == 2
    assert capsys.readouterr().err.strip() == bench.NO_GPU
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "data.json"
    bench.write_atomically(path, {"results": {"old": 1}})

    class Boom(dict):
        def items(self):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bench.write_atomically(path, Boom(results=1))
    assert json.loads(path.read_text()) == {"results": {"old": 1}}
    assert [p.name for p in tmp_path.iterdir()] == ["data.json"]


SAMPLE = {
    "results": {
        "NVIDIA H200": {
            "provenance": {"gpu": "NVIDIA H200", "driver": "580", "cuda": "13.0", "torch": "2.11", "triton": "3.6.0",
                           "date": "2026-11-29T12:00:00Z", "command": "triton-faq bench"},
            "evidence": {"lanes": {"columns": [{"en": "dtype", "zh": "dtype"}, {"en": "read", "zh": "读到"}],
                                   "rows": [["float32", False], ["int32", 0.123456]]}},
        }
    }
}


def test_the_hook_renders_a_captioned_table_in_each_language():
    english = hook.fill("<!-- gpu-data: lanes -->", SAMPLE, "en", "TP001")
    assert "| dtype | read |" in english and "| float32 | no |" in english and "| int32 | 0.1235 |" in english
    assert "*Measured on NVIDIA H200 (driver 580, CUDA 13.0, torch 2.11, Triton 3.6.0) on 2026-11-29" in english
    chinese = hook.fill("<!-- gpu-data: lanes -->", SAMPLE, "zh", "TP001")
    assert "| float32 | 否 |" in chinese and "*测量于 NVIDIA H200" in chinese


def test_missing_data_is_a_visible_note_not_a_silent_gap():
    assert hook.fill("<!-- gpu-data: lanes -->", None, "en", "TP001").startswith('!!! warning "Not yet measured"')
    assert "make bench ONLY=TP001" in hook.fill("<!-- gpu-data: other -->", SAMPLE, "zh", "TP001")


def test_a_snippet_outside_snippets_is_refused():
    with pytest.raises(ValueError, match="not under snippets/"):
        hook.data_path("code/x.py")


runs_spec = importlib.util.spec_from_file_location("gpu_test_runs_hook", ROOT / "hooks" / "gpu_test_runs.py")
runs_hook = importlib.util.module_from_spec(runs_spec)
runs_spec.loader.exec_module(runs_hook)


def test_the_last_gpu_run_is_rendered_or_visibly_missing():
    run = {"provenance": {"date": "2026-11-29T12:00:00Z", "torch": "2.11", "triton": "3.6.0"},
           "counts": {"passed": 90, "failed": 0, "error": 0, "skipped": 7}}
    assert "| NVIDIA H200 | 2026-11-29 | 2.11 | 3.6.0 | 90 | 0 | 7 |" in runs_hook.render({"results": {"NVIDIA H200": run}}, "en")
    assert runs_hook.render(None, "zh").startswith('!!! warning "尚未在 GPU 上验证"')


def test_the_tests_that_failed_on_the_gpu_are_named():
    run = {"provenance": {"date": "2026-11-29T12:00:00Z", "torch": "2.11", "triton": "3.6.0"},
           "counts": {"passed": 90, "failed": 1, "error": 0, "skipped": 7}, "failures": ["snippets/a.py::test_b"]}
    out = runs_hook.render({"results": {"NVIDIA H200": run}}, "zh")
    assert "那次运行中失败的测试：\n\n- NVIDIA H200: `snippets/a.py::test_b`" in out


def test_a_chart_draws_one_line_per_series_and_circles_the_marked_point():
    evidence = {
        "columns": [{"en": "block", "zh": "block", "key": "block"}, {"en": "warps", "zh": "warps", "key": "w"},
                    {"en": "GB/s", "zh": "GB/s", "key": "gbps"}, {"en": "tuned", "zh": "调优", "key": "tuned"}],
        "rows": [[256, 4, 1000.0, False], [1024, 4, 3000.0, True], [256, 8, 1200.0, False], [1024, 8, 2900.0, False]],
        "chart": {"x": "block", "y": "gbps", "series": "w", "mark": "tuned"},
    }
    svg = hook.render_chart(evidence, "en")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<polyline") == 2 and svg.count('r="6"') == 1
    data = {"results": {"GPU": {**SAMPLE["results"]["NVIDIA H200"], "evidence": {"sweep": evidence}}}}
    assert "<svg" in hook.fill("<!-- gpu-data: sweep -->", data, "zh", "TP010")


def stored_tables():
    for entry in handbook.load(ROOT).entries:
        path = ROOT / entry.data
        if path.exists():
            for gpu, result in bench.read(path)["results"].items():
                for name, evidence in result["evidence"].items():
                    yield f"{entry.id}:{name}@{gpu}", evidence


@pytest.mark.parametrize("name, evidence", list(stored_tables()) or [pytest.param(None, None, marks=pytest.mark.skip(
    reason="no GPU data in data/ yet"))])
def test_stored_tables_are_well_formed_and_memory_bound_ones_carry_their_ceiling(name, evidence):
    width = len(evidence["columns"])
    assert all(len(row) == width for row in evidence["rows"]), name
    keys = [column.get("key") for column in evidence["columns"]]
    if "gbps" in keys:
        assert "fraction_of_ceiling" in keys and evidence["ceiling_gbps"] > 0, name
        fractions = [row[keys.index("fraction_of_ceiling")] for row in evidence["rows"]]
        assert all(0 < f < 1.5 for f in fractions), f"{name}: implausible fractions of the copy ceiling {fractions}"


def test_a_bandwidth_table_needs_its_copy_reference_and_a_table_of_times_does_not():
    from triton_faq.evidence import label, memory_bound_columns, table

    with pytest.raises(ValueError, match="ceiling_gbps"):
        table(memory_bound_columns(), [[1.0, 1.0, 1.0, 100.0, 0.5]])
    assert table(memory_bound_columns(), [[1.0, 1.0, 1.0, 100.0, 0.5]], ceiling_gbps=200.0)["ceiling_gbps"] == 200.0
    times = [label("median ms", "中位数 毫秒", "median_ms"), label("time / torch's", "耗时 / torch 的", "over_torch")]
    assert table(times, [[1.5, 2.0]])["rows"] == [[1.5, 2.0]]  # an atomic's cost: times only, no copy reference


def test_a_cell_that_would_render_as_a_link_is_refused_until_it_is_code():
    from triton_faq.evidence import label, table

    columns = [label("launched by", "启动方式")]
    with pytest.raises(ValueError, match="would render as a Markdown link"):
        table(columns, [["kernel[grid](...)"]])
    assert table(columns, [["`` kernel[grid](...) ``"]])["rows"] == [["`` kernel[grid](...) ``"]]


# -- the checkers compared (data/checkers-compared.json, tooling/checkers_compared.py) ------------------

compared_spec = importlib.util.spec_from_file_location("checkers_compared", ROOT / "tooling" / "checkers_compared.py")
compared = importlib.util.module_from_spec(compared_spec)
compared_spec.loader.exec_module(compared)


def comparison_stale(root) -> list[str]:
    """One sentence per run in the comparison's data whose code changed after it was recorded."""
    path = root / "data" / "checkers-compared.json"
    if not path.is_file():
        return []
    problems = []
    for machine, result in sorted(json.loads(path.read_text(encoding="utf-8"))["results"].items()):
        recorded, cpu = result["provenance"], result["provenance"]["gpu"] == "none"
        if recorded["code_sha256"] != compared.code_hash(cpu, root):
            where = "" if cpu else " on a CUDA machine with compute-sanitizer"
            problems.append(f"data/checkers-compared.json is stale for {machine}: tooling/checker_cases.py, "
                            f"tooling/checkers_compared.py, the snippets they import"
                            f"{' or triton_checked' if cpu else ''} changed after it was recorded "
                            f"({recorded['date'][:10]}); run `{recorded['command']}`{where}")
    return problems


def test_the_checker_comparison_is_not_stale():
    problems = comparison_stale(ROOT)
    assert not problems, "\n".join(problems)


def _comparison_copy(tmp_path):
    for name in ("tooling", "triton_checked", "snippets"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
    return tmp_path, compared.code_hash(True, tmp_path), compared.code_hash(False, tmp_path)


def test_editing_a_case_or_a_snippet_makes_both_comparison_runs_stale(tmp_path):
    root, cpu, gpu = _comparison_copy(tmp_path)
    _edit(root / "tooling" / "checker_cases.py", "BLOCK=16)", "BLOCK=32)")
    assert compared.code_hash(True, root) != cpu and compared.code_hash(False, root) != gpu
    root, cpu, gpu = _comparison_copy(tmp_path / "again")
    _edit(root / "snippets" / "garbage_values" / "store_race_between_programs.py", "count + 1)", "count + 2)")
    assert compared.code_hash(True, root) != cpu and compared.code_hash(False, root) != gpu


def test_editing_the_checker_makes_only_the_cpu_run_stale(tmp_path):
    root, cpu, gpu = _comparison_copy(tmp_path)
    _edit(root / "triton_checked" / "views.py", "TABLE_LIMIT = 1 << 24", "TABLE_LIMIT = 1 << 20")
    assert compared.code_hash(True, root) != cpu and compared.code_hash(False, root) == gpu


def test_a_comment_or_a_docstring_leaves_the_comparison_current(tmp_path):
    root, cpu, gpu = _comparison_copy(tmp_path)
    _edit(root / "tooling" / "checker_cases.py", "# element i at offset i", "# element i sits at offset i")
    _edit(root / "tooling" / "checker_cases.py", "The kernels the checkers are compared on", "The kernels compared")
    assert (compared.code_hash(True, root), compared.code_hash(False, root)) == (cpu, gpu)


def test_a_stale_comparison_names_the_command_that_records_it_again(tmp_path):
    root, _, _ = _comparison_copy(tmp_path)
    (root / "data").mkdir()
    shutil.copy(ROOT / "data" / "checkers-compared.json", root / "data")
    assert comparison_stale(root) == []
    _edit(root / "triton_checked" / "checker.py", "SEGMENT_BITS = 44", "SEGMENT_BITS = 45")
    [problem] = comparison_stale(root)
    assert problem.startswith("data/checkers-compared.json is stale for CPU: ")
    assert problem.endswith("; run `python tooling/checkers_compared.py`")


def _run_of(machine_is_gpu: bool) -> dict | None:
    data = json.loads((ROOT / "data" / "checkers-compared.json").read_text(encoding="utf-8"))
    return next((r for r in data["results"].values() if (r["provenance"]["gpu"] != "none") == machine_is_gpu), None)


def test_the_comparison_pages_say_what_the_cpu_run_shows():
    """The sentences of docs/*/debugging/checkers-compared.md#cpu, against the recorded run."""
    from tooling.checker_cases import BUGGY, CORRECT

    cases = _run_of(False)["cases"]
    checked, plain, viz = cases["checked"], cases["interpreter"], cases["triton-viz"]
    assert all(checked[c]["outcome"] == "reported" for c in BUGGY)
    assert all(checked[c]["outcome"] == "silent" for c in CORRECT)
    assert {c: plain[c]["outcome"] for c in BUGGY if plain[c]["outcome"] != "silent"} == {
        "far-overrun": "crashed", "bad-gather-index": "crashed"}
    assert {plain[c]["shown"] for c in ("far-overrun", "bad-gather-index")} == {"killed by SIGSEGV"}
    assert all(plain[c]["outcome"] == "silent" for c in CORRECT)
    bounds = [c for c in BUGGY if BUGGY[c][0].startswith("out of bounds")]
    assert all(viz[c]["outcome"] == "reported" for c in bounds + ["column-slice-read-flat"])
    refused = "ValueError: The address sanitizer only supports contiguously stored tensors for now!"
    assert sorted(c for c in cases["triton-viz"] if viz[c]["shown"] == refused) == [
        "step-2-view-read-flat", "tile-on-a-step-2-view", "tile-on-an-expanded-input"]
    assert viz["racy-counter"]["outcome"] == viz["racy-histogram"]["outcome"] == "silent"
    # the atomics cases: the lock is never given back, the ticket counters keep their NaN; the offset view
    assert viz["spin-lock"]["outcome"] == "timed out"
    assert all(viz[c]["outcome"] == "wrong result" and viz[c]["shown"].startswith("AssertionError: the sum is nan")
               for c in ("ticket-counter", "ticket-counter-relaxed"))
    assert viz["tile-on-an-offset-view"]["outcome"] == "reported"
    accepted = [c for c in CORRECT if viz[c]["shown"] != refused
                and c not in ("spin-lock", "ticket-counter", "tile-on-an-offset-view")]
    assert all(viz[c]["outcome"] == "wrong result" for c in accepted)
    assert viz["atomic-counter"]["shown"] == "AssertionError: the counter is 0, not 64"
    nan = re.compile(r"AssertionError: (\d+) of \1 output elements are wrong, \1 of them still the NaN")
    assert all(nan.match(viz[c]["shown"]) for c in accepted if c != "atomic-counter")
    assert len(BUGGY) == 10 and len(CORRECT) == 10


def test_gsan_is_not_in_the_triton_these_runs_use():
    """The comparison pages: GSan (triton.experimental.gsan) is not in Triton 3.6.0, which requirements.txt pins."""
    import importlib.util as util
    from importlib.metadata import version

    pinned = re.search(r"^triton==(\S+)$", (ROOT / "requirements.txt").read_text(), re.MULTILINE).group(1)
    assert pinned == version("triton") == "3.6.0"
    assert util.find_spec("triton.experimental") is not None and util.find_spec("triton.experimental.gsan") is None


def test_cells_in_both_languages_pipes_and_a_run_without_a_gpu_render():
    evidence = {"columns": [{"en": "tool", "zh": "工具"}, {"en": "first line", "zh": "第一行"}],
                "rows": [[{"en": "reported", "zh": "报告"}, "a | b"]]}
    run = {"provenance": {"gpu": "none", "machine": "CPU: Linux x86_64, 2 cores", "driver": "none", "cuda": "none",
                          "torch": "2.13.0+cpu", "triton": "3.6.0", "date": "2026-12-01T00:00:00Z",
                          "command": "python tooling/checkers_compared.py"},
           "evidence": {"cpu-shown": evidence}}
    en = hook.fill("<!-- gpu-data: cpu-shown -->", {"results": {"CPU": run}}, "en", "")
    zh = hook.fill("<!-- gpu-data: cpu-shown -->", {"results": {"CPU": run}}, "zh", "")
    assert "| reported | a \\| b |" in en and "| 报告 | a \\| b |" in zh
    assert ("*Run on CPU: Linux x86_64, 2 cores, without a GPU (torch 2.13.0+cpu, Triton 3.6.0) on 2026-12-01 "
            "by `python tooling/checkers_compared.py`.*") in en


def test_a_page_names_the_command_for_each_kind_of_missing_data():
    commands = {"gpu-*": "python tooling/checkers_compared.py --gpu", "*": "python tooling/checkers_compared.py"}
    assert "`python tooling/checkers_compared.py --gpu` generates it" in hook.fill(
        "<!-- gpu-data: gpu-summary -->", None, "en", "", commands)
    assert "运行 `python tooling/checkers_compared.py` 即可生成" in hook.fill(
        "<!-- gpu-data: overhead -->", None, "zh", "", commands)
    with pytest.raises(ValueError, match="no command for the gpu-data 'overhead'"):
        hook.fill("<!-- gpu-data: overhead -->", None, "en", "", {"gpu-*": "x"})


def test_the_comparison_page_shows_a_gpu_run_once_one_is_merged(tmp_path):
    """With only the CPU run the GPU markers are a visible note; after --merge of a GPU run, its tables."""
    from tooling.checker_cases import CASES

    path = tmp_path / "checkers-compared.json"
    recorded = json.loads((ROOT / "data" / "checkers-compared.json").read_text(encoding="utf-8"))
    cpu_only = {**recorded, "results": {name: result for name, result in recorded["results"].items()
                                        if name.startswith("CPU:")}}
    compared.merge(path, cpu_only)
    commands = {"gpu-*": "python tooling/checkers_compared.py --gpu", "*": "python tooling/checkers_compared.py"}
    before = hook.fill("<!-- gpu-data: gpu-summary -->", json.loads(path.read_text()), "en", "", commands)
    assert before.startswith('!!! warning "Not yet measured"')
    raw = {tool: {case: {"outcome": "silent", "shown": "", "seconds": 1.0} for case in CASES}
           for tool in compared.GPU_TOOLS}
    raw["memcheck-no-cache"]["far-overrun"] = {"outcome": "reported", "shown": "Invalid __global__ read", "seconds": 2.0}
    provenance = {"gpu": "NVIDIA H200", "driver": "580", "cuda": "12.8", "torch": "2.11", "triton": "3.6.0",
                  "date": "2026-12-02T00:00:00Z", "command": "python tooling/checkers_compared.py --gpu"}
    compared.merge(path, {"results": {"NVIDIA H200": {"provenance": provenance, "cases": raw, "seconds": 1.0,
                                                      "evidence": compared.tables(raw, compared.GPU_TOOLS, "gpu",
                                                                                  "2025.1.0")}}})
    data = json.loads(path.read_text())
    assert set(data["results"]) == {"CPU: Linux x86_64, 2 cores", "NVIDIA H200"}
    summary = hook.fill("<!-- gpu-data: gpu-summary -->", data, "zh", "", commands)
    assert "| memcheck，PYTORCH_NO_CUDA_MEMORY_CACHING=1 | 5 个中 1 个 |" in summary
    assert "NVIDIA GPU；compute-sanitizer 2025.1.0（CUDA toolkit）" in summary and "*测量于 NVIDIA H200（驱动 580" in summary
    shown = hook.fill("<!-- gpu-data: gpu-shown -->", data, "en", "", commands)
    assert "| far-overrun | memcheck, PYTORCH_NO_CUDA_MEMORY_CACHING=1 | reported | Invalid __global__ read |" in shown
    assert hook.fill("<!-- gpu-data: cpu-summary -->", data, "en", "", commands).count("| triton_checked.checked() |") == 1
