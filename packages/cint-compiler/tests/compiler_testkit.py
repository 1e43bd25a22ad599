"""Helpers shared by the compiler's tests: compile a source text and run one entry on the reference executor."""
import pytest

from cint_compiler.diagnostics import CompileError
from cint_compiler.driver import compile_source
from cint_compiler.interp import Context
from cint_compiler.outcome import choose_entry


def run_entry(src, entry="run", args=(), fuel=None, depth=256):
    """(outcome, context) of one entry of the module `src` (module path t.ci)."""
    c = compile_source(src.encode("utf-8"), "t.ci")
    ctx = Context(c.program, c.revision)
    kind, target = choose_entry(c, entry)
    return ctx.run_entry(kind, target, list(args), fuel=fuel, depth=depth), ctx


def run(src, entry="run", args=(), fuel=None):
    return run_entry(src, entry, args, fuel)[0]


def value(src, entry="run", args=()):
    o = run(src, entry, args)
    assert o.kind == "value", (o.kind, o.record)
    return o.value


def compile_error(src):
    with pytest.raises(CompileError) as ei:
        compile_source(src.encode("utf-8"), "t.ci")
    return ei.value


def where(err_or_rec):
    """(line, column) of a compile error or a fault record."""
    p = err_or_rec.span if isinstance(err_or_rec, CompileError) else err_or_rec.position
    return (p.line, p.column)
