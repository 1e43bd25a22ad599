"""Modules (loaded libraries) and contexts (8.1): the calls through each export's C wrapper, with ctypes."""
from __future__ import annotations

import contextlib
import ctypes as C
import hashlib
import keyword
import os
import struct
import sys
import threading
import weakref
from pathlib import Path

from cint_abi import structs as S
from cint_abi import typesig as T
from cint_abi.checkpoint import decode_checkpoint, encode_checkpoint, type_name
from cint_abi.checkpoint import read_checkpoint as _read_checkpoint
from cint_abi.encoding import Reader, read_desc
from cint_abi.codes import FAULT_NAMES, REFUSAL_REASONS, RUNTIME_CONTRACT, STATUSES
from cint_abi.faultrecord import decode_fault_record
from cint_abi.reflect import read_library

from . import _arrays as A
from ._errors import (Busy, EntryInfo, ErrorResult, Fault, Faulted, LoadError, RecorderClosed, Refused, ResourceError,
                      fault_class)

try:    # the C call path (8.1 paragraph 8); without it every call goes through ctypes
    from . import _fastcall as _FC
except ImportError:
    _FC = None

_REASON_NAMES = {v: k for k, v in REFUSAL_REASONS.items()}
OK, FAULT, REFUSED, BUSY, FAULTED, RESOURCE = (STATUSES[k] for k in (
    "CINT_OK", "CINT_FAULT", "CINT_REFUSED", "CINT_BUSY", "CINT_FAULTED", "CINT_RESOURCE"))
_INT_CT = {(True, 8): C.c_int8, (True, 16): C.c_int16, (True, 32): C.c_int32, (True, 64): C.c_int64,
           (False, 8): C.c_uint8, (False, 16): C.c_uint16, (False, 32): C.c_uint32, (False, 64): C.c_uint64}
# refusal reason -> the code a cint.Refused carries
_REASON_CODE = {"CINT_REFUSAL_BOOL": "E_NARROW", "CINT_REFUSAL_EXTENT": "E_BOUNDS", "CINT_REFUSAL_SIZE": "E_BOUNDS",
                "CINT_REFUSAL_GENERATION": "E_STALE_HANDLE", "CINT_REFUSAL_BUFFER": "E_STALE_HANDLE"}
_COPY_REASONS = {1: "staging", 2: "publish-copy", 3: "snapshot", 4: "fault-readback"}


class _cint_copy(C.Structure):
    _fields_ = [("param", C.c_uint32), ("reason", C.c_uint32), ("type", S.cint_type), ("count", C.c_int64)]


