"""triton_faq.fetch: a folder under .cache/ is made whole or not at all."""

import pytest

from triton_faq.fetch import FetchError, fetched_once


def test_a_failed_fetch_says_why_and_leaves_nothing(tmp_path):
    target = tmp_path / "cache" / "missing-1.0"
    with pytest.raises(FetchError, match="No matching distribution|Could not find"):
        fetched_once(target, lambda folder: ["install", "--quiet", "--no-index", "--target", str(folder),
                                             "no-such-package-of-the-handbook==1.0"])
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_fetch_is_finished_in_its_folder_then_kept(tmp_path):
    target = tmp_path / "cache" / "made"
    calls = []

    def finish(folder):
        calls.append(folder)
        (folder / "done").write_text("yes")

    assert fetched_once(target, lambda folder: ["--version"], finish=finish) == target
    assert (target / "done").read_text() == "yes" and oct(target.stat().st_mode)[-3:] == "755"
    assert fetched_once(target, lambda folder: ["no-such-command"], finish=finish) == target  # not fetched again
    assert len(calls) == 1
