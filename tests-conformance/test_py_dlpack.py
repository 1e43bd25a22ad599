"""SPEC-03P.1 8.3 from Python: borrowing through DLPack (P-10..P-14), and DLPack exports of a Buffer (6.3, P-18).

The producers are NumPy arrays behind a wrapper that offers only DLPack (as in dlpack.py), and a fake
producer whose capsules are built here with ctypes from the DLPack 1.x layouts, so that every field
can be made wrong and every deleter call counted.
"""
import ctypes as C
import gc
import sys
import threading
import weakref

import pytest

import cint
from cint import _exports

np = pytest.importorskip("numpy")

SOURCE = """\
export kernel square[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] * x[i];
}

export I64 total[n](in I64[n] x) {
    I64 s = 0;
    for i in 0..n {
        s = s + x[i];
    }
    return s;
}

export I64 corner[h, w](in I64[h, w] a) {
    return a[0, 0] * 1000 + a[h - 1, w - 1];
}

export I64 trues[n](in Bool[n] b) {
    I64 c = 0;
    for i in 0..n {
        if (b[i]) {
            c = c + 1;
        }
    }
    return c;
}

export I64 bytesum[n](in U8[n] s) {
    I64 c = 0;
    for i in 0..n {
        c = c + (s[i] as I64);
    }
    return c;
}

export I64 pair[n](in I64[n] a, in I64[n] b) {
    return a[0] * 100 + b[0];
}

export void bump[n](inout I64[n] a) {
    for i in 0..n {
        a[i] = a[i] + 1;
    }
}
"""


@pytest.fixture(scope="module")
def mod(source_env):
    return cint.load(source_env("py-dlpack", {"dl.ci": SOURCE}) / "dl.ci")


@pytest.fixture()
def ctx(mod):
    return mod.context()


class DLPackOnly:
    """An array that offers DLPack and not the buffer protocol (dlpack.py); counts its exchanges."""

    def __init__(self, a):
        self.a = a
        self.calls = []

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


# --- a producer made with ctypes ------------------------------------------------------------------

class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32), ("dtype", DLDataType),
                ("shape", C.POINTER(C.c_int64)), ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class DLPackVersion(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32)]


class DLManagedTensorVersioned(C.Structure):
    pass


class DLManagedTensor(C.Structure):
    pass


DELETER_V = C.CFUNCTYPE(None, C.POINTER(DLManagedTensorVersioned))
DELETER_L = C.CFUNCTYPE(None, C.POINTER(DLManagedTensor))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", C.c_void_p),
                                     ("deleter", DELETER_V), ("flags", C.c_uint64), ("dl_tensor", DLTensor)]
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p), ("deleter", DELETER_L)]
assert C.sizeof(DLTensor) == 48 and C.sizeof(DLManagedTensor) == 64 and DLManagedTensorVersioned.dl_tensor.offset == 32

_NAMES = {n: C.create_string_buffer(n) for n in (b"dltensor_versioned", b"dltensor", b"used_dltensor_versioned",
                                                 b"something_else")}
CAPSULE_DESTRUCTOR = C.CFUNCTYPE(None, C.c_void_p)
_New = C.pythonapi.PyCapsule_New
_New.restype, _New.argtypes = C.py_object, [C.c_void_p, C.c_void_p, CAPSULE_DESTRUCTOR]
_GetName = C.pythonapi.PyCapsule_GetName
_GetName.restype, _GetName.argtypes = C.c_char_p, [C.c_void_p]
_GetPointer = C.pythonapi.PyCapsule_GetPointer
_GetPointer.restype, _GetPointer.argtypes = C.c_void_p, [C.c_void_p, C.c_char_p]
_LIVE = {}          # address of a managed tensor -> the Fake that made it, until its deleter runs
_DONE = {}          # address of a deleted tensor -> the Fake that made it (a second call is recorded)
_GRAVE = []         # deleted tensors are kept, so that no address is reused within a test run


def _on_delete(p):
    addr = C.cast(p, C.c_void_p).value
    fake = _LIVE.pop(addr, None)
    if fake is not None:
        _DONE[addr] = weakref.ref(fake)
        _GRAVE.append(fake._keep.pop(addr))
        fake.deleted += 1
    elif addr in _DONE and _DONE[addr]() is not None:
        _DONE[addr]().twice += 1


