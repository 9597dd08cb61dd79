"""The version matrix: its data is current, its verdicts say what the outcomes say, a failed run writes nothing."""

import json

import pytest

from conftest import ROOT
from triton_faq import matrix
from triton_faq.handbook import load as load_handbook

VERSIONS = ["3.2.0", "3.3.1", "3.4.0", "3.5.1", "3.6.0"]


def test_no_entry_changed_since_the_matrix_recorded_it():
    problems = matrix.stale(ROOT)
    assert not problems, "\n".join(problems)


def test_the_matrix_ran_the_pinned_triton_and_everything_from_3_2():
    data = matrix.read(ROOT)
    from importlib.metadata import version

    assert data["versions"][0].startswith("3.2.")
    assert version("triton") in data["versions"]
    assert set(data["provenance"]["wall_seconds"]) == set(data["versions"])


def test_every_interpreter_test_passes_on_the_pinned_version_in_the_record():
    data = matrix.read(ROOT)
    from importlib.metadata import version

    pinned = version("triton")
    failing = [f"{entry_id} {name}" for entry_id, row in data["entries"].items()
               for name, outcomes in row["tests"].items() if outcomes[pinned] not in ("passed", "skipped")]
    assert not failing, failing


@pytest.mark.parametrize("outcomes, en, zh, differs", [
    (["passed"] * 5, "holds on 3.2–3.6", "在 3.2–3.6 上成立", False),
    (["failed", "failed", "passed", "passed", "passed"], "changed in 3.4: holds on 3.4–3.6",
     "3.4 起有变化：在 3.4–3.6 上成立", True),
    (["passed", "passed", "passed", "failed", "failed"], "changed in 3.5: holds on 3.2–3.4, not after",
     "3.5 起有变化：在 3.2–3.4 上成立，之后不再成立", True),
    (["passed", "failed", "passed", "passed", "passed"], "holds on 3.2, 3.4–3.6; not on 3.3",
     "在 3.2, 3.4–3.6 上成立；在 3.3 上不成立", True),
    (["skipped"] * 5, "not run on the interpreter (GPU only)", "解释器上不运行（仅 GPU）", False),
    (["not collected", "not collected", "passed", "passed", "passed"], "changed in 3.4: holds on 3.4–3.6",
     "3.4 起有变化：在 3.4–3.6 上成立", True),
])
def test_verdicts(outcomes, en, zh, differs):
    row = dict(zip(VERSIONS, outcomes))
    assert matrix.verdict(row, VERSIONS, "en") == (en, differs)
    assert matrix.verdict(row, VERSIONS, "zh") == (zh, differs)


def test_a_failed_run_writes_nothing(tmp_path, monkeypatch, capsys):
    target = tmp_path / matrix.DATA
    target.parent.mkdir(parents=True)
    target.write_text('{"before": true}')
    for name in ("mkdocs.yml", "docs", "snippets", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)

    def refuse(root, version):
        raise matrix.MatrixError(f"cannot install triton=={version}: no such version")

    monkeypatch.setattr(matrix, "install", refuse)
    assert matrix.run(tmp_path, ["0.0.1"]) == 1
    assert "cannot install triton==0.0.1: no such version\nnothing was written" in capsys.readouterr().err
    assert json.loads(target.read_text()) == {"before": True}


def test_without_pypi_it_says_how_to_name_the_versions(monkeypatch):
    def offline(*args, **kwargs):
        raise OSError("network unreachable")

    monkeypatch.setattr(matrix.urllib.request, "urlopen", offline)
    with pytest.raises(matrix.MatrixError, match=r"name them instead: triton-faq matrix --versions 3\.2\.0"):
        matrix.releases_on_pypi()


def test_every_entry_page_gets_the_section_in_its_language():
    import importlib.util

    spec = importlib.util.spec_from_file_location("version_matrix_hook", ROOT / "hooks" / "version_matrix.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    data = matrix.read(ROOT)
    entry = load_handbook(ROOT).entries[0]
    en, zh = hook.render(data, entry.id, "en"), hook.render(data, entry.id, "zh")
    assert en.startswith("## On which Triton versions { #triton-versions }")
    assert zh.startswith("## 在哪些 Triton 版本上成立 { #triton-versions }")
    assert f"`{next(iter(data['entries'][entry.id]['tests']))}`" in en
    missing = hook.render({"entries": {}}, "TP999", "en")
    assert "run `triton-faq matrix --only TP999`" in missing


def test_the_checked_interpreter_page_gets_its_tests_verdicts_in_its_language():
    import importlib.util

    spec = importlib.util.spec_from_file_location("version_matrix_hook", ROOT / "hooks" / "version_matrix.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    data = matrix.read(ROOT)
    en, zh = hook.render_checker(data, "en"), hook.render_checker(data, "zh")
    assert en.startswith("The checked interpreter's tests were run against each Triton release from 3.2")
    assert zh.startswith("带检查的解释器自身的测试在 Triton 3.2")
    assert all(f"| `{name}` |" in en for name in data["checker"]["tests"])
    assert "run `triton-faq matrix --only checker`" in hook.render_checker({"entries": {}}, "en")
    page = "??? info\n    <!-- version-matrix: checker -->\n"
    rendered = hook.CHECKER.sub(lambda m: hook.indented_like(m, hook.render_checker(data, "en")), page)
    assert all(line.startswith("    ") for line in rendered.splitlines()[1:] if line)
