"""Issue 6, small remaining gaps: named constants as bit widths (LS-82), the `where` clause of an export checked
at host entry by cpu-c17 (LS-118, SPEC-03P.1 7.1 paragraph 11), the record layout rows of structs with bit
fields (7.4 A-14, LS-82), and the generator's new features (tests-conformance/program_gen.py).

Programs run on both executors through `outcome.expect_text` and the texts must be equal; the reference must
not give a compile error and cpu-c17 must not refuse.
"""
import random
import shutil
import sys
from pathlib import Path

import pytest

from cint_compiler.backend.c17.build import build_library
from cint_compiler.interp.canonical import fault_bytes
from cint_compiler.driver import compile_source
from cint_compiler.interp.context import Context
from cint_compiler.conformance.outcome import choose_entry
from cint_compiler.semantics.types import I64
from cint_compiler.semantics.values import ArrayValue, Storage

from compiler_testkit import both, compile_error, run, where

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


# ----------------------------------------------------------------------------- 1. constants as bit widths

CONST_WIDTHS = """struct Rec { U8 x; U16 y; }
struct S {
    U8  a : W;
    I16 b : W2 + 1;
    U32 c : Rec.bytes + offset(Rec, y);
    Bool d : ONE;
}
const I64 W = 3;
const I64 W2 = W * 2;
const I64 ONE = 1;
static_assert(S.bytes == 12);
export I64 run() {
    S s = S(7, -64, 63, true);
    "{s.a} {s.b} {s.c} {s.d} {S.bytes} {W2}\\n";
    s.c += 1;
    return (s.a as I64) + (s.b as I64);
}
"""


@needs_cc
def test_constant_widths_on_both_executors(tmp_path):
    out = both(tmp_path, CONST_WIDTHS, name="cw")
    assert "fault.operation bitfield.checked.u32" in out and "fault.limit U32 63" in out
    assert run(CONST_WIDTHS).stdout == b"7 -64 63 true 12 6\n"


@needs_cc
def test_constant_width_declared_before_and_in_a_kernel(tmp_path):
    src = """const I64 LOW = 4;
struct P { I8 lo : LOW; I8 hi : LOW; }
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    P p = P(0, 0);
    p.lo = (a[i] % 8) as I8;
    p.hi = (a[i] / 8) as I8;
    b[i] = (p.hi as I64) * 16 + (p.lo as I64);
}
export I64 run() {
    I64[3] a = [5, 60, 64];
    I64[3] b;
    k(a, b);
    return b[0];
}
"""
    out = both(tmp_path, src, name="kw")
    assert "fault.operation bitfield.checked.i8" in out and "fault.address 0 2 " in out


def test_constant_width_diagnostics():
    # still a constant expression of I64 from 1 to the width, at the width's position
    e = compile_error("const I64 W = 9;\nstruct S { U8 a : W; }\n")
    assert e.code == "C2003" and where(e) == (2, 19)
    e = compile_error("I64 g = 3;\nstruct S { U8 a : g; }\n")
    assert e.code == "C3005"              # a module variable is no constant: not declared for a width
    e = compile_error("struct S { U8 a : W; }\n")
    assert e.code == "C3005" and where(e) == (1, 19)
    # the layout of a struct whose fields are not defined yet is not available to a width
    e = compile_error("struct S { U8 a : T.bytes; }\nstruct T { U8 x; }\n")
    assert e.code == "C3006" and where(e) == (1, 19)
    e = compile_error("struct S { U8 a : offset(S, a) + 1; }\n")
    assert e.code == "C3006"
    # a constant that a width names is declared once
    e = compile_error("const I64 W = 3;\nstruct S { U8 a : W; }\nconst I64 W = 4;\n")
    assert e.code == "C3001" and where(e) == (3, 11)


# ----------------------------------------------------------------------------- 2. `where` at host entry

WHERE_SRC = """export I64 pick[n, m](inout I64[n] a, in I64[m] b) where (n == m || m == 0) && !(n > 5) {
    a[0] = n * 10 + m;
    return n + m;
}
export I64 same[n](in I64[n] a, in I64[n] b) where n > 5 {
    return n;
}
"""


@pytest.fixture(scope="module")
def where_lib(tmp_path_factory, monkeypatch_module):
    cint = pytest.importorskip("cint")
    base = tmp_path_factory.mktemp("where_entry")
    monkeypatch_module.setenv("CINT_PY_CACHE", str(base / "cache"))
    src = base / "w.ci"
    src.write_text(WHERE_SRC)
    return cint, cint.load(src).context(), compile_source(WHERE_SRC.encode("utf-8"), "w.ci")


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def arr(vals):
    return ArrayValue(I64, Storage(list(vals)), 0, (len(vals),), (1,))


