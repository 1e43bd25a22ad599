"""The C header of a library (SPEC-03P.1 11.5): `cint build --lib` writes libNAME.h beside libNAME.so.

It declares what 7.3 and 10.1 have a host program declare by hand: one prototype per wrapper, with the
export's cint signature and effect class in a comment above it; the module descriptor ``cm_...`` of each
module; ``cint_library_desc``; and the C types its prototypes need (the limb structures of I128..I1024,
the result structure of each error union, the C structure of a struct result, with static_asserts of its
size and field offsets against the library's record layout table). Everything is read back from the
built library's reflection table and type signatures (cint_abi.reflect, cint_abi.typesig), so the header
says what the library holds. The header includes cint_rt.h and has an include guard.
"""
from __future__ import annotations

import re
from pathlib import Path

from cint_abi import typesig as T
from cint_abi.codes import TYPE_TAGS
from cint_abi.reflect import read_library
from cint_abi.symbols import module_symbol, wrapper_symbol

_TAG_C = {TYPE_TAGS["Bool"]: "uint8_t"}
for _n, _b in (("8", 8), ("16", 16), ("32", 32), ("64", 64)):
    _TAG_C[TYPE_TAGS["I" + _n]] = "int%d_t" % _b
    _TAG_C[TYPE_TAGS["U" + _n]] = "uint%d_t" % _b
for _b in (128, 256, 512, 1024):
    _TAG_C[TYPE_TAGS["I%d" % _b]] = "cint_i%d" % _b


