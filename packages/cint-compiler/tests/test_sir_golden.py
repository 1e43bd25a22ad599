"""Golden SIR: the SIR bytes and revision identity of every spec example and every public v0.1 case,
and the digest of the generated C of each of them that compiles, are what tests/golden/ records.

The compiler's restructuring (issue 12) must not change a byte: SIR feeds every revision identity
(IM-157), which checkpoints and recordings carry.  One line per program:
``<path> <sha256 of the SIR bytes> <revision identity hex>``, or ``<path> error <code> <line>:<column>``
for a program the checker refuses (so the diagnostics are pinned too).  The C digests are
``<path> <sha256 of the translation unit>`` or ``<path> unsupported <code>``.

Regenerate (only when a change of the bytes is intended and said so in the commit):
``CINT_GOLDEN_UPDATE=1 pytest packages/cint-compiler/tests/test_sir_golden.py``.
Skips when ../shared (the spec examples and the upstream cases) is absent.
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO / "tests-conformance"))
from spec_paths import EXAMPLES, SHARED  # noqa: E402

UPSTREAM = Path(os.environ.get("CINT_UPSTREAM_CONFORMANCE") or SHARED / "upstream-conformance")
UPDATE = os.environ.get("CINT_GOLDEN_UPDATE") == "1"


def _programs():
    """(label, path, source root) of every program: the spec examples, then the upstream cases."""
    from cint_compiler.conformance.expect import find_cases

    out = []
    if EXAMPLES.is_dir():
        out += [("examples/" + p.name, p, p.parent) for p in sorted(EXAMPLES.glob("*.ci"))]
    if UPSTREAM.is_dir():
        out += [("upstream/" + p.relative_to(UPSTREAM).as_posix(), p, UPSTREAM) for p in find_cases(UPSTREAM)]
    return out


def _sir_line(label, path, root):
    from cint_compiler.diagnostics import CompileError
    from cint_compiler.driver import compile_file

    try:
        c = compile_file(path, root)
    except CompileError as err:
        return "%s error %s %d:%d" % (label, err.code, err.span.line, err.span.column), None
    return "%s %s %s" % (label, hashlib.sha256(c.sir).hexdigest(), c.revision.hex()), c


def _c_line(label, compiled):
    from cint_compiler.backend.c17.emit import Unsupported, emit

    try:
        text = emit(compiled)
    except Unsupported as err:
        return "%s unsupported %s" % (label, err.code)
    return "%s %s" % (label, hashlib.sha256(text.encode("utf-8")).hexdigest())


def _compare(name, lines):
    path = GOLDEN / name
    text = "\n".join(lines) + "\n"
    if UPDATE:
        path.write_text(text, encoding="ascii")
        return
    want = path.read_text(encoding="ascii").splitlines()
    got = text.splitlines()
    if want != got:
        wd, gd = dict(l.split(" ", 1) for l in want), dict(l.split(" ", 1) for l in got)
        diffs = ["%s: recorded %s, now %s" % (k, wd.get(k), gd.get(k))
                 for k in sorted(set(wd) | set(gd)) if wd.get(k) != gd.get(k)]
        pytest.fail("%s: %d programs differ from the golden record:\n  %s"
                    % (name, len(diffs), "\n  ".join(diffs[:20])), pytrace=False)


@pytest.fixture(scope="module")
def compiled():
    progs = _programs()
    if not progs:
        pytest.skip("neither the spec examples (%s) nor the upstream cases (%s) are present" % (EXAMPLES, UPSTREAM))
    return [(label,) + _sir_line(label, path, root) for label, path, root in progs]


@pytest.mark.parametrize("group", ["examples", "upstream"])
def test_sir_bytes_and_revisions_are_golden(compiled, group):
    lines = [line for label, line, _ in compiled if label.startswith(group + "/")]
    if not lines:
        pytest.skip("no %s programs here (%s)" % (group, EXAMPLES if group == "examples" else UPSTREAM))
    _compare("sir_%s.txt" % group, lines)


@pytest.mark.parametrize("group", ["examples", "upstream"])
def test_generated_c_is_golden(compiled, group):
    progs = [(label, c) for label, _, c in compiled if label.startswith(group + "/") and c is not None]
    if not progs:
        pytest.skip("no %s programs here (%s)" % (group, EXAMPLES if group == "examples" else UPSTREAM))
    _compare("c17_%s.txt" % group, [_c_line(label, c) for label, c in progs])
