"""Messages in the user's terms, and help() on exports (issue 17 items 3 and 4).

The messages are derived from the fault record and the export's reflection row; the record itself (its
fields and canonical bytes) is the same as before. SPEC-03P.1 8.1 paragraph 7 lists what a Fault carries,
8.4 the hazards whose messages say what to do.
"""
import inspect
import pydoc

import pytest

import cint
from cint._errors import user_text

np = pytest.importorskip("numpy")

SOURCE = """\
export kernel add2[n](in I64[n] a, in I64[n] b, out I64[n] y) over [i: n] {
    y[i] = a[i] + b[i];
}

export kernel grid[m, n](in I64[m, n] x, out I64[m, n] y) over [i: m, j: n] {
    y[i, j] = 100 / x[i, j];
}

export kernel line[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = 100 / x[i];
}

export I64 pick2[m, n](in I64[m, n] x, I64 r, I64 c) {
    return x[r, c];
}

export I64 pick[n](in I64[n] x, I64 k) {
    return x[k];
}

export I64 bump[n](inout I64[n] x) {
    x[0] = x[0] + 1;
    return 0;
}

error ParseError { empty, bad_digit }

export ParseError!I64 parse_u(in U8[_] s) {
    if (len(s) == 0) {
        return ParseError.empty;
    }
    return 0;
}

export void twice[n](inout I32[n] a, I32 k) {
    for i in 0..n {
        a[i] = a[i] * k;
    }
}

export I64 total[n](in I64[n] x) {
    I64 s = 0;
    for i in 0..n {
        s = s + x[i];
    }
    return s;
}

export kernel smooth[n](in I64[n + 2] u, in I64[3] w, out I64[n] v) over [i: n] {
    v[i] = w[0] * u[i] + w[1] * u[i + 1] + w[2] * u[i + 2];
}

export void damp[n](inout Q16.16[n] y, Q16.16 a) {
    for i in 0..n {
        y[i] = y[i] * a;
    }
}
"""


@pytest.fixture(scope="module")
def mod(source_env):
    return cint.load(source_env("messages", {"msgs.ci": SOURCE}) / "msgs.ci")


def _fault(call, ctx):
    with pytest.raises(cint.Fault) as info:
        call()
    f = info.value
    assert f.record == ctx.fault().record      # the record is the runtime's, unchanged by the message
    ctx.clear_fault()
    return f


# --- item 3: entry faults name the parameter, the dimension and the size symbol ------------------------

@pytest.mark.clause("P-16", "A-9")
def test_bind_shape_names_the_parameter_and_who_fixed_the_size(mod):
    ctx = mod.context()
    a3, b4 = np.arange(3, dtype=np.int64), np.arange(4, dtype=np.int64)
    f = _fault(lambda: ctx.add2(a3, b4, y=cint.empty(3, "I64")), ctx)
    assert (f.operation, f.operands, f.limit) == ("bind.shape", (1, 0, 4), 3)
    head = str(f).splitlines()[0]
    assert "parameter b, dimension 0, has extent 4" in head
    assert "declared extent n is 3" in head
    assert "size n was fixed by parameter a, dimension 0" in head
    assert "parameter: 1 (b)" in str(f) and "expected:  3" in str(f)
    # the output disagrees: it is named, and a is still the one that fixed n
    f = _fault(lambda: ctx.add2(a3, a3, y=cint.empty(4, "I64")), ctx)
    assert "parameter y, dimension 0, has extent 4" in str(f) and "fixed by parameter a" in str(f)
    assert "operand 1" not in str(f)


