"""Print the report a function of a proof returns (see triton_faq/checked_reports.py).

``checked_report.py FILE FUNCTION``, run from the repository's root.
"""
import runpy
import sys

sys.path[0] = ""  # as under ``python -c``: the working directory (the repository) first
namespace = runpy.run_path(sys.argv[1], run_name="report")
report = namespace[sys.argv[2]]()
assert isinstance(report, str) and report, "a report function returns the report text"
sys.stdout.write(report)
