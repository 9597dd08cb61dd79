"""A GPU run recorded in two passes (the timing claims serially after the rest in parallel) is one record."""

from triton_faq.gpu_runs import OUTCOMES, combined


def a_pass(command, passed, failed, files, failures=()):
    counts = dict.fromkeys(OUTCOMES, 0) | {"passed": passed, "failed": failed}
    return {"provenance": {"gpu": "NVIDIA H100", "command": command, "date": command},
            "counts": counts, "failures": list(failures), "files": files, "exit_status": 1 if failed else 0}


def test_two_passes_add_up_file_by_file():
    parallel = a_pass("pytest -n 15 -m 'not timing' --record-gpu-run", 10, 1,
                      {"a.py": {"passed": 4, "failed": 1, "skipped": 0}, "b.py": {"passed": 6, "failed": 0, "skipped": 2}},
                      ["a.py::test_x"])
    serial = a_pass("pytest -m timing --add-to-gpu-run", 3, 0,
                    {"b.py": {"passed": 1, "failed": 0, "skipped": 0}, "c.py": {"passed": 2, "failed": 0, "skipped": 0}})
    run = combined(parallel, serial)
    assert run["counts"]["passed"] == 13 and run["counts"]["failed"] == 1
    assert run["files"] == {"a.py": {"passed": 4, "failed": 1, "skipped": 0},
                            "b.py": {"passed": 7, "failed": 0, "skipped": 2},
                            "c.py": {"passed": 2, "failed": 0, "skipped": 0}}
    assert run["failures"] == ["a.py::test_x"] and run["exit_status"] == 1
    assert run["provenance"]["command"] == ("pytest -n 15 -m 'not timing' --record-gpu-run && "
                                            "pytest -m timing --add-to-gpu-run")
    assert run["provenance"]["date"] == serial["provenance"]["date"]


def test_a_failure_in_the_second_pass_fails_the_run():
    run = combined(a_pass("first", 5, 0, {}), a_pass("second", 1, 1, {}, ["t.py::test_y"]))
    assert run["failures"] == ["t.py::test_y"] and run["exit_status"] == 1 and run["counts"]["failed"] == 1
