"""Q<i>.<f> and I128..I1024 at the export boundary of cpu-c17 (SPEC-03P.1 7.3 A-13, 7.5, 8.5 P-21a, P-24),
and fixed-point elements in arrays and kernels.

A library built with `cint build --lib` is called through ctypes (the C forms of the 7.3 table: a Q
scalar as its raw storage integer, a wide integer as a pointer to its limbs) and through the package
cint; values, error results and fault records (byte for byte) are compared with the reference
interpreter.  Generated kernels over Q arrays agree with the interpreter, step ordinals included.
"""
import ctypes as C
import random
import shutil
import sys
from fractions import Fraction

import pytest

from cint_abi import typesig as T
from cint_abi.codes import REFUSAL_REASONS, STATUSES
from cint_abi.reflect import read_library
from cint_compiler.backend.c17.build import build_library
from cint_compiler.interp.canonical import fault_bytes
from cint_compiler.driver import compile_source
from cint_compiler.interp.context import Context
from cint_compiler.conformance.outcome import choose_entry, expect_text
from cint_compiler.semantics.types import FixedType
from cint_compiler.semantics.values import ArrayValue, Storage

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")

SRC = """\
error E { neg }

export kernel scale[n](in Q16.16[n] x, in Q16.16 k, out Q16.16[n] y) over [i: n] {
    y[i] = x[i] * k;
}

export Q16.16 total(in Q16.16[_] xs) {
    Q16.16 s = 0.0;
    for x in xs {
        s = s + x;
    }
    return s;
}

export Q8.8 pick(in Q8.8[_] xs, I64 i) {
    return xs[i];
}

export E!Q32.32 root(Q32.32 x) {
    if (x < 0.0) {
        return E.neg;
    }
    return sqrt(x);
}

export Q1.7 dbl(Q1.7 x) {
    return x + x;
}

export I128 wmul(I128 a, I128 b) {
    return a * b;
}

export E!I256 wneg(I256 a) {
    if (a < 0) {
        return E.neg;
    }
    return -a;
}

export I1024 big(I64 k) {
    return (1 as I1024) << (k as I1024);
}

export I512 narrow512(I512 a) {
    return (a as I64) as I512;
}
"""

OK, FAULT, REFUSED = STATUSES["CINT_OK"], STATUSES["CINT_FAULT"], STATUSES["CINT_REFUSED"]


_LIMBS = {}


