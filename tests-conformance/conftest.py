"""The conformance suite's session summary: per upstream folder, agree / listed / total.

`--clause` and `--executor` are defined in the root conftest.py, so that they
apply to every package's tests as well as to this folder.
"""
from collections import defaultdict

FOLDER, RESULT = "upstream-folder", "upstream-result"
_results: dict = {}


def pytest_runtest_logreport(report):
    props = dict(report.user_properties)
    if FOLDER not in props:
        return
    entry = _results.setdefault(report.nodeid, [props[FOLDER], None])
    if RESULT in props:
        entry[1] = props[RESULT]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _results:
        return
    rows = defaultdict(lambda: {"agree": 0, "listed": 0, "total": 0})
    for folder, result in _results.values():
        for key in (folder, "all"):
            rows[key]["total"] += 1
            if result in ("agree", "listed"):
                rows[key][result] += 1
    tr = terminalreporter
    tr.section(f"upstream conformance, executor {config.getoption('executor')}", sep="-")
    tr.write_line(f"{'folder':<14}{'agree':>7}{'listed':>8}{'total':>7}")
    for folder in sorted(k for k in rows if k != "all") + ["all"]:
        r = rows[folder]
        tr.write_line(f"{folder:<14}{r['agree']:>7}{r['listed']:>8}{r['total']:>7}")
