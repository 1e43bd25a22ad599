"""Borrowing through DLPack (SPEC-03P.1 8.3, P-10..P-14) for cint.View.

A View of an object that offers ``__dlpack__`` and no buffer protocol holds the first capsule it
exchanged (consumed by cint._exports.consume, which renames it ``used_dltensor_versioned``) and a
reference to the producer until View.release() or garbage collection, which call the capsule's
deleter exactly once (P-14).  At each entry that uses the View the package exchanges again, with
the same arguments, and refuses the call when the data pointer, shape, strides, data type or device
of the new tensor differ from the first exchange (P-10); that capsule is held until the entry ends.
A capsule refused for any reason has its deleter called at once.

What is taken: a versioned capsule (``max_version=(1, 0)``, ``copy=False``, ``dl_device=None``,
``stream=None`` for CPU memory) not marked DLPACK_FLAG_BITMASK_IS_COPIED; an unversioned capsule
(a producer whose ``__dlpack__`` raises TypeError for ``max_version``, called then with ``stream``
alone) only for a read-only borrow (P-10a); device kDLCPU only (P-11: device memory is not in this
slice); kDLInt/kDLUInt of 8..64 bits and kDLBool of 8 bits, one lane (P-12); strides in elements,
NULL meaning compact row-major, negative strides registered from the lowest address (A-8a), a
byte_offset that is a multiple of the element size, an aligned first element (P-5, P-13); a
read-only tensor gives a read view and refuses writable=True (P-13).
"""
from __future__ import annotations

from . import _exports as X
from ._errors import BorrowRefused

KDLCPU = 1
ADDRESS_LIMIT = (1 << 63) - 1       # the highest address a borrowed tensor may reach (docs/python.md)
_DEVICE_NAMES = {1: "kDLCPU", 2: "kDLCUDA", 3: "kDLCUDAHost", 4: "kDLOpenCL", 7: "kDLVulkan", 8: "kDLMetal",
                 9: "kDLVPI", 10: "kDLROCM", 11: "kDLROCMHost", 12: "kDLExtDev", 13: "kDLCUDAManaged",
                 14: "kDLOneAPI", 15: "kDLWebGPU", 16: "kDLHexagon", 17: "kDLMAIA", 18: "kDLTrn"}
_INTS = {(0, 8): "I8", (0, 16): "I16", (0, 32): "I32", (0, 64): "I64",
         (1, 8): "U8", (1, 16): "U16", (1, 32): "U32", (1, 64): "U64"}
_FLOATS = {2: "kDLFloat", 4: "kDLBfloat"}


def _device_name(dev) -> str:
    return "(%s, %d)" % (_DEVICE_NAMES.get(dev[0], "device type %d" % dev[0]), dev[1])


def check_device(obj):
    """P-1, P-11: an object whose __dlpack_device__ reports another device than kDLCPU is refused
    before any exchange."""
    f = getattr(obj, "__dlpack_device__", None)
    if f is None:
        return
    try:
        dev = f()
        dev = (int(dev[0]), int(dev[1]))
    except Exception as ex:
        raise BorrowRefused("__dlpack_device__ of the %s failed (%s: %s)" % (type(obj).__name__, type(ex).__name__,
                                                                           ex)) from None
    if dev[0] != KDLCPU:
        raise BorrowRefused("__dlpack_device__ reports %s, not kDLCPU: device memory is not in this slice of cint "
                            "and there is no implicit transfer (8.3 P-11); copy it to host memory first"
                            % _device_name(dev))


def _exchange(obj, legacy: bool):
    """One DLPack exchange: (Tensor, description, legacy). legacy says whether the first exchange fell
    back to the unversioned call (P-10a); False tries the versioned call first."""
    f = getattr(obj, "__dlpack__", None)
    if f is None:
        raise BorrowRefused("a %s has neither the buffer protocol nor __dlpack__; use cint.copy(obj, elem=...)"
                            % type(obj).__name__)
    cap = None
    if not legacy:
        try:
            cap = f(stream=None, max_version=(1, 0), dl_device=None, copy=False)
        except TypeError:
            legacy = True           # an older producer: __dlpack__(stream=None) alone (P-10a)
        except Exception as ex:
            raise BorrowRefused("__dlpack__(max_version=(1, 0), copy=False) of the %s failed (%s: %s): the producer "
                                "cannot lend its memory without a copy; use cint.copy" % (
                                    type(obj).__name__, type(ex).__name__, ex)) from None
    if legacy:
        try:
            cap = f(stream=None)
        except Exception as ex:
            raise BorrowRefused("__dlpack__(stream=None) of the %s failed (%s: %s); use cint.copy" % (
                type(obj).__name__, type(ex).__name__, ex)) from None
    try:
        tensor, desc = X.consume(cap)
    except (ValueError, TypeError) as ex:
        raise BorrowRefused("the DLPack exchange with the %s gave no usable capsule: %s" % (
            type(obj).__name__, ex)) from None
    finally:
        del cap
    return tensor, desc, legacy