_DELETER_V = DELETER_V(_on_delete)
_DELETER_L = DELETER_L(_on_delete)


def _destructor(cap):
    """As a producer's capsule destructor: a capsule nobody consumed (not renamed "used_...") still owns
    its tensor."""
    name = _GetName(cap)
    if name is not None and not name.startswith(b"used_"):
        addr = _GetPointer(cap, name)
        if addr in _LIVE:
            _on_delete(addr)


_DESTRUCTOR = CAPSULE_DESTRUCTOR(_destructor)


class Fake:
    """A DLPack producer over int64 (or other) memory of its own. Every field of the tensor it hands out
    can be set; deleter calls are counted per tensor, and a second call of one deleter is recorded."""

    def __init__(self, values=(0, 1, 2, 3), ctype=C.c_int64, *, code=0, bits=64, lanes=1, shape=None,
                 strides=None, byte_offset=0, offset=0, flags=0, version=(1, 0), legacy_only=False,
                 answer_legacy=False, name=None, device=(1, 0), tensor_device=None, ndim=None,
                 null_shape=False, null_data=False, dlpack_raises=None, returns=None):
        self.mem = (ctype * max(len(values), 1))(*values)
        self.ctype = ctype
        self.code, self.bits, self.lanes = code, bits, lanes
        self.shape = tuple(shape) if shape is not None else (len(values),)
        self.strides = strides
        self.byte_offset, self.offset, self.flags, self.version = byte_offset, offset, flags, version
        self.legacy_only, self.answer_legacy, self.name = legacy_only, answer_legacy, name
        self.device, self.tensor_device = device, tensor_device if tensor_device is not None else device
        self.ndim, self.null_shape, self.null_data = ndim, null_shape, null_data
        self.dlpack_raises, self.returns = dlpack_raises, returns
        self.calls = []
        self.made = 0
        self.deleted = 0
        self.twice = 0
        self._keep = {}

    # the DLPack protocol
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append({"stream": stream, "max_version": max_version, "dl_device": dl_device, "copy": copy})
        if self.legacy_only and (max_version is not None or dl_device is not None or copy is not None):
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        if self.dlpack_raises is not None:
            raise self.dlpack_raises()      # a new exception each time: no cycle through a stored traceback
        if self.returns is not None:
            return self.returns
        versioned = max_version is not None and max_version >= (1, 0) and not self.answer_legacy
        return self._capsule(versioned)

    def __dlpack_device__(self):
        return self.device

    def _capsule(self, versioned):
        shape = (C.c_int64 * max(len(self.shape), 1))(*self.shape)
        strides = (C.c_int64 * max(len(self.shape), 1))(*self.strides) if self.strides is not None else None
        m = DLManagedTensorVersioned() if versioned else DLManagedTensor()
        t = m.dl_tensor
        t.data = None if self.null_data else C.addressof(self.mem) + self.offset
        t.device = DLDevice(*self.tensor_device)
        t.ndim = len(self.shape) if self.ndim is None else self.ndim
        t.dtype = DLDataType(self.code, self.bits, self.lanes)
        t.shape = C.cast(None, C.POINTER(C.c_int64)) if self.null_shape else shape
        t.strides = strides if strides is not None else C.cast(None, C.POINTER(C.c_int64))
        t.byte_offset = self.byte_offset
        addr = C.addressof(m)
        if versioned:
            m.version = DLPackVersion(*self.version)
            m.flags = self.flags
            m.deleter = _DELETER_V
        else:
            m.deleter = _DELETER_L
        self._keep[addr] = (m, shape, strides)
        self.made += 1
        _LIVE[addr] = self
        name = self.name or (b"dltensor_versioned" if versioned else b"dltensor")
        return _New(addr, C.addressof(_NAMES[name]), _DESTRUCTOR)


def settled(fake):
    gc.collect()
    return fake.made == fake.deleted and fake.twice == 0


# --- P-10 ----------------------------------------------------------------------------------------

@pytest.mark.clause("8.3", "P-10", "P-1")
def test_dlpack_only_object_is_borrowed_and_exchanged_again_at_each_entry(ctx):
    x = np.arange(4, dtype=np.int64)
    p = DLPackOnly(x)
    v = cint.borrow(p)
    assert repr(v) == "<cint.View I64[4] read-only, no publish via DLPack>"
    assert p.calls == [{"stream": None, "max_version": (1, 0), "dl_device": None, "copy": False}]
    buf = cint.empty((4,), "I64")
    ctx.square(v, y=buf)
    assert buf.tolist() == [0, 1, 4, 9]
    assert len(p.calls) == 2 and p.calls[1] == p.calls[0]
    assert ctx.total(v) == 6 and len(p.calls) == 3
    v.release()


