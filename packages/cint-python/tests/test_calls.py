"""Loading, scalar calls, faults, error results and refusals of the cint package (SPEC-03P.1 8.1, 8.5)."""
import os
import sys
from pathlib import Path

import pytest

import cint
from cint import _build

HERE = Path(__file__).resolve().parent

CALLS = """\
error ParseError { empty, bad_digit, too_large }

export ParseError!I64 parse_u(in U8[_] s) {
    if (len(s) == 0) {
        return ParseError.empty;
    }
    I64 v = 0;
    for i in 0..len(s) {
        U8 c = s[i];
        if (c < 48 || c > 57) {
            return ParseError.bad_digit;
        }
        v = v * 10 + ((c - 48) as I64);
    }
    return v;
}

export Bool positive(I64 x) {
    return x > 0;
}

export Bool both(Bool a, Bool b) {
    return a && b;
}

export I8 narrow(I64 x) {
    return x as I8;
}

export U16 low(U16 a, I32 d) {
    return a / (d as U16);
}

export kernel square[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] * x[i];
}
"""


@pytest.fixture(scope="module")
def env(source_env):
    base = source_env("calls", {"calls.ci": CALLS})
    return base, base / "calls.ci"


@pytest.fixture(scope="module")
def mod(env):
    return cint.load(env[1])


@pytest.fixture()
def ctx(mod):
    return mod.context()


@pytest.mark.clause("8.1")
def test_load_builds_once_then_uses_the_cache(env):
    base, src = env
    cint.load(src)                       # built (or already cached by the fixture)
    before = _build.BUILDS[0]
    m2 = cint.load(src)
    assert _build.BUILDS[0] == before, "loading unchanged source built again"
    assert {e.name for e in m2.exports} >= {"parse_u", "positive", "both", "narrow", "square"}
    # a changed source builds once more, and the old one is still cached
    src2 = base / "other.ci"
    src2.write_text(CALLS + "\nexport I64 one() {\n    return 1;\n}\n")
    m3 = cint.load(src2)
    assert _build.BUILDS[0] == before + 1
    assert m3.context().one() == 1
    cint.load(src2)
    assert _build.BUILDS[0] == before + 1


@pytest.mark.clause("8.1")
def test_load_a_library_file_and_refusals_of_load(mod, env):
    m = cint.load(mod.path)
    assert m.context().positive(3) is True
    with pytest.raises(NotImplementedError, match="cuda"):
        cint.load(env[1], backend="cuda")
    with pytest.raises(cint.LoadError):
        cint.load(env[0] / "missing.so")
    bad = env[0] / "bad.ci"
    bad.write_text("export I64 f( {\n")
    with pytest.raises(cint.BuildError):
        cint.load(bad)


@pytest.mark.clause("8.1")
def test_cint_exe_builds_with_the_command(env, tmp_path):
    src = tmp_path / "exe_built.ci"
    src.write_text("export I64 seven() {\n    return 7;\n}\n")
    os.environ["CINT_EXE"] = "%s -m cint_compiler" % sys.executable
    try:
        before = _build.BUILDS[0]
        m = cint.load(src)
        assert _build.BUILDS[0] == before + 1
        assert m.context().seven() == 7
    finally:
        os.environ.pop("CINT_EXE", None)


@pytest.mark.clause("8.5", "P-21", "P-22", "P-23")
def test_scalars(ctx):
    assert ctx.positive(7) is True
    assert ctx.positive(-7) is False
    assert ctx.both(True, False) is False
    assert ctx.both(True, True) is True
    assert ctx.narrow(100) == 100 and ctx.narrow(-128) == -128
    assert ctx.entry("narrow")(5) == 5
    assert ctx.narrow(x=5) == 5
    assert ctx.low(7, 2) == 3


