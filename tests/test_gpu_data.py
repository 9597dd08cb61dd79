"""GPU data: never stale, rendered in both languages, refused cleanly without a GPU."""

import importlib.util
import json
import re
import shutil

import pytest

from conftest import ROOT
from triton_faq import bench, entries

spec = importlib.util.spec_from_file_location("gpu_data_hook", ROOT / "hooks" / "gpu_data.py")
hook = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hook)

EVIDENCE = re.compile(r'@gpu_evidence\("(?P<name>[A-Za-z0-9_-]+)"\)')
TP001 = entries.find("TP001")


def test_no_gpu_data_is_stale():
    assert bench.stale(ROOT) == []


def _measured_copy(tmp_path):
    for name in ("docs", "snippets", "data", "evidence", "tests/entries"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, tmp_path / name)
    data = bench.read(tmp_path / TP001.data)
    data["results"]["Test GPU"] = {"provenance": {"date": "2026-01-01T00:00:00Z",
                                                  "code_sha256": entries.data_hash(tmp_path, TP001)},
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
    for entry in entries.load(ROOT):
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