def _local_symbol(path, name):
    """st_value of ``name`` in the ELF .symtab of ``path`` (a hidden symbol), or None."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
    for sh in secs:
        if sh[1] != 2:          # SHT_SYMTAB
            continue
        strtab = secs[sh[6]]
        off, size, entsize = sh[4], sh[5], sh[9] or 24
        want = name.encode()
        for k in range(size // entsize):
            st_name, st_info, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", data, off + k * entsize)
            s = strtab[4] + st_name
            if data[s:s + len(want) + 1] == want + b"\0" and (st_info & 0xF) == 2:
                return st_value
    return None


def _local_objects(path, prefix):
    """name -> st_value of each local data object (STT_OBJECT) of the ELF .symtab of ``path`` whose name starts
    with ``prefix``; {} for a stripped library or one this reader does not take."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return {}
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return {}
    out = {}
    try:
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
        secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
        want = prefix.encode()
        for sh in secs:
            if sh[1] != 2:          # SHT_SYMTAB
                continue
            strtab = secs[sh[6]]
            off, size, entsize = sh[4], sh[5], sh[9] or 24
            for k in range(size // entsize):
                st_name, st_info, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", data, off + k * entsize)
                s = strtab[4] + st_name
                if data[s:s + len(want)] == want and (st_info & 0xF) == 1:
                    end = data.index(b"\0", s)
                    out[data[s:end].decode("ascii", "replace")] = st_value
    except (struct.error, ValueError, IndexError):
        return {}
    return out


class _gen_extent(C.Structure):
    _fields_ = [("form", C.c_uint32), ("sym", C.c_uint32), ("offset", C.c_int64), ("lower", C.c_int64)]


class _gen_kernel(C.Structure):     # cint_gen_kernel of runtime-c/include/cint_rt_gen.h
    _fields_ = [("name", S.cint_name), ("param_count", C.c_uint32), ("size_count", C.c_uint32),
                ("params", C.c_void_p), ("over_rank", C.c_uint32), ("reserved", C.c_uint32),
                ("over", _gen_extent * 4)]


class Module:
    """A loaded library: its reflection rows (cint_abi.reflect) and its error sets."""

    def __init__(self, path, backend="cpu"):
        self.path = str(path)
        self.backend = backend
        try:
            self._dll = C.CDLL(self.path)
            self.library = read_library(self.path)
        except (OSError, ValueError) as ex:
            raise LoadError("%s: %s" % (path, ex)) from ex
        desc = S.cint_library.in_dll(self._dll, "cint_library_desc")
        tables = [desc.modules[k].contents for k in range(desc.module_count)]
        if not tables:
            raise LoadError("%s: the library describes no module" % path)
        self._table = tables[-1] if len(tables) > 1 else tables[0]
        info = self._table.info.contents
        prog = info.program.contents
        if prog.backend != 0:
            raise LoadError("%s is a gpu-cuda library; backend='cuda' is not in this slice" % path)
        self._info = self._table.info
        self._program = info.program
        self.exports = self.library.exports
        self._rows = {e.name: e for e in self.exports}
        self.error_sets = {}
        for e in self.exports:
            if e.signature is None:
                continue
            for d in e.signature.definitions:
                if isinstance(d, (T.ErrorSetDef, T.CombinedErrorSetDef)):
                    short = d.qname.rsplit(".", 1)[-1]
                    if short not in self.error_sets:
                        self.error_sets[short] = type(short, (ErrorResult,), {"set": short, "qname": d.qname,
                                                                            "__module__": "cint"})
        self._api()
        self._copies = None
        self._struct_map = None
        self._over_map = None
        base = _local_symbol(self.path, "cint_abi_version")
        off = _local_symbol(self.path, "cint_gen_copies")
        if base is not None and off is not None:
            addr = C.cast(self._dll.cint_abi_version, C.c_void_p).value - base + off
            self._copies = C.CFUNCTYPE(C.POINTER(_cint_copy), C.c_void_p, C.POINTER(C.c_size_t))(addr)

    def __getattr__(self, name):
        sets = self.__dict__.get("error_sets") or {}
        if name in sets:
            return sets[name]
        raise AttributeError(name)

    def _api(self):
        d = self._dll
        P = C.c_void_p
        sig = {
            "cint_ctx_create": [C.POINTER(S.cint_ctx_config), C.POINTER(P)],
            "cint_ctx_destroy": [P],
            "cint_buffer_register_elements": [P, S.cint_type, P, C.c_int64, C.c_uint32, C.c_uint32,
                                              C.POINTER(C.c_uint64), C.POINTER(C.c_uint64)],
            "cint_buffer_create": [P, S.cint_type, C.c_int64, C.c_uint32, C.POINTER(C.c_uint64), C.POINTER(C.c_uint64)],
            "cint_buffer_release": [P, C.c_uint64],
            "cint_buffer_lease": [P, C.c_uint64, C.POINTER(P), C.POINTER(C.c_uint64)],
            "cint_lease_end": [P, C.c_uint64],
            "cint_buffer_read": [P, S.cint_view, P, C.c_size_t],
            "cint_fault_get": [P, P, C.c_size_t, C.POINTER(C.c_size_t)],
            "cint_ctx_refusal": [P, C.POINTER(C.c_uint32)],
            "cint_ctx_error": [P, C.POINTER(C.POINTER(S.cint_error_set)), C.POINTER(C.c_uint64)],
            "cint_fuel_consumed": [P, C.POINTER(C.c_int64)],
            "cint_ctx_clear_fault": [P],
        }
        for name, args in sig.items():
            f = getattr(d, name)
            f.argtypes = args
            f.restype = None if name == "cint_ctx_destroy" else C.c_int32
        # the canonical-state functions of a library built with --with-state (docs/runtime.md)
        self._state = None
        self._invoke = None         # the address of cintx_invoke (below), or None: calls through ctypes
        self._index = {}
        self._digest_cache = None
        try:
            enc, res = d.cintx_state_encode, d.cintx_state_restore
        except AttributeError:
            return
        enc.argtypes = [P, P, C.c_size_t, C.POINTER(C.c_size_t)]
        enc.restype = C.c_int32
        res.argtypes = [P, P, C.c_size_t, C.POINTER(C.c_uint64)]
        res.restype = C.c_int32
        self._state = (enc, res)
        # cintx_invoke (--with-state): every export by its row of the one module table, for cint._fastcall
        mods = self.library.modules
        try:
            addr = C.cast(d.cintx_invoke, C.c_void_p).value
        except AttributeError:
            addr = None
        if addr and len(mods) == 1:
            self._invoke = addr
            self._index = {row.name: k for k, row in enumerate(mods[0].exports)}

    def _over(self, qname):
        """The over clause of kernel qname as the size-symbol index of each dimension, read from the kernel
        descriptors the emitter writes (KD_*, local symbols of the library), or None where they cannot be read
        (a stripped library)."""
        if self._over_map is None:
            self._over_map = {}
            base = _local_symbol(self.path, "cint_abi_version")
            if base is not None:
                origin = C.cast(self._dll.cint_abi_version, C.c_void_p).value - base
                for _, off in _local_objects(self.path, "KD_").items():
                    k = _gen_kernel.from_address(origin + off)
                    if not 1 <= k.over_rank <= 4 or not k.name.bytes or k.name.len > 4096:
                        continue
                    name = C.string_at(k.name.bytes, k.name.len).decode("utf-8", "replace")
                    self._over_map[name] = tuple(int(k.over[d].sym) for d in range(k.over_rank))
        return self._over_map.get(qname)

    def _over_rank(self, name):
        """The largest over rank of a kernel named name (qualified or by its last segment), 0 if none is known."""
        self._over("")
        return max((len(v) for k, v in self._over_map.items() if k == name or k.endswith("." + name)), default=0)

    def _digests(self):
        """The build digests a checkpoint's envelope carries: the library file and the source map."""
        if self._digest_cache is None:
            try:
                lib = hashlib.sha256(Path(self.path).read_bytes()).digest()
            except OSError:
                lib = bytes(32)
            self._digest_cache = {"library": lib, "source-map": bytes(self._program.contents.source_map)}
        return self._digest_cache

    def _structs(self):
        """The ``structs=`` mapping of cint_abi (decode_state, decode_checkpoint): qualified struct name -> field
        descriptors, from the root module's record layout table (A-14, A-19), the layout the runtime's own
        state encoder walks.  The table gives an array field as its element count, so such a field is
        rank 1 (the payload bytes are the same) unless an export's type signature defines the struct,
        whose literal extents are then used.  A struct the table has no canonical form for is left out."""
        if self._struct_map is None:
            layouts = _record_layouts(self._table)
            for e in self.exports:
                if e.signature is None:
                    continue
                defs = e.signature.definitions
                for d in defs:
                    if isinstance(d, T.StructDef) and d.qname in layouts:
                        try:
                            fields = tuple(_sig_desc(ft, defs) for _, _, ft in d.fields)
                        except ValueError:
                            continue
                        if _flat(fields) == _flat(layouts[d.qname]):
                            layouts[d.qname] = fields
            self._struct_map = layouts
        return self._struct_map

    def _global_types(self):
        """name -> type name of the program's module variables (for the messages of a refused restore)."""
        prog = self._program.contents
        out = {}
        for k in range(prog.global_count):
            g = prog.globals[k]
            name = C.string_at(g.name.bytes, g.name.len).decode("utf-8", "replace")
            t = g.type
            if t.code == 0x31:
                w = 8 << (t.storage - 0x11)
                out[name] = "Q%d.%d" % (w - t.frac, t.frac)
            else:
                out[name] = A.TAG_NAMES.get(t.code, {0x15: "I128", 0x16: "I256", 0x17: "I512",
                                                     0x18: "I1024"}.get(t.code, "type 0x%02x" % t.code))
        return out

    def context(self, *, device=None, record=None, fuel=10**9, depth=256, frame_arena_elements=2_097_152):
        if device is not None:
            raise NotImplementedError("Module.context(device=...) (gpu-cuda contexts) is not in this slice")
        ctx = Context(self, fuel=fuel, depth=depth, frame_arena_elements=frame_arena_elements)
        if record is not None:
            from ._record import attach
            attach(ctx, record)
        return ctx

    def __repr__(self):
        return "<cint.Module %s: %s>" % (os.path.basename(self.path),
                                         ", ".join(e.name for e in self.exports) or "no exports")


def _exact_int(v):
    """The value of an int, or of an int subclass read once through int.__index__ (so a subclass whose
    __index__ or __int__ says otherwise is checked and passed as the same value)."""
    return v if type(v) is int else int.__index__(v)


def _check_budget(value, what):
    if value is None:
        return -1
    if type(value) is bool or not isinstance(value, int):
        raise Refused("%s is an int or None, not %s" % (what, type(value).__name__), parameter=what)
    value = _exact_int(value)
    if not -1 <= value <= (1 << 63) - 1:
        raise Refused("%s = %d is outside -1..2^63-1 (-1 or None: no budget)" % (what, value), code="E_NARROW",
                      parameter=what)
    return value


class EntryReport:
    """The copy report of an entry (6.4): one row per staged output of each dispatch."""

    def __init__(self, name, rows):
        self.name = name
        self.rows = rows     # (reason, parameter name, element, count)

    def __str__(self):
        n = len(self.rows)
        head = "%s: %s" % (self.name, "no copies" if n == 0 else "1 copy" if n == 1 else "%d copies" % n)
        return "\n".join([head] + ["  %s %s: %s x %d" % r for r in self.rows])

    __repr__ = __str__


class Context:
    """A cint context of a Module: one method per export, and ctx.entry(name)."""

    def __init__(self, module, *, fuel, depth, frame_arena_elements):
        self._module = module
        self._fuel = _check_budget(fuel, "fuel")
        if type(depth) is not int or not 0 <= depth <= (1 << 63) - 1:
            raise Refused("depth is an int from 0 (the default, 256) to 2**63 - 1, not %r" % (depth,),
                          code="E_NARROW" if type(depth) is int else "E_UNSUPPORTED", parameter="depth")
        if type(frame_arena_elements) is not int or not 0 <= frame_arena_elements <= (2 ** 63 - 1) // 8:
            raise Refused("frame_arena_elements is an int from 0 to 2**60 - 1, not %r" % (frame_arena_elements,),
                          code="E_NARROW" if type(frame_arena_elements) is int else "E_UNSUPPORTED",
                          parameter="frame_arena_elements")
        # one call at a time: a cint._fastcall.Gate is a threading.Lock that the C call path also takes
        self._lock = _FC.Gate() if _FC is not None else threading.Lock()
        self._recording = False
        self._output = []

        def output(user, data, n):
            if self._recording:
                self._output.append(C.string_at(data, n))
            return 0
        self._output_fn = S.cint_output_fn(output)
        cfg = S.cint_ctx_config(size=C.sizeof(S.cint_ctx_config), program=module._program, depth_limit=depth,
                                frame_arena_bytes=frame_arena_elements * 8, output=self._output_fn,
                                module=module._info)
        self._cfg = cfg
        h = C.c_void_p()
        st = module._dll.cint_ctx_create(C.byref(cfg), C.byref(h))
        if st != OK:
            if st == RESOURCE:
                raise ResourceError("cint_ctx_create: no room for the context")
            raise Refused("cint_ctx_create refused the configuration (status %d)" % st)
        self._h = h
        # [handle, library] while the context lives: a Buffer's weak reference to a context collected without
        # close() reads its elements through it before the finalizer destroys the context (P-17)
        self._life = [h.value, module._dll]
        if _FC is not None:
            self._lock.attach(h.value)
        self._last = None
        self._calls = {}
        self._epoch = 0                       # restores made: registrations of an older epoch are gone (P-20)
        self._buffers = weakref.WeakSet()     # Buffers registered here (their elements outlive a restore)
        for e in module.exports:
            if e.signature is not None and not hasattr(Context, e.name) and not keyword.iskeyword(e.name) \
                    and not e.name.startswith("_"):
                setattr(self, e.name, self.entry(e.name))

    def __getattr__(self, name):
        # only reached for a name that is not an attribute: an export that does not exist, in the user's terms
        if name.startswith("_"):
            raise AttributeError(name)
        module = self.__dict__.get("_module")
        names = [e.name for e in module.exports] if module is not None else []
        where = getattr(module, "source", None) or getattr(module, "path", None)
        raise AttributeError("%r is not an export of %s (its exports: %s); a function or kernel is a method of "
                             "the context only when it is declared `export` (write `export` before its result "
                             "type or before `kernel`)" % (
                                 name, os.path.basename(str(where)) if where else "this module",
                                 ", ".join(names) or "none"))

    # -- a closed context (Context.close(), docs/python.md) ----------------------------------------
    def _open(self, what):
        """The context handle, or cint.Refused: the context is closed, and every method refuses (8.1 paragraph 7:
        the runtime answers every call on a destroyed context with CINT_REFUSED)."""
        h = self.__dict__.get("_h")
        if not h:
            raise Refused("%s: this context is closed (Context.close(), or its creation failed); make a new one "
                          "with Module.context()" % what, code="E_STALE_HANDLE")
        return h

    # -- runtime helpers for View and Buffer -----------------------------------------------
    def _dll(self):
        return self._module._dll

    def _status(self, st, what):
        if st == OK:
            return
        if st == BUSY:
            raise Busy("%s: the context is running an entry" % what)
        if st == RESOURCE:
            raise ResourceError("%s: no room (CINT_RESOURCE): the context holds max_buffers live registrations, "
                                "or its buffer identifiers are exhausted (next identifier 2**64 - 1, M-11); nothing "
                                "changed" % what)
        raise Refused("%s was refused (status %d)" % (what, st))

    def _register(self, t, ptr, extent, writable, publish):
        bid, gen = C.c_uint64(), C.c_uint64()
        st = self._module._dll.cint_buffer_register_elements(self._open("cint_buffer_register"), t, ptr, extent, int(writable), publish,
                                                              C.byref(bid), C.byref(gen))
        if st == REFUSED:
            reason = self._reason()
            raise Refused("cint_buffer_register refused the memory (%s)" % reason, reason=reason)
        self._status(st, "cint_buffer_register")
        return bid.value, gen.value

    def _create(self, t, extent):
        bid, gen = C.c_uint64(), C.c_uint64()
        st = self._module._dll.cint_buffer_create(self._open("cint_buffer_create"), t, extent, 0, C.byref(bid),
                                                  C.byref(gen))
        self._status(st, "cint_buffer_create")
        return bid.value, gen.value

    def _unregister(self, bid):
        if self._h:
            st = self._module._dll.cint_buffer_release(self._h, bid)
            if st == BUSY:
                raise Busy("the buffer has a live export; end it before releasing", code="E_ALIAS")

    def _lease(self, bid):
        p, n = C.c_void_p(), C.c_uint64()
        self._status(self._module._dll.cint_buffer_lease(self._open("cint_buffer_lease"), bid, C.byref(p), C.byref(n)), "cint_buffer_lease")
        return p.value, n.value

    def _lease_end(self, lease):
        if self._h:
            self._module._dll.cint_lease_end(self._h, lease)

    def _read(self, view, nbytes):
        buf = C.create_string_buffer(max(nbytes, 1))
        st = self._module._dll.cint_buffer_read(self._open("cint_buffer_read"), view, buf, nbytes)
        self._status(st, "cint_buffer_read")
        return buf.raw[:nbytes]

    def _reason(self):
        r = C.c_uint32()
        self._module._dll.cint_ctx_refusal(self._h, C.byref(r))
        return _REASON_NAMES.get(r.value, "reason %d" % r.value)

    # -- the surface of 8.1 ----------------------------------------------------------------
    def fault(self):
        """The held fault as a cint.Fault subclass instance, or None.

        When it is the fault a call of this context raised, it reads as that exception did: the parameter
        names, the hint of a bind.type fault and the index tuple of a kernel's work-item (``work_index``)."""
        h = self._open("fault()")
        n = C.c_size_t()
        self._module._dll.cint_fault_get(h, None, 0, C.byref(n))
        if n.value == 0:
            return None
        buf = C.create_string_buffer(n.value)
        self._module._dll.cint_fault_get(h, buf, n.value, C.byref(n))
        raw = buf.raw[:n.value]
        data = decode_fault_record(raw)
        f = fault_class(FAULT_NAMES[data.code])(data, raw)
        note = self.__dict__.get("_fault_note")
        if note is not None and note[0] == raw:     # the fault a call raised: the same words, read later
            f._entry, f.hint, f.work_index = note[1:]
            f.args = (f._text(),)
        return f

    def _note_fault(self, f):
        """Keeps what the raising call knew of fault f (the export, the bind.type hint, the index tuple), so that
        fault() read later words it as the raised exception does; the record itself is the runtime's."""
        self._fault_note = (f.record, f.__dict__.get("_entry"), f.__dict__.get("hint"), f.work_index)

    def clear_fault(self):
        self._module._dll.cint_ctx_clear_fault(self._open("clear_fault()"))
        self.__dict__.pop("_fault_note", None)

    def fuel_consumed(self) -> int:
        v = C.c_int64()
        self._module._dll.cint_fuel_consumed(self._open("fuel_consumed()"), C.byref(v))
        return v.value

    def last_entry(self):
        """The copy report of the last entry, read through the library's cint_gen_copies."""
        h = self._open("last_entry()")
        if self._module._copies is None:
            raise NotImplementedError("last_entry(): this library has no symbol table entry for cint_gen_copies "
                                      "(a stripped library); the copy report needs the C extension of cint")
        if self._last is None:
            return None
        n = C.c_size_t()
        rows = self._module._copies(h, C.byref(n))
        name, params = self._last
        out = []
        for k in range(n.value):
            r = rows[k]
            pname = params[r.param] if r.param < len(params) else "parameter %d" % r.param
            out.append((_COPY_REASONS.get(r.reason, "reason %d" % r.reason), pname,
                        A.TAG_NAMES.get(r.type.code, "type 0x%02x" % r.type.code), r.count))
        return EntryReport(name, out)

    # -- checkpoints (9.2) ------------------------------------------------------------------
    def _state_fns(self, what):
        fns = self._module._state
        if fns is None:
            raise NotImplementedError(
                "Context.%s: %s was written by plain `cint build --lib`, which holds no checkpoint functions "
                "(SPEC-03P.1 8.1 paragraph 1); load the .ci source with cint.load, or build the library with "
                "`cint build --lib --with-state`" % (what, os.path.basename(self._module.path)))
        return fns

    def _take_lock(self, what):
        if not self._lock.acquire(blocking=False):
            raise Busy("%s: another call is running on this context" % what)

    def _state_bytes(self, what):
        """The canonical state bytes of the context (M-3), from the runtime's encoder."""
        h = self._open(what)
        enc, _ = self._state_fns(what)
        self._take_lock(what)
        try:
            n = C.c_size_t()
            st = enc(h, None, 0, C.byref(n))
            if st == OK:
                size = n.value
                buf = C.create_string_buffer(max(size, 1))
                st = enc(h, buf, size, C.byref(n))
                if st == OK and n.value == size:
                    return buf.raw[:size]
        finally:
            self._lock.release()
        if st == BUSY:
            raise Busy("%s: the context is running an entry; the state is taken between entries" % what)
        if st == RESOURCE:
            raise ResourceError("%s: no room for the state bytes (CINT_RESOURCE)" % what)
        if st == REFUSED:
            reason = self._reason()
            raise Refused("%s: the runtime has no canonical form for this context's state (%s)" % (what, reason),
                          reason=reason)
        raise Refused("%s: unexpected status %d" % (what, st))

    def checkpoint(self) -> bytes:
        """9.2: the context's state as a checkpoint (an envelope around the canonical state)."""
        state = self._state_bytes("checkpoint()")
        return encode_checkpoint(state, contract=RUNTIME_CONTRACT, digests=self._module._digests(),
                                 structs=self._module._structs())

    def state_hash(self) -> bytes:
        """M-5: SHA-256 over the canonical state bytes (32 bytes)."""
        return hashlib.sha256(self._state_bytes("state_hash()")).digest()

    def restore(self, data) -> None:
        """9.2: replaces the context's state with a checkpoint's, or raises Refused and changes nothing.

        Every registration of the context ends (M-11a): a View or Buffer registers again, under a new
        identifier, at its next use (P-20); a Buffer whose elements lived in runtime storage keeps them,
        in storage of its own."""
        h = self._open("restore()")
        _, res = self._state_fns("restore()")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("Context.restore() takes the bytes of a checkpoint, not %s" % type(data).__name__)
        try:
            cp = decode_checkpoint(bytes(data), self._module._structs())
        except ValueError as ex:
            raise Refused("restore(): malformed checkpoint (H-19a): %s" % ex) from None
        if cp.contract != RUNTIME_CONTRACT:
            raise Refused("restore(): the checkpoint is of runtime contract %r; this runtime is %r (H-19)" % (
                cp.contract, RUNTIME_CONTRACT))
        own = bytes(self._module._program.contents.revision)
        if cp.state.revision != own:
            raise Refused("restore(): the checkpoint is of revision %s...; this program is revision %s... (H-19)" % (
                cp.state.revision.hex()[:16], own.hex()[:16]))
        self._take_lock("restore()")
        try:
            kept = self._buffer_contents()
            detail = (C.c_uint64 * 2)()
            state = cp.state_bytes
            st = res(h, state, len(state), detail)
            if st == OK:
                self._epoch += 1
                for buf, raw in kept:
                    buf._adopt(raw)
                return
        finally:
            self._lock.release()
        if st == BUSY:
            if self._reason() == "CINT_REFUSAL_LEASED":
                raise Busy("restore(): a Buffer of this context has a live export (a numpy array of it); end the "
                           "export (del the array) first", code="E_ALIAS")
            raise Busy("restore(): the context is running an entry")
        if st == RESOURCE:
            raise ResourceError("restore(): no room for the restored state (CINT_RESOURCE); nothing changed")
        raise Refused(self._restore_message(cp, detail[0], detail[1]), reason=self._reason())

    def _restore_message(self, cp, why, at):
        head = "restore(): the runtime refused the checkpoint, and nothing changed: "
        if why == 2:
            return head + "another revision identity (H-19)"
        if why == 3:
            own = self._module._global_types()
            theirs = {n: type_name(d) for n, d, _ in cp.state.globals}
            diff = sorted(set(own.items()) ^ set(theirs.items()))
            if not diff and (cp.state.arenas or cp.state.pools or self._module._program.contents.container_count):
                return head + ("its module arenas or pools are not this program's by identifier, name, element "
                               "type or capacity (byte %d of the state)" % at)
            return head + "its module variables are not this program's (byte %d of the state): %s" % (
                at, ", ".join("%s has %s %s" % ("the program" if own.get(n) == t else "the checkpoint", n, t)
                              for n, t in diff) or "their order differs")
        if why == 4:
            return head + ("this context cannot hold its state (byte %d of the state): a fault position outside "
                           "the program's site tables, a call stack deeper than the context's frames, or a value "
                           "this runtime cannot describe" % at)
        return head + "malformed state at byte %d (H-19a)" % at

    def _bound_buffers(self):
        """The Buffers whose live registration is in this context (a collected context's weak references are
        already cleared when its finalizer closes it, so a Buffer of this context's set with a dead reference
        is one of its own)."""
        out = []
        for buf in list(self._buffers):
            ref = buf._ctx
            if buf._released or buf._bid is None or ref is None or ref() not in (None, self) \
                    or buf._epoch != self._epoch:
                continue
            out.append(buf)
        return out

    def _buffer_contents(self):
        """(Buffer, its elements) of each published Buffer whose storage the runtime made in this context: a
        restore frees that storage, and the Buffer keeps its elements (6.2 paragraph 3)."""
        kept = []
        for buf in self._bound_buffers():
            if buf._data is not None or not buf._published:
                continue
            kept.append((buf, self._read(self._buffer_view(buf), buf.count * A.elem_info(buf.elem)[1])))
        return kept

    @staticmethod
    def _buffer_view(buf):
        """A rank-1 read view of every element of a Buffer's registration here."""
        v = S.cint_view(buffer=buf._bid, generation=buf._gen, type=A.ctype_of(buf.elem), rank=1, perm=0, origin=0)
        v.shape[0], v.stride[0] = buf.count, 1
        return v

    @contextlib.contextmanager
    def entry_scope(self):
        """8.1 paragraph 5: a checkpoint when the block starts, restored when a cint.Fault leaves the block
        (which then goes on raising); an error result, another exception or a normal exit restores nothing."""
        self._open("entry_scope()")
        saved = self.checkpoint()
        try:
            yield self
        except Fault:
            self.restore(saved)
            raise

    def entry(self, name):
        self._open("entry(%r)" % (name,))
        rec = self.__dict__.get("_recorder")
        if rec is not None and not getattr(rec, "recording", True):
            raise RecorderClosed("entry %s: the Recorder of this context is closed, so the call would not be recorded "
                          "(9.3) and nothing ran; make a new context with a new cint.Recorder, or one without "
                          "record=" % name)
        call = self._calls.get(name)
        if call is None:
            row = self._module._rows.get(name)
            if row is None:
                raise AttributeError("the library exports no %r; its exports: %s" % (
                    name, ", ".join(self._module._rows)))
            call = self._calls[name] = _caller(self, _Entry(self, row))
        return call

    def close(self):
        if self.__dict__.get("_live_exports"):    # leases of runtime storage held by Buffer exports (6.3)
            raise Busy("the context has %d live export(s) of its Buffers' storage (memoryviews, NumPy arrays or "
                       "DLPack capsules); end them before closing it" % self._live_exports, code="E_ALIAS")
        gate = self.__dict__.get("_lock")
        if _FC is not None and isinstance(gate, _FC.Gate) and self.__dict__.get("_h"):
            if not gate.acquire(blocking=False):   # an entry runs (in another thread): destroying would free it
                raise Busy("close: the context is running an entry; close it when the call returns")
            try:
                self._keep_buffers()
            finally:
                gate.detach()
                gate.release()
        elif self.__dict__.get("_h"):
            self._keep_buffers()
        h, self._h = self.__dict__.get("_h"), None
        life = self.__dict__.get("_life")
        if life:
            life[0] = None
        if h:
            self._module._dll.cint_ctx_destroy(h)

    def _keep_buffers(self):
        """P-17: destroying the context ends its registrations and leaves each Buffer its storage and elements:
        a published Buffer in runtime storage takes its elements into storage of its own (as at a restore), and
        every Buffer of this context is free to be used in another one."""
        if "_buffers" not in self.__dict__:
            return
        for buf in self._bound_buffers():
            if buf._data is None and buf._published:
                try:
                    buf._adopt(self._read(self._buffer_view(buf), buf.count * A.elem_info(buf.elem)[1]))
                except (Refused, ResourceError, Busy):
                    pass            # cannot happen for a live registration; the Buffer then reads as stale
            buf._unbind()
        self._buffers = weakref.WeakSet()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return "<cint.Context of %s; exports: %s%s>" % (
            os.path.basename(self._module.path), "; ".join(_call_form(e) for e in self._module.exports) or "none",
            "" if self.__dict__.get("_h") else ", closed")


def _is_numpy(v):
    return type(v).__module__ == "numpy"


def _scalar(v, t, pname):
    """The C value of a Python argument for the scalar type t (8.5 P-21..P-23), or Refused."""
    if isinstance(t, T.Bool):
        if type(v) is bool:
            return int(v)
        if _is_numpy(v) and type(v).__name__ in ("bool_", "bool"):
            return int(bool(v))
        raise Refused("parameter %s is Bool: it takes True or False, not %s" % (pname, type(v).__name__),
                      parameter=pname)
    if isinstance(t, T.Fixed):
        return _fixed_arg(v, t, pname)
    if t.bits > 64:
        return _wide_arg(v, t, pname)
    name = A.elem_name(t)
    if type(v) is bool:
        raise Refused("parameter %s is %s: a bool is not taken for an integer" % (pname, name), parameter=pname)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(v, np.ndarray):
        raise Refused("parameter %s is %s: a NumPy array (shape %r) is not a scalar; pass a Python int, such as "
                      "int(a[0])" % (pname, name, v.shape), parameter=pname)
    if _is_numpy(v) and hasattr(v, "dtype"):
        kind, size = v.dtype.kind, v.dtype.itemsize
        if kind not in "iu" or (kind == "i") != t.signed or size * 8 != t.bits:
            raise Refused("parameter %s is %s: a numpy %s does not map to it; pass int(v)" % (pname, name, v.dtype),
                          parameter=pname)
        return int(v)
    if not isinstance(v, int):
        tip = "; round it explicitly with cint.from_float(%r, %r) (half to even; rounding= names another mode)" % (
            float(v), name) if isinstance(v, float) else ""
        raise Refused("parameter %s is %s: it takes a Python int, not %s%s" % (pname, name, type(v).__name__, tip),
                      parameter=pname)
    v = _exact_int(v)
    lo, hi = A._int_range(name)
    if not lo <= v <= hi:
        raise Refused("parameter %s is %s: %d is outside %d..%d" % (pname, name, v, lo, hi), code="E_NARROW",
                      parameter=pname)
    return int(v)


_T_STRUCT, _T_Q = 0x71, 0x31


def _record_layouts(table):
    """qualified name -> field descriptors of each row of a module table's record layout table."""
    info = table.info.contents
    n = info.record_count
    names = [S.text(table.record_names[r].bytes, table.record_names[r].len).decode("utf-8", "replace")
             if table.record_names else "" for r in range(n)]
    memo = {}

    def fields(rid, depth):
        if rid in memo:
            return memo[rid]
        if depth > 64 or rid >= n or not names[rid]:
            raise ValueError("record %d has no canonical form" % rid)
        lay = info.records[rid]
        out = []
        for j in range(lay.field_count):
            f = lay.fields[j]
            ty = f.type
            if ty.code == _T_STRUCT:
                elem = ("struct", names[ty.record_id] if ty.record_id < n else "", fields(ty.record_id, depth + 1))
            elif ty.code == _T_Q:
                elem = read_desc(Reader(bytes([_T_Q, ty.storage]) + int(ty.frac).to_bytes(2, "little")))
            else:
                elem = read_desc(Reader(bytes([ty.code])), role="element")   # Bool or an integer; else refused
            out.append(elem if f.count == 1 else ("array", elem, (int(f.count),)))
        memo[rid] = tuple(out)
        return memo[rid]

    layouts = {}
    for rid in range(n):
        try:
            if names[rid]:
                layouts[names[rid]] = fields(rid, 0)
        except ValueError:
            continue
    return layouts


def _sig_desc(t, defs):
    """The cint_abi descriptor of a struct field's typesig type (literal extents only)."""
    if isinstance(t, T.Bool):
        return ("bool",)
    if isinstance(t, T.Int):
        return ("int", t.signed, t.bits)
    if isinstance(t, T.Fixed):
        return ("fixed", t.storage_bits, t.f)
    if isinstance(t, T.StructRef):
        d = defs[t.index]
        return ("struct", d.qname, tuple(_sig_desc(ft, defs) for _, _, ft in d.fields))
    if isinstance(t, T.Array):
        dims = []
        for d in t.dims:
            if not isinstance(d, T.Extent) or d.bound.symbol is not None:
                raise ValueError("an array field of open extent")
            dims.append(d.bound.offset)
        return ("array", _sig_desc(t.elem, defs), tuple(dims))
    raise ValueError("no field descriptor for %r" % (t,))


def _flat(fields):
    """Field descriptors as (element, count) pairs: what fixes the payload bytes (a scalar is a count of 1)."""
    def elem(f):
        return ("struct", f[1], _flat(f[2])) if f[0] == "struct" else f
    out = []
    for f in fields:
        if f[0] == "array":
            n = 1
            for e in f[2]:
                n *= e
            out.append((elem(f[1]), n))
        else:
            out.append((elem(f), 1))
    return tuple(out)


def read_checkpoint(data, module=None):
    """cint.read_checkpoint (9.2 paragraph 4): a read-only view of a checkpoint's bytes.

    With ``module`` (a Module, or a Context of one), a global holding records of a struct of its program has
    them as tuples of field values; otherwise (or for a struct the module does not have) its value is a
    cint_abi.state.RawPayload, the payload bytes with ``struct``, ``count`` and the inferred ``record_size``."""
    structs = None
    if module is not None:
        if isinstance(module, Context):
            module = module._module
        if not isinstance(module, Module):
            raise TypeError("module= takes a cint.Module (or a Context), not %s" % type(module).__name__)
        structs = module._structs()
    return _read_checkpoint(data, structs)


def _fixed_name(t):
    """The format name of a typesig Fixed (storage bits, f): Q<i>.<f>."""
    return "Q%d.%d" % (t.storage_bits - t.f, t.f)


def _fixed_arg(v, t, pname):
    """The raw storage integer of a cint.Fixed of exactly the format of parameter t (8.5 P-21a), or Refused."""
    from ._values import Fixed
    fmt = _fixed_name(t)
    if isinstance(v, Fixed):
        if v.format != fmt:
            raise Refused("parameter %s is %s: the argument is a cint.Fixed of format %s; cint never converts "
                          "between formats (make a cint.Fixed(%r, ...))" % (pname, fmt, v.format, fmt),
                          parameter=pname)
        return v.raw
    if type(v) is bool or isinstance(v, int) or (_is_numpy(v) and hasattr(v, "dtype") and v.dtype.kind in "iu"):
        raise Refused("parameter %s is %s: a bare int is refused, since it could mean the raw storage or the value; "
                      "pass cint.Fixed(%r, value=...) or cint.Fixed(%r, raw=...)" % (pname, fmt, fmt, fmt),
                      parameter=pname)
    if isinstance(v, float) or (_is_numpy(v) and hasattr(v, "dtype") and v.dtype.kind == "f"):
        raise Refused("parameter %s is %s: it takes a cint.Fixed of format %s, not a float, which cint never "
                      "converts implicitly; convert it with cint.from_float(%r, %r) (rounding half to even; "
                      "rounding= names another mode)" % (pname, fmt, fmt, float(v), fmt), parameter=pname)
    raise Refused("parameter %s is %s: it takes a cint.Fixed of format %s, not %s; make one with "
                  "cint.Fixed(%r, value=...) or cint.from_float(x, %r)" % (
                      pname, fmt, fmt, type(v).__name__, fmt, fmt), parameter=pname)


_LIMBS = {}


def _limbs_ct(bits):
    """The ctypes structure of an I128..I1024 value: bits / 64 uint64_t limbs, least significant first."""
    ct = _LIMBS.get(bits)
    if ct is None:
        ct = _LIMBS[bits] = type("cint_i%d" % bits, (C.Structure,), {"_fields_": [("l", C.c_uint64 * (bits // 64))]})
    return ct


def _wide_arg(v, t, pname):
    """The limb structure of a Python int for parameter t of I128..I1024 (8.5 P-21), or Refused."""
    name = "I%d" % t.bits
    if type(v) is bool or not isinstance(v, int):
        what = "a bool" if type(v) is bool else "a %s" % type(v).__name__
        raise Refused("parameter %s is %s: it takes a Python int, not %s" % (pname, name, what), parameter=pname)
    v = _exact_int(v)
    lo, hi = -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
    if not lo <= v <= hi:
        raise Refused("parameter %s is %s: %d is outside %d..%d" % (pname, name, v, lo, hi), code="E_NARROW",
                      parameter=pname)
    return _to_limbs(int(v), t.bits)


def _to_limbs(v, bits):
    u = v & ((1 << bits) - 1)
    return _limbs_ct(bits)(l=(C.c_uint64 * (bits // 64))(*((u >> (64 * k)) & 0xFFFFFFFFFFFFFFFF
                                                             for k in range(bits // 64))))


def _from_limbs(res, bits):
    u = 0
    for k in range(bits // 64):
        u |= int(res.l[k]) << (64 * k)
    return u - (1 << bits) if u >> (bits - 1) else u


def _value(t, c):
    """The Python value of a C result c of scalar type t (8.5 P-24): an exact int at every width, a bool, or a
    cint.Fixed of the result's format."""
    if isinstance(t, T.Bool):
        return bool(c)
    if isinstance(t, T.Fixed):
        from ._values import Fixed, fixed_type
        return Fixed._of(fixed_type(_fixed_name(t)), int(c))
    if isinstance(t, T.Int) and t.bits > 64:
        return _from_limbs(c, t.bits)
    return int(c)


def _ctype(t, pname):
    if isinstance(t, T.Bool):
        return C.c_uint8
    if isinstance(t, T.Int):
        if t.bits > 64:
            return _limbs_ct(t.bits)
        return _INT_CT[(t.signed, t.bits)]
    if isinstance(t, T.Fixed):
        return _INT_CT[(True, t.storage_bits)]
    if isinstance(t, T.Array):
        return S.cint_view
    return None


class _Entry:
    """One export reached from a context: ctx.<name>(*args, fuel=..., **written)."""

    def __init__(self, ctx, row):
        self._ctx = ctx
        self.row = row
        self.name = row.name
        self.__name__ = row.name
        self.__doc__ = "%s %s: its type signature cannot be decoded (%s), so it cannot be called from Python" % (
            row.kind, row.name, row.error)
        if row.signature is None:
            self._why = "export %s has a type signature this package cannot decode (%s)" % (row.name, row.error)
            return
        sig = row.signature
        self.params = list(zip(row.parameters, sig.params))
        self.kernel = row.kind == "kernel"
        self._why = None
        self._info = EntryInfo(row.name, row.kind, self.params, list(row.size_names))
        docs = ctx._module.__dict__.setdefault("_docs", {})    # one docstring per export of the Module
        if row.name not in docs:
            docs[row.name] = _docstring(row)
        self.__doc__ = docs[row.name]
        argtypes = [C.c_void_p, C.c_int64]
        for pname, p in self.params:
            ct = _ctype(p.type, pname)
            if ct is None or (isinstance(p.type, T.Array) and isinstance(p.type.elem, T.StructRef)):
                # 8.1 paragraph 3: a struct (or an array of structs) is listed, and its call refused here
                what = "a struct" if isinstance(p.type, T.StructRef) else \
                    "an array of structs" if isinstance(p.type, T.Array) else \
                    "a fixed-point value (cint.Fixed)" if isinstance(p.type, T.Fixed) else \
                    "a wide integer" if isinstance(p.type, T.Int) else repr(p.type)
                self._why = "export %s: parameter %s is %s, which this slice of cint does not pass" % (
                    row.name, pname, what)
                return
            if isinstance(p.type, T.Int) and p.type.bits > 64:
                ct = C.POINTER(ct)      # I128..I1024 cross as a pointer to their limbs (7.3 A-13)
            argtypes.append(ct)
        self._result = None
        res = sig.result
        if res is not None:
            if isinstance(res, T.ErrorUnion):
                defn = res.defn if res.defn is not None else sig.definitions[res.set_index]
                tag_ct = _INT_CT[(defn.tag_type.signed, defn.tag_type.bits)]
                fields = [("tag", tag_ct)]
                if res.value is not None:
                    vct = _ctype(res.value, "result")
                    if vct is None or vct is S.cint_view:
                        self._why = "export %s: its result type is not in this slice" % row.name
                        return
                    fields.append(("value", vct))
                self._result = ("union", type("result", (C.Structure,), {"_fields_": fields}), defn, res.value)
            elif isinstance(res, T.ErrorSetRef):
                defn = res.defn if res.defn is not None else sig.definitions[res.index]
                self._result = ("set", _INT_CT[(defn.tag_type.signed, defn.tag_type.bits)], defn, None)
            else:
                ct = _ctype(res, "result")
                if ct is None or ct is S.cint_view:
                    self._why = "export %s: its result %s is not in this slice" % (
                        row.name, "(a struct)" if isinstance(res, T.StructRef) else "type %r" % res)
                    return
                kind = "bool" if isinstance(res, T.Bool) else \
                    "int" if isinstance(res, T.Int) and res.bits <= 64 else "value"     # value: Q, I128..I1024
                self._result = (kind, ct, None, res)
            argtypes.append(C.POINTER(self._result[1]))
        self._fn = C.CFUNCTYPE(C.c_int32, *argtypes)(row.address)

    def _written(self, p):
        return p.mode == "inout" or p.mode == "out"

    def __call__(self, *args, fuel=..., **kwargs):
        if self._why:
            raise NotImplementedError(self._why)
        ctx = self._ctx
        ctx._open(self.name)
        budget = ctx._fuel if fuel is ... else _check_budget(fuel, "fuel")
        # bind the arguments by name
        if len(args) > len(self.params):
            raise Refused("%s takes %d arguments, %d given" % (self.name, len(self.params), len(args)))
        values = {}
        for (pname, p), v in zip(self.params, args):
            if self._written(p) and isinstance(p.type, T.Array):
                raise Refused("%s: parameter %s is %s and may be written, so it is passed by name: %s=..." % (
                    self.name, pname, p.mode, pname), parameter=pname)
            values[pname] = v
        for k, v in kwargs.items():
            if k not in dict(self.params):
                raise Refused("%s has no parameter %r" % (self.name, k), parameter=k)
            if k in values:
                raise Refused("%s: parameter %s given twice" % (self.name, k), parameter=k)
            values[k] = v
        missing = [pname for pname, _ in self.params if pname not in values]
        if missing:
            raise Refused("%s: missing argument%s %s" % (self.name, "s" if len(missing) > 1 else "",
                                                          ", ".join(missing)), parameter=missing[0])
        # checks of a refused call, before any registration (P-20)
        plan = []
        temps = []
        hints = []
        try:
            for pname, p in self.params:
                v = values[pname]
                t = p.type
                if isinstance(t, T.Array):
                    elem = A.elem_name(t.elem)
                    if isinstance(v, (A.View, A.Buffer)):
                        arr = v
                    elif self._written(p):
                        raise Refused("%s: parameter %s is %s; pass a View (cint.borrow(a, writable=True%s)) or a "
                                      "Buffer, not a bare %s" % (self.name, pname, p.mode,
                                                                  ', publish="copy"' if self.kernel else "",
                                                                  type(v).__name__), parameter=pname)
                    elif isinstance(v, str):
                        raise Refused("%s: parameter %s is %s[...]: a str is refused; pass s.encode('utf-8')" % (
                            self.name, pname, elem), parameter=pname)
                    elif isinstance(v, (list, tuple, range)) or not (A._has_buffer(v) or hasattr(v, "__dlpack__")):
                        raise Refused("%s: parameter %s: a %s is not memory; use cint.copy(seq, elem=%r)" % (
                            self.name, pname, type(v).__name__, elem), parameter=pname)
                    else:
                        try:
                            arr = A.borrow(v)
                        except Refused as ex:
                            ex.parameter = pname
                            raise
                        temps.append(arr)
                    # an argument of another element type or rank is formed as it is, and the wrapper's entry
                    # check 3 faults bind.type (7.1 paragraph 11, H-12): the package never converts
                    written = self._written(p)
                    if written and isinstance(arr, A.View) and not arr.writable:
                        raise Refused("%s: parameter %s is %s, and the View is read-only; borrow it with "
                                      "writable=True%s" % (self.name, pname, p.mode,
                                                           ', publish="copy"' if self.kernel else ""),
                                      parameter=pname)
                    if arr.elem != elem or len(arr.shape) != len(t.dims):
                        hints.append((pname, elem, len(t.dims), arr.elem, len(arr.shape), isinstance(arr, A.Buffer),
                                      "" if not written else ", writable=True" + (', publish="copy"'
                                                                                  if self.kernel else "")))
                    plan.append(("array", arr, 1 if written else 0))
                else:
                    try:
                        plan.append(("scalar", _scalar(v, t, pname), None))
                    except Refused as ex:     # named as the array refusals are: "export: parameter ..."
                        ex.args = ("%s: %s" % (self.name, ex),)
                        raise
            if not ctx._lock.acquire(blocking=False):
                raise Busy("another call is running on this context")
            try:
                # what the runtime would refuse after the registrations of this call (a Bool byte other than 0
                # or 1, a changed DLPack tensor) is refused before any of them, so a refused call registers
                # nothing and leaves the state as it was (7.1 paragraph 3, H-12, P-20)
                for (kind, v, perm), (pname, _p) in zip(plan, self.params):
                    if kind == "array":
                        try:
                            v._precheck(ctx, perm)
                        except Refused as ex:
                            if ex.parameter is None:
                                ex.parameter = pname
                                ex.args = ("%s: parameter %s: %s" % (self.name, pname, ex),)
                            raise
                cargs = []
                for kind, v, perm in plan:
                    cargs.append(v._cview(ctx, perm) if kind == "array" else v)
                res = self._result[1]() if self._result else None
                st = self._fn(ctx._open(self.name), budget, *cargs, *((C.byref(res),) if res is not None else ()))
                ctx._last = (self.name, [n for n, _ in self.params])
                if st in (OK, FAULT):
                    for (kind, v, perm), (pname, p) in zip(plan, self.params):
                        if kind == "array" and perm and isinstance(v, A.Buffer) and (st == OK or not self.kernel):
                            v._published = True
                try:
                    return self._outcome(st, res, hints)
                except Fault as f:
                    self._work_index(f, {pname: v for (kind, v, _), (pname, _p) in zip(plan, self.params)
                                         if kind == "array"})
                    raise
            finally:
                ctx._lock.release()
                for kind, v, _ in plan:     # 8.3 P-14: the DLPack capsule of this entry is deleted as it ends
                    if kind == "array" and getattr(v, "_entry_dl", None) is not None:
                        v._entry_end()
        finally:
            for v in temps:
                v.release()

    def _c_outcome(self, st, raw):
        """_outcome for the C call path (cint._fastcall), with the result structure as bytes."""
        res = self._result[1].from_buffer_copy(raw[:C.sizeof(self._result[1])]) if self._result else None
        return self._outcome(st, res)

    def _outcome(self, st, res, hints=()):
        ctx = self._ctx
        if st == OK:
            if self._result is None:
                return None
            kind, _, defn, vt = self._result
            if kind == "int":
                return int(res.value)
            if kind == "bool":
                return bool(res.value)
            if kind == "value":     # a Q storage integer, or the limb structure of I128..I1024 itself
                return _value(vt, res if isinstance(res, C.Structure) else res.value)
            tag = res.tag if kind == "union" else res.value
            if tag:
                short = defn.qname.rsplit(".", 1)[-1]
                cls = ctx._module.error_sets.get(short)
                values = defn.values if isinstance(defn, T.ErrorSetDef) else None
                name = values[tag - 1] if values and 0 < tag <= len(values) else "tag %d" % tag
                if values is None:       # a combined set: the runtime names the member set and value
                    es, t = C.POINTER(S.cint_error_set)(), C.c_uint64()
                    ctx._module._dll.cint_ctx_error(ctx._h, C.byref(es), C.byref(t))
                    if es:
                        e = es.contents
                        name = C.string_at(e.values[t.value - 1]).decode("utf-8")
                raise cls(name, tag)
            if kind == "set":
                return None
            if vt is None:
                return None
            return _value(vt, res.value)
        if st == FAULT:
            f = ctx.fault()
            if f is not None:
                f._entry = self._info       # the message names parameters and sizes (the record is unchanged)
            if f is not None and f.operation == "bind.type" and hints and f.operands:
                f.hint = _bind_type_hint(self.params[f.operands[0]][0] if f.operands[0] < len(self.params) else None,
                                         hints)
            if f is not None:
                f.args = (f._text(),)
                ctx._note_fault(f)
            raise f
        if st == FAULTED:
            held = ctx.fault()
            raise Faulted(held, _nothing_ran(held))
        if st == BUSY:
            reason = ctx._reason()
            if reason == "CINT_REFUSAL_LEASED":
                raise Busy("%s: an output Buffer has a live export (a read-only numpy array of it); end the export "
                           "(del the array) first" % self.name, code="E_ALIAS")
            raise Busy("%s: another call is running on this context" % self.name)
        if st == REFUSED:
            reason = ctx._reason()
            written = [n for n, p in self.params if self._written(p) and isinstance(p.type, T.Array)]
            raise Refused(_refusal_text(self, reason), code=_REASON_CODE.get(reason, "E_UNSUPPORTED"), reason=reason,
                          parameter=written[0] if reason == "CINT_REFUSAL_PERMISSION" and len(written) == 1 else None)
        if st == RESOURCE:
            raise ResourceError("%s: the runtime had no room (CINT_RESOURCE); the context is Faulted until "
                                "clear_fault()" % self.name)
        raise Refused("%s: unknown status %d" % (self.name, st))

    def _work_index(self, f, arrays):
        """Sets f.work_index, the index tuple over the kernel's over shape, for a work-item fault of this kernel
        over two or more dimensions: the over clause names size symbols, whose values the arguments' shapes give
        (arrays: parameter name -> argument, anything with a shape)."""
        if not self.kernel or f.work_item is None or f.kernel is None:
            return
        over = self._ctx._module._over(f.kernel)
        if over is None or len(over) < 2 or not (f.kernel == self.name or f.kernel.endswith("." + self.name)):
            return
        sizes = {}
        for pname, p in self.params:
            v = arrays.get(pname)
            shape = getattr(v, "shape", None)
            dims = getattr(p.type, "dims", ())
            if shape is None or len(shape) != len(dims):
                continue
            for extent, d in zip(shape, dims):
                b = getattr(d, "bound", None)
                if b is None or b.symbol is None or b.symbol in sizes:
                    continue
                sizes[b.symbol] = int(extent) - b.offset + (d.lower - 1 if isinstance(d, T.Range) else 0)
        if any(s not in sizes or sizes[s] <= 0 for s in over):
            return
        flat, idx = f.work_item, []
        for s in reversed(over):
            idx.append(flat % sizes[s])
            flat //= sizes[s]
        if flat == 0:
            f.work_index = tuple(reversed(idx))
            f.args = (f._text(),)
            note = self._ctx.__dict__.get("_fault_note")
            if note is not None and note[0] == f.record:
                self._ctx._note_fault(f)

    def __repr__(self):
        return "<cint entry %s>" % self.name


class _OverCall:
    """The C call path of a kernel over two or more dimensions: a Fault it raises gets its work_index from the
    call's arguments (8.1 paragraph 7)."""

    def __init__(self, c, e):
        self._c, self._e, self.__doc__ = c, e, e.__doc__

    def __call__(self, *args, **kwargs):
        try:
            return self._c(*args, **kwargs)
        except Fault as f:
            arrays = dict(zip((n for n, _ in self._e.params), args))
            arrays.update(kwargs)
            self._e._work_index(f, arrays)
            raise

    def __getattr__(self, name):
        return getattr(self._c, name)

    def __repr__(self):
        return repr(self._e)


# what each runtime refusal reason says of an argument (7.1 paragraph 10), in the caller's terms
_REFUSAL_TEXT = {
    "CINT_REFUSAL_PERMISSION": "an array argument of a parameter the entry writes ({written}) is read-only memory; "
                               "borrow it with cint.borrow(a, writable=True{copy}), or pass a cint.Buffer",
    "CINT_REFUSAL_GENERATION": "a View or Buffer names a registration that has ended; borrow the memory again",
    "CINT_REFUSAL_BUFFER": "a View or Buffer names no registration of this context; borrow the memory again",
    "CINT_REFUSAL_EXTENT": "a View reaches outside the memory it was borrowed from",
    "CINT_REFUSAL_ALIGN": "an array argument starts at an address not aligned for its element type; pass cint.copy(a)",
    "CINT_REFUSAL_BOOL": "a Bool array holds a byte other than 0 or 1",
    "CINT_REFUSAL_TYPE": "an array argument's element type is not its registration's",
}


def _refusal_text(e, reason):
    written = [n for n, p in e.params if e._written(p) and isinstance(p.type, T.Array)]
    what = _REFUSAL_TEXT.get(reason)
    if what is None:
        return "%s: the runtime refused the call (%s); nothing ran" % (e.name, reason)
    return "%s: the runtime refused the call, and nothing ran: %s (%s)" % (
        e.name, what.format(written=", ".join(written) or "none", copy=', publish="copy"' if e.kernel else ""),
        reason)


def _type_text(t, sizes, defs=()):
    """A typesig type as cint source writes it."""
    if isinstance(t, T.Bool):
        return "Bool"
    if isinstance(t, T.Int):
        return ("I%d" if t.signed else "U%d") % t.bits
    if isinstance(t, T.Fixed):
        return _fixed_name(t)
    if isinstance(t, T.Array):
        from ._errors import _extent_text
        return "%s[%s]" % (_type_text(t.elem, sizes, defs), ", ".join(_extent_text(d, sizes) for d in t.dims))
    d = getattr(t, "defn", None)
    if d is None:
        k = getattr(t, "index", None)
        if k is None:
            k = getattr(t, "set_index", None)
        d = defs[k] if k is not None and k < len(defs) else None
    name = d.qname.rsplit(".", 1)[-1] if d is not None else "?"
    if isinstance(t, T.ErrorUnion):
        return "%s!%s" % (name, _type_text(t.value, sizes, defs)) if t.value is not None else name
    return name


def _cint_signature(row):
    sig = row.signature
    sizes = list(row.size_names)
    params = ", ".join("%s %s %s" % (p.mode, _type_text(p.type, sizes, sig.definitions), n) if p.mode != "in" or
                       isinstance(p.type, T.Array) else "%s %s" % (_type_text(p.type, sizes, sig.definitions), n)
                       for n, p in zip(row.parameters, sig.params))
    res = "void " if sig.result is None else _type_text(sig.result, sizes, sig.definitions) + " "
    head = "kernel " if row.kind == "kernel" else res
    return "%s%s%s(%s)" % (head, row.name, "[%s]" % ", ".join(sizes) if sizes else "", params)


def _split(row):
    """(positional, by name) parameter names of an export: an array it may write goes by name (8.1 paragraph 3)."""
    pos, named = [], []
    for n, p in zip(row.parameters, row.signature.params):
        (named if p.mode in ("out", "inout") and isinstance(p.type, T.Array) else pos).append(n)
    return pos, named


def _call_form(row):
    """The export as a Python call: name(positional, *, by-name)."""
    if row.signature is None:
        return "%s(?)" % row.name
    pos, named = _split(row)
    return "%s(%s)" % (row.name, ", ".join(pos + (["*"] + named if named else [])))


_EFFECT_TEXT = {"pure": "pure: it neither prints nor reaches a host function",
                "observe": "observe: it, or a function it calls, prints (an output effect, which a recording holds)",
                "unrestricted": "unrestricted: it reaches a host function that replay cannot repeat"}


def _docstring(row):
    """help(ctx.<export>): its cint signature, modes, the arguments that go by name, and its effect class."""
    sig = row.signature
    sizes = list(row.size_names)
    pos, named = _split(row)
    call = ", ".join(pos + ["*"] + ["%s=..." % n for n in named] + ["fuel=..."])
    lines = [_cint_signature(row), "", "Call: ctx.%s(%s)  (fuel= sets the budget of this one call)" % (row.name, call),
             ""]
    lines.append("%s %s, effect class %s." % ("A kernel" if row.kind == "kernel" else "A function", row.name,
                                               _EFFECT_TEXT.get(row.effect, row.effect)))
    if sizes:
        lines.append("Size symbols %s: taken from the extents of the array arguments, never passed." %
                     ", ".join(sizes))
    lines.append("")
    lines.append("Parameters:")
    for n, p in zip(row.parameters, sig.params):
        t = _type_text(p.type, sizes, sig.definitions)
        if isinstance(p.type, T.Array):
            if p.mode == "in":
                how = "positional or by name; a NumPy array (borrowed), a View or a Buffer, only read"
            elif row.kind == "kernel":
                how = ('by name (%s=...); a cint.Buffer (cint.empty), or cint.borrow(a, writable=True, '
                       'publish="copy"); published when the dispatch completes' % n)
            else:
                how = ("by name (%s=...); a writable View (cint.borrow(a, writable=True)) or a Buffer, written "
                       "in place" % n)
        else:
            how = "positional or by name; a Python %s" % ("bool" if isinstance(p.type, T.Bool) else
                                                          "cint.Fixed" if isinstance(p.type, T.Fixed) else "int")
        lines.append("  %s: %s %s -- %s" % (n, p.mode, t, how))
    if sig.result is not None:
        lines.append("Returns %s%s." % (_type_text(sig.result, sizes, sig.definitions),
                                         "; an error value raises the error set's cint.ErrorResult subclass"
                                         if isinstance(sig.result, (T.ErrorUnion, T.ErrorSetRef)) else ""))
    else:
        lines.append("Returns None.")
    lines.append("A fault raises cint.Fault; a refused argument raises cint.Refused, and nothing runs.")
    return "\n".join(lines)


def _np_types(kind, size):
    """The numpy scalar types of this kind ("i", "u", "b") and item size, which a scalar parameter takes
    (8.5 P-22); None while numpy is not imported (the Python path then judges numpy scalars)."""
    np = sys.modules.get("numpy")
    if np is None:
        return None
    if kind == "b":
        return (np.bool_,)
    out = []
    for t in np.sctypeDict.values():
        if isinstance(t, type) and issubclass(t, np.integer) and t not in out:
            d = np.dtype(t)
            if d.kind == kind and d.itemsize == size:
                out.append(t)
    return tuple(out)


def _int_plan(t):
    return int(t.signed), t.bits


def _caller(ctx, e):
    """The C call path of entry e (a cint._fastcall.Caller), or e where the C path does not apply
    (no extension, a library without cintx_invoke (a plain `cint build --lib` one: docs/runtime.md),
    a parameter or result kind it does not pass, an export it cannot decode)."""
    if _FC is None or e._why or not isinstance(ctx._lock, _FC.Gate):
        return e
    invoke = ctx._module._invoke
    if invoke is None:
        return e
    try:
        params = []
        for pname, p in e.params:
            t = p.type
            if isinstance(t, T.Bool):
                params.append((pname, 1, 0, 8, 0, 0, 0, _np_types("b", 1)))
            elif isinstance(t, T.Int) and t.bits in (8, 16, 32, 64):
                params.append((pname, 0, int(t.signed), t.bits, 0, 0, 0,
                               _np_types("i" if t.signed else "u", t.bits // 8)))
            elif isinstance(t, T.Array) and 1 <= len(t.dims) <= 4:
                elem = A.ELEMS.get(A.elem_name(t.elem))
                if elem is None:
                    return e
                params.append((pname, 2, 0, 0, 1 if e._written(p) else 0, elem[0], len(t.dims), None))
            else:
                return e
        result = None
        if e._result is not None:
            kind, ct, defn, vt = e._result
            if kind in ("int", "bool"):
                result = (1, 0, 0, 1, *_int_plan(vt), 0) if kind == "int" else (2, 0, 0, 2, 0, 8, 0)
            elif kind not in ("union", "set"):
                return e        # a Q or I128..I1024 result: through _Entry
            else:
                tag = (int(defn.tag_type.signed), defn.tag_type.bits)
                if vt is None:
                    val = (0, 0, 0, 0)
                elif isinstance(vt, T.Bool):
                    val = (2, 0, 8, ct.value.offset)
                elif isinstance(vt, T.Int) and vt.bits <= 64:
                    val = (1, *_int_plan(vt), ct.value.offset)
                else:
                    return e
                result = (3 if kind == "union" else 4, *tag, *val)
        dll = ctx._module._dll
        runtime = (C.cast(dll.cint_buffer_register_elements, C.c_void_p).value,
                   C.cast(dll.cint_buffer_release, C.c_void_p).value)
        np = sys.modules.get("numpy")
        last = (e.name, [n for n, _ in e.params])
        c = _FC.Caller(ctx, ctx._lock, e, e._c_outcome, last, (invoke, ctx._module._index[e.name]), ctx._fuel, e.kernel,
                       tuple(params), result, runtime, A.View, A.Buffer, np.ndarray if np is not None else None)
        if e.kernel and ctx._module._over_rank(e.name) > 1:
            return _OverCall(c, e)
        return c
    except (NotImplementedError, ValueError, TypeError, OverflowError, RuntimeError, AttributeError):
        return e


def _bind_type_hint(pname, hints):
    """What to do about the bind.type fault of parameter pname (the hints of the call: parameter, its element
    and rank, the argument's element and rank, whether it is a Buffer, the borrow options a written parameter
    needs); cint never converts, so the caller does."""
    for name, elem, rank, got, grank, is_buffer, opts in hints:
        if name != pname:
            continue
        head = "parameter %s is %s of rank %d; the argument holds %s of rank %d, and cint never converts: " % (
            name, elem, rank, got, grank)
        if got == elem:
            return head + "pass an array of rank %d (reshape it)" % rank
        if elem not in A.ELEMS:     # a Q format: memory of its storage type, borrowed as it
            storage = "I%d" % A.fixed_type(elem).bits
            if is_buffer:
                return head + "make the Buffer of %s: cint.empty(shape, %r), or cint.from_float(values, %r)" % (
                    elem, elem, elem)
            return head + "borrow %s memory (dtype %r, the storage type of %s) as %s with cint.borrow(a, elem=%r%s), " \
                          "or convert floats with cint.from_float(values, %r)" % (
                              storage, A._DTYPES[storage], elem, elem, elem, opts, elem)
        if is_buffer:
            return head + "make the Buffer of %s: cint.empty(shape, %r), or cint.copy(values, elem=%r)" % (
                elem, elem, elem)
        if opts:        # written: the caller reads the result from the converted array
            return head + "convert it first: b = a.astype(%r), pass cint.borrow(b%s) and read the result from b; " \
                          "or pass cint.empty(shape, %r)" % (A._DTYPES[elem], opts, elem)
        return head + "convert it first: a.astype(%r) for NumPy, or cint.copy(values, elem=%r) for a sequence " \
                      "of ints" % (A._DTYPES[elem], elem)
    return None


def _nothing_ran(held) -> bool:
    """Whether the held fault came before any code of its entry ran: an entry check (bind.*), or an
    admission, depth or fuel refusal in the entry phase with no call on the stack and no work item."""
    if held is None:
        return True
    if held.operation.startswith("bind."):
        return True
    if held.operation in ("dispatch.admit", "call.enter") and not held.stack and held.work_item is None:
        return True
    return False
