"""cint_dask.kernel with the threaded scheduler: outputs equal to one call for 1-D and 2-D chunkings,
uneven chunks and halos; faults in several chunks and in a halo (the lowest global work item, the record
byte for byte); fuel budgets; state; refused kernels and shapes (docs/dask.md)."""
import numpy as np
import pytest

import cint
import cint_dask
import dask
import dask.array as da

pytestmark = pytest.mark.clause("H-21")


@pytest.fixture(autouse=True)
def threads():
    with dask.config.set(scheduler="threads", num_workers=2):
        yield


def test_nothing_runs_until_compute(mod, monkeypatch):
    from cint_dask import _worker
    calls = []
    real = _worker.call_chunk
    monkeypatch.setattr(_worker, "call_chunk", lambda *a: calls.append(1) or real(*a))
    y = cint_dask.kernel(mod, "scale")(da.arange(10, chunks=3), 7)
    assert isinstance(y, da.Array) and y.chunks == ((3, 3, 3, 1),) and calls == []
    assert y.compute().tolist() == [7 * k for k in range(10)] and len(calls) == 4


@pytest.mark.parametrize("chunks", [5, (1, 9, 2, 3, 9), 20])
def test_1d_uneven_and_halo(mod, one, chunks):
    rng = np.random.default_rng(1)
    x = rng.integers(-1000, 1000, 24, dtype=np.int32)
    y = cint_dask.kernel(mod, "fir")(da.from_array(x, chunks=chunks))
    assert np.array_equal(y.compute(), one("fir", x, y=((20,), "I32")))


def test_numpy_and_scalar_arguments(mod, one):
    x = np.arange(-6, 7, dtype=np.int64)
    y = cint_dask.kernel(mod, "scale")(x, -3)
    assert y.chunks == ((13,),)
    assert np.array_equal(y.compute(), one("scale", x, -3, y=((13,), "I64")))
    y = cint_dask.kernel(mod, "scale")(x, -3, chunks=4)
    assert y.chunks == ((4, 4, 4, 1),) and np.array_equal(y.compute(), x * -3)


@pytest.mark.parametrize("chunks", [(4, 5), ((3, 1, 7), (2, 7, 3)), (10, 1)])
def test_2d_stencil(mod, one, chunks):
    rng = np.random.default_rng(2)
    a = rng.integers(-10**6, 10**6, (11, 12), dtype=np.int64)
    b = cint_dask.kernel(mod, "blur")(da.from_array(a, chunks=chunks))
    assert b.shape == (9, 10)
    assert np.array_equal(b.compute(), one("blur", a, b=((9, 10), "I64")))


def test_two_outputs_inout_element_form_and_whole_dims(mod, one):
    x = np.arange(30, dtype=np.int64).reshape(5, 6) % 2
    y, z = cint_dask.kernel(mod, "grid")(da.from_array(x, chunks=(2, 4)))
    ry, rz = one("grid", x, y=((5, 6), "I64"), z=((5, 6), "I64"))
    assert np.array_equal(y.compute(), ry) and np.array_equal(z.compute(), rz)
    v = np.arange(17, dtype=np.int64)
    out = cint_dask.kernel(mod, "bump")(da.from_array(v, chunks=5), 100)
    assert np.array_equal(out.compute(), one("bump", d=100, x=(v, "I64")))
    a, b = np.arange(9, dtype=np.int64), np.arange(9, dtype=np.int64)[::-1].copy()
    c = cint_dask.kernel(mod, "times")(da.from_array(a, chunks=2), da.from_array(b, chunks=4))
    assert c.chunks == ((2, 2, 2, 2, 1),) and np.array_equal(c.compute(), a * b)
    m = np.arange(35, dtype=np.int64).reshape(7, 5)
    s = cint_dask.kernel(mod, "rows")(da.from_array(m, chunks=(3, 2)))
    assert np.array_equal(s.compute(), one("rows", m, s=((7,), "I64")))
    idx = np.array([3, 0, 2, 2, 1, 3], dtype=np.int64)
    g = cint_dask.kernel(mod, "gather")(da.from_array(idx, chunks=4), np.array([10, 20, 30, 40], dtype=np.int64))
    assert g.compute().tolist() == [40, 10, 30, 30, 20, 40]


