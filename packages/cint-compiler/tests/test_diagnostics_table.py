"""The table of compile diagnostics (`cint_compiler.errors`, issue 12): docs/diagnostics.md is generated
from it and current, every code the compiler's source can raise has a row (and every row a code the
source raises), and every example program is rejected with its own code by the check alone."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from cint_compiler import errors
from cint_compiler.diagnostics import CompileError
from cint_compiler.driver import compile_source

SRC = Path(errors.__file__).resolve().parent
REPO = Path(__file__).resolve().parents[3]
PAGE = REPO / "docs" / "diagnostics.md"

# a code as a string literal ("C2042", 'C5024'), or written into a message (`error[C9004]`)
_CODE_LITERAL = re.compile(r"""["'](C\d{4})["']|error\[(C\d{4})\]""")


def _codes_in_source():
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "errors.py" and path.parent == SRC:
            continue
        for m in _CODE_LITERAL.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(m.group(1) or m.group(2), path.relative_to(SRC).as_posix())
    return found


def test_the_page_is_current():
    assert PAGE.is_file(), "docs/diagnostics.md is missing: python -m cint_compiler.errors --markdown > docs/diagnostics.md"
    assert PAGE.read_text(encoding="utf-8") == errors.markdown(), \
        "docs/diagnostics.md is stale: python -m cint_compiler.errors --markdown > docs/diagnostics.md"


def test_the_script_writes_the_page():
    done = subprocess.run([sys.executable, "-m", "cint_compiler.errors", "--markdown"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == errors.markdown()
    bad = subprocess.run([sys.executable, "-m", "cint_compiler.errors"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "usage" in bad.stderr


def test_every_code_the_source_raises_has_a_row_and_every_row_is_raised():
    found = _codes_in_source()
    assert len(found) > 100, "the scan finds the compiler's codes (%d found)" % len(found)
    missing = sorted("%s (%s)" % (c, f) for c, f in found.items() if c not in errors.BY_CODE)
    assert not missing, "codes with no row in cint_compiler/errors.py: %s" % ", ".join(missing)
    stale = sorted(set(errors.BY_CODE) - set(found))
    assert not stale, "rows for codes the compiler never raises: %s" % ", ".join(stale)
    listed = [code for code, _ in errors.NOT_REPORTED]
    assert not set(listed) & (set(found) | set(errors.BY_CODE)), "a code listed as not reported is reported"


def test_the_rows_are_complete_and_in_order():
    codes = [d.code for d in errors.DIAGNOSTICS]
    assert codes == sorted(codes)
    for d in errors.DIAGNOSTICS:
        assert re.fullmatch(r"C\d{4}", d.code), d.code
        assert d.title and d.todo, d.code
        assert d.clause == "" or re.fullmatch(r"(LS|A)-\d+(, (LS|A)-\d+)*", d.clause), (d.code, d.clause)
        assert (d.example is None) != (d.no_example is None), d.code


def _reported(src: str) -> CompileError:
    try:
        compile_source(src.encode("utf-8"), "example.ci")
    except CompileError as err:
        return err
    pytest.fail("the example compiles")


@pytest.mark.clause("SPEC-04 LS-313")
@pytest.mark.parametrize("row", [d for d in errors.DIAGNOSTICS if d.example is not None], ids=lambda d: d.code)
def test_each_example_reports_its_code(row):
    err = _reported(row.example)
    assert err.code == row.code, "%s's example reports %s: %s" % (row.code, err.code, err.message)


def test_most_codes_have_an_example():
    with_example = sum(d.example is not None for d in errors.DIAGNOSTICS)
    assert with_example >= 110, with_example
