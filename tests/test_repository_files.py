"""The contribution files are valid: issue forms and workflows against their schemas, workflows through
actionlint and zizmor."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

BIN = Path(sys.executable).parent
FORMS = sorted((ROOT / ".github" / "ISSUE_TEMPLATE").glob("*.yml"))
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def check_jsonschema(schema, *files):
    return subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", schema, *map(str, files)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("form", [f for f in FORMS if f.name != "config.yml"], ids=lambda f: f.name)
def test_issue_forms_are_valid(form):
    result = check_jsonschema("vendor.github-issue-forms", form)
    assert result.returncode == 0, result.stdout + result.stderr


def test_issue_template_config_is_valid():
    result = check_jsonschema("vendor.github-issue-config", ROOT / ".github" / "ISSUE_TEMPLATE" / "config.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_broken_issue_form_is_caught(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text("name: x\ndescription: y\nbody:\n  - type: textarea\n")  # no id, no attributes
    assert check_jsonschema("vendor.github-issue-forms", broken).returncode != 0


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda f: f.name)
def test_workflows_are_valid(workflow):
    result = check_jsonschema("vendor.github-workflows", workflow)
    assert result.returncode == 0, result.stdout + result.stderr


def actionlint(*files):
    """actionlint (rhysd/actionlint as WebAssembly, pinned in tooling/package-lock.json, run by node)."""
    return subprocess.run(["node", str(ROOT / "tooling" / "actionlint.cjs"), *map(str, files)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_workflows_pass_actionlint():
    result = actionlint(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    workflow = tmp_path / "bad.yml"
    workflow.write_text((ROOT / ".github" / "workflows" / "ci.yml").read_text().replace(
        "runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n    needs: no-such-job", 1))
    result = actionlint(workflow)
    assert result.returncode == 1 and 'needs job "no-such-job" which does not exist' in result.stdout


def test_workflows_pass_zizmor():
    result = subprocess.run([str(BIN / "zizmor"), "--offline", *map(str, WORKFLOWS)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_catches_a_dangerous_trigger(tmp_path):
    workflow = tmp_path / "bad.yml"
    workflow.write_text((ROOT / ".github" / "workflows" / "ci.yml").read_text().replace(
        "  pull_request:\n", "  pull_request_target:\n"))
    result = subprocess.run([str(BIN / "zizmor"), "--offline", str(workflow)], capture_output=True, text=True)
    assert result.returncode != 0 and "dangerous-triggers" in result.stdout + result.stderr


def test_the_pull_request_template_asks_for_check_and_both_languages():
    text = (ROOT / ".github" / "PULL_REQUEST_TEMPLATE.md").read_text()
    assert "`triton-faq check`" in text and "`docs/en/` and `docs/zh/`" in text


def test_contributing_exists_in_both_languages_and_they_link_each_other():
    english, chinese = (ROOT / "CONTRIBUTING.md").read_text(), (ROOT / "CONTRIBUTING.zh.md").read_text()
    assert "(CONTRIBUTING.zh.md)" in english and "(CONTRIBUTING.md)" in chinese
    for command in ("triton-faq new", "triton-faq check", "make test", "make bench"):
        assert command in english and command in chinese, command
