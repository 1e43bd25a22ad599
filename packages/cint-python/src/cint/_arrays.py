"""Views (borrowed host memory, 8.2) and Buffers (owned storage, 6.2), in pure Python with ctypes.

A View holds a Py_buffer obtained with PyObject_GetBuffer(PyBUF_STRIDES | PyBUF_FORMAT
[| PyBUF_WRITABLE]) through ctypes.pythonapi, so it borrows exactly what the exporter reports and
copies nothing (P-9).  It is registered with a context at its first use there, from its lowest
reachable byte with the origin of its first element (A-8a), and released there by View.release().

Buffer storage (our choice for this slice): cint.empty() makes a Buffer that holds no memory until
its first use in a context, where it is created with cint_buffer_create (runtime storage, zero
filled, unpublished until a dispatch publishes it); cint.copy() makes a Buffer whose elements the
package owns in a ctypes array (already published), registered as host memory of that Buffer at its
first use.  A Buffer belongs to the context of its first use; using it in another context raises
NotImplementedError in this slice, until that context is closed or collected: the Buffer then keeps its
elements (P-17) and belongs to no context.
"""
from __future__ import annotations

import ctypes as C
import struct
import sys
import weakref

from cint_abi import structs as S
from cint_abi.codes import TYPE_TAGS

from ._errors import BorrowRefused, Refused, StaleHandle, Unpublished
from ._errors import Busy
from . import _dlpack, _exports
from ._values import Fixed, fixed_type, is_fixed_name

# element name -> (tag, size, signed, struct code)
ELEMS = {
    "Bool": (TYPE_TAGS["Bool"], 1, False, "?"),
    "I8": (TYPE_TAGS["I8"], 1, True, "b"), "I16": (TYPE_TAGS["I16"], 2, True, "h"),
    "I32": (TYPE_TAGS["I32"], 4, True, "i"), "I64": (TYPE_TAGS["I64"], 8, True, "q"),
    "U8": (TYPE_TAGS["U8"], 1, False, "B"), "U16": (TYPE_TAGS["U16"], 2, False, "H"),
    "U32": (TYPE_TAGS["U32"], 4, False, "I"), "U64": (TYPE_TAGS["U64"], 8, False, "Q"),
}
TAG_NAMES = {v[0]: k for k, v in ELEMS.items()}
_SIGNED_FMT = set("bhilqn")
_UNSIGNED_FMT = set("BHILQN")
_INT_BY = {(True, 1): "I8", (True, 2): "I16", (True, 4): "I32", (True, 8): "I64",
           (False, 1): "U8", (False, 2): "U16", (False, 4): "U32", (False, 8): "U64"}


def elem_name(t) -> str:
    """The element name of a cint_abi.typesig type (Bool, Int up to 64 bits, or a Q format)."""
    from cint_abi import typesig as T
    if isinstance(t, T.Bool):
        return "Bool"
    if isinstance(t, T.Int) and t.bits <= 64:
        return ("I%d" if t.signed else "U%d") % t.bits
    if isinstance(t, T.Fixed):        # a Q format: Buffers and Views of it hold cint.Fixed values (8.5)
        return "Q%d.%d" % (t.storage_bits - t.f, t.f)
    raise NotImplementedError("element type %r is not in this slice of cint" % (t,))


def check_elem(elem: str) -> str:
    if type(elem) is not str:
        raise Refused("an element type is a str such as 'I64' (one of %s, or a Q format), not a %s" % (
            ", ".join(ELEMS), type(elem).__name__))
    if elem in ELEMS:
        return elem
    if is_fixed_name(elem):   # a Q format: stored as its storage integer, read back as cint.Fixed (8.5)
        return elem
    if isinstance(elem, str) and elem.startswith("Q"):
        fixed_type(elem)      # refuses naming the rule of Q<i>.<f>
    raise Refused("unknown element type %r; the element types are %s" % (elem, ", ".join(ELEMS)))


def borrowed_elem(elem, mapped: str, what: str) -> str:
    """The element a borrow registers (8.2 P-4): the mapped element, or ``elem`` when it equals it or is
    a Q format whose storage integer is the mapped element ("Q32.32" over I64); anything else is refused."""
    if elem is None:
        return mapped
    check_elem(elem)
    if elem == mapped or (is_fixed_name(elem) and "I%d" % fixed_type(elem).bits == mapped):
        return elem
    raise BorrowRefused("elem=%r differs from %s's element %s; cint never converts, use cint.copy(obj, elem=%r)%s" % (
        elem, what, mapped, elem, "" if not is_fixed_name(elem) else
        " (a Q format borrows memory of its storage type, I%d)" % fixed_type(elem).bits))


