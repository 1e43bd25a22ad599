"""Structs with bit fields through the Python package (SPEC-03P.1 8.1, 9.2; SPEC-04P.1 LS-81..LS-84).

A library that cint.load builds from a program with module-level structs and arrays of structs holding bit
fields runs its exports on cpu-c17; its checkpoints decode with the mapping the record layout table gives
(storage rows, which have empty names, are not part of it) and restore. An export whose signature holds
such a struct is listed with the bit widths of A-21 and, as 8.1 paragraph 3 states for every struct
export, calling it from Python raises NotImplementedError naming the parameter (a C host calls it:
packages/cint-compiler/tests/test_backend_bitfield_records.py)."""
import hashlib
import shutil

import pytest

if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc)", allow_module_level=True)

import cint  # noqa: E402
from cint_abi.checkpoint import decode_checkpoint  # noqa: E402
from cint_abi.reflect import read_library  # noqa: E402
from cint_compiler.interp.canonical import canonical_state, struct_layouts  # noqa: E402
from cint_compiler.driver import compile_source  # noqa: E402
from cint_compiler.interp.context import Context  # noqa: E402

SRC = """struct Status { U16 mode : 3; Bool armed : 1; Bool lit : 1; I16 trim : 12; I32 plain; }
struct Outer { U8 tag; Status st; Status[2] more; Bool on; }
Status s;
Outer[2] os;
export I64 put(I64 i, I64 v) {
    s.mode = (v & 7) as U16;
    s.armed = v % 2 == 0;
    s.trim = (v * 100 - 1500) as I16;
    s.plain = (v * 1000) as I32;
    os[i % 2].st = s;
    os[i % 2].more[1].lit = !os[i % 2].more[1].lit;
    os[i % 2].tag += 1;
    return s.trim as I64;
}
export I64 score(in Status x) {
    return (x.mode as I64) * 1000 + (x.trim as I64);
}
export Status make(U16 m) {
    Status r;
    r.mode = m;
    return r;
}
"""


@pytest.fixture(scope="module")
def mod(source_env):
    return cint.load(source_env("pybits", {"pb.ci": SRC}) / "pb.ci")


def test_bit_field_globals_checkpoint_through_cint_load(mod):
    c = compile_source(SRC.encode(), "pb.ci")
    ref = Context(c.program, c.revision)
    ctx = mod.context()
    assert mod._structs() == struct_layouts(c.program)
    for i, v in ((0, 5), (1, -3), (0, 12)):
        assert ctx.put(i, v) == ref.run_entry("func", c.program.functions["put"], [i, v]).value
    assert ctx.state_hash() == hashlib.sha256(canonical_state(ref)).digest()
    saved = ctx.checkpoint()
    cp = decode_checkpoint(saved, mod._structs())
    g = dict((n, v) for n, _, v in cp.state.globals)
    assert g["pb.s"] == [4, True, False, -300, 12000]
    assert g["pb.os"][0][0] == 2 and g["pb.os"][0][1] == [4, True, False, -300, 12000]
    h = ctx.state_hash()
    ctx.put(1, 1)
    assert ctx.state_hash() != h
    ctx.restore(saved)
    assert ctx.state_hash() == h


def test_bit_field_struct_exports_are_listed_and_refused_by_name(mod):
    lib = read_library(mod.path)
    (m,) = lib.modules
    ex = {e.name: e for e in m.exports}
    (st,) = ex["score"].signature.definitions
    assert st.qname == "pb.Status" and [(f[0], f[1]) for f in st.fields] == [
        ("mode", 3), ("armed", 1), ("lit", 1), ("trim", 12), ("plain", 0)]
    assert "pb.Status" in [r.name for r in m.records]
    ctx = mod.context()
    with pytest.raises(NotImplementedError, match="parameter x"):
        ctx.entry("score")(None)
    with pytest.raises(NotImplementedError, match="struct"):
        ctx.make(3)