def _strides_of(desc):
    """Strides in elements; NULL strides mean compact row-major (P-13)."""
    shape = desc["shape"]
    if desc["strides"] is not None:
        return tuple(desc["strides"])
    out, acc = [0] * len(shape), 1
    for k in reversed(range(len(shape))):
        out[k] = acc
        acc *= shape[k]
    return tuple(out)


def _signature(desc):
    """What shall not change between exchanges (P-10)."""
    return (desc["data"] + desc["byte_offset"], tuple(desc["shape"]), _strides_of(desc), desc["dtype"], desc["device"])


def _describe(desc, legacy, elem, writable, layout, check_elem):
    """The View's geometry from a tensor description, or BorrowRefused naming the condition."""
    if desc["versioned"] is False and not legacy:
        legacy = True               # a producer that answered max_version=(1, 0) with a legacy capsule
    if tuple(desc["device"])[0] != KDLCPU:
        raise BorrowRefused("the DLPack tensor is on %s, not kDLCPU: device memory is not in this slice and there "
                            "is no implicit transfer (8.3 P-11)" % _device_name(desc["device"]))
    flags = desc["flags"]
    if flags is not None and flags & X.IS_COPIED:
        raise BorrowRefused("the producer made a copy (DLPACK_FLAG_BITMASK_IS_COPIED): cint.borrow never copies "
                            "(8.3 P-10); use cint.copy for a Buffer of its contents")
    if legacy and writable:
        raise BorrowRefused("an unversioned DLPack capsule cannot say whether its memory is read-only or lent "
                            "without a copy, so it is taken only for a read-only borrow (8.3 P-10a); borrow it with "
                            "writable=False, or use cint.copy")
    readonly = flags is None or bool(flags & X.READ_ONLY)
    if writable and readonly:
        raise BorrowRefused("writable=True over a read-only DLPack tensor (DLPACK_FLAG_BITMASK_READ_ONLY); borrow it "
                            "with writable=False, or use cint.copy for a writable Buffer (8.3 P-13)")
    code, bits, lanes = desc["dtype"]
    if lanes != 1:
        raise BorrowRefused("a DLPack data type with %d lanes: only one lane maps to a cint element (8.3 P-12); "
                            "use cint.copy" % lanes)
    if code == 6:
        if bits != 8:
            raise BorrowRefused("a kDLBool of %d bits: Bool is 8 bits (8.3 P-12)" % bits)
        mapped = "Bool"
    elif (code, bits) in _INTS:
        mapped = _INTS[(code, bits)]
    elif code in (0, 1):
        raise BorrowRefused("a %s of %d bits: integers of 8, 16, 32 or 64 bits map to cint elements (8.3 P-12); "
                            "use cint.copy" % ("kDLInt" if code == 0 else "kDLUInt", bits))
    elif code in _FLOATS or 7 <= code <= 17:
        raise BorrowRefused("floating-point data (%s, %d bits): convert it explicitly with "
                            "cint.from_float(obj, elem) (8.5); cint.borrow never converts" % (
                                _FLOATS.get(code, "DLPack type code %d" % code), bits))
    elif code == 5:
        raise BorrowRefused("complex data (kDLComplex) has no cint element (8.3 P-12)")
    else:
        raise BorrowRefused("the DLPack type code %d has no cint element (8.3 P-12)" % code)
    from ._arrays import borrowed_elem
    mapped = borrowed_elem(elem, mapped, "the DLPack tensor")
    shape = tuple(desc["shape"])
    nd = len(shape)
    if nd == 0:
        raise BorrowRefused("rank 0: a scalar is passed as a Python int (8.2 P-6)")
    if nd > 4:
        raise BorrowRefused("rank %d is above 4; reshape to rank 4 or less, or use cint.copy of a reshaped array"
                            % nd)
    if any(n < 0 for n in shape):
        raise BorrowRefused("the DLPack tensor reports a negative extent in shape %r" % (shape,))
    size = bits // 8
    strides = _strides_of(desc)
    # every size, offset and stride in exact integers, and the tensor's bytes inside the address space, which
    # for cint is addresses 0 to 2**63 - 1 (P-13, A-8; docs/python.md): a pointer of the upper half is no host
    # memory on a supported machine, and each byte offset of a view fits an I64
    if desc["byte_offset"] > ADDRESS_LIMIT or desc["data"] + desc["byte_offset"] > ADDRESS_LIMIT:
        raise BorrowRefused("the DLPack tensor's data pointer 0x%x plus byte_offset %d is outside the address space "
                            "(0 to 2**63 - 1)" % (desc["data"], desc["byte_offset"]))
    if desc["byte_offset"] % size:
        raise BorrowRefused("a DLPack byte_offset of %d is not a multiple of the element size %d (8.3 P-13); use "
                            "cint.copy" % (desc["byte_offset"], size))
    base = desc["data"] + desc["byte_offset"]
    empty = 0 in shape
    if not empty and desc["data"] == 0:
        raise BorrowRefused("the DLPack tensor has a NULL data pointer and %r elements" % (shape,))
    if base % size:
        raise BorrowRefused("the data address is not aligned for %s (%d bytes); use cint.copy" % (mapped, size))
    if layout != "any" and not empty:
        order = range(nd - 1, -1, -1) if layout == "C" else range(nd)
        acc = 1
        for k in order:
            if shape[k] != 1 and strides[k] != acc:
                raise BorrowRefused("layout=%r over an array that is not %s-contiguous; use layout='any' or "
                                    "cint.copy" % (layout, layout))
            acc *= shape[k]
    if empty:
        lowest, origin, extent = base, 0, 0
    else:
        low = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
        high = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
        origin, extent, lowest = -low, high - low + 1, base + low * size
        if lowest < 0 or lowest + extent * size > ADDRESS_LIMIT + 1:
            raise BorrowRefused("the DLPack tensor reaches outside the address space (shape %r, strides %r)"
                                % (shape, strides))
    return {"elem": mapped, "shape": shape, "strides": strides, "origin": origin, "extent": extent,
            "lowest": lowest, "legacy": legacy}


