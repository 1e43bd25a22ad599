"""Read the reflection table of a loaded cint library (SPEC-03P.1 7.4) with the standard library only.

    from cint_abi.reflect import read_library
    lib = read_library("out/libtour.so")
    for e in lib.exports: print(e.name, e.kind, e.parameters, e.signature)

Every type signature is decoded with ``cint_abi.typesig`` (which rejects malformed bytes, A-24);
an export whose signature cannot be decoded is listed with ``signature=None`` and ``error`` set,
and is not callable (A-24: a host rejects a signature it does not know).
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import List, Optional

from . import structs as S
from .typesig import Signature, SignatureError, decode_signature

KINDS = {1: "function", 2: "kernel"}
EFFECTS = {1: "pure", 2: "observe", 3: "unrestricted"}


@dataclass
class Export:
    name: str
    kind: str
    effect: str
    size_names: List[str]
    parameters: List[str]
    signature_bytes: bytes
    signature: Optional[Signature]
    error: Optional[str] = None
    address: int = 0          # the wrapper's address in the loaded library


@dataclass
class RecordField:
    name: str
    code: int                 # the cint_type code of the field, or of its elements for an array field
    record_id: int            # for a struct field (code 0x71): its row of the record layout table
    offset: int
    count: int                # elements of an array field; 1 otherwise


@dataclass
class Record:
    """A row of the root module's record layout table (SPEC-03P.1 7.4 A-14, A-19): the index is the
    record_id a view of such records carries."""
    record_id: int
    name: str
    size: int
    align: int
    fields: List[RecordField] = field(default_factory=list)


@dataclass
class Module:
    path: str
    name: str
    exports: List[Export] = field(default_factory=list)
    records: List[Record] = field(default_factory=list)


@dataclass
class Library:
    abi: tuple
    modules: List[Module]

    @property
    def exports(self) -> List[Export]:
        return [e for m in self.modules for e in m.exports]


def _names(ptr, count) -> List[str]:
    return [S.text(ptr[k].bytes, ptr[k].len).decode("utf-8") for k in range(count)] if count else []


def read_library(path) -> Library:
    """Load ``path`` and read ``cint_library_desc``; raises OSError or ValueError for a non-cint library."""
    dll = ctypes.CDLL(str(path))
    try:
        desc = S.cint_library.in_dll(dll, "cint_library_desc")
    except ValueError as ex:
        raise ValueError("%s has no cint_library_desc: it is not a library that cint build --lib wrote" % path) from ex
    abi = (desc.abi >> 16, desc.abi & 0xFFFF)
    if abi[0] != 3:
        raise ValueError("%s was built for interface %d.%d; this reader knows 3.x" % (path, abi[0], abi[1]))
    mods = []
    for m in range(desc.module_count):
        t = desc.modules[m].contents
        info = t.info.contents
        prog = info.program.contents
        mod = prog.modules[t.module].contents
        entry = Module(S.text(mod.path, mod.path_len).decode("utf-8"), S.text(mod.name, mod.name_len).decode("utf-8"))
        for k in range(t.export_count):
            e = t.exports[k]
            raw = ctypes.string_at(e.type_signature, e.type_signature_len) if e.type_signature_len else b""
            sig, err = None, None
            try:
                sig = decode_signature(raw)
            except SignatureError as ex:
                err = str(ex)
            entry.exports.append(Export(
                S.text(e.name.bytes, e.name.len).decode("utf-8"), KINDS.get(e.kind, "unknown %d" % e.kind),
                EFFECTS.get(e.effect, "unknown %d" % e.effect), _names(e.size_names, e.size_count),
                _names(e.param_names, e.param_count), raw, sig, err,
                ctypes.cast(e.call, ctypes.c_void_p).value or 0))
        for r in range(info.record_count):
            lay = info.records[r]
            qn = S.text(t.record_names[r].bytes, t.record_names[r].len).decode("utf-8") if t.record_names else ""
            entry.records.append(Record(r, qn, lay.size, lay.align, [
                RecordField(S.text(f.name.bytes, f.name.len).decode("utf-8"), f.type.code, f.type.record_id, f.offset,
                            f.count) for f in (lay.fields[j] for j in range(lay.field_count))]))
        mods.append(entry)
    return Library(abi, mods)


def main(argv=None):
    """`python -m cint_abi.reflect LIB`: list a library's exports."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m cint_abi.reflect LIBRARY", file=sys.stderr)
        return 2
    lib = read_library(args[0])
    print("abi %d.%d, %d module%s" % (lib.abi[0], lib.abi[1], len(lib.modules), "" if len(lib.modules) == 1 else "s"))
    for m in lib.modules:
        print("module %s: %d exports" % (m.path, len(m.exports)))
        for e in m.exports:
            print("  %s: %s, effect %s, sizes [%s], parameters [%s], signature %d bytes%s" % (
                e.name, e.kind, e.effect, " ".join(e.size_names), " ".join(e.parameters), len(e.signature_bytes),
                "" if e.signature is not None else " (not callable: %s)" % e.error))
        for r in m.records:
            print("  record %d %s: size %d, align %d, fields [%s]" % (r.record_id, r.name, r.size, r.align, " ".join(
                "%s@%d:%02x%s" % (f.name, f.offset, f.code, "[%d]" % f.count if f.count != 1 else "") for f in r.fields)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
