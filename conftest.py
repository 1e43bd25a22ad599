"""Options shared by every test of the monorepo.

This file sits at the root so that `--clause` and `--executor` exist whatever
subset of the tests is run (`pytest packages/cint-abi/tests --clause A-9`).
The conformance suite's own fixtures and summary are in tests-conformance/.
"""
import pytest

from conformance_clauses import clause_matches

CLAUSE_MARKER = "clause(*ids): the spec clauses a test checks; select with --clause ID"


def pytest_addoption(parser):
    group = parser.getgroup("cint")
    group.addoption(
        "--clause",
        action="append",
        default=[],
        metavar="ID",
        help="run only tests tagged @pytest.mark.clause(...) with this clause "
        "(A-9, IM-30, SPEC-04 LS-284, 10.3); repeatable",
    )
    group.addoption(
        "--executor",
        default="ref",
        metavar="NAME",
        help="executor the conformance cases run on: ref (cpu-sir-interp, the default); cpu (cpu-c17) later",
    )


def pytest_configure(config):
    if not any(line.startswith("clause(") for line in config.getini("markers")):
        config.addinivalue_line("markers", CLAUSE_MARKER)


def clause_tags_of(item) -> list[str]:
    return [str(arg) for mark in item.iter_markers("clause") for arg in mark.args]


def pytest_collection_modifyitems(config, items):
    wanted = config.getoption("clause")
    if not wanted:
        return
    selected, deselected = [], []
    for item in items:
        tags = clause_tags_of(item)
        hit = any(clause_matches(tag, w) for tag in tags for w in wanted)
        (selected if hit else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


@pytest.fixture(scope="session")
def executor(request) -> str:
    return request.config.getoption("executor")