@pytest.mark.clause("8.3", "P-10", "P-14")
def test_fake_producer_exchanges_and_deleter_timing(ctx):
    f = Fake([5, 6, 7])
    v = cint.borrow(f)
    assert (f.made, f.deleted) == (1, 0)             # the first capsule is held by the View
    assert ctx.total(v) == 18
    assert (f.made, f.deleted) == (2, 1)             # the entry's capsule is deleted when the entry ends
    assert ctx.total(v) == 18
    assert (f.made, f.deleted) == (3, 2)
    v.release()
    assert (f.made, f.deleted, f.twice) == (3, 3, 0)
    v.release()
    assert (f.deleted, f.twice) == (3, 0)
    with pytest.raises(cint.StaleHandle):
        ctx.total(v)
    assert f.made == 3                                # a released View exchanges nothing


@pytest.mark.clause("8.3", "P-10")
@pytest.mark.parametrize("change,what", [
    (lambda f: setattr(f, "offset", 8), "data pointer"),
    (lambda f: setattr(f, "shape", (3,)), "shape"),
    (lambda f: setattr(f, "strides", (2,)), "strides"),
    (lambda f: setattr(f, "code", 1), "data type"),
])
def test_a_changed_tensor_is_refused_at_the_entry(ctx, change, what):
    f = Fake([1, 2, 3, 4, 5, 6, 7, 8], shape=(4,))
    v = cint.borrow(f)
    assert ctx.total(v) == 10
    change(f)
    with pytest.raises(cint.BorrowRefused, match="changed since the View was borrowed.*" + what):
        ctx.total(v)
    assert (f.made, f.deleted) == (3, 2)             # the refused capsule was deleted at once
    # the refused call ran nothing; the context takes the next call
    assert ctx.total(np.arange(3, dtype=np.int64)) == 3
    v.release()
    assert settled(f)


@pytest.mark.clause("8.3", "P-10", "H-12", "P-20")
def test_a_changed_tensor_after_a_new_argument_registers_nothing(ctx):
    """The re-exchange of a DLPack View is checked before any registration of the call: the bare array before
    it in the arguments is not registered, and the state is as it was (7.1 paragraph 3)."""
    f = Fake([1, 2, 3, 4])
    v = cint.borrow(f)
    x = np.arange(4, dtype=np.int64)
    assert ctx.pair(x, v) == 1
    f.offset = 8
    y = cint.empty(4, "I64")
    for call in (lambda: ctx.pair(x, v), lambda: ctx.pair(cint.borrow(x), v), lambda: ctx.pair(y, v)):
        before = ctx.state_hash(), ctx.checkpoint()
        with pytest.raises(cint.BorrowRefused, match="changed since the View was borrowed"):
            call()
        assert (ctx.state_hash(), ctx.checkpoint()) == before
    assert y._registration(ctx) is None
    v.release()
    assert settled(f)


@pytest.mark.clause("8.3", "P-10")
def test_explicit_compact_strides_equal_null_strides(ctx):
    f = Fake([1, 2, 3, 4])
    v = cint.borrow(f)
    f.strides = (1,)
    assert ctx.total(v) == 10
    v.release()
    assert settled(f)


@pytest.mark.clause("8.3", "P-10")
def test_copy_false_not_honored_and_copied_capsules_are_refused():
    f = Fake(dlpack_raises=lambda: BufferError("cannot export without a copy"))
    with pytest.raises(cint.BorrowRefused, match="copy=False.*cannot export without a copy"):
        cint.borrow(f)
    assert f.made == 0
    f = Fake(flags=_exports.IS_COPIED)
    with pytest.raises(cint.BorrowRefused, match="IS_COPIED"):
        cint.borrow(f)
    assert (f.made, f.deleted) == (1, 1)


@pytest.mark.clause("8.3", "P-10", "P-14")
def test_copied_capsule_at_an_entry_is_refused(ctx):
    f = Fake([1, 2])
    v = cint.borrow(f)
    f.flags = _exports.IS_COPIED
    with pytest.raises(cint.BorrowRefused, match="IS_COPIED"):
        ctx.total(v)
    v.release()
    assert settled(f)


