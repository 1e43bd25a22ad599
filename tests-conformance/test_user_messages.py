"""Messages a user reads name clause identifiers only in a trailing "(spec: ...)" (issue 17): the compile
diagnostics of the front end (checker, parser, format specs, module paths), and the messages of replay. The codes and positions
that the upstream `.expect` files compare are not touched by this rule."""
from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
COMPILER = REPO / "packages" / "cint-compiler" / "src" / "cint_compiler"
SOURCES = sorted((COMPILER / "check").rglob("*.py")) + sorted((COMPILER / "syntax").rglob("*.py")) + \
    [COMPILER / "semantics" / "fmt.py", COMPILER / "driver.py"] + \
    sorted((REPO / "packages" / "cint-replay" / "src" / "cint_replay").glob("*.py"))

# LS-168, IM-158, A-25, H-14b; SPEC-01 4.5 is a section, and is only allowed in a spec note as well
CLAUSE = re.compile(r"\b(?:[A-Z]{1,2}-\d+[a-z]?|SPEC-\d+\S*)")
NOTE = re.compile(r"\(spec: [^()]*\)")


def _outside_notes(text: str) -> list[str]:
    return CLAUSE.findall(NOTE.sub("", text))


def _message_literals(path: Path):
    """(line, text) of each one-line string literal of path that is not a docstring."""
    prev = None
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type == tokenize.STRING and not tok.string.lstrip("rbuRBU").startswith(('"""', "'''")):
            # a docstring or a bare string statement follows a NEWLINE/INDENT/DEDENT; messages are arguments
            if prev is None or prev.type not in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.NL):
                yield tok.start[0], tok.string
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            prev = tok


@pytest.mark.clause("SPEC-04 LS-276", "H-17")
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(REPO / "packages").as_posix())
def test_message_strings_cite_clauses_only_in_a_trailing_note(path):
    bad = ["%d: %s" % (line, text) for line, text in _message_literals(path) if _outside_notes(text)]
    assert not bad, "a clause identifier inside a message; move it to a trailing (spec: ...):\n" + "\n".join(bad)


@pytest.mark.clause("SPEC-04 LS-276")
def test_the_diagnostics_of_the_examples_end_with_their_note():
    from cint_compiler import errors
    from cint_compiler.diagnostics import CompileError
    from cint_compiler.driver import compile_source
    seen = 0
    for row in errors.DIAGNOSTICS:
        if row.example is None:
            continue
        try:
            compile_source(row.example.encode("utf-8"), "example.ci")
        except CompileError as err:
            for text in (err.message, err.help or ""):
                assert not _outside_notes(text), (row.code, text)
                notes = NOTE.findall(text)
                assert len(notes) <= 1 and (not notes or text.rstrip().endswith(notes[0])), (row.code, text)
            seen += 1
    assert seen >= 100
