"""Counted read-only exports of a cint.Buffer: the buffer protocol and DLPack (SPEC-03P.1 6.3 P-18, 8.3, 8.4).

cint._exports.ExportBase, the C base of Buffer, answers bf_getbuffer and __dlpack__; every live
export is counted in Buffer._exports, and a Buffer with a live export is refused as an output with
cint.Busy, code E_ALIAS. Runtime storage (cint.empty) is exported through a lease of the runtime,
the package's own storage (cint.copy) directly.
"""
import ctypes as C
import gc
import sys

import pytest

import cint
from cint import _arrays, _exports

np = pytest.importorskip("numpy")

SOURCE = """\
export kernel square[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] * x[i];
}

export kernel fill2[h, w](in I64[h, w] a, out I64[h, w] b) over [i: h, j: w] {
    b[i, j] = a[i, j] + 1;
}

export void bump[n](inout I64[n] a) {
    for i in 0..n {
        a[i] = a[i] + 1;
    }
}

export I64 total[n](in I64[n] x) {
    I64 s = 0;
    for i in 0..n {
        s = s + x[i];
    }
    return s;
}
"""

FORMATS = {"Bool": "?", "I8": "b", "I16": "h", "I32": "i", "I64": "q", "U8": "B", "U16": "H", "U32": "I", "U64": "Q"}
DTYPES = {"Bool": (6, 8), "I8": (0, 8), "I16": (0, 16), "I32": (0, 32), "I64": (0, 64), "U8": (1, 8), "U16": (1, 16),
          "U32": (1, 32), "U64": (1, 64)}


@pytest.fixture(scope="module")
def mod(source_env):
    return cint.load(source_env("exports", {"exports.ci": SOURCE}) / "exports.ci")


@pytest.fixture()
def ctx(mod):
    return mod.context()


def published(ctx, values=(0, 1, 2, 3)):
    buf = cint.empty((len(values),), "I64")
    ctx.square(np.array(values, dtype=np.int64), y=buf)
    return buf


# --- the buffer protocol -------------------------------------------------------------------------

@pytest.mark.clause("6.3", "P-18", "P-3")
@pytest.mark.parametrize("elem", list(FORMATS))
def test_memoryview_is_read_only_with_the_element_format(elem):
    vals = [True, False, True] if elem == "Bool" else [1, 2, 3]
    buf = cint.copy(vals, elem=elem)
    with memoryview(buf) as mv:
        assert mv.readonly and mv.format == FORMATS[elem] and mv.shape == (3,)
        assert mv.itemsize == DTYPES[elem][1] // 8
        assert mv.tolist() == vals
        assert buf._exports == 1
    assert buf._exports == 0


@pytest.mark.clause("6.3", "P-18")
def test_rank_2_runtime_buffer_exports_row_major(ctx):
    buf = cint.empty((2, 3), "I64")
    ctx.fill2(np.arange(6, dtype=np.int64).reshape(2, 3), b=buf)
    with memoryview(buf) as mv:
        assert mv.shape == (2, 3) and mv.strides == (24, 8) and mv.c_contiguous
        assert mv.tolist() == [[1, 2, 3], [4, 5, 6]]
        a = np.asarray(mv)
        assert a.tolist() == buf.tolist() and not a.flags.writeable
        del a
    assert buf._exports == 0


@pytest.mark.clause("6.3", "P-18")
def test_a_writable_request_is_refused_naming_why():
    buf = cint.copy([1, 2], elem="I64")
    pb = _arrays.Py_buffer()
    with pytest.raises(BufferError, match="read-only exports"):
        _arrays._GetBuffer(buf, C.byref(pb), _arrays.PyBUF_WRITABLE | _arrays.PyBUF_STRIDES)
    assert buf._exports == 0
    with pytest.raises((TypeError, BufferError)):
        C.c_int64.from_buffer(buf)
    assert buf._exports == 0
    square = cint.copy([[1, 2], [3, 4]], elem="I64")
    with pytest.raises(BufferError, match="Fortran"):
        _arrays._GetBuffer(square, C.byref(pb), 0x0040 | _arrays.PyBUF_STRIDES)   # PyBUF_F_CONTIGUOUS
    assert square._exports == 0