def _cname(qname: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", qname)


class _Header:
    def __init__(self, lib):
        self.lib = lib
        self.types: list[str] = []          # typedefs, in the order first needed
        self.named: dict = {}
        self.wide = False
        self.records = {r.name: r for m in lib.modules for r in m.records}

    def defn(self, t):
        """The definition a StructRef, ErrorSetRef or ErrorUnion names, in the current signature."""
        if t.defn is not None:
            return t.defn
        idx = t.set_index if isinstance(t, T.ErrorUnion) else t.index
        return self.sig.definitions[idx]

    # -- cint text of a signature (for the comments) -------------------------------------------------
    def cint_type(self, t, sizes) -> str:
        if isinstance(t, T.Bool):
            return "Bool"
        if isinstance(t, T.Int):
            return ("I" if t.signed else "U") + str(t.bits)
        if isinstance(t, T.Fixed):
            return "Q%d.%d" % (t.storage_bits - t.f, t.f)
        if isinstance(t, T.Array):
            dims = []
            for d in t.dims:
                if isinstance(d, T.Any):
                    dims.append("_")
                else:
                    b = d.bound
                    text = (sizes[b.symbol] if b.symbol is not None else "") + (
                        ("%+d" % b.offset if b.symbol is not None else "%d" % b.offset) if b.offset or b.symbol is None
                        else "")
                    dims.append(text if isinstance(d, T.Extent) else "%d..=%s" % (d.lower, text))
            return "%s[%s]" % (self.cint_type(t.elem, sizes), ", ".join(dims))
        if isinstance(t, T.StructRef):
            return self.defn(t).qname
        if isinstance(t, T.ErrorSetRef):
            return self.defn(t).qname
        if isinstance(t, T.ErrorUnion):
            name = self.defn(t).qname
            return "%s!%s" % (name, "void" if t.value is None else self.cint_type(t.value, sizes))
        return "?"

    def comment(self, e) -> str:
        sig = e.signature
        sizes = e.size_names
        params = ", ".join("%s %s %s" % (p.mode, self.cint_type(p.type, sizes), n)
                           for p, n in zip(sig.params, e.parameters))
        res = "" if e.kind == "kernel" else ("void " if sig.result is None else self.cint_type(sig.result, sizes) + " ")
        return "/* export %s%s%s%s(%s); effect %s */" % ("kernel " if e.kind == "kernel" else "", res, e.name,
                                                          "[%s]" % ", ".join(sizes) if sizes else "", params, e.effect)

    # -- C types ---------------------------------------------------------------------------------------
    def scalar(self, t) -> str:
        if isinstance(t, T.Bool):
            return "uint8_t"
        if isinstance(t, T.Int):
            if t.bits > 64:
                self.wide = True
                return "cint_i%d" % t.bits
            return "%sint%d_t" % ("" if t.signed else "u", t.bits)
        if isinstance(t, T.Fixed):
            return "int%d_t" % t.storage_bits
        if isinstance(t, T.ErrorSetRef):
            return self.scalar(self.defn(t).tag_type)
        raise ValueError("no C scalar for %r" % (t,))

    def struct(self, d) -> str:
        """The C structure of the struct result ``d`` (a StructDef), checked against its record layout row."""
        name = "cint_h_" + _cname(d.qname)
        if name in self.named:
            return name
        rec = self.records.get(d.qname)
        if rec is None:
            raise ValueError("no record layout row for %s" % d.qname)
        lines, checks = [], []
        for (fname, width, ftype), rf in zip(d.fields, rec.fields):
            if width:
                raise ValueError("bit fields")
            if rf.code == TYPE_TAGS["Struct"]:
                sub = self.struct(self.defn(ftype if isinstance(ftype, T.StructRef) else ftype.elem))
                ct = sub
            elif rf.code in _TAG_C:
                ct = _TAG_C[rf.code]
                self.wide |= ct.startswith("cint_i")
            elif rf.code == TYPE_TAGS["Q"]:
                ft = ftype.elem if isinstance(ftype, T.Array) else ftype
                ct = "int%d_t" % ft.storage_bits
            else:
                raise ValueError("field %s of %s" % (fname, d.qname))
            lines.append("    %s %s%s;" % (ct, fname, "[%d]" % rf.count if isinstance(ftype, T.Array) else ""))
            checks.append("_Static_assert(offsetof(%s, %s) == %d, \"%s.%s\");" % (name, fname, rf.offset, d.qname,
                                                                                  fname))
        checks.append("_Static_assert(sizeof(%s) == %d, \"%s\");" % (name, rec.size, d.qname))
        self.types.append("typedef struct %s {\n%s\n} %s;\n%s" % (name, "\n".join(lines), name, "\n".join(checks)))
        self.named[name] = True
        return name

    def result(self, e, t) -> str:
        if isinstance(t, T.StructRef):
            if any(w for _, w, _ in self.defn(t).fields):
                return "uint8_t *result"           # a struct with bit fields crosses as its record's bytes (LS-84)
            return "%s *result" % self.struct(self.defn(t))
        if isinstance(t, T.ErrorUnion):
            d = self.defn(t)
            name = "cint_h_%s_result" % wrapper_symbol(self.lib_module(e), e.name)
            tag = self.scalar(d.tag_type)
            if t.value is None:
                body = "    %s tag;" % tag
            elif isinstance(t.value, T.StructRef):
                body = "    %s tag;\n    %s value;" % (tag, self.struct(self.defn(t.value)))
            else:
                body = "    %s tag;\n    %s value;" % (tag, self.scalar(t.value))
            self.types.append("typedef struct %s {   /* tag 0: success; else the error's tag in %s */\n%s\n} %s;" % (
                name, d.qname, body, name))
            return "%s *result" % name
        return "%s *result" % self.scalar(t)

    def lib_module(self, e):
        return self._module_of[e.name]

    def prototype(self, module, e) -> str:
        sig = e.signature
        params = ["cint_ctx *ctx", "int64_t fuel"]
        for p, n in zip(sig.params, e.parameters):
            t = p.type
            if isinstance(t, (T.Array, T.StructRef)):
                params.append("cint_view %s" % n)
            elif isinstance(t, T.Int) and t.bits > 64:
                params.append("const %s *%s" % (self.scalar(t), n))
            else:
                params.append("%s %s" % (self.scalar(t), n))
        if e.kind != "kernel" and sig.result is not None:
            params.append(self.result(e, sig.result))
        return "cint_status %s(%s);" % (wrapper_symbol(module.name, e.name), ", ".join(params))

    def text(self, guard: str) -> str:
        self._module_of = {e.name: m.name for m in self.lib.modules for e in m.exports}
        decls = []
        for m in self.lib.modules:
            decls.append("/* module %s (%s) */" % (m.name, m.path))
            decls.append("extern const cint_module_info %s;" % module_symbol(m.name))
            for e in m.exports:
                if e.signature is None:
                    decls.append("/* export %s: no C prototype (%s) */" % (e.name, e.error))
                    continue
                self.sig = e.signature
                decls.append(self.comment(e))
                decls.append(self.prototype(m, e))
            decls.append("")
        out = ["/* Generated by `cint build --lib` (SPEC-03P.1 11.5): the C interface of this library. */",
               "#ifndef %s" % guard, "#define %s" % guard, "", "#include <stddef.h>", "#include <stdint.h>",
               "#include \"cint_rt.h\"", ""]
        if self.wide:
            out += ["#if !defined(CINT_RT_WIDE_H) && !defined(CINT_HOST_WIDE_TYPES)",
                    "#define CINT_HOST_WIDE_TYPES   /* I128..I1024: uint64_t limbs, least significant first */",
                    "typedef struct cint_i128 { uint64_t l[2]; } cint_i128;",
                    "typedef struct cint_i256 { uint64_t l[4]; } cint_i256;",
                    "typedef struct cint_i512 { uint64_t l[8]; } cint_i512;",
                    "typedef struct cint_i1024 { uint64_t l[16]; } cint_i1024;", "#endif", ""]
        out += [t + "\n" for t in self.types]
        out += decls
        out += ["/* The library descriptor (7.4). */", "extern const cint_library cint_library_desc;", "",
                "#endif /* %s */" % guard]
        return "\n".join(out) + "\n"


def write_header(library) -> Path:
    """Write libNAME.h beside the library file ``library`` (a built libNAME.so) and return its path."""
    lib_path = Path(library)
    lib = read_library(lib_path.resolve())
    stem = lib_path.name[:-3] if lib_path.name.endswith(".so") else lib_path.stem
    guard = "CINT_%s_H" % _cname(stem).upper()
    text = _Header(lib).text(guard)   # the declarations are formed first, then the types they need go above them
    target = lib_path.with_name(stem + ".h")
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)
    return target