@pytest.mark.clause("P-16", "A-21")
def test_bind_shape_of_a_computed_or_constant_extent(mod):
    ctx = mod.context()
    u, w = np.arange(6, dtype=np.int64), np.ones(3, np.int64)
    # the output fixes n (its extent is the plain symbol); the input's `n + 2` is checked against it
    f = _fault(lambda: ctx.smooth(u, w, v=cint.empty(3, "I64")), ctx)
    head = str(f).splitlines()[0]
    assert (f.operands, f.limit) == ((0, 0, 6), 5)
    assert "parameter u, dimension 0, has extent 6, but its declared extent n + 2 is 5" in head
    assert "(n = 3, fixed by parameter v, dimension 0); make the extents agree" in head
    f = _fault(lambda: ctx.smooth(u, np.ones(4, np.int64), v=cint.empty(4, "I64")), ctx)
    head = str(f).splitlines()[0]
    assert "parameter w, dimension 0, has extent 4, but its declared extent is 3; pass an array of that extent" \
        in head
    assert "extent 3 is 3" not in head


@pytest.mark.clause("P-16")
def test_a_later_fault_reads_as_the_raised_one(mod):
    ctx = mod.context()
    a3, b4 = np.arange(3, dtype=np.int64), np.arange(4, dtype=np.int64)
    cases = [lambda: ctx.add2(a3, b4, y=cint.empty(3, "I64")),
             lambda: ctx.add2(a3, a3.astype(np.int32), y=cint.empty(3, "I64")),
             lambda: ctx.grid(np.array([[1, 1, 1], [1, 1, 0]], np.int64), y=cint.empty((2, 3), "I64")),
             lambda: ctx.pick2(np.ones((2, 3), np.int64), 1, 5)]
    for call in cases:
        with pytest.raises(cint.Fault) as info:
            call()
        raised, later = info.value, ctx.fault()
        assert str(later) == str(raised) and later.record == raised.record
        assert later.work_index == raised.work_index and later.__dict__.get("hint") == raised.__dict__.get("hint")
        with pytest.raises(cint.Faulted) as held:
            call()
        assert str(held.value.held) == str(raised)
        ctx.clear_fault()
    assert ctx.fault() is None
    assert "(b)" in str(_fault(cases[0], ctx)) and "hint:" in str(_fault(cases[1], ctx))
    assert "(index 1, 2)" in str(_fault(cases[2], ctx))


@pytest.mark.clause("P-16", "P-21a")
def test_q_messages_say_how_to_convert(mod):
    ctx = mod.context()
    y = cint.from_float(np.array([1.0, 2.0]), "Q16.16")
    with pytest.raises(cint.Refused) as info:
        ctx.damp(y=y, a=0.5)
    assert "cint.from_float(0.5, 'Q16.16')" in str(info.value) and info.value.parameter == "a"
    assert str(info.value).startswith("damp: parameter a is Q16.16")
    with pytest.raises(cint.Refused) as info:
        ctx.pick(np.arange(3, dtype=np.int64), 1.0)
    assert str(info.value).startswith("pick: parameter k is I64: it takes a Python int, not float")
    assert "cint.from_float(1.0, 'I64')" in str(info.value)
    ctx.damp(y=y, a=cint.from_float(0.5, "Q16.16"))
    assert cint.to_float(y).tolist() == [0.5, 1.0]
    f = _fault(lambda: ctx.damp(y=cint.borrow(np.zeros(2, np.int64), writable=True), a=cint.from_float(0.5, "Q16.16")),
               ctx)
    assert f.operation == "bind.type"
    assert "borrow I32 memory (dtype '<i4', the storage type of Q16.16) as Q16.16 with " \
        "cint.borrow(a, elem='Q16.16', writable=True)" in f.hint
    f = _fault(lambda: ctx.damp(y=cint.empty(2, "I32"), a=cint.from_float(0.5, "Q16.16")), ctx)
    assert "make the Buffer of Q16.16: cint.empty(shape, 'Q16.16')" in f.hint