# --- P-10a ---------------------------------------------------------------------------------------

@pytest.mark.clause("8.3", "P-10a")
def test_older_producer_falls_back_to_stream_alone_for_a_read_only_borrow(ctx):
    f = Fake([1, 2, 3], legacy_only=True)
    v = cint.borrow(f)
    assert f.calls[0]["max_version"] == (1, 0) and f.calls[1] == {"stream": None, "max_version": None,
                                                                 "dl_device": None, "copy": None}
    assert not v.writable
    assert ctx.total(v) == 6
    assert f.calls[-1]["max_version"] is None        # the entry exchanges the same way
    v.release()
    assert settled(f)
    f = Fake([1, 2, 3], legacy_only=True)
    with pytest.raises(cint.BorrowRefused, match="unversioned"):
        cint.borrow(f, writable=True)
    assert settled(f)


@pytest.mark.clause("8.3", "P-10a")
def test_legacy_capsule_answering_max_version(ctx):
    f = Fake([4, 5], answer_legacy=True)
    v = cint.borrow(f)
    assert ctx.total(v) == 9
    v.release()
    with pytest.raises(cint.BorrowRefused, match="unversioned"):
        cint.borrow(f, writable=True, publish="copy")
    assert settled(f)


# --- P-11 ----------------------------------------------------------------------------------------

@pytest.mark.clause("8.3", "P-11", "P-1")
def test_device_memory_is_refused_before_any_exchange():
    f = Fake(device=(2, 0))
    with pytest.raises(cint.BorrowRefused, match="kDLCUDA.*not kDLCPU"):
        cint.borrow(f)
    assert f.made == 0 and f.calls == []
    f = Fake(tensor_device=(2, 0))
    with pytest.raises(cint.BorrowRefused, match="kDLCUDA"):
        cint.borrow(f)
    assert settled(f)


@pytest.mark.clause("8.3", "P-11", "P-20")
def test_a_dlpack_view_used_with_two_contexts(mod):
    a, b = mod.context(), mod.context()
    f = Fake([1, 2, 3])
    v = cint.borrow(f)
    assert a.total(v) == 6 and b.total(v) == 6 and a.total(v) == 6
    assert (f.made, f.deleted) == (4, 3)
    v.release()
    assert settled(f)
    with pytest.raises(cint.StaleHandle):
        b.total(v)


# --- P-12 ----------------------------------------------------------------------------------------

@pytest.mark.clause("8.3", "P-12")
@pytest.mark.parametrize("ctype,code,bits,elem", [
    (C.c_int8, 0, 8, "I8"), (C.c_int16, 0, 16, "I16"), (C.c_int32, 0, 32, "I32"), (C.c_int64, 0, 64, "I64"),
    (C.c_uint8, 1, 8, "U8"), (C.c_uint16, 1, 16, "U16"), (C.c_uint32, 1, 32, "U32"), (C.c_uint64, 1, 64, "U64"),
    (C.c_uint8, 6, 8, "Bool"),
])
def test_integer_and_bool_types_map_to_elements(ctype, code, bits, elem):
    f = Fake([1, 0, 1], ctype, code=code, bits=bits)
    v = cint.borrow(f)
    assert v.elem == elem and v.shape == (3,) and v.strides == (1,)
    v.release()
    assert settled(f)


@pytest.mark.clause("8.3", "P-12")
def test_bool_and_bytes_reach_the_entry(ctx):
    f = Fake([1, 0, 1, 1], C.c_uint8, code=6, bits=8)
    assert ctx.trues(cint.borrow(f)) == 3
    g = Fake([200, 100], C.c_uint8, code=1, bits=8)
    assert ctx.bytesum(g) == 300                       # a bare DLPack object for an in parameter (P-20a)
    gc.collect()
    assert settled(f) and settled(g)
    bad = Fake([2, 0], C.c_uint8, code=6, bits=8)        # Bool bytes are checked at entry
    with pytest.raises((cint.Refused, cint.Fault)):
        ctx.trues(bad)
    ctx.clear_fault()