@pytest.mark.clause("6.3", "P-18")
def test_export_counting(ctx):
    buf = published(ctx)
    assert buf._exports == 0
    m1 = memoryview(buf)
    m2 = memoryview(buf)
    a = np.asarray(buf)
    assert buf._exports == 3 and not a.flags.writeable
    m1.release()
    assert buf._exports == 2
    del m2, a
    gc.collect()
    assert buf._exports == 0
    with pytest.raises(AttributeError):
        buf._exports = 5


@pytest.mark.clause("6.3", "P-18", "8.4")
@pytest.mark.parametrize("kind", ["empty", "copy"])
@pytest.mark.parametrize("export", ["memoryview", "asarray", "from_dlpack", "capsule", "borrow"])
def test_a_live_export_makes_the_buffer_busy_as_an_output(ctx, kind, export):
    buf = published(ctx) if kind == "empty" else cint.copy([0, 1, 2, 3], elem="I64")
    make = {"memoryview": memoryview, "asarray": np.asarray, "from_dlpack": np.from_dlpack,
            "capsule": lambda b: b.__dlpack__(max_version=(1, 0)), "borrow": cint.borrow}[export]
    held = make(buf)
    assert buf._exports == 1
    x = np.arange(4, dtype=np.int64)
    with pytest.raises(cint.Busy) as e:
        ctx.square(x, y=buf)
    assert e.value.code == "E_ALIAS"
    with pytest.raises(cint.Busy) as e:
        ctx.bump(a=buf)
    assert e.value.code == "E_ALIAS"
    assert ctx.total(buf) == sum(buf.tolist())  # reading it is fine
    if export == "memoryview":
        held.release()
    elif export == "borrow":
        held.release()
    del held
    gc.collect()
    assert buf._exports == 0
    ctx.square(x, y=buf)
    assert buf.tolist() == [0, 1, 4, 9]


@pytest.mark.clause("6.2", "6.3", "8.4")
def test_unpublished_and_released_buffers(ctx):
    buf = cint.empty((2,), "I64")
    with pytest.raises(cint.Unpublished):
        memoryview(buf)
    with pytest.raises(cint.Unpublished):
        np.asarray(buf)
    with pytest.raises(cint.Unpublished):
        buf.__dlpack__(max_version=(1, 0))
    assert buf._exports == 0
    buf = published(ctx)
    mv = memoryview(buf)
    with pytest.raises(cint.Busy) as e:
        buf.release()
    assert e.value.code == "E_ALIAS"
    assert mv.tolist() == [0, 1, 4, 9]
    mv.release()
    buf.release()
    for attempt in (lambda: memoryview(buf), lambda: np.asarray(buf), lambda: buf.__dlpack__(max_version=(1, 0))):
        with pytest.raises(cint.StaleHandle):
            attempt()
    own = cint.copy([5, 6], elem="I64")
    mv = memoryview(own)
    with pytest.raises(cint.Busy):
        own.release()
    mv.release()
    own.release()
    with pytest.raises(cint.StaleHandle):
        memoryview(own)


@pytest.mark.clause("6.3", "P-18")
def test_refcounts_around_buffer_exports(ctx):
    buf = published(ctx)
    rb, rc = sys.getrefcount(buf), sys.getrefcount(ctx)
    mv = memoryview(buf)
    assert sys.getrefcount(buf) == rb + 1 and sys.getrefcount(ctx) == rc + 1    # the lease holds the context
    mv.release()
    assert (sys.getrefcount(buf), sys.getrefcount(ctx)) == (rb, rc)
    for _ in range(3):
        cap = buf.__dlpack__(max_version=(1, 0))
        del cap
        m = np.from_dlpack(buf)
        del m
        a = np.asarray(buf)
        del a
    gc.collect()
    assert (sys.getrefcount(buf), sys.getrefcount(ctx), buf._exports) == (rb, rc, 0)


@pytest.mark.clause("6.3", "P-18")
def test_a_context_with_live_exports_is_not_closed(mod):
    ctx = mod.context()
    buf = published(ctx)
    mv = memoryview(buf)
    with pytest.raises(cint.Busy):
        ctx.close()
    assert mv.tolist() == [0, 1, 4, 9]
    mv.release()
    ctx.close()


# --- DLPack production ---------------------------------------------------------------------------