def ref(c, entry, args):
    kind, target = choose_entry(c, entry)
    return Context(c.program, c.revision).run_entry(kind, target, list(args), fuel=None, depth=256)


@needs_cc
@pytest.mark.clause("SPEC-03P.1 7.1")
def test_where_holds_at_host_entry(where_lib):
    cint, ctx, c = where_lib
    a, b = cint.copy([1, 2, 3], elem="I64"), cint.copy([4, 5, 6], elem="I64")
    assert ctx.pick(a=a, b=b) == 6 == ref(c, "pick", [arr([1, 2, 3]), arr([4, 5, 6])]).value
    assert a.tolist() == [33, 2, 3]
    assert ctx.pick(a=a, b=cint.copy([], elem="I64")) == 3


@needs_cc
@pytest.mark.clause("SPEC-03P.1 7.1")
def test_where_fault_at_host_entry_is_the_interpreters(where_lib):
    cint, ctx, c = where_lib
    a = cint.copy([1, 2, 3], elem="I64")
    with pytest.raises(cint.ShapeFault) as ei:
        ctx.pick(a=a, b=cint.copy([7, 8], elem="I64"))
    assert ei.value.operation == "bind.where"
    r = ref(c, "pick", [arr([1, 2, 3]), arr([7, 8])])
    assert r.record.operation == "bind.where" and r.fuel == 0
    assert ei.value.record == fault_bytes(r.record)
    assert a.tolist() == [1, 2, 3]              # nothing ran
    ctx.clear_fault()
    big = [0] * 6
    with pytest.raises(cint.ShapeFault) as ei:
        ctx.pick(a=cint.copy(big, elem="I64"), b=cint.copy(big, elem="I64"))
    assert ei.value.record == fault_bytes(ref(c, "pick", [arr(big), arr(big)]).record)
    ctx.clear_fault()


@needs_cc
@pytest.mark.clause("SPEC-03P.1 7.1")
def test_where_order_at_host_entry(where_lib):
    """bind.shape, then bind.where, then bind.alias (as a call from cint code checks them)."""
    cint, ctx, c = where_lib
    import array
    # bind.shape before the clause: n is 3 from a, b has 4
    with pytest.raises(cint.ShapeFault) as ei:
        ctx.same(cint.copy([1, 2, 3], elem="I64"), cint.copy([1, 2, 3, 4], elem="I64"))
    assert ei.value.operation == "bind.shape"
    assert ei.value.record == fault_bytes(ref(c, "same", [arr([1, 2, 3]), arr([1, 2, 3, 4])]).record)
    ctx.clear_fault()
    with pytest.raises(cint.ShapeFault) as ei:
        ctx.same(cint.copy([1, 2, 3], elem="I64"), cint.copy([1, 2, 3], elem="I64"))
    assert ei.value.operation == "bind.where"
    assert ei.value.record == fault_bytes(ref(c, "same", [arr([1, 2, 3]), arr([1, 2, 3])]).record)
    ctx.clear_fault()
    # a written view overlapping another argument: the clause (false) comes first, then bind.alias
    mem = array.array("q", range(8))
    mv = memoryview(mem)
    x = cint.borrow(mv[0:3], elem="I64", writable=True)
    with pytest.raises(cint.ShapeFault) as ei:
        ctx.pick(a=x, b=cint.borrow(mv[1:3], elem="I64"))
    assert ei.value.operation == "bind.where"
    ctx.clear_fault()
    with pytest.raises(cint.AliasFault) as ei:
        ctx.pick(a=x, b=cint.borrow(mv[1:4], elem="I64"))
    assert ei.value.operation == "bind.alias"
    ctx.clear_fault()
    assert list(mem) == list(range(8))


@needs_cc
def test_where_export_from_cint_code_and_host(tmp_path):
    """The same export called from cint code (run) and as the entry: both executors agree."""
    src = WHERE_SRC + """export I64 run() {
    I64[3] a = [1, 2, 3];
    I64[2] b = [4, 5];
    "{pick(a, a[0..0])}\\n";
    return pick(a, b);
}
"""
    out = both(tmp_path, src, name="wc")
    # constraint 0, `(n == m || m == 0)`, is false and no single comparison: its index only (decision 18)
    assert "fault.operation bind.where" in out and "fault.operand I64 0\nfault.exact none\n" in out


# ----------------------------------------------------------------------------- 3. record layout rows (LS-82)

