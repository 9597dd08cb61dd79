"""The outputs the site shows from runs are recorded in data/recorded-runs.json and current, so the site
builds with the docs stack only (triton_faq/recorded.py)."""

from conftest import ROOT
from triton_faq import recorded


def test_every_recorded_output_the_site_shows_is_current():
    problems = recorded.stale(ROOT)
    assert not problems, (f"run `{recorded.COMMAND}` (with torch and triton installed) and commit "
                          f"{recorded.RECORDED}:\n" + "\n".join(problems))


def test_a_changed_readers_file_makes_its_recording_stale(site_copy):
    snippet = "snippets/garbage_values/masked_load_without_other.py"
    assert recorded.reader_outputs(site_copy, snippet) is not None
    path = site_copy / snippet
    path.write_text(path.read_text(encoding="utf-8") + "\n# a change\n", encoding="utf-8")
    assert recorded.reader_outputs(site_copy, snippet) is None  # what stale() lists, naming the command


def test_the_docs_stack_is_pinned_as_the_full_stack():
    """requirements-docs.txt (make serve) holds a subset of requirements.txt (make test), same versions."""
    def pins(name):
        return {line.strip() for line in (ROOT / name).read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")}

    docs, full = pins("requirements-docs.txt"), pins("requirements.txt")
    assert docs and docs <= full, sorted(docs - full)
    assert not any(line.split("==")[0].lower() in ("torch", "triton", "numpy") for line in docs)