def limbs(bits):
    if bits in _LIMBS:
        return _LIMBS[bits]
    return _LIMBS.setdefault(bits, type("L%d" % bits, (C.Structure,), {"_fields_": [("l", C.c_uint64 * (bits // 64))]}))


def to_limbs(v, bits):
    u = v & ((1 << bits) - 1)
    return limbs(bits)(l=(C.c_uint64 * (bits // 64))(*((u >> (64 * k)) & (2 ** 64 - 1) for k in range(bits // 64))))


def of_limbs(s, bits):
    u = sum(int(s.l[k]) << (64 * k) for k in range(bits // 64))
    return u - (1 << bits) if u >> (bits - 1) else u


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    c = compile_source(SRC.encode("utf-8"), "t.ci")
    path = build_library(c, tmp_path_factory.mktemp("boundary"))
    return c, path


def ref(c, entry, args):
    ctx = Context(c.program, c.revision)
    kind, target = choose_entry(c, entry)
    return ctx.run_entry(kind, target, list(args), fuel=None, depth=256)


class Host:
    """The library through ctypes: a context and the fault record bytes."""

    def __init__(self, path):
        from cint_abi import structs as S
        self.S = S
        self.dll = C.CDLL(str(path))
        self.rows = {e.name: e for e in read_library(str(path)).exports}
        d = self.dll
        d.cint_ctx_create.argtypes = [C.POINTER(S.cint_ctx_config), C.POINTER(C.c_void_p)]
        d.cint_fault_get.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t, C.POINTER(C.c_size_t)]
        d.cint_ctx_refusal.argtypes = [C.c_void_p, C.POINTER(C.c_uint32)]
        d.cint_ctx_clear_fault.argtypes = [C.c_void_p]
        d.cint_ctx_destroy.argtypes = [C.c_void_p]
        d.cint_ctx_destroy.restype = None
        table = S.cint_library.in_dll(d, "cint_library_desc").modules[0].contents
        self.cfg = S.cint_ctx_config(size=C.sizeof(S.cint_ctx_config), program=table.info.contents.program,
                                     depth_limit=256, module=table.info)
        self.h = C.c_void_p()
        assert d.cint_ctx_create(C.byref(self.cfg), C.byref(self.h)) == OK

    def fn(self, name, *argtypes):
        return C.CFUNCTYPE(C.c_int32, C.c_void_p, C.c_int64, *argtypes)(self.rows[name].address)

    def record(self):
        n = C.c_size_t()
        self.dll.cint_fault_get(self.h, None, 0, C.byref(n))
        buf = C.create_string_buffer(n.value)
        self.dll.cint_fault_get(self.h, buf, n.value, C.byref(n))
        self.dll.cint_ctx_clear_fault(self.h)
        return buf.raw[:n.value]

    def reason(self):
        r = C.c_uint32()
        self.dll.cint_ctx_refusal(self.h, C.byref(r))
        return r.value

    def close(self):
        self.dll.cint_ctx_destroy(self.h)


@pytest.fixture()
def host(built):
    h = Host(built[1])
    yield h
    h.close()


@pytest.mark.clause("A-13")
def test_type_signatures_of_q_and_wide_exports(built):
    rows = {e.name: e for e in read_library(str(built[1])).exports}
    assert {"scale", "total", "pick", "root", "dbl", "wmul", "wneg", "big", "narrow512"} <= set(rows)
    sig = rows["root"].signature
    assert sig.params[0].type == T.Fixed(64, 32)
    assert isinstance(sig.result, T.ErrorUnion) and sig.result.value == T.Fixed(64, 32)
    assert rows["scale"].signature.params[0].type.elem == T.Fixed(32, 16)
    assert rows["pick"].signature.result == T.Fixed(16, 8)
    assert rows["wmul"].signature.params[0].type == T.Int(True, 128)
    assert rows["big"].signature.result == T.Int(True, 1024)
    # 7.5: a Q type is 31, the storage tag and f as U16; I128..I1024 are the tags 15..18
    raw = T.encode_signature(rows["dbl"].signature)
    assert raw.endswith(bytes([1, 0, 0, 0, 0x00, 0x31, 0x11, 7, 0, 0x31, 0x11, 7, 0]))
    assert T.encode_signature(rows["narrow512"].signature).endswith(bytes([0x00, 0x17, 0x17]))


@pytest.mark.clause("A-13")
def test_q_scalars_cross_raw_through_ctypes(built, host):
    c = built[0]
    dbl = host.fn("dbl", C.c_int8, C.POINTER(C.c_int8))
    r = C.c_int8()
    assert dbl(host.h, -1, 50, C.byref(r)) == OK and r.value == 100
    assert ref(c, "dbl", [50]).value == 100
    assert dbl(host.h, -1, 64, C.byref(r)) == FAULT
    assert host.record() == fault_bytes(ref(c, "dbl", [64]).record)
    root = host.fn("root", C.c_int64, C.c_void_p)

    class U(C.Structure):
        _fields_ = [("tag", C.c_uint8), ("value", C.c_int64)]
    u = U()
    assert root(host.h, -1, 2 << 32, C.byref(u)) == OK and u.tag == 0
    assert u.value == ref(c, "root", [2 << 32]).value
    assert root(host.h, -1, -(1 << 32), C.byref(u)) == OK and (u.tag, u.value) == (1, 0)
    assert root(host.h, -1, 1 << 32, None) == REFUSED and host.reason() == REFUSAL_REASONS["CINT_REFUSAL_RESULT"]


@pytest.mark.clause("A-13")
def test_wide_integers_cross_as_pointers_to_limbs(built, host):
    c = built[0]
    L128, L512 = limbs(128), limbs(512)
    wmul = host.fn("wmul", C.POINTER(L128), C.POINTER(L128), C.POINTER(L128))
    r = L128()
    for a, b in [(2 ** 100, -(2 ** 20)), (-1, -1), (3, 5), (-(2 ** 126), 1)]:
        assert wmul(host.h, -1, C.byref(to_limbs(a, 128)), C.byref(to_limbs(b, 128)), C.byref(r)) == OK
        assert of_limbs(r, 128) == a * b == ref(c, "wmul", [a, b]).value
    assert wmul(host.h, -1, C.byref(to_limbs(2 ** 100, 128)), C.byref(to_limbs(2 ** 30, 128)), C.byref(r)) == FAULT
    assert host.record() == fault_bytes(ref(c, "wmul", [2 ** 100, 2 ** 30]).record)
    # a NULL pointer to a wide argument is a refused call that runs nothing (CINT_REFUSAL_CALL)
    assert wmul(host.h, -1, None, C.byref(to_limbs(1, 128)), C.byref(r)) == REFUSED
    assert host.reason() == REFUSAL_REASONS["CINT_REFUSAL_CALL"]
    n512 = host.fn("narrow512", C.POINTER(L512), C.POINTER(L512))
    r5 = L512()
    assert n512(host.h, -1, C.byref(to_limbs(-7, 512)), C.byref(r5)) == OK and of_limbs(r5, 512) == -7
    assert n512(host.h, -1, C.byref(to_limbs(2 ** 300, 512)), C.byref(r5)) == FAULT
    assert host.record() == fault_bytes(ref(c, "narrow512", [2 ** 300]).record)
    big = host.fn("big", C.c_int64, C.POINTER(limbs(1024)))
    rb = limbs(1024)()
    assert big(host.h, -1, 1022, C.byref(rb)) == OK and of_limbs(rb, 1024) == 1 << 1022


def q_array(t, raws):
    return ArrayValue(t, Storage(list(raws)), 0, (len(raws),), (1,))


def test_q_arrays_and_kernels_through_cint(built):
    cint = pytest.importorskip("cint")
    c, path = built
    ctx = cint.load(path).context()
    F = cint.Fixed
    x = cint.copy([F("Q16.16", value=Fraction(k, 2)) for k in range(4)], elem="Q16.16")
    y = cint.empty((4,), "Q16.16")
    ctx.scale(x, F("Q16.16", value=3), y=y)
    assert [v.raw for v in y.tolist()] == [k * 3 << 15 for k in range(4)]
    assert ctx.total(y) == F("Q16.16", value=9)
    assert ctx.total(y).raw == ref(c, "total", [q_array(FixedType(16, 16), [v.raw for v in y.tolist()])]).value
    b = cint.copy([F("Q8.8", raw=k) for k in (1, -2, 3)], elem="Q8.8")
    assert ctx.pick(b, 1) == F("Q8.8", raw=-2)
    with pytest.raises(cint.BoundsFault) as ei:
        ctx.pick(b, 5)
    assert ei.value.operation == "index.checked.q8_8"
    assert ei.value.record == fault_bytes(ref(c, "pick", [q_array(FixedType(8, 8), [1, -2, 3]), 5]).record)
    ctx.clear_fault()
    big = cint.copy([F("Q16.16", raw=1 << 30)], elem="Q16.16")
    out = cint.empty((1,), "Q16.16")
    with pytest.raises(cint.OverflowFault) as ei:
        ctx.scale(big, F("Q16.16", value=4), y=out)
    assert ei.value.operation == "mul.checked.q16_16.trunc" or ei.value.operation.startswith("mul.checked.q16_16")
    assert ei.value.kernel is not None and ei.value.work_item == 0


@pytest.mark.clause("P-24")
def test_results_through_cint(built):
    cint = pytest.importorskip("cint")
    c, path = built
    ctx = cint.load(path).context()
    F = cint.Fixed
    assert ctx.root(F("Q32.32", value=2)) == F("Q32.32", raw=ref(c, "root", [2 << 32]).value)
    with pytest.raises(cint.ErrorResult) as ei:
        ctx.root(F("Q32.32", value=-1))
    assert ei.value.name == "neg"
    assert ctx.wmul(2 ** 100, -(2 ** 20)) == -(2 ** 120)
    assert ctx.wneg(12345678901234567890123) == -12345678901234567890123
    assert ctx.big(1000) == 1 << 1000
    with pytest.raises(cint.OverflowFault) as ei:
        ctx.dbl(F("Q1.7", raw=64))
    assert ei.value.record == fault_bytes(ref(c, "dbl", [64]).record)


# --- generated kernels over Q arrays: both executors agree (values, faults, step ordinals) ------------

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from test_backend_fixed import IT, QT, qexpr, qn  # noqa: E402


def kernel_program(r):
    t = r.choice(QT)
    Tn = qn(t)
    body = ["    %s z%s = 0;" % (x, x) for x in IT] + ["    I%d z%d = 0;" % (w, w) for w in (8, 16, 32, 64)]
    body += ["    %s a = xs[j];" % Tn, "    %s b = s;" % Tn]
    names = {"a": t, "b": t}
    for k in range(r.randint(0, 2)):
        body.append("    %s v%d = %s;" % (Tn, k, qexpr(r, t, names)))
        names["v%d" % k] = t
    if r.random() < 0.3:
        body += ["    %s[3] pa;" % Tn, "    pa[j %% 3] = a;", "    pa[(j + 1) %% 4] = b;"]
    body.append("    ys[j] = %s;" % qexpr(r, t, names))
    w = t[0] + t[1]
    lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1

    def raw():
        v = r.choice([r.randint(lo, hi), r.randint(-(4 << t[1]), 4 << t[1]), 0, 1 << t[1]])
        return "%s.raw(%d)" % (Tn, max(lo, min(hi, v)))
    n = r.randint(1, 6)
    lines = ["kernel k[n](in %s[n] xs, in %s s, out %s[n] ys) over [j: n] {" % (Tn, Tn, Tn)] + body + [
        "}", "", "export I64 run() {", "    %s[%d] x = [%s];" % (Tn, n, ", ".join(raw() for _ in range(n))),
        "    %s[%d] y;" % (Tn, n), "    k(x, %s, y);" % raw(),
        '    "%s\\n";' % " ".join("{y[%d]}" % i for i in range(n)), "    return 0;", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("chunk", range(2))
def test_generated_q_kernels_agree(chunk, tmp_path):
    for seed in range(chunk * 15, chunk * 15 + 15):
        path = tmp_path / ("k%d.ci" % seed)
        path.write_text(kernel_program(random.Random(1000 + seed)), encoding="utf-8")
        out = [expect_text(path, tmp_path, case_id="k", clause=None, entry="run", args=[], fuel=None, depth=None,
                           fmt=2, executor=ex) for ex in ("ref", "cpu")]
        assert "outcome refused" not in out[1], out[1]
        assert out[0] == out[1], "seed %d\nref:\n%s\ncpu:\n%s" % (seed, out[0], out[1])


def test_q_array_programs_agree(tmp_path):
    src = """\
Q16.16 total(in Q16.16[_] xs) {
    Q16.16 s = Q16.16.raw(0);
    for x in xs {
        s = s + x;
    }
    return s;
}

kernel add[n](in Q8.8[n] a, in Q8.8[n] b, out Q8.8[n] c) over [i: n] {
    c[i] = a[i] + b[i];
}

export I64 run() {
    Q16.16[4] a = [Q16.16.raw(65536), Q16.16.raw(32768), Q16.16.raw(-1), Q16.16.raw(7)];
    a[2] = a[0] * a[1];
    "{a[2]} {total(a)} {a[1..3][0]}\\n";
    Q8.8[3] b;
    fill(b, Q8.8.raw(3));
    Q8.8[3] c;
    copy(c, b);
    "{c[1]} {equal(b, c)}\\n";
    Q8.8[3] d;
    add(b, c, d);
    "{d[0]} {d[2]!raw}\\n";
    Q8.8[3] e = [Q8.8.raw(32767), Q8.8.raw(0), Q8.8.raw(1)];
    add(e, c, d);
    return 0;
}
"""
    path = tmp_path / "p.ci"
    path.write_text(src, encoding="utf-8")
    out = [expect_text(path, tmp_path, case_id="p", clause=None, entry="run", args=[], fuel=None, depth=None,
                       fmt=2, executor=ex) for ex in ("ref", "cpu")]
    assert "outcome fault" in out[0] and "add.checked.q8_8" in out[0]
    assert out[0] == out[1], "ref:\n%s\ncpu:\n%s" % tuple(out)
    src2 = src.replace("add(e, c, d);", "I64 k = 7;\n    \"{c[k]}\\n\";")
    path.write_text(src2, encoding="utf-8")
    out = [expect_text(path, tmp_path, case_id="p", clause=None, entry="run", args=[], fuel=None, depth=None,
                       fmt=2, executor=ex) for ex in ("ref", "cpu")]
    assert "index.checked.q8_8" in out[0]
    assert out[0] == out[1], "ref:\n%s\ncpu:\n%s" % tuple(out)