@pytest.mark.clause("8.3", "P-12")
@pytest.mark.parametrize("kw,pattern", [
    ({"code": 2, "bits": 64}, r"floating-point.*cint\.from_float"),
    ({"code": 4, "bits": 16}, r"kDLBfloat.*cint\.from_float"),
    ({"code": 5, "bits": 64}, "complex"),
    ({"code": 3, "bits": 64}, "type code 3"),
    ({"code": 6, "bits": 16}, "kDLBool of 16 bits"),
    ({"code": 0, "bits": 128}, "kDLInt of 128 bits"),
    ({"code": 1, "bits": 4}, "kDLUInt of 4 bits"),
    ({"lanes": 2}, "2 lanes"),
])
def test_other_types_are_refused(kw, pattern):
    f = Fake(**kw)
    with pytest.raises(cint.BorrowRefused, match=pattern):
        cint.borrow(f)
    assert settled(f)


@pytest.mark.clause("8.3", "P-12", "P-4")
def test_elem_shall_match():
    f = Fake()
    with pytest.raises(cint.BorrowRefused, match="differs"):
        cint.borrow(f, elem="U64")
    cint.borrow(f, elem="I64").release()
    assert settled(f)


# --- P-13 ----------------------------------------------------------------------------------------

@pytest.mark.clause("8.3", "P-13", "P-7")
def test_read_only_flag_sets_the_ceiling(ctx):
    f = Fake([1, 2], flags=_exports.READ_ONLY)
    with pytest.raises(cint.BorrowRefused, match="read-only DLPack tensor"):
        cint.borrow(f, writable=True)
    v = cint.borrow(f)
    assert not v.writable and ctx.total(v) == 3
    with pytest.raises(cint.Refused):
        ctx.bump(a=v)
    v.release()
    assert settled(f)
    x = np.arange(3, dtype=np.int64)
    x.flags.writeable = False
    with pytest.raises(cint.BorrowRefused, match="read-only"):
        cint.borrow(DLPackOnly(x), writable=True)


@pytest.mark.clause("8.3", "P-13", "6.4", "P-15")
def test_writable_dlpack_views_are_written(ctx):
    a = np.array([1, 2, 3], dtype=np.int64)
    ctx.bump(a=cint.borrow(DLPackOnly(a), writable=True))
    assert a.tolist() == [2, 3, 4]
    y = np.zeros(3, dtype=np.int64)
    out = cint.borrow(DLPackOnly(y), writable=True, publish="copy")
    ctx.square(a, y=out)
    assert y.tolist() == [4, 9, 16]
    assert "publish-copy y: I64 x 3" in str(ctx.last_entry())
    out.release()


@pytest.mark.clause("8.3", "P-13", "A-8a", "P-5")
def test_strides_offsets_and_alignment(ctx):
    f = Fake(list(range(6)), shape=(2, 3))              # NULL strides: compact row-major
    v = cint.borrow(f)
    assert v.strides == (3, 1) and ctx.corner(v) == 5
    v.release()
    f = Fake(list(range(6)), shape=(3, 2), strides=(1, 3))    # a transpose
    assert ctx.corner(cint.borrow(f)) == 5
    f = Fake([1, 2, 3, 4], strides=(-1,), offset=24)    # reversed: registered from its lowest address
    v = cint.borrow(f)
    assert v.strides == (-1,) and v.origin == 3 and v.extent == 4
    buf = cint.empty((4,), "I64")
    ctx.square(v, y=buf)
    assert buf.tolist() == [16, 9, 4, 1]
    v.release()
    f = Fake([1, 2, 3, 4], shape=(3,), byte_offset=8)
    assert ctx.total(cint.borrow(f)) == 9
    f = Fake(byte_offset=4)
    with pytest.raises(cint.BorrowRefused, match="byte_offset of 4"):
        cint.borrow(f)
    f = Fake([1, 2, 3, 4], shape=(2,), offset=4)
    with pytest.raises(cint.BorrowRefused, match="aligned"):
        cint.borrow(f)
    f = Fake(list(range(6)), shape=(2, 3), strides=(1, 2))
    with pytest.raises(cint.BorrowRefused, match="C-contiguous"):
        cint.borrow(f, layout="C")
    cint.borrow(f, layout="F").release()
    gc.collect()


