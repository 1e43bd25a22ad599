"""Built-ins as declarative rows (issue 12 Deliver 2; semantics/builtins.py): every row has the checker's typing
handler and, on each executor, a handler or a listed refusal, never both; the reductions come from one table;
the identifiers a row builds are the ones the reference executor's faults carry."""
import pytest

from cint_compiler.backend.c17.builtins import LOWER
from cint_compiler.check.builtins import RAW, TYPING
from cint_compiler.conformance.outcome import choose_entry
from cint_compiler.driver import compile_source
from cint_compiler.interp.builtins import IMPL, OWN
from cint_compiler.interp.context import Context
from cint_compiler.semantics import builtins as B
from cint_compiler.semantics import opnames as O
from cint_compiler.semantics import reductions as RED
from cint_compiler.syntax import tree as A

REGISTRIES = {B.REF: IMPL, B.CPU: LOWER}


def test_every_row_is_typed_by_the_checker():
    written = {r.written for r in B.BUILTINS.values()}
    assert set(TYPING.handlers) == written
    for r in B.BUILTINS.values():
        if r.family == "refused":
            assert r.written in RAW, r.name


@pytest.mark.parametrize("executor", B.EXECUTORS)
def test_every_row_is_implemented_or_refused_with_a_reason(executor):
    reg = REGISTRIES[executor]
    for r in B.BUILTINS.values():
        why = r.refusal(executor)
        assert (r.name in reg) != bool(why), (executor, r.name, why)
        if why:
            assert len(why) > 20, (executor, r.name)
    assert set(reg.handlers) <= set(B.BUILTINS)


def test_rows_are_well_formed():
    for r in B.BUILTINS.values():
        assert all(f in B.FAMILIES for f in r.args), r.name
        assert r.fuel == ("ceil(n/64)" if r.family == "reduction" else "0"), r.name
        assert r.family != "reduction" or r.name in RED.BY_CALL, r.name
        assert all(x in B.EXECUTORS for x, _ in r.refused + r.limits), r.name
        if r.arity and r.family != "refused":
            assert r.args and max(r.arity) == len(r.args), r.name
        assert set(r.typed_by) <= {B.ALL} | set(range(max(r.arity or (0,)))), r.name
    assert set(RED.BY_CALL) == {r.name for r in B.BUILTINS.values() if r.family == "reduction"}
    assert B.WRITTEN == B.CALLABLE - {"offset"}


def test_the_interpreter_counts_the_step_a_row_declares():
    """Handlers that do not evaluate their own arguments run after the call's step is counted."""
    for name in IMPL.handlers:
        if name not in OWN:
            assert B.BUILTINS[name].step, name
    assert {"len", "extent", "size", "lower", "offset", "format"} <= OWN


def test_the_reductions_table():
    assert RED.STATEMENT_KINDS == ("sum", "fold_checked", "sum_wrap", "sum_sat", "min", "max", "count")
    assert [RED.fuel(n) for n in (0, 1, 64, 65, 128)] == [0, 1, 1, 2, 2]
    from cint_compiler.semantics.types import BOOL, I8, I16, I64
    assert RED.REDUCTIONS["sum"].opid(I8, I16) == "sum.checked.i8.i16"
    assert RED.REDUCTIONS["sum"].result_type(I8) == I8 and RED.REDUCTIONS["sum"].result_type(I8, I64) == I64
    assert RED.REDUCTIONS["count"].result_type(BOOL) == I64
    assert RED.REDUCTIONS["min"].opid(I64) == "reduce_min.checked.i64"
    assert RED.REDUCTIONS["fold_checked"].opid(I8, fold_op="mul") == "fold_checked.mul.i8"
    for r in RED.REDUCTIONS.values():
        O.parse(r.opid(BOOL if r.elements == "Bool" else I8, I16))


# one program per built-in that faults: the record's operation is the one its row builds
FAULTS = [
    ("abs", "I8", "I8 a = -128; return abs(a);"),
    ("clamp", "I64", "I64 lo = 5; I64 hi = 2; return clamp(lo, lo, hi);"),
    ("div_trunc", "I64", "I64 z = 0; return div_trunc(7, z);"),
    ("rem_euclid", "I32", "I32 z = 0; return rem_euclid(7, z);"),
    ("isqrt", "I64", "I64 x = -1; return isqrt(x);"),
    ("div_round", "I64", "I64 z = 0; return div_round(7, z, floor);"),
    ("muldiv", "I8", "I64 z = 100; return muldiv(I8, z, z, 1, floor);"),
    ("divmod", "I64", "I64 z = 0; (I64 q, I64 r) = divmod(7, z); return q;"),
    ("mul", "Q8.8", "Q8.8 a = 100.0; return mul(a, a, floor);"),
    ("sum", "I8", "I8[2] xs = [100, 100]; return sum(xs);"),
    ("fold_checked", "I8", "I8[2] xs = [100, 100]; return fold_checked(add, 0, xs);"),
    ("dot", "I8", "I8[2] xs = [100, 100]; return dot(I8, xs, xs);"),
]


@pytest.mark.parametrize("name,rtype,body", FAULTS, ids=[f[0] for f in FAULTS])
def test_a_rows_identifier_is_the_one_its_fault_carries(name, rtype, body):
    c = compile_source(("export %s run() { %s }" % (rtype, body)).encode("utf-8"), "t.ci")
    calls = [n for n in _walk(c.program.module) if isinstance(n, A.Call) and getattr(n, "bname", None) == name]
    assert len(calls) == 1
    kind, target = choose_entry(c, "run")
    out = Context(c.program, c.revision).run_entry(kind, target, [], fuel=None, depth=64)
    assert out.kind == "fault", (name, out.kind)
    assert out.record.operation in B.BUILTINS[name].faults(calls[0]), (name, out.record.operation)


def _walk(node):
    seen = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        for v in vars(n).values():
            for x in (v if isinstance(v, list) else [v]):
                if isinstance(x, A.Node):
                    todo.append(x)