def test_sizes_and_chunks_for_an_output_only_extent(mod, one):
    y = cint_dask.kernel(mod, "constant")(21, sizes={"n": 10}, chunks=4)
    assert y.chunks == ((4, 4, 2),)
    assert np.array_equal(y.compute(), one("constant", 21, y=((10,), "I64")))
    with pytest.raises(ValueError, match="no `in` or `inout` argument fixes the size symbol n"):
        cint_dask.kernel(mod, "constant")(21)
    with pytest.raises(ValueError, match=r"parameter v is I64: 9223372036854775808 is outside"):
        cint_dask.kernel(mod, "constant")(2**63, sizes={"n": 3})
    with pytest.raises(TypeError, match="parameter v is I64: it takes an int, not str"):
        cint_dask.kernel(mod, "constant")("3", sizes={"n": 3})


def _same_fault(got, want):
    assert isinstance(want, cint.Fault)
    assert type(got) is type(want)
    assert got.record == want.record
    assert (got.work_item, got.step, got.operands) == (want.work_item, want.step, want.operands)


def test_faults_in_several_chunks_lowest_global(mod, one):
    x = np.full(60, 3, dtype=np.int64)
    x[[57, 41, 23]] = 4_000_000         # s * 10^12 overflows in three chunks
    for chunks in (10, (23, 1, 36), 60):
        with pytest.raises(cint.OverflowFault) as ei:
            cint_dask.kernel(mod, "loopy")(da.from_array(x, chunks=chunks)).compute()
        _same_fault(ei.value, one("loopy", x, y=((60,), "I64")))
        assert ei.value.work_item == 23


def test_fault_in_a_halo(mod, one):
    x = np.ones(44, dtype=np.int32)
    x[27] = 2**20                      # x[i + 4] * x[i + 2] overflows at i = 23 (halo of the first chunk)
    x[25] = 2**20
    want = one("fir", x, y=((40,), "I32"))
    assert want.work_item == 23
    with pytest.raises(cint.OverflowFault) as ei:
        cint_dask.kernel(mod, "fir")(da.from_array(x, chunks=(24, 20))).compute()
    _same_fault(ei.value, want)


def test_2d_fault_global_coordinates(mod, one):
    x = np.zeros((6, 7), dtype=np.int64)
    x[4, 1] = x[2, 5] = x[5, 6] = 2      # s * 2^62 overflows where x is 2
    want = one("grid", x, y=((6, 7), "I64"), z=((6, 7), "I64"))
    with pytest.raises(cint.OverflowFault) as ei:
        cint_dask.kernel(mod, "grid")(da.from_array(x, chunks=(2, 3)))[0].compute()
    _same_fault(ei.value, want)
    assert ei.value.work_item == 2 * 7 + 5 and ei.value.work_index == (2, 5)


@pytest.mark.parametrize("chunks", [(7, 20, 1, 32), 60])
@pytest.mark.parametrize("budget", [0, 59, 60, 61, 75, 100, 151, 179, 180, 10**6])
def test_fuel_budgets(mod, one, budget, chunks):
    x = np.array([k % 4 for k in range(60)], dtype=np.int64)   # charges 60 + 90 = 180
    want = one("loopy", x, y=((60,), "I64"), fuel=budget)
    y = cint_dask.kernel(mod, "loopy", fuel=budget)(da.from_array(x, chunks=chunks))
    if isinstance(want, cint.Fault):
        with pytest.raises(cint.FuelFault) as ei:
            y.compute()
        _same_fault(ei.value, want)
        assert ei.value.limit == budget
    else:
        assert np.array_equal(y.compute(), want)