@pytest.mark.clause("8.5", "P-21", "P-23")
@pytest.mark.parametrize("call,code,param", [
    (lambda c: c.narrow(2**63), "E_NARROW", "x"),
    (lambda c: c.narrow(-2**63 - 1), "E_NARROW", "x"),
    (lambda c: c.low(65536, 1), "E_NARROW", "a"),
    (lambda c: c.low(-1, 1), "E_NARROW", "a"),
    (lambda c: c.narrow(True), "E_UNSUPPORTED", "x"),
    (lambda c: c.narrow(1.0), "E_UNSUPPORTED", "x"),
    (lambda c: c.narrow("1"), "E_UNSUPPORTED", "x"),
    (lambda c: c.positive(True), "E_UNSUPPORTED", "x"),
    (lambda c: c.both(1, 0), "E_UNSUPPORTED", "a"),
    (lambda c: c.parse_u("123"), "E_UNSUPPORTED", "s"),
    (lambda c: c.parse_u([49, 50]), "E_UNSUPPORTED", "s"),
    (lambda c: c.narrow(5, fuel=-2), "E_NARROW", "fuel"),
])
def test_refused_arguments(ctx, call, code, param):
    with pytest.raises(cint.Refused) as info:
        call(ctx)
    assert info.value.code == code
    assert info.value.parameter == param
    assert param in str(info.value)
    assert ctx.fault() is None


def test_refused_argument_messages(ctx):
    with pytest.raises(cint.Refused, match=r"parameter x is I64.*outside"):
        ctx.narrow(2**63)
    with pytest.raises(cint.Refused, match=r"encode\('utf-8'\)"):
        ctx.parse_u("1")
    with pytest.raises(cint.Refused, match=r"cint.copy"):
        ctx.parse_u([1])
    with pytest.raises(cint.Refused, match="missing argument"):
        ctx.narrow()


@pytest.mark.clause("8.1", "8.5")
def test_narrow_fault_attributes_and_text(ctx):
    with pytest.raises(cint.NarrowFault) as info:
        ctx.narrow(300)
    f = info.value
    assert isinstance(f, cint.Fault) and f.code == "E_NARROW"
    assert f.operation == "as.checked.i64.i8"
    assert f.operands == (300,)
    assert f.file == "calls.ci" and f.line == 27 and f.column == 14
    assert f.position == "calls.ci:27:14"
    assert f.kernel is None and f.work_item is None and f.stack == ()
    assert isinstance(f.record, bytes) and f.record[:4] == (20).to_bytes(4, "little")
    assert len(f.revision) == 32
    text = str(f)
    assert text.splitlines()[0] == "E_NARROW at calls.ci:27:14"
    assert "operation: as.checked.i64.i8" in text and "operand:   300" in text
    # the context now holds it
    held = ctx.fault()
    assert type(held) is cint.NarrowFault and held.record == f.record
    with pytest.raises(cint.Faulted) as faulted:
        ctx.positive(1)
    assert faulted.value.held.record == f.record and faulted.value.nothing_ran is False
    ctx.clear_fault()
    assert ctx.fault() is None
    assert ctx.positive(1) is True


def test_kernel_fault_attributes(ctx):
    import numpy as np
    x = np.array([1, 2**40, 3], dtype=np.int64)
    y = cint.empty((3,), "I64")
    with pytest.raises(cint.OverflowFault) as info:
        ctx.square(x, y=y)
    f = info.value
    assert f.operation == "mul.checked.i64" and f.operands == (2**40, 2**40)
    assert f.exact == 2**80 and f.limit == 2**63 - 1
    assert f.kernel == "calls.square" and f.dispatch == 0 and f.phase == "work-item" and f.work_item == 1
    assert "maximum:   9223372036854775807" in str(f)
    assert "kernel:    calls.square, dispatch 0, phase work-item, work item 1" in str(f)
    with pytest.raises(cint.Unpublished):
        y.tolist()


def test_div_zero_fault_class(ctx):
    with pytest.raises(cint.DivZeroFault) as info:
        ctx.low(5, 0)
    assert info.value.code == "E_DIV_ZERO"
    ctx.clear_fault()


