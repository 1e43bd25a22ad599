"""Options shared by every test of the monorepo.

This file sits at the root so that `--clause` and `--executor` exist whatever
subset of the tests is run (`pytest packages/cint-abi/tests --clause A-9`).
The conformance suite's own fixtures and summary are in tests-conformance/.

Every test run builds into a private build cache: the controller (or a run without xdist) makes
one temporary folder, points ``CINT_CACHE`` at it before any test or worker starts (xdist workers
get it through their ``workerinput`` as well as the environment), and removes it at the end, so a
run leaves nothing in ``~/.cache/cint`` (issue 11 item 14).  ``CINT_TEST_KEEP_CACHE=1`` keeps it.
"""
import os
import shutil
import tempfile

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


_PRIVATE_CACHE = []     # the folder this process made and removes at the end


def pytest_configure(config):
    if not any(line.startswith("clause(") for line in config.getini("markers")):
        config.addinivalue_line("markers", CLAUSE_MARKER)
    given = getattr(config, "workerinput", {}).get("cint_cache")
    if given:                                   # an xdist worker: the controller's folder
        os.environ["CINT_CACHE"] = given
    elif not _PRIVATE_CACHE:
        folder = tempfile.mkdtemp(prefix="cint-test-cache-")
        _PRIVATE_CACHE.append(folder)
        os.environ["CINT_CACHE"] = folder
    os.environ.pop("CINT_PY_CACHE", None)       # under CINT_CACHE unless a test sets its own


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist: each worker builds into the controller's private cache."""
    node.workerinput["cint_cache"] = os.environ["CINT_CACHE"]


def pytest_unconfigure(config):
    if _PRIVATE_CACHE and not os.environ.get("CINT_TEST_KEEP_CACHE"):
        shutil.rmtree(_PRIVATE_CACHE.pop(), ignore_errors=True)


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


@pytest.fixture(scope="module")
def source_env(tmp_path_factory):
    """A factory for the tests that build cint sources with ``cint.load``: ``source_env(label, files=None,
    environ=None)`` makes a fresh folder (its name starts with label), writes ``files`` into it ({name: str
    or bytes}), points ``CINT_PY_CACHE`` at its ``cache`` subfolder (a private build cache), unsets
    ``CINT_EXE`` (builds use the compiler in this process), sets ``environ`` (values may name the folder
    as ``{base}``) and returns the folder. The environment is restored and the folders are removed when
    the module's tests end; a second call in the module makes another folder and cache."""
    saved: dict = {}
    made = []

    def make(label, files=None, environ=None):
        base = tmp_path_factory.mktemp(label)
        made.append(base)
        for name, text in (files or {}).items():
            (base / name).parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                (base / name).write_bytes(text)
            else:
                (base / name).write_text(text, encoding="utf-8")
        values = {"CINT_PY_CACHE": str(base / "cache"), "CINT_EXE": None}
        values.update({k: v.format(base=base) for k, v in (environ or {}).items()})
        for k, v in values.items():
            saved.setdefault(k, os.environ.get(k))
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        return base

    try:
        yield make
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        for base in made:
            shutil.rmtree(base, ignore_errors=True)
