"""Clauses of SPEC-03P.1 5, 6, 8 and 9 seen from Python that no other file checks on its own."""
import shutil

import pytest

np = pytest.importorskip("numpy")
cint = pytest.importorskip("cint")
from cint_compiler import driver  # noqa: E402
from cint_compiler.diagnostics import CompileError  # noqa: E402
from cint_compiler.conformance.outcome import run_case  # noqa: E402

from spec_paths import EXAMPLES, require_examples  # noqa: E402

require_examples("counter.ci", "calls.ci")

FAULTY = """export kernel cube[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] * x[i] * x[i];
}

export I64 many() {
    I64[5] xs = [0, 1, 3_000_000, 4_000_000, 2];
    I64[5] ys;
    cube(xs, ys);
    return ys[4];
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("clauses")
    for f in ("counter.ci", "calls.ci"):
        shutil.copy(EXAMPLES / f, d / f)
    (d / "faulty.ci").write_text(FAULTY)
    return d


@pytest.fixture(scope="module")
def counter(lib):
    return cint.load(lib / "counter.ci")


@pytest.fixture(scope="module")
def calls(lib):
    return cint.load(lib / "calls.ci")


@pytest.mark.clause("H-10")
def test_contexts_share_no_state(counter):
    a, b = counter.context(), counter.context()
    assert a.bump(5) == 5 and b.bump(1) == 1 and a.bump(1) == 6
    assert a.state_hash() != b.state_hash()


@pytest.mark.clause("H-15")
def test_revision_identity_is_carried_everywhere(counter, lib, tmp_path):
    c = driver.compile_file(lib / "counter.ci")
    ctx = counter.context()
    ctx.bump(2 ** 62)
    with pytest.raises(cint.OverflowFault) as ei:
        ctx.bump(2 ** 62)
    assert ei.value.revision == c.revision
    assert cint.read_checkpoint(ctx.checkpoint()).revision == c.revision
    with cint.Recorder(tmp_path / "r.cintrec") as rec:
        counter.context(record=rec).bump(1)
    from cint_replay import format as F
    assert F.read((tmp_path / "r.cintrec").read_bytes()).header.revision == c.revision
    other = driver.compile_source(c.source.replace("tally = 0", "tally = 1").encode(), c.path)
    assert other.revision != c.revision


@pytest.mark.clause("H-21")
@pytest.mark.parametrize("executor", ["ref", "cpu"])
def test_the_lowest_work_item_fault_is_reported(lib, executor):
    out = run_case(lib / "faulty.ci", None, entry="many", executor=executor)
    assert out.kind == "fault"
    assert out.record.address.work_item == 2 and out.record.operation == "mul.checked.i64"


@pytest.mark.clause("H-21")
def test_the_lowest_work_item_fault_from_python(lib):
    mod = cint.load(lib / "faulty.ci")
    ctx = mod.context()
    x = np.array([0, 1, 3_000_000, 4_000_000, 2], dtype=np.int64)
    y = cint.empty(5, "I64")
    with pytest.raises(cint.OverflowFault) as ei:
        ctx.cube(x, y=y)
    assert ei.value.work_item == 2
    with pytest.raises(cint.Unpublished):
        y.tolist()


@pytest.mark.clause("H-8", "M-6")
@pytest.mark.parametrize("src", ["export I64 now() { return clock(); }",
                                 "export I64 env() { return getenv(1); }",
                                 "export I64 addr() { I64 x = 1; return &x; }"])
def test_no_ambient_access_and_no_addresses(tmp_path, src):
    p = tmp_path / "amb.ci"
    p.write_text(src + "\n")
    with pytest.raises(CompileError):
        driver.compile_file(p)


@pytest.mark.clause("M-2", "M-8", "M-4")
def test_canonical_state_holds_no_address(calls):
    """Two contexts that register different memory in the same order have the same state."""
    hashes = []
    for _ in range(2):
        ctx = calls.context()
        keep = [np.arange(8, dtype=np.int64) * 3 for _ in range(3)]   # fresh memory each round
        for a in keep:
            v = cint.borrow(a)
            out = cint.empty(8, "I64")
            ctx.square(v, y=out)
        hashes.append(ctx.state_hash())
        state = cint.read_checkpoint(ctx.checkpoint())
        assert [r.id for r in state.registry] == sorted(r.id for r in state.registry)
    assert hashes[0] == hashes[1]


@pytest.mark.clause("M-4")
def test_state_integers_are_little_endian(counter):
    ctx = counter.context()
    ctx.bump(0x0102030405060708)
    assert (0x0102030405060708).to_bytes(8, "little") in ctx.checkpoint()


@pytest.mark.clause("P-17")
def test_destroying_a_context_leaves_storage_with_the_buffer(calls):
    ctx = calls.context()
    b = cint.copy([1, 2, 3], elem="I64")
    out = cint.empty(3, "I64")
    ctx.square(b, y=out)
    assert out.tolist() == [1, 4, 9]
    ctx.close()
    assert b.tolist() == [1, 2, 3]
    b.release()
    with pytest.raises(cint.StaleHandle):
        b.tolist()


@pytest.mark.clause("P-3a")
def test_copy_of_a_big_endian_array_is_exact():
    a = np.array([1, -2, 2 ** 40], dtype=">i8")
    b = cint.copy(a)
    assert b.elem == "I64" and b.tolist() == [1, -2, 2 ** 40]
    u = cint.copy(np.array([258, 65535], dtype=">u2"))
    assert u.tolist() == [258, 65535]


@pytest.mark.clause("P-8")
def test_layout_c_and_f_refuse_other_orders():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert cint.borrow(a, layout="C").shape == (3, 4)
    with pytest.raises(cint.BorrowRefused):
        cint.borrow(a, layout="F")
    f = np.asfortranarray(a)
    assert cint.borrow(f, layout="F").shape == (3, 4)
    with pytest.raises(cint.BorrowRefused):
        cint.borrow(f, layout="C")
    s = a[:, ::2]
    assert cint.borrow(s).shape == (3, 2)
    for layout in ("C", "F"):
        with pytest.raises(cint.BorrowRefused):
            cint.borrow(s, layout=layout)


@pytest.mark.clause("H-13")
def test_an_output_overlapping_an_input_is_refused(calls):
    ctx = calls.context()
    a = np.arange(8, dtype=np.int64)
    x = cint.borrow(a[:6])
    y = cint.borrow(a[2:], writable=True, publish="copy")
    with pytest.raises((cint.Refused, cint.Fault)) as ei:
        ctx.square(x, y=y)
    assert getattr(ei.value, "code", None) in ("E_ALIAS",) or "ALIAS" in str(ei.value).upper()
    assert a.tolist() == list(range(8))