def ctype_of(elem: str):
    if is_fixed_name(elem):
        ft = fixed_type(elem)
        return S.cint_type(code=TYPE_TAGS["Q"], storage=ELEMS["I%d" % ft.bits][0], frac=ft.f)
    return S.cint_type(code=ELEMS[elem][0])


def elem_info(elem: str):
    """(tag, size, signed, struct code) of an element; a Q format by its signed storage integer."""
    if elem in ELEMS:
        return ELEMS[elem]
    _, size, signed, code = ELEMS["I%d" % fixed_type(elem).bits]
    return TYPE_TAGS["Q"], size, signed, code


# --- the buffer protocol through ctypes.pythonapi ----------------------------------------------

class Py_buffer(C.Structure):
    _fields_ = [("buf", C.c_void_p), ("obj", C.c_void_p), ("len", C.c_ssize_t), ("itemsize", C.c_ssize_t),
                ("readonly", C.c_int), ("ndim", C.c_int), ("format", C.c_char_p),
                ("shape", C.POINTER(C.c_ssize_t)), ("strides", C.POINTER(C.c_ssize_t)),
                ("suboffsets", C.POINTER(C.c_ssize_t)), ("internal", C.c_void_p)]


PyBUF_WRITABLE, PyBUF_FORMAT, PyBUF_ND, PyBUF_STRIDES = 0x0001, 0x0004, 0x0008, 0x0018
_GetBuffer = C.pythonapi.PyObject_GetBuffer
_GetBuffer.argtypes = [C.py_object, C.POINTER(Py_buffer), C.c_int]
_GetBuffer.restype = C.c_int
_ReleaseBuffer = C.pythonapi.PyBuffer_Release
_ReleaseBuffer.argtypes = [C.POINTER(Py_buffer)]
_ReleaseBuffer.restype = None


def _has_buffer(obj) -> bool:
    """Whether obj offers the buffer protocol; an exporter that offers it and fails (NumPy's datetime64 arrays:
    ValueError) is refused here with BorrowRefused, a Refused."""
    try:
        memoryview(obj).release()
        return True
    except TypeError:
        return False
    except (ValueError, BufferError) as ex:
        raise BorrowRefused("the %s offers the buffer protocol and its export failed (%s: %s): cint takes integer "
                            "and Bool data only; convert it to an integer array first" % (
                                type(obj).__name__, type(ex).__name__, ex)) from None


def _alt(obj) -> str:
    return "cint.copy(obj, elem=...)"


def _map_format(fmt: str, itemsize: int):
    """P-3: the element of a buffer-protocol format, or a refusal text."""
    if fmt and fmt[0] in "@=<":
        fmt = fmt[1:]
    elif fmt and fmt[0] in ">!":
        return None, "a big-endian format %r; cint.copy converts the byte order exactly" % fmt
    if len(fmt) != 1:
        return None, "the format %r is a struct or repeated format, which cint does not take; use cint.copy" % fmt
    if fmt in _SIGNED_FMT or fmt in _UNSIGNED_FMT:
        key = (fmt in _SIGNED_FMT, itemsize)
        if key not in _INT_BY:
            return None, "an item size of %d for format %r" % (itemsize, fmt)
        return _INT_BY[key], None
    if fmt == "?":
        return ("Bool", None) if itemsize == 1 else (None, "a Bool item size of %d" % itemsize)
    if fmt == "c":
        return None, "the format 'c'; export it as 'B' (uint8)"
    if fmt in "efdgZ":
        return None, ("floating-point data (format %r); convert it explicitly with cint.from_float(obj, elem) "
                      "or cint.copy(obj, elem=..., from_float=True)" % fmt)
    return None, "the format %r, which cint does not take" % fmt


_LAYOUTS = ("any", "C", "F")