@pytest.mark.clause("8.3", "P-6")
def test_ranks_and_empty_tensors(ctx):
    with pytest.raises(cint.BorrowRefused, match="rank 0"):
        cint.borrow(Fake(shape=()))
    with pytest.raises(cint.BorrowRefused, match="rank 5"):
        cint.borrow(Fake(shape=(1, 1, 1, 1, 4)))
    f = Fake([], shape=(0,), null_data=True)
    v = cint.borrow(f)
    assert v.extent == 0 and ctx.total(v) == 0
    v.release()
    assert settled(f)


# --- misbehaving producers -----------------------------------------------------------------------

@pytest.mark.clause("8.3", "P-14", "P-9")
@pytest.mark.parametrize("kw,pattern", [
    ({"dlpack_raises": lambda: RuntimeError("boom")}, "RuntimeError: boom"),
    ({"returns": 42}, "int, not a PyCapsule"),
    ({"name": b"something_else"}, "named something_else"),
    ({"name": b"used_dltensor_versioned"}, "already consumed"),
    ({"version": (2, 0)}, "version 2.0"),
    ({"ndim": -1}, "ndim -1"),
    ({"ndim": 1000}, "absurd"),
    ({"null_shape": True}, "NULL shape"),
    ({"shape": (-4,)}, "negative extent"),
    ({"null_data": True}, "NULL data pointer"),
    ({"shape": (1 << 62, 1 << 62)}, "outside the address space"),
])
def test_misbehaving_producers_are_refused_without_a_crash(kw, pattern):
    f = Fake(**kw)
    r = sys.getrefcount(f)
    with pytest.raises(cint.BorrowRefused, match=pattern):
        cint.borrow(f)
    gc.collect()
    if kw.get("name", b"").startswith(b"used_"):
        # a capsule already consumed is not the package's to delete; its producer still holds it
        assert (f.made, f.deleted) == (1, 0)
        for addr in list(f._keep):
            _on_delete(addr)
    assert sys.getrefcount(f) == r
    # every capsule made is deleted exactly once: by the package when it took it, else by the
    # capsule's own destructor
    assert settled(f)


@pytest.mark.clause("8.3", "P-13", "A-8")
@pytest.mark.parametrize("kw", [
    {"byte_offset": 1 << 63},                   # was accepted, and the next call crashed
    {"byte_offset": (1 << 64) - 8},
    {"byte_offset": (1 << 63) - 8},
    {"byte_offset": 3 << 62},
    {"offset": 1 << 63},                        # a data pointer of the upper half
    {"strides": (1 << 62,), "values": (0, 1)},
    {"strides": ((1 << 63) - 1,), "values": (0, 1, 2)},
    {"strides": (-(1 << 62),), "values": (0, 1, 2)},
    {"shape": (2, 2), "strides": (1 << 61, -(1 << 61))},
    {"shape": (3, 3), "strides": ((1 << 63) - 1, (1 << 63) - 1), "values": tuple(range(9))},
])
def test_descriptor_sizes_offsets_and_strides_are_checked_exactly(ctx, kw):
    """Every size, offset and stride of a DLPack descriptor is checked in exact integers; a tensor whose bytes
    reach outside addresses 0 to 2**63 - 1 is refused before anything is registered, and the context is as
    it was."""
    f = Fake(**kw)
    before = ctx.state_hash()
    with pytest.raises(cint.BorrowRefused, match="address space"):
        cint.borrow(f)
    with pytest.raises(cint.BorrowRefused, match="address space"):
        ctx.total(f)
    assert ctx.state_hash() == before
    assert ctx.total(np.arange(4, dtype=np.int64)) == 6
    assert settled(f)


@pytest.mark.clause("A-8", "P-13")
def test_the_runtime_refuses_memory_outside_the_address_space(ctx):
    from cint._arrays import ctype_of
    before = ctx.state_hash()
    for ptr, extent in ((1 << 63, 4), ((1 << 63) - 8, 2), (((1 << 64) - 8), 1)):
        with pytest.raises(cint.Refused) as info:
            ctx._register(ctype_of("I64"), ptr, extent, False, 0)
        assert info.value.reason == "CINT_REFUSAL_SIZE"
    assert ctx.state_hash() == before


@pytest.mark.clause("8.3", "P-1")
def test_objects_with_neither_protocol_are_refused():
    class Half:
        def __dlpack_device__(self):
            return (1, 0)
    with pytest.raises(cint.BorrowRefused, match="__dlpack__"):
        cint.borrow(Half())

    class BadDevice:
        def __dlpack__(self, **kw):
            raise AssertionError("not reached")

        def __dlpack_device__(self):
            raise RuntimeError("no device")
    with pytest.raises(cint.BorrowRefused, match="no device"):
        cint.borrow(BadDevice())