@pytest.mark.clause("8.5")
def test_error_results(ctx, mod):
    assert ctx.parse_u(b"123") == 123
    with pytest.raises(mod.ParseError) as info:
        ctx.parse_u(b"12x")
    e = info.value
    assert isinstance(e, cint.ErrorResult) and not isinstance(e, cint.Fault)
    assert (e.set, e.name, e.tag) == ("ParseError", "bad_digit", 2)
    with pytest.raises(cint.ErrorResult) as info:
        ctx.parse_u(b"")
    assert info.value.name == "empty" and info.value.tag == 1
    assert ctx.fault() is None            # the context stays Ready


@pytest.mark.clause("8.1")
def test_fuel(ctx):
    with pytest.raises(cint.FuelFault) as info:
        ctx.narrow(5, fuel=0)
    assert info.value.operation == "fuel.charge"
    ctx.clear_fault()
    assert ctx.narrow(5, fuel=None) == 5
    assert ctx.fuel_consumed() >= 1
    assert ctx.parse_u(b"1234", fuel=10**6) == 1234
    consumed = ctx.fuel_consumed()
    with pytest.raises(cint.Refused):
        ctx.narrow(300, fuel=-2)
    assert ctx.fuel_consumed() == consumed      # a refused call is not an entry


def test_last_entry_and_not_in_this_slice(ctx, mod):
    ctx.positive(1)
    assert str(ctx.last_entry()) == "positive: no copies"
    # checkpoints (tests/test_checkpoint.py), values (tests/test_values.py) and recordings
    # (tests-conformance/test_py_replay.py) are implemented; gpu-cuda contexts are not
    with pytest.raises(NotImplementedError):
        mod.context(device=0)
    with pytest.raises(TypeError, match="cint.Recorder"):
        mod.context(record="x")
    with pytest.raises(FileNotFoundError):
        cint.replay(mod, "no-such-recording.cintrec")


@pytest.mark.clause("8.2", "P-3", "P-6", "P-20a")
def test_borrow_and_buffers(ctx):
    import numpy as np
    x = np.arange(4, dtype=np.int64)
    with cint.borrow(x) as v:
        assert v.shape == (4,) and v.elem == "I64" and not v.writable
        y = cint.empty(4, "I64")
        ctx.square(v, y=y)
        assert y.tolist() == [0, 1, 4, 9]
    with pytest.raises(cint.StaleHandle):
        ctx.square(v, y=y)
    r = x[::-1]
    z = cint.empty(4, "I64")
    ctx.square(r, y=z)
    assert z.tolist() == [9, 4, 1, 0]
    c = cint.copy([1, 2, 3], elem="I64")
    out = cint.empty(3, "I64")
    ctx.square(c, y=out)
    assert out.tolist() == [1, 4, 9]
    with pytest.raises(cint.Refused) as info:
        cint.copy([1, 2**63], elem="I64")
    assert info.value.code == "E_NARROW"
    with pytest.raises(cint.BorrowRefused):
        cint.borrow(np.zeros((), dtype=np.int64))
    with pytest.raises(cint.BorrowRefused, match="elem"):
        cint.borrow(x, elem="I32")
    with pytest.raises(cint.BorrowRefused, match="contiguous"):
        cint.borrow(np.zeros((2, 3), dtype=np.int64).T, layout="C")
    with pytest.raises(cint.BorrowRefused, match="cint.copy"):
        cint.borrow([1, 2])
    # a bare array is formed with its own element type; another one than the parameter's is the entry fault
    # bind.type (7.1 paragraph 11, check 3), and the message says what to do
    with pytest.raises(cint.UnsupportedFault, match="astype") as info:
        ctx.square(np.arange(4, dtype=np.int32), y=cint.empty(4, "I64"))
    assert info.value.operation == "bind.type"
    ctx.clear_fault()
    # bytes are borrowed for the call
    assert ctx.parse_u(bytearray(b"42")) == 42
    assert ctx.parse_u(memoryview(b"7")) == 7


def test_busy_on_a_running_context(ctx):
    ctx._lock.acquire()
    try:
        with pytest.raises(cint.Busy):
            ctx.positive(1)
    finally:
        ctx._lock.release()