LAYOUT_SRC = """struct Status { U16 mode : 3; Bool armed : 1; I16 trim : 12; }
struct Holder { U8 tag; Status st; I64 id; }
struct Plain { U8 a; I32 b; }
export I64 total(in Plain p) {
    return (p.a as I64) + (p.b as I64);
}
export I64 run() {
    Holder h;
    Plain p = Plain(1, 2);
    "{Status.bytes} {offset(Status, trim)} {Holder.bytes} {offset(Holder, st)} {offset(Holder, id)}\\n";
    return total(p) + (h.id);
}
"""


@needs_cc
def test_bit_field_records_follow_ls82(tmp_path):
    from cint_abi.reflect import read_library
    c = compile_source(LAYOUT_SRC.encode("utf-8"), "lay.ci")
    assert run(LAYOUT_SRC).stdout == b"6 4 16 2 8\n"
    lib = build_library(c, tmp_path)
    (m,) = read_library(lib).modules
    rec = {r.name: r for r in m.records}
    st = rec["lay.Status"]
    assert (st.size, st.align) == (6, 8)
    assert [(f.name, f.offset) for f in st.fields] == [("mode", 0), ("armed", 2), ("trim", 4)]
    ho = rec["lay.Holder"]          # holds a bit-field struct: LS-73 layout with Status at 6 bytes
    assert ho.size == 16 and [(f.name, f.offset) for f in ho.fields] == [("tag", 0), ("st", 2), ("id", 8)]
    pl = rec["lay.Plain"]           # crosses the boundary: the C compiler's layout, which is LS-73's
    assert pl.size == 8 and [(f.name, f.offset) for f in pl.fields] == [("a", 0), ("b", 4)]


@needs_cc
def test_bit_field_struct_crosses_the_boundary_as_its_record(tmp_path):
    """Such a struct crosses as its record, the LS-82 storage units (LS-84); an array of it does not
    (C5050, refused by the checker, so before any build). test_backend_bitfield_records.py calls such
    exports from C."""
    from cint_compiler.diagnostics import CompileError
    src = ("struct S { U8 a : 3; }\nstruct H { S s; }\nexport I64 f(in H h) {\n    return h.s.a as I64;\n}\n"
           "export I64 g(I64 x) {\n    return x;\n}\n")
    build_library(compile_source(src.encode("utf-8"), "r.ci"), tmp_path)
    src = "struct S { U8 a : 3; }\nexport I64 f(in S[_] s) {\n    return 0;\n}\n"
    with pytest.raises(CompileError, match="bit field") as ei:
        compile_source(src.encode("utf-8"), "r2.ci")
    assert ei.value.code == "C5050"


# ----------------------------------------------------------------------------- 4. the generator

def test_generator_draws_bit_fields_and_where_clauses():
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests-conformance"))
    from program_gen import program
    srcs = [program(random.Random(s), wide=(s % 3 == 0))[0] for s in range(60)]
    with_bits = [s for s in srcs if "struct Bf" in s]
    with_where = [s for s in srcs if ") where " in s]
    assert len(with_bits) >= 10 and len(with_where) >= 10
    assert any(" : BW" in s for s in with_bits)                        # a named constant as a width
    assert any(s.count("struct Bf") and "@packed" in s for s in with_bits)
    plain = [s for s in srcs if s not in with_bits and s not in with_where]
    assert len(plain) >= 10           # the programs without them are drawn as before


@pytest.mark.clause("SPEC-04 LS-91")
def test_zero_fill_of_a_struct_holding_an_error_set_needs_an_initializer():
    from compiler_testkit import compile_error
    base = "error E { a, b }\nenum K : U8 { one = 1, two = 2 }\nstruct S { I64 x; E e; }\nstruct T { I64 x; K k; }\n"
    for decl, name in (("S t;", "t"), ("T[2] ts;", "ts"), ("S[1] ss;", "ss")):
        err = compile_error(base + "export I64 run() {\n    %s\n    return 0;\n}\n" % decl)
        assert err.code == "C2054" and ("`%s`" % name) in str(err)
    err = compile_error(base + "S g;\nexport I64 run() { return 0; }\n")
    assert err.code == "C2054"


def test_a_ragged_nested_literal_faults_with_a_record():
    from compiler_testkit import run
    o = run("I64 f(I64 n) {\n    I32[2, n] m = [[1, 2], [3]];\n    return 0;\n}\nI64 run() { return f(2); }\n")
    assert o.kind == "fault" and o.record.code == "E_SHAPE" and o.record.operation == "copy.shape"
    assert (o.record.position.line, o.record.position.column) == (2, 28)


def test_a_constant_named_by_a_signature_extent(tmp_path):
    from compiler_testkit import both
    src = ("const I64 K = 3;\nI64 f(in I64[K] b) { return b[0] + b[K - 1]; }\n"
           "export I64 run() { I64[3] a = [1, 2, 3]; return f(a); }\n")
    assert "return I64 4" in both(tmp_path, src)