# --- P-14 and reference counts -------------------------------------------------------------------

@pytest.mark.clause("8.3", "P-14", "P-2")
def test_refcounts_around_numpy_exchanges(ctx):
    x = np.arange(4, dtype=np.int64)
    p = DLPackOnly(x)
    rx, rp = sys.getrefcount(x), sys.getrefcount(p)
    v = cint.borrow(p)
    assert sys.getrefcount(p) == rp + 1                 # the View holds the producer (P-2)
    assert sys.getrefcount(x) > rx                      # and NumPy's capsule holds the array
    buf = cint.empty((4,), "I64")
    for _ in range(3):
        ctx.square(v, y=buf)
    v.release()
    assert (sys.getrefcount(x), sys.getrefcount(p)) == (rx, rp)
    v = cint.borrow(p)
    del v                                               # garbage collection releases it too
    gc.collect()
    assert (sys.getrefcount(x), sys.getrefcount(p)) == (rx, rp)
    ctx.total(p)                                        # a temporary borrow of one call
    assert (sys.getrefcount(x), sys.getrefcount(p)) == (rx, rp)
    with cint.borrow(p) as v:
        assert ctx.total(v) == 6
    assert (sys.getrefcount(x), sys.getrefcount(p)) == (rx, rp)


@pytest.mark.clause("8.3", "P-14")
def test_refused_capsules_are_deleted_at_once():
    f = Fake(code=2)
    rf = sys.getrefcount(f)
    with pytest.raises(cint.BorrowRefused):
        cint.borrow(f)
    assert (f.made, f.deleted) == (1, 1) and sys.getrefcount(f) == rf


@pytest.mark.clause("8.3", "P-14")
def test_view_dropped_without_release_calls_the_deleter_once():
    f = Fake()
    v = cint.borrow(f)
    del v
    gc.collect()
    assert (f.made, f.deleted, f.twice) == (1, 1, 0)


# --- the other direction: a Buffer exported through DLPack (6.3 P-18) -----------------------------

@pytest.mark.clause("8.3", "6.3", "P-18")
def test_numpy_from_dlpack_of_a_buffer_is_read_only_and_counted(ctx):
    buf = cint.empty((4,), "I64")
    ctx.square(np.arange(4, dtype=np.int64), y=buf)
    m = np.from_dlpack(buf)
    assert not m.flags.writeable and m.tolist() == [0, 1, 4, 9]
    with pytest.raises(ValueError):
        m[0] = 99
    assert buf._exports == 1
    with pytest.raises(cint.Busy) as e:
        ctx.square(np.arange(4, dtype=np.int64), y=buf)
    assert e.value.code == "E_ALIAS"
    del m
    gc.collect()
    assert buf._exports == 0
    ctx.square(np.arange(1, 5, dtype=np.int64), y=buf)
    assert buf.tolist() == [1, 4, 9, 16]


@pytest.mark.clause("8.3", "6.3", "P-18", "P-10")
def test_a_buffer_borrowed_back_through_dlpack(ctx):
    buf = cint.copy([1, 2, 3], elem="I64")
    v = cint.borrow(DLPackOnly(buf))
    assert repr(v) == "<cint.View I64[3] read-only, no publish via DLPack>"
    assert buf._exports == 1
    assert ctx.total(v) == 6
    assert buf._exports == 1                            # the entry's capsule ended with the entry
    with pytest.raises(cint.BorrowRefused, match="read-only"):
        cint.borrow(DLPackOnly(buf), writable=True)
    with pytest.raises(cint.Busy):
        ctx.bump(a=buf)
    v.release()
    assert buf._exports == 0
    ctx.bump(a=buf)
    assert buf.tolist() == [2, 3, 4]


@pytest.mark.clause("8.3", "P-14")
def test_deleter_from_another_thread():
    buf = cint.copy([1, 2], elem="I32")
    tensor, desc = _exports.consume(buf.__dlpack__(max_version=(1, 0)))
    assert buf._exports == 1
    t = threading.Thread(target=tensor.close)
    t.start()
    t.join()
    assert tensor.closed and buf._exports == 0