@pytest.mark.clause("P-16")
def test_a_name_that_is_not_an_export(mod):
    ctx = mod.context()
    with pytest.raises(AttributeError) as info:
        ctx.prefix_sum
    text = str(info.value)
    assert "'prefix_sum' is not an export of msgs.ci" in text and "add2" in text and "`export`" in text
    assert not hasattr(ctx, "prefix_sum") and getattr(ctx, "_private", 7) == 7


@pytest.mark.clause("P-16")
def test_a_build_error_hides_the_compiler_traceback(mod, tmp_path):
    src = tmp_path / "bad.ci"
    src.write_text("export I64 f() {\n    I8 x = 300;\n    return 0;\n}\n")
    with pytest.raises(cint.BuildError) as info:
        cint.load(src)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    with pytest.raises(cint.BuildError) as info:
        cint.load_source(src.read_text(), name="bad")
    assert info.value.__cause__ is None and info.value.__suppress_context__


@pytest.mark.clause("P-15", "P-16")
def test_bind_limit_says_publish_copy(mod):
    ctx = mod.context()
    a = np.arange(3, dtype=np.int64)
    f = _fault(lambda: ctx.add2(a, a, y=cint.borrow(np.zeros(3, np.int64), writable=True)), ctx)
    assert f.operation == "bind.limit" and f.operands == (2,)
    assert 'parameter y' in str(f) and 'publish="copy"' in str(f) and "cint.Buffer" in str(f)


@pytest.mark.clause("P-16")
def test_read_only_view_for_a_written_parameter(mod):
    ctx = mod.context()
    with pytest.raises(cint.Refused, match="writable=True") as info:
        ctx.bump(x=cint.borrow(np.zeros(3, np.int64)))
    assert info.value.parameter == "x"
    # the runtime's own refusal (a View whose registration here is read-only, made writable after it)
    v = cint.borrow(np.zeros(3, np.int64))
    assert ctx.total(v) == 0
    v.writable = True
    with pytest.raises(cint.Refused) as info:
        ctx.bump(x=v)
    ex = info.value
    assert ex.reason == "CINT_REFUSAL_PERMISSION" and ex.parameter == "x"
    assert "read-only" in str(ex) and "writable=True" in str(ex) and "(x)" in str(ex)
    assert not str(ex).startswith("bump: the runtime refused the call (CINT_REFUSAL_PERMISSION)")


@pytest.mark.clause("P-16")
def test_index_fault_names_dimension_and_index(mod):
    ctx = mod.context()
    x = np.ones((2, 3), np.int64)
    f = _fault(lambda: ctx.pick2(x, 1, 5), ctx)
    assert f.operands == (1, 5) and f.limit == 3
    text = str(f)
    assert "dimension: 1" in text and "index:     5" in text and "extent:    3" in text
    assert "left" not in text and "right" not in text
    f = _fault(lambda: ctx.pick(np.arange(3, dtype=np.int64), 7), ctx)
    assert "index:     7" in str(f) and "extent:    3" in str(f)


@pytest.mark.clause("P-16")
def test_work_index_is_the_tuple_over_the_over_shape(mod):
    ctx = mod.context()
    x = np.ones((2, 3), np.int64)
    x[1, 2] = 0
    for out in (cint.empty((2, 3), "I64"), cint.borrow(np.zeros((2, 3), np.int64), writable=True, publish="copy")):
        f = _fault(lambda: ctx.grid(x, y=out), ctx)
        assert f.operation.startswith("div.") and f.work_item == 5
        assert f.work_index == (1, 2)
        assert "work item 5 (index 1, 2)" in str(f)
    x[0, 1] = 0
    f = _fault(lambda: ctx.entry("grid")(x, y=cint.empty((2, 3), "I64")), ctx)
    assert f.work_item == 1 and f.work_index == (0, 1)
    python_path = getattr(ctx.grid, "_python", ctx.grid)       # the ctypes path (_Entry) of the same export
    f = _fault(lambda: python_path(x, y=cint.empty((2, 3), "I64")), ctx)
    assert f.work_item == 1 and f.work_index == (0, 1) and "(index 0, 1)" in str(f)
    # one dimension: work_item is the index, work_index stays None
    f = _fault(lambda: ctx.line(np.array([1, 0, 1], np.int64), y=cint.empty(3, "I64")), ctx)
    assert f.work_item == 1 and f.work_index is None