def borrow_into(view, obj, *, elem, writable, publish, layout, check_elem):
    """Fills a View from a DLPack exchange with obj (8.3); BorrowRefused after calling the deleter of a
    refused capsule."""
    view._held = False
    view._dl = view._entry_dl = None
    view._via = "DLPack"
    check_device(obj)
    tensor, desc, legacy = _exchange(obj, False)
    try:
        geo = _describe(desc, legacy, elem, writable, layout, check_elem)
    except BaseException:
        tensor.close()              # a refused capsule's deleter runs at once (P-14)
        raise
    view._dl = tensor
    view._dl_sig = _signature(desc)
    view._dl_legacy = geo["legacy"]
    view._obj = obj
    view.elem = geo["elem"]
    view.shape = geo["shape"]
    view.strides = geo["strides"]
    view.origin, view.extent, view._lowest = geo["origin"], geo["extent"], geo["lowest"]


def reexchange(view):
    """The exchange of an entry (P-10): the same tensor as the first, held until the entry ends."""
    if view._entry_dl is not None:
        return
    obj = view._obj
    check_device(obj)
    tensor, desc, _ = _exchange(obj, view._dl_legacy)
    try:
        if desc["versioned"] is False and not view._dl_legacy:
            raise BorrowRefused("the producer answered with an unversioned capsule at this entry, and a versioned "
                                "one when it was borrowed; borrow it again")
        flags = desc["flags"]
        if flags is not None and flags & X.IS_COPIED:
            raise BorrowRefused("the producer made a copy (DLPACK_FLAG_BITMASK_IS_COPIED) at this entry: "
                                "cint.borrow never copies (8.3 P-10)")
        if view.writable and flags is not None and flags & X.READ_ONLY:
            raise BorrowRefused("the DLPack tensor of this writable View is now read-only; borrow it again")
        sig = _signature(desc)
        old = view._dl_sig
        if sig != old:
            parts = []
            for name, x, y in zip(("data pointer", "shape", "strides", "data type", "device"), old, sig):
                if x != y:
                    parts.append("%s 0x%x -> 0x%x" % (name, x, y) if name == "data pointer" else
                                 "%s %r -> %r" % (name, x, y))
            raise BorrowRefused("the DLPack tensor changed since the View was borrowed (%s): a View names the "
                                "memory of its first exchange (8.3 P-10); release it and borrow again"
                                % "; ".join(parts))
    except BaseException:
        tensor.close()
        raise
    view._entry_dl = tensor


def entry_end(view):
    """Calls the deleter of the capsule of the entry that ends (P-14)."""
    t, view._entry_dl = view._entry_dl, None
    if t is not None:
        t.close()


def drop(view):
    """View.release(): the deleters of the entry's capsule and of the first capsule, once each (P-14)."""
    entry_end(view)
    t, view._dl = view._dl, None
    if t is not None:
        t.close()