@pytest.mark.clause("8.3", "6.3", "P-18")
@pytest.mark.parametrize("elem", list(FORMATS))
def test_versioned_capsule_marked_read_only(elem):
    vals = [True, False] if elem == "Bool" else [7, 8]
    buf = cint.copy(vals, elem=elem)
    cap = buf.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(cap)
    assert buf._exports == 1
    tensor, desc = _exports.consume(cap)
    assert "used_dltensor_versioned" in repr(cap)
    assert desc["versioned"] and desc["version"] == (1, 0)
    assert desc["flags"] == _exports.READ_ONLY
    assert desc["device"] == (1, 0) and desc["dtype"] == DTYPES[elem] + (1,)
    assert desc["shape"] == (2,) and desc["strides"] == (1,) and desc["byte_offset"] == 0
    with memoryview(buf) as mv:
        assert desc["data"] == np.asarray(mv).ctypes.data
    del cap
    assert buf._exports == 1                  # consumed: the consumer's deleter ends it
    tensor.close()
    assert buf._exports == 0 and tensor.closed
    tensor.close()
    assert buf._exports == 0


@pytest.mark.clause("8.3", "P-18")
def test_dlpack_device_and_arguments(ctx):
    buf = published(ctx)
    assert buf.__dlpack_device__() == (1, 0)
    assert "dltensor_versioned" in repr(buf.__dlpack__(max_version=(1, 2), dl_device=(1, 0), copy=False))
    with pytest.raises(BufferError, match="versioned"):
        buf.__dlpack__()
    with pytest.raises(BufferError, match="versioned"):
        buf.__dlpack__(max_version=(0, 8))
    with pytest.raises(BufferError, match="kDLCPU"):
        buf.__dlpack__(max_version=(1, 0), dl_device=(2, 0))
    with pytest.raises(BufferError, match="stream"):
        buf.__dlpack__(max_version=(1, 0), stream=1)
    with pytest.raises(TypeError):
        buf.__dlpack__((1, 0))
    with pytest.raises(TypeError):
        buf.__dlpack__(max_version=1)
    gc.collect()
    assert buf._exports == 0


@pytest.mark.clause("8.3", "P-18")
def test_copy_true_gives_a_writable_copy_that_is_no_export(ctx):
    buf = published(ctx)
    t, desc = _exports.consume(buf.__dlpack__(max_version=(1, 0), copy=True))
    assert desc["flags"] == _exports.IS_COPIED and buf._exports == 0
    t.close()
    t, desc = _exports.consume(buf.__dlpack__(copy=True))       # the legacy form, for a copy only
    assert desc["versioned"] is False and buf._exports == 0
    t.close()
    m = np.from_dlpack(buf, copy=True)
    assert m.flags.writeable and buf._exports == 0
    m[0] = 42
    assert buf.tolist() == [0, 1, 4, 9]


@pytest.mark.clause("8.3", "P-18", "P-14")
def test_a_capsule_never_consumed_ends_its_export(ctx):
    buf = published(ctx)
    cap = buf.__dlpack__(max_version=(1, 0))
    assert buf._exports == 1
    with pytest.raises(cint.Busy):
        ctx.square(np.arange(4, dtype=np.int64), y=buf)
    del cap
    assert buf._exports == 0
    ctx.square(np.arange(4, dtype=np.int64), y=buf)


@pytest.mark.clause("8.3", "6.3", "P-18")
def test_numpy_from_dlpack_is_read_only_and_shares_memory(ctx):
    buf = published(ctx)
    m = np.from_dlpack(buf)
    assert not m.flags.writeable and m.tolist() == [0, 1, 4, 9]
    with pytest.raises(ValueError):
        m[0] = 99
    with memoryview(buf) as mv:
        assert np.asarray(mv).ctypes.data == m.ctypes.data
    assert buf._exports == 1
    del m
    gc.collect()
    assert buf._exports == 0


@pytest.mark.clause("8.3", "P-18")
def test_a_zero_length_buffer_exports(ctx):
    buf = cint.copy([], elem="I64")
    with memoryview(buf) as mv:
        assert mv.shape == (0,) and mv.nbytes == 0
    t, desc = _exports.consume(buf.__dlpack__(max_version=(1, 0)))
    assert desc["shape"] == (0,)
    t.close()
    assert buf._exports == 0
