"""Compile diagnostics (SPEC-04P.1 section 17).

Every phase of the front end reports a user's error by raising
:class:`CompileError` with a numbered code of SPEC-04 LS-313 and the
canonical position of the offending construct.  A compile-time fault
(C6001) also carries the fault's canonical content.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:    # an annotation only: diagnostics is the lowest layer (docs/architecture.md)
    from cint_compiler.semantics.faults import MachineFault


@dataclass(frozen=True)
class Span:
    """A source position: 1-based line and column (Unicode scalar values), plus the file's path."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return "%s:%d:%d" % (self.path, self.line, self.column)


class CompileError(Exception):
    """A user's program is rejected (severity ``error``)."""

    def __init__(self, code: str, span: Optional[Span], message: str,
                 fault: Optional[MachineFault] = None, help: Optional[str] = None):
        assert code.startswith("C") and len(code) == 5, code
        super().__init__("%s at %s: %s" % (code, span, message))
        self.code = code
        self.span = span
        self.message = message
        self.fault = fault
        self.help = help

    def sort_key(self):
        s = self.span
        return (s.path, s.line, s.column, self.code) if s else ("", 0, 0, self.code)


def not_supported_message(what: str, executor: Optional[str] = None) -> str:
    """The one wording of C9102 (SPEC-04 LS-313: a construct this implementation does not provide yet),
    for the checker (``executor`` None) and for a back end that refuses what the checker accepts."""
    if executor is None:
        return "%s is not yet supported by this implementation (docs/status.md)" % what
    return "%s is not yet supported by the executor %s (use --executor ref; docs/status.md)" % (what, executor)


def unsupported(span: Optional[Span], what: str) -> CompileError:
    """C9102 at ``span``: ``what`` is not yet supported by this implementation."""
    return CompileError("C9102", span, not_supported_message(what))


def render(err: CompileError, source_lines=None) -> str:
    """The text form of LS-276 for a compile error."""
    out = ["error[%s]: %s" % (err.code, err.message)]
    if err.span is not None:
        out.append("  --> %s" % err.span)
        if source_lines is not None and 1 <= err.span.line <= len(source_lines):
            text = source_lines[err.span.line - 1]
            col = err.span.column
            if len(text) > 160:            # show a window of a very long line around the column
                start = max(0, col - 80)
                text = text[start:start + 160]
                col -= start
            num = str(err.span.line)
            pad = " " * len(num)
            out.append("%s |" % pad)
            out.append("%s | %s" % (num, text))
            lead = "".join(ch if ch == "\t" else " " for ch in text[: col - 1])
            out.append("%s | %s^" % (pad, lead))
            out.append("%s |" % pad)
    if err.fault is not None:
        f = err.fault
        out.append("   = fault: %s" % f.code)
        out.append("   = operation: %s" % f.operation)
        for t, v in f.operands:
            out.append("   = operand: %s %d" % (t.name(), v))
        if f.exact is not None:
            out.append("   = exact:   %d" % f.exact)
        if f.limit is not None:
            out.append("   = limit:   %s %d" % (f.limit[0].name(), f.limit[1]))
    if err.help:
        out.append("   = help: %s" % err.help)
    return "\n".join(out) + "\n"