class View:
    """Borrowed host memory: owns none, holds the exporter's Py_buffer until release() (8.2)."""

    def __init__(self, obj, *, elem=None, writable=False, publish=None, layout="any", _for=None):
        if publish not in (None, "copy"):
            raise BorrowRefused("publish is None or 'copy', not %r" % (publish,))
        if publish == "copy" and not writable:
            raise BorrowRefused("publish='copy' is for an output, which needs writable=True")
        if layout not in _LAYOUTS:
            raise BorrowRefused("layout is 'any', 'C' or 'F', not %r" % (layout,))
        dl = getattr(obj, "__dlpack_device__", None)
        if not _has_buffer(obj):
            if dl is not None or hasattr(obj, "__dlpack__"):
                # 8.3: borrowed through DLPack (cint._dlpack holds the capsule and calls its deleter)
                self._released = True       # until borrow_into succeeds: release() has nothing to end
                _dlpack.borrow_into(self, obj, elem=elem, writable=writable, publish=publish, layout=layout,
                                    check_elem=check_elem)
                self.writable = bool(writable)
                self.publish = publish
                self._regs = {}
                self._released = False
                return
            raise BorrowRefused("a %s has neither the buffer protocol nor __dlpack__; use cint.copy(seq, elem=...)"
                                % type(obj).__name__)
        if dl is not None:
            try:
                dev = dl()
            except Exception:
                dev = None
            if not (isinstance(dev, tuple) and dev and int(dev[0]) == 1):
                raise BorrowRefused("__dlpack_device__ reports %r, not kDLCPU; device memory is not in this slice"
                                    % (dev,))
        self._pb = Py_buffer()
        self._held = False
        flags = PyBUF_STRIDES | PyBUF_FORMAT | (PyBUF_WRITABLE if writable else 0)
        try:
            _GetBuffer(obj, C.byref(self._pb), flags)
        except (BufferError, ValueError, TypeError) as ex:
            if writable:
                raise BorrowRefused("writable=True over a read-only export (%s); borrow it with writable=False, "
                                    "or use cint.copy for a writable Buffer" % ex) from None
            raise BorrowRefused("the exporter refused a strided buffer (%s); use cint.copy" % ex) from None
        self._held = True
        self._obj = obj
        try:
            self._check(elem, writable, layout)
        except BaseException:
            self._drop()
            raise
        self.writable = bool(writable)
        self.publish = publish
        self._regs = {}      # id(context) -> (weakref(context), buffer id, generation, restore epoch of context)
        self._released = False

    def _check(self, elem, writable, layout):
        pb = self._pb
        if pb.suboffsets:
            raise BorrowRefused("an indirect buffer (suboffsets); use cint.copy")
        fmt = pb.format.decode("ascii") if pb.format else "B"
        mapped, why = _map_format(fmt, pb.itemsize)
        if mapped is None:
            raise BorrowRefused("cannot borrow without a copy: " + why)
        self.elem = borrowed_elem(elem, mapped, "the exporter")
        nd = pb.ndim
        if nd == 0:
            raise BorrowRefused("rank 0: a scalar is passed as a Python int")
        if nd > 4:
            raise BorrowRefused("rank %d is above 4; reshape to rank 4 or less, or use cint.copy of a reshaped array"
                                % nd)
        size = pb.itemsize
        shape = [pb.shape[k] for k in range(nd)]
        bstrides = [pb.strides[k] for k in range(nd)] if pb.strides else None
        if bstrides is None:
            bstrides, acc = [0] * nd, size
            for k in reversed(range(nd)):
                bstrides[k] = acc
                acc *= shape[k]
        for k, s in enumerate(bstrides):
            if s % size:
                raise BorrowRefused("a byte stride of %d in dimension %d is not a multiple of the item size %d; "
                                    "use cint.copy" % (s, k, size))
        base = pb.buf or 0
        if base % size:
            raise BorrowRefused("the data address is not aligned for %s (%d bytes); use cint.copy" % (mapped, size))
        self.shape = tuple(shape)
        self.strides = tuple(s // size for s in bstrides)
        empty = 0 in shape
        if layout != "any" and not empty:
            order = range(nd - 1, -1, -1) if layout == "C" else range(nd)
            acc = 1
            for k in order:
                if shape[k] != 1 and self.strides[k] != acc:
                    raise BorrowRefused("layout=%r over an array that is not %s-contiguous; use layout='any' or "
                                        "cint.copy" % (layout, layout))
                acc *= shape[k]
        if empty:
            self._lowest, self.origin, self.extent = base, 0, 0
        else:
            low = sum((n - 1) * s for n, s in zip(shape, self.strides) if s < 0)
            high = sum((n - 1) * s for n, s in zip(shape, self.strides) if s > 0)
            self.origin = -low
            self.extent = high - low + 1
            self._lowest = base + low * size
            if self._lowest < 0 or self._lowest + self.extent * size > _dlpack.ADDRESS_LIMIT + 1:
                raise BorrowRefused("the exporter's buffer reaches outside the address space (0 to 2**63 - 1): "
                                    "shape %r, byte strides %r from 0x%x" % (tuple(shape), tuple(bstrides), base))

    def _drop(self):
        if self._held:
            self._held = False
            _ReleaseBuffer(C.byref(self._pb))
            self._obj = None
        if getattr(self, "_dl", None) is not None:
            _dlpack.drop(self)          # the deleters of the entry's and the first capsule (P-14)
            self._obj = None

    def _entry_end(self):
        """Called when an entry that used this View ends: the capsule of that entry is deleted (8.3 P-14)."""
        if getattr(self, "_entry_dl", None) is not None:
            _dlpack.entry_end(self)

    # -- registration ----------------------------------------------------------------------
    def _precheck(self, ctx, perm=0):
        """The checks of a refused call that the runtime would make after this View is registered, made before
        any registration of the call (7.1 paragraph 3, P-20): released, a DLPack tensor that changed (P-10),
        a Bool byte other than 0 or 1 (P-3)."""
        if self._released:
            raise StaleHandle("this View was released; borrow the array again")
        if getattr(self, "_dl", None) is not None:
            _dlpack.reexchange(self)
        if self.elem == "Bool":
            _check_bool_bytes(self._lowest, self.extent, self.origin, self.shape, self.strides)

    def _cview(self, ctx, perm):
        if self._released:
            raise StaleHandle("this View was released; borrow the array again")
        if getattr(self, "_dl", None) is not None:
            _dlpack.reexchange(self)    # 8.3 P-10: exchanged again at each entry; a changed tensor is refused
        reg = self._registration(ctx)
        if reg is None:
            bid, gen = ctx._register(ctype_of(self.elem), self._lowest, self.extent, self.writable,
                                     1 if self.publish == "copy" else 0)
            self._regs[id(ctx)] = (weakref.ref(ctx), bid, gen, getattr(ctx, "_epoch", 0))
            reg = (bid, gen)
        v = S.cint_view(buffer=reg[0], generation=reg[1], type=ctype_of(self.elem), rank=len(self.shape), perm=perm,
                        origin=self.origin)
        for k, (n, s) in enumerate(zip(self.shape, self.strides)):
            v.shape[k], v.stride[k] = n, s
        return v

    def _fast(self, ctx):
        """What the C call path (cint._fastcall) passes for this View in ctx: (buffer id, generation,
        type code, shape, strides, origin) of its registration there, or None when it has none yet, was
        released or borrows through DLPack; None sends the call down the Python path (_cview)."""
        reg = self._registration(ctx)
        if reg is None or self._released or getattr(self, "_dl", None) is not None:
            return None
        e = ELEMS.get(self.elem)
        return None if e is None else (reg[0], reg[1], e[0], self.shape, self.strides, self.origin)

    def _registration(self, ctx):
        """(buffer id, generation) of this View's live registration in ctx, or None: not registered there yet,
        or registered before a restore of ctx, which ended every registration (M-11a); the next use then
        registers it again under a new identifier (P-20). Every path that names the View's registration
        (_cview, _fast) asks here."""
        reg = self._regs.get(id(ctx))
        if reg is None or reg[0]() is not ctx or reg[3] != getattr(ctx, "_epoch", 0):
            return None
        return reg[1], reg[2]

    def release(self):
        """Ends every registration of this View and releases the exporter's buffer."""
        if self._released:
            return
        self._released = True
        for ref, bid, _, epoch in list(self._regs.values()):
            ctx = ref()
            if ctx is not None and epoch == getattr(ctx, "_epoch", 0):
                ctx._unregister(bid)
        self._regs.clear()
        self._drop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def __del__(self):
        try:
            self.release()
        except Exception:
            pass

    def __repr__(self):
        return "<cint.View %s[%s] %s, %s via %s>" % (
            self.elem, ", ".join(str(n) for n in self.shape), "writable" if self.writable else "read-only",
            "publish copy" if self.publish == "copy" else "no publish", getattr(self, "_via", "buffer protocol"))


def borrow(obj, *, elem=None, writable=False, publish=None, layout="any", context=None) -> View:
    """Lends the memory of obj as it is, without a copy (8.2); refuses with BorrowRefused what it cannot take."""
    if context is not None:
        raise NotImplementedError("cint.borrow(context=...) (device placement) is not in this slice")
    if isinstance(obj, (list, tuple, range)):
        raise BorrowRefused("a %s is not memory to borrow; use cint.copy(seq, elem=...)" % type(obj).__name__)
    if isinstance(obj, str):
        raise BorrowRefused("a str is not bytes; borrow s.encode('utf-8')")
    return View(obj, elem=elem, writable=writable, publish=publish, layout=layout)


def _check_bool_bytes(lowest, extent, origin, shape, strides):
    """Refused (reason CINT_REFUSAL_BOOL, code E_NARROW) when an element of the Bool view (origin, shape, strides
    over extent bytes from lowest) is a byte other than 0 or 1 (P-3, 7.1 paragraph 3); only the bytes the view
    reaches are read."""
    if not extent or 0 in shape:
        return
    raw = C.string_at(lowest, extent)
    count = 1
    for n in shape:
        count *= n
    if count == extent:                 # every byte of the span is an element
        bad = max(raw) > 1
    else:
        import itertools
        *outer, n = shape
        *ost, s = strides
        bad = False
        for idx in itertools.product(*(range(m) for m in outer)):
            start = origin + sum(i * t for i, t in zip(idx, ost))
            if s == 0:
                row = raw[start:start + 1]
            else:
                end = start + (n - 1) * s + (1 if s > 0 else -1)
                row = raw[start:(end if end >= 0 else None):s]
            if max(row) > 1:
                bad = True
                break
    if bad:
        raise Refused("a Bool element holds a byte other than 0 or 1 (8.2 P-3); nothing was registered or run",
                      code="E_NARROW", reason="CINT_REFUSAL_BOOL")


# --- Buffers ----------------------------------------------------------------------------------

_I64_MAX = (1 << 63) - 1


def _shape_of(shape, elem=None):
    """A Buffer's shape: 1 to 4 extents, each an exact int >= 0, whose product (and its byte size, for elem) fits an
    I64, checked here before any of it reaches C (docs/python.md)."""
    if type(shape) is int:
        shape = (shape,)
    elif isinstance(shape, (tuple, list)):
        shape = tuple(shape)
    else:
        try:
            shape = tuple(shape)
        except TypeError:
            raise Refused("a Buffer's shape is an int or a tuple of 1 to 4 ints, not %s" % type(shape).__name__) \
                from None
    if not 1 <= len(shape) <= 4:
        raise Refused("a Buffer's shape is 1 to 4 extents, each an int >= 0, not %d extents" % len(shape))
    for k, n in enumerate(shape):
        if type(n) is not int or n < 0:
            raise Refused("a Buffer's shape is 1 to 4 extents, each an int >= 0; extent %d is %s" % (
                k, n if type(n) is int else "a %s" % type(n).__name__))
    count = 1
    for n in shape:
        count *= n
    size = elem_info(elem)[1] if elem is not None else 1
    if count * size > _I64_MAX:
        raise Refused("a Buffer of shape %r holds %d elements (%d bytes), beyond the I64 range of an extent "
                      "(2**63 - 1 bytes)" % (shape, count, count * size), code="E_NARROW")
    return shape


class Buffer(_exports.ExportBase):
    """Storage the package or the runtime owns (6.2). See the module docstring for where it lives.

    Its C base (cint._exports.ExportBase) gives it read-only exports through the buffer protocol and
    DLPack, counted in ``_exports`` while they live (6.3 P-18): runtime storage through a lease held
    for the export's life, the package's own storage directly (_export_open and _export_close)."""

    def __init__(self, shape, elem, data=None):
        self.elem = check_elem(elem)
        self.shape = _shape_of(shape, self.elem)
        n = 1
        for d in self.shape:
            n *= d
        self.count = n
        self._data = data          # a ctypes array the package owns (cint.copy), or None (cint.empty)
        self._published = data is not None
        self._ctx = None           # weakref of the context of first use
        self._bid = self._gen = None
        self._epoch = 0            # the restore epoch of the context when _bid was registered (P-20)
        self._released = False
        # self._exports: the count of live exports, kept by the C base (read-only)
        self.writable = True
        self.publish = "copy" if data is not None else None

    def _bind(self, ctx):
        if self._released:
            raise StaleHandle("this Buffer was released")
        if self._ctx is not None:
            if self._ctx() is not ctx:
                raise NotImplementedError("a Buffer used in a second context: in this slice a Buffer belongs to the "
                                          "context of its first use")
            if self._registration(ctx) is not None:
                return
        t = ctype_of(self.elem)
        if self._data is None:
            self._bid, self._gen = ctx._create(t, self.count)
        else:
            self._bid, self._gen = ctx._register(t, C.addressof(self._data), self.count, True, 1)
        self._epoch = getattr(ctx, "_epoch", 0)
        self._ctx = weakref.ref(ctx, self._context_gone)
        self._life = getattr(ctx, "_life", None)
        bufs = getattr(ctx, "_buffers", None)
        if bufs is not None:
            bufs.add(self)

    def _registration(self, ctx):
        """(buffer id, generation) of this Buffer's live registration in ctx, or None: not bound there yet,
        released, or registered before a restore of ctx ended it (M-11a); _bind then registers it again
        under a new identifier (P-20). Every path that names the Buffer's registration asks here."""
        if self._released or self._ctx is None or self._ctx() is not ctx or self._bid is None \
                or self._epoch != getattr(ctx, "_epoch", 0):
            return None
        return self._bid, self._gen

    def _context_gone(self, ref):
        """The context of this Buffer was collected without close() (the callback of its weak reference, which
        runs before the context's finalizer destroys it): the Buffer keeps its elements (P-17)."""
        if ref is not self._ctx:
            return
        life = self.__dict__.get("_life")
        try:
            if life and life[0] and self._data is None and self._published and not self._released \
                    and self._bid is not None:
                v = S.cint_view(buffer=self._bid, generation=self._gen, type=ctype_of(self.elem), rank=1, perm=0,
                                origin=0)
                v.shape[0], v.stride[0] = self.count, 1
                n = self.count * elem_info(self.elem)[1]
                raw = C.create_string_buffer(max(n, 1))
                if life[1].cint_buffer_read(C.c_void_p(life[0]), v, raw, n) == 0:
                    self._adopt(raw.raw[:n])
        finally:
            self._unbind()

    def _unbind(self):
        """Its context was closed: the registration ended with it (P-17), and the Buffer belongs to no context
        until its next use. An unpublished Buffer of runtime storage has no storage yet again."""
        self._ctx = None
        self._life = None
        self._bid = self._gen = None
        self._epoch = 0
        self.__dict__.pop("_fastrow", None)

    def _adopt(self, raw):
        """A restore freed the runtime storage of this Buffer (M-11a): it keeps its elements, raw, in storage
        of its own, registered as package memory (publish copy) at its next use."""
        ct = {1: C.c_uint8, 2: C.c_uint16, 4: C.c_uint32, 8: C.c_uint64}[elem_info(self.elem)[1]]
        self._data = (ct * self.count).from_buffer_copy(raw)       # aligned for its elements
        self.publish = "copy"
        self.__dict__.pop("_fastrow", None)

    def _precheck(self, ctx, perm=0):
        """As View._precheck: released, a live export of an output (P-18), and the Bool bytes of the package's
        own storage (P-3)."""
        if self._released:
            raise StaleHandle("this Buffer was released")
        if self._ctx is not None and self._ctx() is not ctx:
            raise NotImplementedError("a Buffer used in a second context: in this slice a Buffer belongs to the "
                                      "context of its first use")
        if perm and self._exports:
            raise Busy("a Buffer with %d live export%s (a memoryview, a NumPy array or a DLPack capsule of it) "
                       "cannot be an output; end the export first (6.3 P-18)"
                       % (self._exports, "" if self._exports == 1 else "s"), code="E_ALIAS")
        if self.elem == "Bool" and self._data is not None and self.count:
            _check_bool_bytes(C.addressof(self._data), self.count, 0, (self.count,), (1,))

    def _cview(self, ctx, perm):
        if perm and self._exports:
            raise Busy("a Buffer with %d live export%s (a memoryview, a NumPy array or a DLPack capsule of it) "
                       "cannot be an output; end the export first (6.3 P-18)"
                       % (self._exports, "" if self._exports == 1 else "s"), code="E_ALIAS")
        self._bind(ctx)
        v = S.cint_view(buffer=self._bid, generation=self._gen, type=ctype_of(self.elem), rank=len(self.shape),
                        perm=perm, origin=0)
        acc = 1
        for k in reversed(range(len(self.shape))):
            v.shape[k], v.stride[k] = self.shape[k], acc
            acc *= self.shape[k]
        return v

    def _fast(self, ctx):
        """As View._fast: (buffer id, generation, type code, shape, strides, origin) of this Buffer in ctx,
        or None (not bound there yet, released, or with a live export) for the Python path."""
        if self._exports or self._registration(ctx) is None:
            return None
        f = self.__dict__.get("_fastrow")
        if f is None or f[0] != self._bid or f[1] != self._gen:
            e = ELEMS.get(self.elem)
            if e is None:
                return None
            acc, strides = 1, []
            for n in reversed(self.shape):
                strides.append(acc)
                acc *= n
            f = self._fastrow = (self._bid, self._gen, e[0], self.shape, tuple(reversed(strides)), 0)
        return f

    def _raw(self) -> bytes:
        if self._released:
            raise StaleHandle("this Buffer was released")
        if not self._published:
            raise Unpublished("this Buffer has never been published: no dispatch has written it")
        if self._data is not None:
            return bytes(self._data)
        ctx = self._ctx() if self._ctx is not None else None
        if ctx is None:
            raise StaleHandle("the context of this Buffer is gone")
        return ctx._read(self._cview(ctx, 0), self.count * elem_info(self.elem)[1])

    def tolist(self):
        raw = self._raw()
        code = elem_info(self.elem)[3]
        flat = list(struct.unpack("<%d%s" % (self.count, code), raw)) if self.count else []
        if self.elem not in ELEMS:
            ft = fixed_type(self.elem)
            flat = [Fixed._of(ft, v) for v in flat]
        return _nest(flat, self.shape)

    def release(self):
        if self._released:
            return
        if self._exports:
            raise Busy("the Buffer has %d live export%s; end %s before releasing it"
                       % (self._exports, "" if self._exports == 1 else "s",
                          "it" if self._exports == 1 else "them"), code="E_ALIAS")
        ctx = self._ctx() if self._ctx is not None else None
        if ctx is not None and self._registration(ctx) is not None:
            ctx._unregister(self._bid)
        self._released = True
        self._data = None

    def __array__(self, dtype=None, copy=None):
        """A read-only export of the Buffer's storage through a lease (6.3): no copy.

        The lease lasts as long as the returned array (and any array made from it) is alive: the
        array's base is a lease holder whose finalizer ends the lease, so a Buffer bound to an output
        while an export lives answers Busy (code E_ALIAS)."""
        import numpy as np
        if self.elem not in _DTYPES:
            raise Refused("a %s Buffer has no NumPy dtype: cint.to_float(buffer) gives its values as floats, and "
                          "[q.raw for q in buffer.tolist()] its raw storage" % self.elem)
        if copy:
            return np.array(self.tolist(), dtype=_DTYPES[self.elem] if dtype is None else dtype)
        # a counted read-only export (6.3 P-18) that lives as long as the array (its base)
        arr = np.asarray(memoryview(self))
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            raise Refused("cint never converts: the Buffer holds %s; use cint.to_float for a float array" % self.elem)
        return arr

    # -- exports (6.3 P-18), called by the C base cint._exports.ExportBase ------------------------
    def _export_open(self):
        """(address, token, format, itemsize, shape) of a new read-only export. Runtime storage is leased
        (cint_buffer_lease) until _export_close(token); the package's own storage is kept alive by the
        token. StaleHandle after release, Unpublished before the first publication (6.2-6.4)."""
        if self._released:
            raise StaleHandle("this Buffer was released")
        if not self._published:
            raise Unpublished("this Buffer has never been published: no dispatch has written it")
        if self.elem not in ELEMS:
            raise BufferError("a %s Buffer has no export: its elements are fixed-point values, not the integers "
                              "of its storage; cint.to_float(buffer) gives their values" % self.elem)
        _, size, _, code = ELEMS[self.elem]
        if self._data is not None:
            return C.addressof(self._data), self._data, code, size, self.shape
        ctx = self._ctx() if self._ctx is not None else None
        if ctx is None or not ctx._h:
            raise StaleHandle("the context of this Buffer is gone")
        self._bind(ctx)                 # registered again after a restore of ctx (P-20)
        ptr, lease = ctx._lease(self._bid)
        ctx.__dict__["_live_exports"] = ctx.__dict__.get("_live_exports", 0) + 1
        return ptr or 0, (ctx, lease), code, size, self.shape

    def _export_close(self, token):
        """Ends the export that _export_open gave token for: ends the lease of runtime storage."""
        if type(token) is tuple:
            ctx, lease = token
            ctx.__dict__["_live_exports"] = ctx.__dict__.get("_live_exports", 1) - 1
            ctx._lease_end(lease)

    def __repr__(self):
        return "<cint.Buffer %s[%s]%s>" % (self.elem, ", ".join(str(n) for n in self.shape),
                                           "" if self._published else " unpublished")


_DTYPES = {"Bool": "|b1", "I8": "|i1", "I16": "<i2", "I32": "<i4", "I64": "<i8", "U8": "|u1", "U16": "<u2",
           "U32": "<u4", "U64": "<u8"}


def _nest(flat, shape):
    if len(shape) == 1:
        return flat
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[k * step:(k + 1) * step], shape[1:]) for k in range(shape[0])]