@pytest.mark.clause("P-16")
def test_clause_identifiers_move_to_a_trailing_spec_note():
    assert user_text("cannot be an output; end the export first (6.3 P-18)") == \
        "cannot be an output; end the export first (spec: 6.3 P-18)"
    assert user_text("malformed checkpoint (H-19a): truncated") == "malformed checkpoint: truncated (spec: H-19a)"
    assert user_text("full (next identifier 2**64 - 1, M-11); nothing changed") == \
        "full (next identifier 2**64 - 1); nothing changed (spec: M-11)"
    assert user_text("tag not allowed here [A-24]") == "tag not allowed here (spec: A-24)"
    assert user_text("UTF-8 bytes (a str)") == "UTF-8 bytes (a str)"
    ex = cint.Refused("x is refused (7.1 paragraph 3, H-12, P-20); pass y")
    assert str(ex) == "x is refused; pass y (spec: 7.1 paragraph 3, H-12, P-20)"
    assert str(cint.Busy("a live export (6.3 P-18)")) == "a live export (spec: 6.3 P-18)"


@pytest.mark.clause("P-16", "X-4")
def test_from_float_overflow_prints_decimal_and_exact():
    with pytest.raises(cint.Refused) as info:
        cint.from_float([40000.0], "Q8.8")
    text = str(info.value)
    assert "40000.0 (binary64 625 * 2^6 exactly" in text
    with pytest.raises(cint.Refused) as info:
        cint.from_float(np.array([300.1], np.float32), "Q8.8")
    assert "300.1 (binary32" in str(info.value)


# --- item 4: help() -------------------------------------------------------------------------------------

@pytest.mark.clause("P-16")
def test_help_of_an_export(mod):
    ctx = mod.context()
    for name in ("grid", "add2", "bump", "pick"):
        doc = inspect.getdoc(getattr(ctx, name))
        assert doc == inspect.getdoc(ctx.entry(name))
        page = pydoc.render_doc(getattr(ctx, name), renderer=pydoc.plaintext)
        assert doc.splitlines()[0] in page
    doc = inspect.getdoc(ctx.add2)
    assert doc.splitlines()[0] == "kernel add2[n](in I64[n] a, in I64[n] b, out I64[n] y)"
    assert "ctx.add2(a, b, *, y=..., fuel=...)" in doc
    assert "effect class pure" in doc and 'publish="copy"' in doc and "by name (y=...)" in doc
    doc = inspect.getdoc(ctx.bump)
    assert doc.splitlines()[0] == "I64 bump[n](inout I64[n] x)"
    assert "by name (x=...)" in doc and "written in place" in doc and "Returns I64." in doc
    assert inspect.getdoc(ctx.pick).splitlines()[0] == "I64 pick[n](in I64[n] x, I64 k)"
    doc = inspect.getdoc(ctx.parse_u)
    assert doc.splitlines()[0] == "ParseError!I64 parse_u(in U8[_] s)"
    assert "ErrorResult" in doc and "positional or by name" in doc
    doc = inspect.getdoc(ctx.twice)
    assert doc.splitlines()[0] == "void twice[n](inout I32[n] a, I32 k)"
    assert "ctx.twice(k, *, a=..., fuel=...)" in doc and "Returns None." in doc


@pytest.mark.clause("P-16")
def test_context_repr_lists_exports(mod):
    ctx = mod.context()
    r = repr(ctx)
    assert "exports: add2(a, b, *, y); grid(x, *, y)" in r and "bump(*, x)" in r and "pick(x, k)" in r
    ctx.close()
    assert repr(ctx).endswith(", closed>")