def test_fuel_with_a_fault_before_and_after_the_crossing(mod, one):
    x = np.array([k % 4 for k in range(60)], dtype=np.int64)
    x[30] = 4_000_000
    for budget in (100, 10**9):      # E_FUEL before work item 30, then the overflow at 30
        want = one("loopy", x, y=((60,), "I64"), fuel=budget)
        with pytest.raises(type(want)) as ei:
            cint_dask.kernel(mod, "loopy", fuel=budget)(da.from_array(x, chunks=9)).compute()
        _same_fault(ei.value, want)


def test_fuel_2d_splits_rows_only(mod, one):
    x = np.arange(42, dtype=np.int64).reshape(6, 7) % 2      # charges 42 + 21
    y, _ = cint_dask.kernel(mod, "grid", fuel=50)(da.from_array(x, chunks=(2, 3)))
    assert y.chunks == ((2, 2, 2), (7,))
    want = one("grid", x, y=((6, 7), "I64"), z=((6, 7), "I64"), fuel=50)
    with pytest.raises(cint.FuelFault) as ei:
        y.compute()
    _same_fault(ei.value, want)


def test_state_is_restored_in_every_chunk(mod, one):
    ctx = mod.context()
    ctx.touch(5)
    state = ctx.checkpoint()
    x = np.full(12, 3, dtype=np.int64)
    x[7] = 4_000_000
    want = one("loopy", x, y=((12,), "I64"), state=state)
    with pytest.raises(cint.OverflowFault) as ei:
        cint_dask.kernel(mod, "loopy", state=state)(da.from_array(x, chunks=5)).compute()
    _same_fault(ei.value, want)
    x[7] = 1
    assert np.array_equal(cint_dask.kernel(mod, "loopy", state=state)(x, chunks=5).compute(),
                          one("loopy", x, y=((12,), "I64"), state=state))
    with pytest.raises(cint.Refused):
        cint_dask.kernel(mod, "loopy", state=b"not a checkpoint")


@pytest.mark.parametrize("name, words", [
    ("ramp", "value of the over variable i"),
    ("rev", "x is indexed by n - 1 - i"),
    ("sized", "reads the size symbol n"),
    ("lag", "outside the halo 0..1"),
    ("firstof", "x is indexed by 0"),
    ("short", "never shorter"),
    ("limited", "`where` clause"),
    ("touch", "not a kernel"),
])
def test_refused_kernels(mod, name, words):
    with pytest.raises(cint_dask.ChunkingRefused) as ei:
        cint_dask.kernel(mod, name)
    assert words in str(ei.value)


def test_refused_calls(mod):
    fir = cint_dask.kernel(mod, "fir")
    with pytest.raises(TypeError, match="holds I32"):
        fir(da.zeros(10, dtype=np.int64))
    with pytest.raises(TypeError, match="rank 1"):
        fir(da.zeros((10, 2), dtype=np.int32))
    blur = cint_dask.kernel(mod, "blur")
    with pytest.raises(ValueError, match=r"parameter a has extent 1 in dimension 0; its type needs h \+ 2"):
        blur(da.zeros((1, 5), dtype=np.int64))
    tm = cint_dask.kernel(mod, "times")
    with pytest.raises(ValueError, match=r"parameter b has extent 4 in dimension 0; its type needs n = 5"):
        tm(da.zeros(5, dtype=np.int64), da.zeros(4, dtype=np.int64))
    with pytest.raises(TypeError, match="missing argument f"):
        cint_dask.kernel(mod, "scale")(da.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="fuel is None or an int"):
        cint_dask.kernel(mod, "scale", fuel=-1)
    lib = cint.Module(mod.path)
    with pytest.raises(cint_dask.ChunkingRefused, match="load the .ci source"):
        cint_dask.kernel(lib, "scale")


def test_library_is_one_key(mod):
    k = cint_dask.kernel(mod, "scale")
    y = k(da.arange(20, chunks=2), 3)
    z = k(da.arange(20, chunks=5), 4)
    keys = [key for key in dict((y + z).__dask_graph__()) if isinstance(key, str) and key.startswith("cint-lib-")]
    assert len(keys) == 1
