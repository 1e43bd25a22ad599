"""The reference interpreter on small programs: values, faults, fuel, depth, kernels, stores."""
import pytest

from cint_compiler.diagnostics import CompileError
from cint_compiler.driver import compile_source
from cint_compiler.interp.context import Context
from cint_compiler.conformance.outcome import choose_entry


def run(src, entry=None, args=(), fuel=None, depth=256):
    c = compile_source(src.encode("utf-8"), "t.ci")
    ctx = Context(c.program, c.revision)
    kind, target = choose_entry(c, entry)
    return ctx.run_entry(kind, target, list(args), fuel=fuel, depth=depth), ctx


def value(src, entry="run", args=()):
    o, _ = run(src, entry, args)
    assert o.kind == "value", (o.kind, o.record)
    return o.value


def fault(src, entry="run", args=(), **kw):
    o, _ = run(src, entry, args, **kw)
    assert o.kind == "fault", o.kind
    return o.record, o


def compile_error(src):
    with pytest.raises(CompileError) as ei:
        compile_source(src.encode("utf-8"), "t.ci")
    return ei.value


@pytest.mark.clause("IM-35")
def test_floor_division_and_remainder():
    assert value("export I64 run() { I64 a = -7; return a / 2; }") == -4
    assert value("export I64 run() { I64 a = -7; return a % 2; }") == 1
    assert value("export I64 run() { I64 a = 7; return a % -2; }") == -1


@pytest.mark.clause("IM-30", "IM-106")
def test_overflow_record_and_position():
    rec, o = fault("export I64 run() {\n    I64 a = 9223372036854775807;\n    return a + 1;\n}")
    assert rec.code == "E_OVERFLOW" and rec.operation == "add.checked.i64"
    assert [v for _, v in rec.operands] == [9223372036854775807, 1]
    assert rec.exact == 9223372036854775808 and rec.limit[1] == 9223372036854775807
    assert (rec.position.line, rec.position.column) == (3, 14)
    assert o.fuel == 1


@pytest.mark.clause("IM-139", "IM-141")
def test_fuel_counts_calls_and_iterations():
    src = "I64 total() { I64 s = 0; for i in 0..3 { s = s + i; } return s; }\nexport I64 run() { return total(); }"
    o, _ = run(src, "run")
    assert o.value == 3 and o.fuel == 5
    rec, o = fault(src, fuel=4)
    assert rec.code == "E_FUEL" and rec.limit[1] == 4 and o.fuel == 4


@pytest.mark.clause("IM-119", "IM-107")
def test_depth_limit_and_stack():
    src = "export I64 run(I64 n) { return f(n); }\nI64 f(I64 n) { return f(n + 1); }"
    rec, o = fault(src, args=[0], depth=4)
    assert rec.code == "E_DEPTH" and rec.limit[1] == 4
    assert len(rec.stack) == 3 and o.fuel == 4


@pytest.mark.clause("IM-99")
def test_stores_before_fault_remain():
    src = ("I64 counter = 0;\nI64 g() { counter = counter + 1; return 5; }\n"
           "export void step(I64 z) { I64 y = 7; y = g() + 1 / z; }")
    o, ctx = run(src, "step", [0])
    assert o.kind == "fault" and o.record.code == "E_DIV_ZERO"
    assert list(ctx.globals.values()) == [1]


@pytest.mark.clause("IM-113", "IM-112")
def test_kernel_fault_of_lowest_work_item_with_step_and_nothing_published():
    src = """kernel k[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] + x[i];
}
void run() {
    I64[4] a = [1, 4611686018427387904, 3, 4611686018427387904];
    I64[4] b = [9, 9, 9, 9];
    k(a, b);
}
"""
    o, _ = run(src, "run")
    rec = o.record
    assert rec.code == "E_OVERFLOW"
    a = rec.address
    assert (a.dispatch, a.phase, a.work_item, a.step) == (0, 1, 1, 3)
    assert o.fuel == 1 + 4


@pytest.mark.clause("IM-23")
def test_constant_fault_is_compile_error():
    err = compile_error("const I8 X = 100 + 100 - 150;\nexport I8 run() { return X; }")
    assert err.code == "C6001" and err.fault.operation == "add.checked.i8"
    assert (err.span.line, err.span.column) == (1, 18)


@pytest.mark.clause("IM-21")
def test_literal_context_typing():
    err = compile_error("export I16 run() { I16 h = 40000 - 30000; return h; }")
    assert err.code == "C2003"
    assert value("export I64 run() { U8 k = 40; I64 v = 1 << k; return v; }") == 1 << 40


def test_print_and_script():
    o, _ = run('I64 x = 5;\n"x={x} {x + 1:>4}\\n";')
    assert o.stdout == b"x=5    6\n"


def test_assert_outside_test_faults_with_operands():
    rec, _ = fault("export I64 run() { I64 a = 3; assert(a == 4); return a; }")
    assert rec.code == "E_ASSERT" and [v for _, v in rec.operands] == [3, 4]


def test_fixed_point_arithmetic():
    src = "export I32 run() { Q16.16 a = 1.5; Q16.16 b = a * a; return b.raw; }"
    assert value(src) == 147456


def test_error_union_catch():
    src = """error E { bad }
E!I64 f(I64 x) { if (x < 0) { return E.bad; } return x; }
export I64 run() { I64 a = f(-1) catch 7; I64 b = f(3) catch 0; return a * 10 + b; }"""
    assert value(src) == 73


def test_struct_values():
    src = """struct P { I64 x; I64 y; }
export I64 run() { P p = P(3, y = 4); P q = p; q.x = 10; return p.x * 100 + q.x + p.y; }"""
    assert value(src) == 314


def test_revision_is_deterministic():
    a = compile_source(b"export I64 run() { return 1; }", "t.ci")
    b = compile_source(b"export I64 run() { return 1; }", "t.ci")
    c = compile_source(b"export I64 run() { return 2; }", "t.ci")
    assert a.revision == b.revision and a.sir == b.sir
    assert a.revision != c.revision and len(a.revision) == 32