def empty(shape, elem, *, device=None) -> Buffer:
    """A Buffer of runtime storage, created at its first use in a context, unpublished until written."""
    if device is not None:
        raise NotImplementedError("device Buffers (gpu-cuda) are not in this slice")
    return Buffer(shape, elem)


def _int_range(elem):
    tag, size, signed, _ = ELEMS[elem]
    if elem == "Bool":
        return 0, 1
    bits = size * 8
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def copy(obj, *, elem=None, device=None, from_float=None) -> Buffer:
    """A Buffer holding an exact copy of nested int sequences or of an integer buffer-protocol array."""
    if device is not None:
        raise NotImplementedError("device Buffers (gpu-cuda) are not in this slice")
    if from_float is not None and from_float is not False:
        # floats enter only through an explicit conversion to elem (see cint._values.copy_options)
        from ._values import copy_options, from_float as _from_float
        rounding, overflow = copy_options(from_float)
        if elem is None:
            raise Refused("cint.copy(obj, from_float=...) needs elem=... (the target type)")
        out = _from_float(obj, elem, rounding=rounding, overflow=overflow)
        if not isinstance(out, Buffer):
            raise Refused("cint.copy makes a Buffer: pass a sequence or an array, or cint.from_float(x, %r) for one "
                          "value" % (elem,))
        return out
    if isinstance(obj, (list, tuple, range)):
        if elem is None:
            raise Refused("cint.copy of a sequence needs elem=... (the element type)")
        check_elem(elem)
        shape, flat = _flatten(obj)
    elif isinstance(obj, (Buffer,)):
        shape, flat = obj.shape, _flat(obj.tolist(), len(obj.shape))
        if elem is not None and elem != obj.elem:
            raise Refused("cint.copy never converts: the Buffer holds %s, not %s" % (obj.elem, elem))
        elem = obj.elem
    elif _has_buffer(obj):
        mv = memoryview(obj)
        try:
            fmt = mv.format
            big = fmt[:1] in (">", "!")
            mapped, why = _map_format(("<" + fmt[1:]) if big else fmt, mv.itemsize)
            if mapped is None:
                raise Refused("cint.copy cannot take %s" % why)
            if elem is not None and elem != mapped:
                raise Refused("cint.copy never converts: the array holds %s, not %s" % (mapped, elem))
            elem = mapped
            shape = tuple(mv.shape)
            if not 1 <= len(shape) <= 4:
                raise Refused("rank %d: a Buffer has rank 1 to 4" % len(shape))
            code = ELEMS[elem][3] if elem != "Bool" else "B"      # Bool bytes as bytes: 2 is not True (P-3)
            # tobytes gives the elements in row-major order whatever the strides; unpack in the export's order
            raw = mv.tobytes()
            flat = list(struct.unpack(("<" if not big else ">") + "%d%s" % (len(raw) // mv.itemsize, code), raw))
            if elem == "Bool":
                for k, v in enumerate(flat):
                    if v > 1:
                        raise Refused("element %d of the Bool array is the byte %d; a Bool byte is 0 or 1 (8.2 P-3)"
                                      % (k, v), code="E_NARROW", reason="CINT_REFUSAL_BOOL")
                flat = [v == 1 for v in flat]
        finally:
            mv.release()
    else:
        raise Refused("cint.copy takes nested sequences of int or an object with the buffer protocol, not %s"
                      % type(obj).__name__)
    if elem not in ELEMS:   # a Q format: cint.Fixed values of exactly that format, stored as their raw
        for k, v in enumerate(flat):
            if not isinstance(v, Fixed) or v.format != elem:
                raise Refused("element %d is %r, not a cint.Fixed of format %s (a bare int could mean the raw "
                              "storage or the value)" % (k, v, elem))
        flat = [v.raw for v in flat]
    store = elem if elem in ELEMS else "I%d" % fixed_type(elem).bits
    lo, hi = _int_range(store)
    for k, v in enumerate(flat):
        if elem == "Bool":
            if type(v) is not bool:
                raise Refused("element %d is %r, not a bool, for Bool" % (k, v), code="E_UNSUPPORTED")
            continue
        if type(v) is bool or not isinstance(v, int):
            raise Refused("element %d is %r, not an int, for %s" % (k, v, elem))
        if type(v) is not int:
            flat[k] = v = int.__index__(v)      # an int subclass: its value, read once
        if not lo <= v <= hi:
            raise Refused("element %d is %d, outside %s (%d..%d)" % (k, v, elem, lo, hi), code="E_NARROW")
    shape = _shape_of(shape)
    n = len(flat)
    ct = {"Bool": C.c_uint8, "I8": C.c_int8, "I16": C.c_int16, "I32": C.c_int32, "I64": C.c_int64,
          "U8": C.c_uint8, "U16": C.c_uint16, "U32": C.c_uint32, "U64": C.c_uint64}[store]
    data = (ct * max(n, 1))()
    for k, v in enumerate(flat):
        data[k] = int(v)
    return Buffer(shape, elem, data=data)


def _flatten(seq):
    shape = []
    level = seq
    while isinstance(level, (list, tuple, range)):
        shape.append(len(level))
        if len(shape) > 4:
            raise Refused("a sequence nested more than 4 deep: a Buffer has rank 1 to 4")
        if not len(level):
            break
        level = level[0]
    flat = []

    def walk(x, d):
        if d == len(shape):
            if isinstance(x, (list, tuple, range)):
                raise Refused("a ragged sequence: deeper than its first element")
            flat.append(x)
            return
        if not isinstance(x, (list, tuple, range)) or len(x) != shape[d]:
            raise Refused("a ragged sequence: dimension %d is not %d long everywhere" % (d, shape[d]))
        for y in x:
            walk(y, d + 1)
    walk(seq, 0)
    return tuple(shape), flat


def _flat(nested, rank):
    if rank == 1:
        return list(nested)
    return [v for sub in nested for v in _flat(sub, rank - 1)]


__all__ = ["View", "Buffer", "borrow", "empty", "copy", "ELEMS"]
assert sys.byteorder == "little"
