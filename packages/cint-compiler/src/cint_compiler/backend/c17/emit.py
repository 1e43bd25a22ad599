"""The executor cpu-c17: C17 from the checked program (SIR), linked with the runtime of runtime-c.

``emit(compiled, harness=None)`` writes one translation unit: the program descriptor (site
tables, module variables, revision), one C function per cint function, one work-item body per
kernel, a wrapper ``cx_...`` per export (SPEC-03P.1 7.3), the module descriptor ``cm_...`` and the
reflection table ``cint_library_desc`` (7.4), and, for ``cint run/outcome --executor cpu``, a
harness ``main`` that runs one entry and prints its outcome.

Generated code follows the runtime's convention (runtime-c/include/cint_rt_gen.h): every
operation that can fault returns 0, or 1 after the runtime has written the fault record, and the
code then unwinds with ``goto fail``.  Checked arithmetic is that of cint_rt_ops.h
(``__builtin_*_overflow``; divisions and shifts test their operands first, IM-123 to IM-125).

A program of several modules is one translation unit: the program descriptor has one cint_module
(path, name, site table) per module, the root first, and every function positions its faults in its
own module (cint_position.module); functions and kernels of imported modules are emitted when reached.
Structs hold their array fields inline (value semantics by C assignment); an array field, a slice, a
partial index, transpose and reverse are cint_gen_array views of existing storage.

What this backend does not implement yet is refused at build time with C9102 naming the
construct (docs/status.md lists them); it never compiles a program to something that could differ
from the reference interpreter.
"""
from __future__ import annotations

from typing import Dict, List

from cint_abi.symbols import module_symbol, wrapper_symbol
from cint_compiler.semantics import opnames as O
from cint_compiler.semantics.operators import ARITH_OPS, CMP_OPS, SHIFT_OPS
from cint_compiler.backend.c17 import reduce as KRC
from cint_compiler.backend.c17 import containers as MC
from cint_compiler.backend.c17 import builtins as CB
from cint_compiler.backend.c17 import lir as lirc
from cint_compiler.lower import NotLowered, lower_checked

from cint_compiler.syntax import tree as A
from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.check.symbols import FuncInfo, bitfield_of, struct_layout, where_compared, where_constraints
from cint_compiler.diagnostics import CompileError
from cint_compiler.semantics.types import (BOOL, VOID, ArrayType, BoolType, EnumType, ErrorSetType, ErrorUnionType, IntType, StrType,
                    StructType, TupleType, Type, FixedType, U8, ArenaType, HandleType, PoolType)
from cint_compiler.semantics.values import EnumValue, ErrorValue
from cint_compiler.semantics.types import SymExtent
from cint_compiler.backend.c17.common import CSIZE, CT, Unsupported, c_str, int_lit, refuse, wide  # noqa: F401


def _flat_field(ft):
    """A record field's (element count, element type): an array field counts all its elements (A-14)."""
    count = 1
    if isinstance(ft, ArrayType):
        for x in ft.dims:
            count *= x
        ft = ft.elem
    return count, ft


def _frame_use(node) -> bool:
    """Whether a loop body may allocate frame-arena storage (a local array, an array literal, a call) and
    holds no value that could carry a view of it out of the iteration (an error union of an array)."""
    found = False
    for n in A.descendants(node):
        t = getattr(n, "ty", None)
        if isinstance(t, ErrorUnionType) and isinstance(t.value, ArrayType):
            return False
        if isinstance(n, A.VarDecl) and n.mode is None and isinstance(getattr(n, "resolved", None), ArrayType):
            found = True
        elif isinstance(n, A.ArrayLit) or (isinstance(n, A.Call) and getattr(n, "kind", None) == "func"):
            found = True
    return found


def _charged(d) -> bool:
    """Whether statement d declares a local array that the frame arena charges (SPEC-04 LS-110): not a
    view variable (a folded constant array is charged too; in a kernel nothing is: the caller checks)."""
    return isinstance(d, A.VarDecl) and d.mode is None and isinstance(getattr(d, "resolved", None), ArrayType)


def _charges(node) -> bool:
    """Whether a local array that the frame arena charges is declared anywhere in node (cached)."""
    v = getattr(node, "frame_charges", None)
    if v is None:
        v = any(_charged(n) for n in A.descendants(node))
        try:
            node.frame_charges = v
        except AttributeError:
            pass
    return v


def _holds_array(t) -> bool:
    if isinstance(t, ArrayType):
        return True
    if isinstance(t, ErrorUnionType):
        return _holds_array(t.value)
    if isinstance(t, TupleType):
        return any(_holds_array(x) for x in t.items)
    return False


def _lowered(info, kvariant):
    """The LIR of info after its passes, or None when it has a construct the LIR does not cover yet."""
    try:
        return lower_checked(info, kvariant=kvariant)
    except NotLowered:
        return None


class Emitter:
    def __init__(self, compiled):
        self.c = compiled
        self.p = compiled.program
        self.mod = compiled.program.module
        self.sites: Dict[tuple, int] = {}
        self.out: List[str] = []
        self.tmpn = 0
        self.structs: Dict[str, str] = {}
        self.struct_ids: Dict[str, int] = {}
        self.struct_types: Dict[str, StructType] = {}
        self.unions: Dict[tuple, str] = {}
        self.errsets: Dict[str, str] = {}
        self.globals_layout = {}
        self.gsize = 0
        self.modinfo = module_symbol(compiled.name)
        self.fast_kernels = {}
        # the modules of the program: the root first, then its imports (dependencies first)
        mods = [(compiled.path, compiled.name)]
        for m in getattr(compiled, "modules", None) or []:
            if m.path != compiled.path:
                mods.append((m.path, m.name))
        self.modules = mods
        self.mod_index = {path: k for k, (path, _) in enumerate(mods)}
        self.mod_by_name = {name: k for k, (_, name) in enumerate(mods)}
        self.msites: List[Dict[tuple, int]] = [dict() for _ in mods]
        self.sites = self.msites[0]
        self.cur_mod = 0
        self.emitted = {}            # id(FuncInfo) -> its C identifier
        self.has_mem = MC.has_memory(compiled)    # arenas and pools: views re-check their handles (containers_c)
        self.queue: List[FuncInfo] = []

    # ------------------------------------------------------------------ helpers

    def span_mod(self, span) -> int:
        k = self.mod_index.get(getattr(span, "path", None))
        return 0 if k is None else k

    def site(self, span) -> int:
        """The index of span in its module's site table; span must be in the module being emitted."""
        m = self.span_mod(span)
        if m != self.cur_mod:
            raise refuse(span, "an operation positioned in another module")
        sites = self.msites[m]
        key = (span.line, span.column)
        if key not in sites:
            sites[key] = len(sites)
        return sites[key]

    def ident(self, info) -> str:
        """The C identifier part of a function or kernel: its name, prefixed for an imported module."""
        k = self.mod_by_name.get(info.module, 0) if info.module else 0
        return info.decl.name if k == 0 else "m%d_%s" % (k, info.decl.name)

    def use(self, info) -> str:
        """The C identifier of a callee, queuing an imported module's function or kernel for emission."""
        key = id(info)
        if key not in self.emitted:
            self.emitted[key] = self.ident(info)
            self.queue.append(info)
        return self.emitted[key]

    def at(self, span) -> str:
        """A `const cint_gen_at *` for an operation at span (a step in a kernel)."""
        k = self.site(span)
        if self.fn_kind == "kernel":
            return "(at.pos.index = %du, at.step = step++, &at)" % k
        return "(at.pos.index = %du, &at)" % k

    def local_name(self, name) -> str:
        self.tmpn += 1
        return "v_%s_%d" % (name, self.tmpn)

    def tmp(self, ctype, lines, init=None):
        self.tmpn += 1
        name = "t%d" % self.tmpn
        if init is None:        # written later (an out pointer), zero first: no -Wmaybe-uninitialized
            init = "0" if ctype in CT.values() or ctype.endswith("*") or ctype == "int" else "{0}"
        lines.append("%s %s = %s; (void)%s;" % (ctype, name, init, name))
        return name

    def ctype(self, t: Type, span=None) -> str:
        if isinstance(t, IntType):
            if t.bits > 64:
                return "cint_i%d" % t.bits
            return CT[(t.signed, t.bits)]
        if isinstance(t, BoolType):
            return "uint8_t"
        if isinstance(t, EnumType):
            return self.ctype(t.underlying, span)
        if isinstance(t, ErrorSetType):
            return self.ctype(t.underlying, span)
        if isinstance(t, StructType):
            return self.struct_name(t, span)
        if isinstance(t, ArrayType):
            return "cint_gen_array"
        if isinstance(t, ErrorUnionType):
            return self.union_name(t, span)
        if isinstance(t, FixedType):
            return self.ctype(t.storage, span)
        if isinstance(t, TupleType):
            return self.tuple_name(t, span)
        if isinstance(t, StrType):
            # a Str value: a read-only rank-1 U8 view of its bytes (a literal's static storage); Str values
            # are immutable, so copying the view copies the value
            return "cint_gen_array"
        if isinstance(t, HandleType):
            return "cint_handle"
        if isinstance(t, (ArenaType, PoolType)):
            return "uint32_t"        # the container's row in the context (containers_c)
        raise refuse(span, "values of type %s" % t)

    def tuple_name(self, t: TupleType, span=None):
        """A tuple result (LS-98) is a C struct of its elements f0, f1, ...; an array element is a view of
        storage of its own (x_TupleExpr copies it)."""
        tn = self.__dict__.setdefault("tuples", {})
        if t.name() not in tn:
            fields = ["    %s f%d;" % (self.ctype(x, span), k) for k, x in enumerate(t.items)]
            name = "tp%d" % len(tn)
            self.typedefs.append("typedef struct %s {\n%s\n} %s;" % (name, "\n".join(fields), name))
            tn[t.name()] = name
        return tn[t.name()]

    # ------------------------------------------------------------------ wide integers (runtime-c/include/cint_rt_wide.h)

    @staticmethod
    def limbs(t, x):
        """The limbs of the C lvalue x of integer type t: a wide value's array, or one limb holding an I8..U64
        value converted to uint64_t."""
        return "%s.l" % x if wide(t) else "(const uint64_t[1]){(uint64_t)%s}" % x

    def wout(self, t, lines):
        """(value, limbs): a temporary that receives a result of integer type t in the limb convention."""
        if wide(t):
            r = self.tmp(self.ctype(t), lines)
            return r, "%s.l" % r
        r = self.tmp("uint64_t", lines, "0")
        return "cintg_wrap_%s(%s)" % (t.token, r), "&%s" % r

    def wconvert(self, form, src, dst, v, span, lines):
        """`as`, `as%`, `as|` between integer types when one of them is wide."""
        x = self.tmp(self.ctype(src), lines, v)
        out, rl = self.wout(dst, lines)
        lines.append("if (cint_w_convert(ctx, %s, %s, %s, %s, %s, %s)) goto fail;" % (
            self.at(span), form, self.tag(src), self.limbs(src, x), self.tag(dst), rl))
        return out

    # ------------------------------------------------------------------ fixed point (SPEC-01 IM-54 to IM-69)

    def qcheck(self, span):
        """Fixed point is taken everywhere, kernels included (step ordinals as for integer operations)."""

    @staticmethod
    def qdesc(t):
        """The (tag, f) pair of a typed value in a fault record: f is -1 for an integer type."""
        if isinstance(t, FixedType):
            return "CINT_TAG_%s" % t.storage.name(), t.f
        return "CINT_TAG_%s" % t.name(), -1

    @staticmethod
    def qrange(t):
        st = t.storage if isinstance(t, FixedType) else t
        return "(cintg_i128)%s" % int_lit(st, st.min), "(cintg_i128)%s" % int_lit(st, st.max)

    def qfin(self, code, op, nops, ot, a, b, rt, form, v, span, lines):
        """The exact (rounded) i128 value v checked, wrapped or saturated to rt; a C value of rt."""
        otag, of = self.qdesc(ot)
        rtag, rf = self.qdesc(rt)
        lo, hi = self.qrange(rt)
        r = self.tmp("uint64_t", lines, "0")
        lines.append("if (cintg_qfin(ctx, %s, %s, \"%s\", %du, %s, %d, (uint64_t)%s, (uint64_t)%s, %s, %d, %s, %s, %d, "
                     "%s, &%s)) goto fail;" % (self.at(span), code, op, nops, otag, of, a, b, rtag, rf, lo, hi,
                                               {"checked": 0, "wrap": 1, "sat": 2}[form], v, r))
        st = rt.storage if isinstance(rt, FixedType) else rt
        return "cintg_wrap_%s(%s)" % (st.token, r)

    def qmul(self, t, form, mode, a, b, span, lines):
        from cint_compiler.semantics.types import ROUND_MODES
        op = O.op("mul", form, t, mode=mode)
        v = "cintg_qrdiv((cintg_i128)%s * (cintg_i128)%s, (cintg_i128)1 << %d, %d)" % (a, b, t.f, ROUND_MODES.index(mode))
        return self.qfin("CINT_E_OVERFLOW", op, 2, t, a, b, t, form, v, span, lines)

    def qdiv(self, t, mode, a, b, span, lines):
        from cint_compiler.semantics.types import ROUND_MODES
        op = O.op("div", "checked", t, mode=mode)
        tag, f = self.qdesc(t)
        lines.append("if (%s == 0) { (void)cintg_qfault(ctx, %s, CINT_E_DIV_ZERO, \"%s\", 2u, %s, %d, (uint64_t)%s, "
                     "(uint64_t)%s, 0, 0, %s, %d, 0u); goto fail; }" % (b, self.at_nostep(span), op, tag, f, a, b, tag, f))
        v = "cintg_qrdiv((cintg_i128)%s * ((cintg_i128)1 << %d), (cintg_i128)%s, %d)" % (a, t.f, b, ROUND_MODES.index(mode))
        return self.qfin("CINT_E_OVERFLOW", op, 2, t, a, b, t, "checked", v, span, lines)

    def qsqrt(self, t, form, mode, a, span, lines):
        from cint_compiler.semantics.types import ROUND_MODES
        op = O.op("sqrt", form, t, mode=mode)
        tag, f = self.qdesc(t)
        lines.append("if (%s < 0) { (void)cintg_qfault(ctx, %s, CINT_E_DOMAIN, \"%s\", 1u, %s, %d, (uint64_t)%s, "
                     "0u, 0, 0, %s, %d, 0u); goto fail; }" % (a, self.at_nostep(span), op, tag, f, a, tag, f))
        v = "cintg_qsqrt((cintg_u128)%s << %d, %d)" % (a, t.f, ROUND_MODES.index(mode))
        return self.qfin("CINT_E_OVERFLOW", op, 1, t, a, "0", t, form, v, span, lines)

    def tag(self, t: Type) -> str:
        if isinstance(t, IntType):
            return "CINT_TAG_%s" % t.name()
        if isinstance(t, BoolType):
            return "CINT_TAG_BOOL"
        if isinstance(t, (EnumType, ErrorSetType)):
            return self.tag(t.underlying)
        if isinstance(t, HandleType):
            return "CINT_TAG_HANDLE"
        raise refuse(None, "the type %s in a fault record" % t)

    def struct_name(self, t: StructType, span=None):
        if t.qname not in self.structs:
            name = "s_%s" % t.qname.replace(".", "_")
            self.structs[t.qname] = name
            self.struct_types[t.qname] = t
            self.struct_ids[t.qname] = len(self.struct_ids)    # its row of the record layout table (A-19)
            fields = []
            for fname, ft, bits in t.fields:
                if isinstance(ft, ArrayType):
                    if any(not isinstance(x, int) for x in ft.dims):
                        raise refuse(span, "an array field of a struct with a computed extent")
                    n = 1
                    for x in ft.dims:
                        n *= x
                    self.elem_type(ft.elem, span)
                    fields.append("    %s f_%s[%d];" % (self.ctype(ft.elem, span), fname, max(n, 1)))
                    continue
                fields.append("    %s f_%s;" % (self.ctype(ft, span), fname))
            self.typedefs.append("typedef struct %s {\n%s\n} %s;" % (name, "\n".join(fields) or "    uint8_t unused_;",
                                                                     name))
        return self.structs[t.qname]

    def union_name(self, t: ErrorUnionType, span=None):
        key = (t.errset.qname, t.value.name())
        if key not in self.unions:
            name = "u%d" % len(self.unions)
            self.unions[key] = name
            tagt = self.ctype(t.errset.underlying, span)
            if t.value is VOID:
                body = "    %s tag;" % tagt
            else:
                body = "    %s tag;\n    %s value;" % (tagt, self.ctype(t.value, span))
            self.typedefs.append("typedef struct %s {\n%s\n} %s;" % (name, body, name))
        return self.unions[key]

    def errset_desc(self, es: ErrorSetType) -> str:
        if es.qname not in self.errsets:
            name = "ES%d" % len(self.errsets)
            self.errsets[es.qname] = name
            vals = [v[1] for v in es.values]
            self.descs.append("static const char *const %s_v[] = {%s};" % (name, ", ".join(
                c_str(v.encode()) for v in vals) or "NULL"))
            self.descs.append("static const uint32_t %s_l[] = {%s};" % (name, ", ".join(
                "%du" % len(v) for v in vals) or "0u"))
            self.descs.append("static const cint_error_set %s = {%s, %du, %du, %s_v, %s_l, %s, 0u};" % (
                name, c_str(es.qname.encode()), len(es.qname), len(vals), name, name, self.tag(es.underlying)))
        return self.errsets[es.qname]

    # ------------------------------------------------------------------ program

    def emit(self, harness=None) -> str:
        self.typedefs: List[str] = []
        self.descs: List[str] = []
        self.protos: List[str] = []
        self.bodies: List[str] = []
        self.wrappers: List[str] = []
        self.wrapper_cparams: Dict[str, List[str]] = {}   # wrapper symbol -> its parameters after fuel
        self.fn_kind = "func"
        self.layout_globals()
        for name, info in self.p.functions.items():
            self.use(info)
        for name, info in self.p.kernels.items():
            self.use(info)
        self.drain()
        self.exports(lenient=harness is not None)
        if harness is not None:
            self.harness(*harness)
        self.drain()
        head = ["/* Generated by cint_compiler.backend_c (executor cpu-c17) from %s. Do not edit. */" % self.c.path,
                "#include \"cint_rt_ops.h\"", "#include \"cint_rt_fmt.h\"", ""]
        prog = self.program_desc()
        checks = [c for c in self.__dict__.get("layout_checks", {}).values() if c]
        return "\n".join(head + self.typedefs + checks + [""] + prog + self.descs + [""] + self.protos + [""] +
                         self.bodies + self.wrappers) + "\n"

    def drain(self):
        """Emits every queued function and kernel (those of imported modules as they are reached)."""
        while self.queue or self.__dict__.get("kqueue"):
            kv = not self.queue
            info = self.kqueue.pop(0) if kv else self.queue.pop(0)
            saved = self.cur_mod
            self.cur_mod = self.mod_by_name.get(info.module, 0) if info.module else 0
            if info.is_kernel:
                self.kernel(info)
            else:
                self.function(info, kvariant=kv)
            self.cur_mod = saved

    def layout_globals(self):
        off = 0
        for g in self.p.globals:
            t = g.type
            if isinstance(t, ArrayType):
                # a header (U64 rank, I64 extents) that the canonical state reads (state.c global_desc), then
                # the elements row-major; each function reads it through a view (gview)
                et = t.elem
                if not (isinstance(et, (BoolType, EnumType, ErrorSetType, IntType, StructType, FixedType,
                                        HandleType))):
                    raise refuse(g.span, "a module-level array of %s" % et)
                # a struct with bit fields: its records lie in their C layout (each field whole), which a
                # storage row of the record layout table describes for state.c (storage_row)
                es = self.c_layout(et, g.span)[0]
                n = 1
                for x in t.dims:
                    n *= x
                hdr = 8 * (t.rank + 1)
                if isinstance(et, StructType):
                    # then the canonical head (state.c global_desc): U64 length, the bytes, padded to 8
                    hdr += 8 + (len(self.gstruct_head(t)) + 7) // 8 * 8
                size = hdr + n * es
                off = (off + 7) // 8 * 8
                self.globals_layout[g] = (off, "array", size)
                self.__dict__.setdefault("gdata", {})[g] = off + hdr
                off += size
                continue
            if isinstance(t, StructType):
                # a record: its canonical head (state.c global_desc: U64 length, 0x71 and the qualified name,
                # padded to 8), then the record in its C layout.  A struct with bit fields has the layout of
                # LS-73..LS-82 in its record layout row, not its C struct's: GINFO names its storage row
                hdr = 8 + (len(self.gstruct_head(t)) + 7) // 8 * 8
                size = hdr + self.c_layout(t, g.span)[0]
                off = (off + 7) // 8 * 8
                self.globals_layout[g] = (off, "struct", size)
                self.__dict__.setdefault("gdata", {})[g] = off + hdr
                off += size
                continue
            ct = self.ctype(t, g.span)
            size = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
                    "int64_t": 8, "uint64_t": 8}.get(ct)
            if wide(t):
                size = t.bits // 8
            if isinstance(t, HandleType):
                size = 32            # cint_handle; state.c writes its first 29 bytes (tag 0x81)
            if size is None:
                raise refuse(g.span, "a module-level variable of type %s" % t)
            off = (off + min(size, 8) - 1) // min(size, 8) * min(size, 8)
            self.globals_layout[g] = (off, ct, size)
            off += size
        if self.has_mem:
            off = MC.layout_heads(self, off)
        self.gsize = (off + 7) // 8 * 8

    def c_layout(self, t, span=None, offsets=None):
        """(size, alignment) of the C type of t as the C compiler lays it out (LP64: each scalar aligned to
        its size, a limb structure to 8, a struct's fields in order); offsets, when given, receives a
        struct's field offsets. The emitted C checks the sizes and offsets it relies on (_Static_assert)."""
        if isinstance(t, (EnumType, ErrorSetType)):
            return self.c_layout(t.underlying, span)
        if isinstance(t, FixedType):
            return self.c_layout(t.storage, span)
        if isinstance(t, BoolType):
            return 1, 1
        if isinstance(t, IntType):
            return (t.bits // 8, 8) if t.bits > 64 else (t.bits // 8, t.bits // 8)
        if isinstance(t, HandleType):
            return 32, 8             # cint_handle
        if isinstance(t, StructType):
            name = self.struct_name(t, span)
            size, align = 0, 1
            for fname, ft, bits in t.fields:
                n = 1
                if isinstance(ft, ArrayType):
                    for x in ft.dims:
                        n *= x
                    n = max(n, 1)
                    ft = ft.elem
                fs, fa = self.c_layout(ft, span)
                size = (size + fa - 1) // fa * fa
                if offsets is not None:
                    offsets[fname] = size
                size += fs * n
                align = max(align, fa)
            if not t.fields:
                size = 1
            size = (size + align - 1) // align * align
            checks = self.__dict__.setdefault("layout_checks", {})
            if name not in checks:
                offs = {}
                checks[name] = None
                self.c_layout(t, span, offs)
                checks[name] = "_Static_assert(sizeof(%s) == %d%s, \"the C layout of %s\");" % (
                    name, size, "".join(" && offsetof(%s, f_%s) == %d" % (name, f, o) for f, o in offs.items()), name)
            return size, align
        raise refuse(span, "a module-level array of %s" % t)

    def packable(self, t) -> bool:
        """Whether values of t have a C layout that c_pack writes (Bool, integers, enums, error sets, Q, and
        structs of those with array fields of them)."""
        if isinstance(t, (BoolType, IntType, EnumType, ErrorSetType, FixedType)):
            return True
        if isinstance(t, StructType):
            return all(self.packable(ft.elem if isinstance(ft, ArrayType) else ft) for _, ft, _ in t.fields)
        return False

    def c_pack(self, t, v, span=None) -> bytes:
        """The bytes of value v of type t in its C layout (c_layout), padding zero."""
        size = self.c_layout(t, span)[0]
        if isinstance(t, StructType):
            out = bytearray(size)
            offs = {}
            self.c_layout(t, span, offs)
            for fname, ft, bits in t.fields:
                fv = v.fields.get(fname) if v is not None else None
                if isinstance(ft, ArrayType):
                    es = self.c_layout(ft.elem, span)[0]
                    items = list(fv.elements()) if fv is not None else []
                    for k, x in enumerate(items):
                        out[offs[fname] + k * es:offs[fname] + (k + 1) * es] = self.c_pack(ft.elem, x, span)
                    continue
                b = self.c_pack(ft, fv, span)
                out[offs[fname]:offs[fname] + len(b)] = b
            return bytes(out)
        if isinstance(v, ErrorValue):
            v = t.tag_of((v.set, v.name)) or 0
        elif isinstance(v, EnumValue):
            v = v.value
        v = int(v or 0)
        return (v % (1 << (8 * size))).to_bytes(size, "little")

    def gstruct_head(self, t) -> bytes:
        """The canonical head (IM-146) of a module-level array of records: 0x51, 0x71, the struct's
        qualified name, rank, extents (cint_abi.encoding.encode_desc); of a module-level struct: 0x71 and
        its qualified name."""
        if isinstance(t, StructType):
            qn = t.qname.encode("utf-8")
            return bytes([0x71]) + len(qn).to_bytes(4, "little") + qn
        qn = t.elem.qname.encode("utf-8")
        return (bytes([0x51, 0x71]) + len(qn).to_bytes(4, "little") + qn + bytes([t.rank]) +
                b"".join(x.to_bytes(8, "little") for x in t.dims))

    def program_desc(self):
        lines = []
        for k, (mpath, mname) in enumerate(self.modules):
            path = mpath.encode()
            name = mname.encode()
            sites = sorted(self.msites[k].items(), key=lambda kv: kv[1])
            sfx = "" if k == 0 else str(k)
            lines.append("static const cint_site_info SITES%s[] = {%s};" % (sfx,
                ", ".join("{%du, %du}" % key for key, _ in sites) or "{0u, 0u}"))
            lines.append("static const cint_module MOD%d = {%s, %du, %du, SITES%s, %s, %du, 0u};" % (
                k, c_str(path), len(path), len(sites), sfx, c_str(name), len(name)))
        lines.append("static const cint_module *const MODS[] = {%s};" % ", ".join(
            "&MOD%d" % k for k in range(len(self.modules))))
        init = bytearray(self.gsize)
        ginfo = []
        for g, (off, ct, size) in self.globals_layout.items():
            if ct == "array":
                t = g.type
                hdr = t.rank.to_bytes(8, "little") + b"".join(x.to_bytes(8, "little") for x in t.dims)
                if isinstance(t.elem, StructType):
                    head = self.gstruct_head(t)
                    hdr += len(head).to_bytes(8, "little") + head + bytes(-len(head) % 8)
                init[off:off + len(hdr)] = hdr
                es = self.c_layout(t.elem)[0]
                if g.value is not NOTCONST:
                    for k, x in enumerate(g.value.elements()):
                        init[off + len(hdr) + k * es:off + len(hdr) + (k + 1) * es] = self.c_pack(t.elem, x, g.span)
                qn = ("%s.%s" % (g.module or self.c.name, g.name)).encode()
                if isinstance(t.elem, StructType):
                    et = "CINT_TAG_STRUCT, 0u, 0u, 0u, %du, 0u" % self.storage_row(t.elem)
                elif isinstance(t.elem, FixedType):
                    # Q elements: the storage tag in reserved0, the fraction bits in frac (cint_rt.h)
                    et = "CINT_TAG_Q, CINT_TAG_%s, %du, 0u, 0u, 0u" % (t.elem.storage.name(), t.elem.f)
                else:
                    et = "%s, 0u, 0u, 0u, 0u, 0u" % self.tag(t.elem)
                ginfo.append("{{%s, %du, 0u}, {CINT_TAG_ARRAY, %s}, %du, %du}" % (c_str(qn), len(qn), et, off, size))
                continue
            if ct == "struct":
                head = self.gstruct_head(g.type)
                hdr = len(head).to_bytes(8, "little") + head + bytes(-len(head) % 8)
                init[off:off + len(hdr)] = hdr
                if g.value is not NOTCONST:
                    b = self.c_pack(g.type, g.value, g.span)
                    init[off + len(hdr):off + len(hdr) + len(b)] = b
                qn = ("%s.%s" % (g.module or self.c.name, g.name)).encode()
                ginfo.append("{{%s, %du, 0u}, {CINT_TAG_STRUCT, 0u, 0u, 0u, 0u, %du, 0u}, %du, %du}" % (
                    c_str(qn), len(qn), self.storage_row(g.type), off, size))
                continue
            v = g.value if g.value is not NOTCONST else 0
            if isinstance(g.type, HandleType):
                v = 0                # the null handle (a module handle has no constant initializer)
            if isinstance(v, bool):
                v = int(v)
            if isinstance(v, EnumValue):
                v = v.value
            elif isinstance(v, ErrorValue):
                v = g.type.tag_of((v.set, v.name))
            init[off:off + size] = (v % (1 << (8 * size))).to_bytes(size, "little")
            qn = ("%s.%s" % (g.module or self.c.name, g.name)).encode()
            ty = ("%s, 0u, 0u, 0u, 0u, 0u, 0u" % self.tag(g.type) if not isinstance(g.type, FixedType) else
                  "CINT_TAG_Q, CINT_TAG_%s, 0u, %du, 0u, 0u, 0u" % (g.type.storage.name(), g.type.f))
            ginfo.append("{{%s, %du, 0u}, {%s}, %du, %du}" % (c_str(qn), len(qn), ty, off, size))
        for hoff, hb in self.__dict__.get("container_head_bytes", {}).items():
            init[hoff:hoff + len(hb)] = hb
        ccount, ctable = MC.container_table(self, lines)
        if self.gsize:
            lines.append("static const uint8_t GINIT[%d] = {%s};" % (self.gsize, ", ".join(str(b) for b in init)))
            if ginfo:
                lines.append("static const cint_global_info GINFO[] = {%s};" % ", ".join(ginfo))
        vsets = self.value_sets(lines)
        rev = ", ".join("0x%02x" % b for b in self.c.revision)
        lines.append("static const cint_program PROGRAM = {sizeof(cint_program), CINT_ABI_VERSION, %du, "
                     "CINT_PROGRAM_HAS_REVISION, MODS, {%s}, {0}, %du, 8u, %s, %du, %du, %s, %s, "
                     "CINT_BACKEND_CPU_C17, %du, %s};" % (
                         len(self.modules), rev, self.gsize, "GINIT" if self.gsize else "NULL", len(ginfo), ccount,
                         "GINFO" if ginfo else "NULL", ctable, vsets, "VSETS" if vsets else "NULL"))
        sym = module_symbol(self.c.name)
        lines += self.record_table()
        lines.append("CINT_EXPORT const cint_module_info %s = {sizeof(cint_module_info), CINT_ABI_VERSION, &PROGRAM, "
                     "0u, %du, %s};" % (sym, len(self.struct_ids) + len(self.__dict__.get("storage_ids", {})),
                                        "RECORDS" if self.struct_ids else "NULL"))
        self.modinfo = sym
        return lines

    def value_sets(self, lines) -> int:
        """The program's value-set table VSETS (cint_rt.h cint_value_set), appended to lines: for each row
        of the globals table (in GINFO order) and each field row of the record layout table whose type, or
        element type, is an enum or an error set, the values it may hold (LS-91, LS-314), so a restore
        refuses any other (H-19a). Returns the number of entries."""
        def entry(t):
            t = t.elem if isinstance(t, ArrayType) else t
            if isinstance(t, EnumType):
                w = t.underlying.bits // 8
                vals = sorted((v % (1 << (8 * w))).to_bytes(w, "little") for v in t.members.values())
                return "CINT_VALUES_ENUM", w, len(vals), b"".join(vals)
            if isinstance(t, ErrorSetType):
                return "CINT_VALUES_ERROR_SET", t.underlying.bits // 8, len(t.values), None
            return None

        rows = []
        srows = list(self.struct_ids.items()) + list(self.__dict__.get("storage_ids", {}).items())
        for qn, rid in sorted(srows, key=lambda kv: kv[1]):
            for f, (_, ft, _) in enumerate(self.struct_types[qn].fields):
                e = entry(ft)
                if e is not None:
                    rows.append(("%du" % rid, f, e))
        for k, info in enumerate(getattr(self.p, "containers", ())):   # a container's scalar elements
            e = entry(info.elem)
            if e is not None:
                rows.append(("CINT_VALUES_CONTAINERS", k, e))
        for k, g in enumerate(self.globals_layout):
            e = entry(g.type)
            if e is not None:
                rows.append(("CINT_VALUES_GLOBALS", k, e))
        out = []
        for k, (rec, row, (kind, w, count, data)) in enumerate(rows):
            vals = "NULL"
            if data is not None:
                lines.append("static const uint8_t VSV%d[] = {%s};" % (k, ", ".join(str(b) for b in data)))
                vals = "VSV%d" % k
            out.append("{%s, %du, %s, %du, %du, %s}" % (rec, row, kind, w, count, vals))
        if out:
            lines.append("static const cint_value_set VSETS[] = {%s};" % ", ".join(out))
        return len(out)

    def boundary_record(self, t: StructType, span, seen=()):
        """A struct that crosses the export boundary in host memory (7.3 A-13): every field is Bool,
        an integer, Q<i>.<f>, a struct of the same kind or an array of those; an enum or error-set field
        (whose bytes the entry would have to check as values) is refused with C9102."""
        self.struct_name(t, span)
        if t.qname in seen:
            return
        for fname, ft, bits in t.fields:
            et = ft.elem if isinstance(ft, ArrayType) else ft
            if isinstance(et, StructType):
                self.boundary_record(et, span, seen + (t.qname,))
            elif not isinstance(et, (IntType, BoolType, FixedType)):
                # SPEC-03P.1 A-13 checks only Bool bytes at entry: an enum or error-set field would let a
                # host pass a value that is no member of its type (LS-91, LS-314)
                raise refuse(span, "the field %s.%s of type %s at the export boundary (SPEC-03P.1 7.3 A-13 "
                                   "defines no entry check of its values: only Bool, integer, Q, bit-field and "
                                   "struct fields cross; pass its underlying integer in an integer field)"
                             % (t.name(), fname, et))

    def bf_codec(self, t: StructType, span=None):
        """(unpack, pack) C functions between the record of a struct holding bit fields as it lies in host
        memory (its record layout row: LS-73 to LS-82, each bit field in its storage unit from the least
        significant bit, a signed one sign-extended; LS-84: raw storage units, never C bit fields) and the
        emitted C struct, which keeps each field whole. Packing writes unused unit bits and padding 0."""
        codecs = self.__dict__.setdefault("bf_codecs", {})
        if t.qname in codecs:
            return codecs[t.qname]
        cname = self.struct_name(t, span)
        k = len(codecs)
        codecs[t.qname] = ("bfu%d_" % k, "bfp%d_" % k)
        size, _, offs = struct_layout(t)
        un, pk = ["    (void)d; (void)p;"], ["    (void)d; memset(p, 0, %du);" % size]
        prev = None          # (type, offset, bit position, width) of the previous bit field
        for fname, ft, bits in t.fields:
            off = offs[fname]
            if bits:
                pos = prev[2] + prev[3] if prev is not None and prev[0] == ft and prev[1] == off else 0
                prev = (ft, off, pos, bits)
                ub = 8 if isinstance(ft, BoolType) else ft.bits
                ut = CT[(False, ub)]
                mask = "UINT64_C(0x%x)" % ((1 << bits) - 1)
                un.append("    { %s u; memcpy(&u, p + %d, sizeof u); uint64_t v = ((uint64_t)u >> %d) & %s;"
                          % (ut, off, pos, mask))
                if isinstance(ft, BoolType):
                    un.append("      d->f_%s = (uint8_t)v; }" % fname)
                elif not ft.signed or bits == 64:
                    un.append("      d->f_%s = (%s)v; }" % (fname, self.ctype(ft)))
                else:
                    sb = "UINT64_C(0x%x)" % (1 << (bits - 1))
                    un.append("      d->f_%s = (%s)((int64_t)v - (int64_t)(v & %s) - (int64_t)(v & %s)); }"
                              % (fname, self.ctype(ft), sb, sb))
                pk.append("    { %s u; memcpy(&u, p + %d, sizeof u); u = (%s)(u | (%s)((((uint64_t)%sd->f_%s) & %s) << %d));"
                          " memcpy(p + %d, &u, sizeof u); }" % (ut, off, ut, ut,
                                                                "(int64_t)" if isinstance(ft, IntType) and ft.signed
                                                                else "", fname, mask, pos, off))
                continue
            prev = None
            n, et = 1, ft
            if isinstance(ft, ArrayType):
                for x in ft.dims:
                    n *= x
                et = ft.elem
            if isinstance(et, StructType) and self.has_bit_fields(et):
                u2, p2 = self.bf_codec(et, span)
                es = struct_layout(et)[0]
                for j in range(n):
                    sub = "[%d]" % j if isinstance(ft, ArrayType) else ""
                    un.append("    %s(&d->f_%s%s, p + %d);" % (u2, fname, sub, off + j * es))
                    pk.append("    %s(p + %d, &d->f_%s%s);" % (p2, off + j * es, fname, sub))
                continue
            if isinstance(et, StructType):
                co = {}
                ls = struct_layout(et)
                cs = self.c_layout(et, span, co)[0]
                if ls[0] != cs or ls[2] != co:
                    raise refuse(span, "the field %s.%s at the export boundary: struct %s has another layout in "
                                       "its record (@packed) than in C" % (t.name(), fname, et.name()))
            nbytes = "sizeof d->f_%s" % fname
            amp = "" if isinstance(ft, ArrayType) else "&"
            un.append("    memcpy(%sd->f_%s, p + %d, %s);" % (amp, fname, off, nbytes))
            pk.append("    memcpy(p + %d, %sd->f_%s, %s);" % (off, amp, fname, nbytes))
        u, pf = codecs[t.qname]
        self.bodies.append("CINTG_UNUSED static void %s(%s *d, const uint8_t *p)\n{\n%s\n}\n" % (u, cname, "\n".join(un)))
        self.bodies.append("CINTG_UNUSED static void %s(uint8_t *p, const %s *d)\n{\n%s\n}\n" % (pf, cname, "\n".join(pk)))
        return codecs[t.qname]

    def storage_row(self, t: StructType) -> int:
        """The record layout row that describes struct t as module variables hold it: its own row (A-19),
        or, for a struct with bit fields (itself or nested), a storage row after the program's rows,
        with an empty name, giving the C layout of the emitted struct (each field whole at its offsetof,
        bits 0), so that state.c reads and restores the canonical fields (docs/runtime.md)."""
        self.struct_name(t)
        if not self.has_bit_fields(t):
            return self.struct_ids[t.qname]
        sids = self.__dict__.setdefault("storage_ids", {})
        if t.qname not in sids:
            sids[t.qname] = len(self.struct_ids) + len(sids)
            for _, ft, _ in t.fields:
                et = ft.elem if isinstance(ft, ArrayType) else ft
                if isinstance(et, StructType):
                    self.storage_row(et)
        return sids[t.qname]

    @staticmethod
    def has_bit_fields(t, seen=()):
        """Whether struct ``t`` has a bit field, itself or in a struct field (LS-82)."""
        for _, ft, bits in t.fields:
            et = ft.elem if isinstance(ft, ArrayType) else ft
            if bits or (isinstance(et, StructType) and et.qname not in seen and
                        Emitter.has_bit_fields(et, seen + (t.qname,))):
                return True
        return False

    def record_table(self):
        """The root module's record layout table (SPEC-03P.1 7.4 A-14, A-19): one row per struct of the
        program, row k being the struct whose record id is k; sizes and offsets are the C compiler's own
        (sizeof, offsetof), the alignment 8 (A-13a). A struct with bit fields, or holding one, never crosses
        the boundary (boundary_record) and its C struct keeps each field whole: its row gives the layout of
        LS-73 to LS-82 instead (checker.struct_layout: a bit field at its storage unit's offset, with its
        width). RNAMES holds the qualified names (cint_module_table)."""
        lines = []
        by_id = sorted(self.struct_ids.items(), key=lambda kv: kv[1])
        sizes = {}
        for qn, k in by_id:
            t = self.struct_types[qn]
            cname = self.structs[qn]
            ls = struct_layout(t) if self.has_bit_fields(t) else None
            sizes[qn] = "sizeof(%s)" % cname if ls is None else "%du" % ls[0]
            rows = []
            for fname, ft, bits in t.fields:
                count, ft = _flat_field(ft)
                try:
                    ty = self.type_fields(ft)
                except Unsupported:
                    ty = "0u, 0u, 0u, 0u, 0u, 0u, 0u"
                off = "offsetof(%s, f_%s)" % (cname, fname) if ls is None else "%du" % ls[2][fname]
                rows.append("{{%s, %du, 0u}, {%s}, %s, %du, %du}" % (
                    c_str(fname.encode()), len(fname.encode()), ty, off, bits or 0, count))
            if rows:
                lines.append("static const cint_record_field RF%d[] = {%s};" % (k, ", ".join(rows)))
        # storage rows (storage_row): the C layout of a struct with bit fields as module variables hold it
        storage = sorted(self.__dict__.get("storage_ids", {}).items(), key=lambda kv: kv[1])
        assert all(k == len(by_id) + j for j, (_, k) in enumerate(storage)), storage
        for qn, k in storage:
            t, cname = self.struct_types[qn], self.structs[qn]
            sizes[k] = "sizeof(%s)" % cname
            rows = []
            for fname, ft, bits in t.fields:
                count, ft = _flat_field(ft)
                ty = ("CINT_TAG_STRUCT, 0u, 0u, 0u, 0u, %du, 0u" % self.storage_row(ft)
                      if isinstance(ft, StructType) else self.type_fields(ft))
                rows.append("{{%s, %du, 0u}, {%s}, offsetof(%s, f_%s), 0u, %du}" % (
                    c_str(fname.encode()), len(fname.encode()), ty, cname, fname, count))
            if rows:
                lines.append("static const cint_record_field RF%d[] = {%s};" % (k, ", ".join(rows)))
        if by_id:
            lines.append("static const cint_record_layout RECORDS[] = {%s};" % ", ".join(
                ["{%s, 8u, %du, %s}" % (sizes[qn], len(self.struct_types[qn].fields),
                                        "RF%d" % k if self.struct_types[qn].fields else "NULL")
                 for qn, k in by_id] +
                ["{%s, 8u, %du, %s}" % (sizes[k], len(self.struct_types[qn].fields),
                                        "RF%d" % k if self.struct_types[qn].fields else "NULL")
                 for qn, k in storage]))
            lines.append("static const cint_name RNAMES[] = {%s};" % ", ".join(
                ["{%s, %du, 0u}" % (c_str(qn.encode()), len(qn.encode())) for qn, _ in by_id] +
                ["{\"\", 0u, 0u}" for _ in storage]))
        return lines

    # ------------------------------------------------------------------ functions

    def fname(self, info):
        return ("k_" if info.is_kernel else "f_") + self.use(info)

    def param_ctype(self, p):
        if isinstance(p.type, ArrayType):
            return "cint_gen_array *"
        if isinstance(p.type, StructType):
            return "const %s *" % self.ctype(p.type, p.span) if p.info != "inout" else "%s *" % self.ctype(p.type,
                                                                                                          p.span)
        return self.ctype(p.type, p.span)

    def kuse(self, info) -> str:
        """The C identifier of the work-item form of a kernel-admissible function (LS-250), queued for
        emission: kg_NAME(ctx, wi, stepp, ...) counts its steps on the caller's ordinal counter and
        positions its faults at the work-item (SPEC-01 IM-113)."""
        key = ("kg", id(info))
        if key not in self.emitted:
            self.emitted[key] = "kg_" + self.ident(info)
            self.__dict__.setdefault("kqueue", []).append(info)
        return self.emitted[key]

    def function(self, info: FuncInfo, kvariant=False):
        if lirc.enabled():      # the LIR back end, for what it covers (docs/lir.md)
            fn = _lowered(info, kvariant)
            if fn is not None and lirc.fits(self, fn):
                protos, bodies = lirc.function_c(self, fn, "kvar" if kvariant else "func")
                self.protos += protos
                self.bodies += bodies
                return
        d = info.decl
        self.fn_kind = "kernel" if kvariant else "func"
        self.kvariant = kvariant
        self.vars = {}
        self.loop_labels = []
        params = ["cint_ctx *ctx"] + (["int64_t wi", "int64_t *stepp"] if kvariant else [])
        for s in info.size_params:
            self.vars[s] = "z_%s" % s.name
            params.append("int64_t z_%s" % s.name)
        for p in info.params:
            self.vars[p] = ("(*p_%s)" % p.name) if isinstance(p.type, StructType) else (
                "(*p_%s)" % p.name if isinstance(p.type, ArrayType) else "p_%s" % p.name)
            params.append("%sp_%s" % (self.param_ctype(p) + ("" if self.param_ctype(p).endswith("*") else " "),
                                       p.name))
        self.result = info.result
        if info.result is not VOID:
            params.append("%s *result" % self.ctype(info.result, d.span))
        sig = "CINTG_UNUSED static int %s(%s)" % (self.kuse(info) if kvariant else self.fname(info), ", ".join(params))
        self.protos.append(sig + ";")
        if kvariant:
            body = ["cint_gen_at at = {{%du, 0u}, wi, 0};" % self.cur_mod, "int64_t step = *stepp;", "if (0) goto fail;"]
        else:
            body = ["cint_gen_at at = {{%du, 0u}, 0, 0};" % self.cur_mod, "if (0) goto fail;"]
        body += ["(void)%s;" % x.split()[-1].lstrip("*") for x in params]
        self.__dict__.pop("gviews", None)
        # LS-110: a function that declares local arrays releases them at each return
        self.fn_frame = "fe_fn" if not kvariant and _charges(d.body) else None
        if self.fn_frame:
            body.append("const int64_t fe_fn = cint_gen_frame_charged(ctx);")
        self.block(d.body, body)
        body[2:2] = self.gview_decls()
        if info.result is VOID:
            if self.fn_frame:
                body.append("cint_gen_frame_release(ctx, fe_fn);")
            body.append("*stepp = step; return 0;" if kvariant else "return 0;")
        self.fn_frame = None
        body.append("fail:")
        body.append("(void)at;")
        body.append("return 1;")
        self.bodies.append(sig + "\n{\n" + "\n".join("    " + l for l in body) + "\n}\n")
        self.fn_kind = "func"
        self.kvariant = False

    def kernel(self, info: FuncInfo):
        if lirc.enabled():      # the LIR back end: kb_, kf_ and the item loop ki_ (docs/lir.md)
            fn = _lowered(info, False)
            if fn is not None and lirc.fits(self, fn):
                protos, bodies = lirc.kernel_c(self, fn)
                self.protos += protos
                self.bodies += bodies
                self.kernel_desc(info)
                self.__dict__.setdefault("lir_kernels", set()).add(self.use(info))
                return
        d = info.decl
        self.fn_kind = "kernel"
        self.fn_frame = None
        self.vars = {}
        self.loop_labels = []
        self.result = VOID
        for k, s in enumerate(info.size_params):
            self.vars[s] = "S[%d]" % k
        scal = []
        for k, p in enumerate(info.params):
            if isinstance(p.type, ArrayType):
                self.vars[p] = "A[%d]" % k
            elif KRC.is_target(p):      # a reduction's accumulator (decision 23)
                self.vars[p] = "p_%s" % p.name
                scal.append("cintg_racc *p_%s" % p.name)
            else:
                self.vars[p] = "p_%s" % p.name
                scal.append("%s p_%s" % (self.ctype(p.type, p.span), p.name))
        for k, ov in enumerate(info.over):
            self.vars[ov] = "o_%s" % ov.name
        params = ["cint_ctx *ctx", "cint_gen_array *A", "const int64_t *S"] + scal + ["int64_t wi"] + [
            "int64_t o_%s" % ov.name for ov in info.over]
        sig = "CINTG_UNUSED static int kb_%s(%s)" % (self.use(info), ", ".join(params))
        self.protos.append(sig + ";")
        body = ["cint_gen_at at = {{%du, 0u}, wi, 0};" % self.cur_mod, "int64_t step = 0;", "if (0) goto fail;"]
        body += ["(void)%s;" % x.split()[-1].lstrip("*") for x in params]
        self.block(d.body, body)
        body += ["return 0;", "fail:", "(void)step;", "return 1;"]
        self.bodies.append(sig + "\n{\n" + "\n".join("    " + l for l in body) + "\n}\n")
        self.kernel_desc(info)
        self.fn_kind = "func"
        self.fast_kernel(info, scal)

    # ------------------------------------------------------------------ the elementwise fast path

    def fast_kernel(self, info, scal):
        """kf_NAME(ctx, A, S, scalars, begin, end): the fast path of an elementwise kernel.

        Applies to a rank-1 over clause whose body only declares scalars and stores to `out[i]`, reading
        arrays at `[i]` and scalars, with + - * in every form, comparisons and bitwise operators on
        I8..U64.  Returns 1 at the first item that may fault, with no record (then the caller reruns the
        block on the exact path)."""
        d = info.decl
        if len(d.over) != 1:
            return
        ov = info.over[0]
        fv = {}
        arrays = set()
        ptrs = {}
        lines = []
        ok = [True]

        def ex(e):
            if not ok[0]:
                return "0"
            if e.cval is not NOTCONST and not e.skip_fold and isinstance(e.ty, IntType) and e.ty.bits <= 64:
                return int_lit(e.ty, e.cval)
            if isinstance(e, A.Paren):
                return ex(e.inner)
            if isinstance(e, A.Name):
                sym = e.ref
                if sym in fv:
                    return fv[sym]
                if sym.kind == "param" and not isinstance(sym.type, ArrayType):
                    return "p_%s" % sym.name
                if sym is ov:
                    return "o_"
                ok[0] = False
                return "0"
            if isinstance(e, A.Index) and isinstance(e.base, A.Name) and e.base.ref.kind == "param" \
                    and len(e.items) == 1 and isinstance(e.items[0], A.Name) and e.items[0].ref is ov \
                    and isinstance(e.ty, IntType) and e.ty.bits <= 64:
                p = info.params.index(e.base.ref)
                if e.base.ref.type.dims[0] != ov.decl.extent.ident:
                    ok[0] = False
                arrays.add(p)
                ptrs[p] = self.ctype(e.ty)
                return "ap%d[o_]" % p
            if isinstance(e, A.Binary) and isinstance(e.ty, IntType) and e.ty.bits <= 64 and \
                    e.op in ("+", "-", "*", "+%", "-%", "*%", "&", "|", "^"):
                a, b = ex(e.left), ex(e.right)
                ct = self.ctype(e.ty)
                if e.op in ("&", "|", "^"):
                    return "((%s)(%s %s %s))" % (ct, a, e.op, b)
                name, form = ARITH_OPS[e.op]
                if form == "wrap":
                    return "cint_%s_wrap_%s(%s, %s)" % (name, e.ty.token, a, b)
                t = "f%d" % len(lines)
                # an early return, not an accumulated flag: GCC vectorizes neither, and the branch is
                # never taken on the fast path (about 1.5x fewer instructions per item)
                lines.append("%s %s; if (__builtin_%s_overflow(%s, %s, &%s)) return 1;" % (ct, t, name, a, b, t))
                return t
            if isinstance(e, A.Binary) and e.op in CMP_OPS and isinstance(e.left.ty, IntType) and not wide(e.left.ty):
                return "(%s %s %s)" % (ex(e.left), e.op, ex(e.right))
            ok[0] = False
            return "0"

        for st in d.body.stmts:
            if isinstance(st, A.VarDecl) and st.init is not None and isinstance(st.resolved, IntType) \
                    and st.resolved.bits <= 64 and st.mode is None:
                v = ex(st.init)
                name = "l%d" % len(fv)
                lines.append("const %s %s = %s;" % (self.ctype(st.resolved), name, v))
                fv[st.sym] = name
            elif isinstance(st, A.Assign) and st.op == "=" and isinstance(st.place, A.Index) \
                    and isinstance(st.place.base, A.Name) and st.place.base.ref.kind == "param" \
                    and st.place.base.ref.info in ("out", "inout") and len(st.place.items) == 1 \
                    and isinstance(st.place.items[0], A.Name) and st.place.items[0].ref is ov \
                    and st.place.base.ref.type.dims[0] == ov.decl.extent.ident \
                    and isinstance(st.place.ty, IntType) and st.place.ty.bits <= 64:
                p = info.params.index(st.place.base.ref)
                arrays.add(p)
                ptrs[p] = self.ctype(st.place.ty)
                v = ex(st.value)
                lines.append("ap%d[o_] = %s;" % (p, v))
            else:
                ok[0] = False
            if not ok[0]:
                return
        params = ["cint_ctx *ctx", "cint_gen_array *A", "const int64_t *S"] + scal + ["int64_t b_", "int64_t e_"]
        # Distinct buffers: written arrays are staging of this dispatch, and the entry checks refuse a
        # written view that overlaps another argument (E_ALIAS), so `restrict` holds.
        body = ["(void)ctx; (void)S;"]
        body += ["%s *restrict ap%d = (%s *)A[%d].data;" % (ct, p, ct, p) for p, ct in sorted(ptrs.items())]
        body += ["for (int64_t o_ = b_; o_ < e_; o_++) {"]
        body += ["    " + l for l in lines] + ["}", "return 0;"]
        self.bodies.append("CINTG_UNUSED static int kf_%s(%s)\n{\n%s\n}\n" % (self.use(info), ", ".join(params), "\n".join(
            "    " + l for l in body)))
        self.fast_kernels[self.use(info)] = sorted(arrays)

    def gen_param(self, p, info, kernel=False):
        t = p.type
        mode = {"in": "CINT_MODE_IN", "inout": "CINT_MODE_INOUT", "out": "CINT_MODE_OUT"}.get(p.info or "in",
                                                                                              "CINT_MODE_IN")
        if isinstance(t, ArrayType):
            dims = []
            sizes = [s.name for s in info.size_params]
            for dd in t.dims:
                if dd is None:
                    dims.append("{CINT_SHAPE_ANY, 0u, 0, 0}")
                elif isinstance(dd, str):
                    dims.append("{CINT_SHAPE_EXTENT, %du, 0, 0}" % sizes.index(dd))
                elif isinstance(dd, int):
                    dims.append("{CINT_SHAPE_EXTENT, CINT_SIG_NO_SYMBOL, %d, 0}" % dd)
                elif isinstance(dd, SymExtent):     # sizes[sym] + offset, checked in the second pass
                    dims.append("{CINT_SHAPE_EXTENT, %du, %s, 0}" % (
                        sizes.index(dd.sym), "INT64_MIN" if dd.off == -(1 << 63) else "INT64_C(%d)" % dd.off))
                else:
                    raise refuse(p.span, "a computed extent in a parameter type")
            while len(dims) < 4:
                dims.append("{0u, 0u, 0, 0}")
            covers = "CINT_GEN_PARAM_COVERS" if kernel and self.covers(info, p) else "0u"
            return "{CINT_GEN_ARRAY, %s, {%s}, %du, %s, {%s}}" % (
                mode, self.type_fields(t.elem), t.rank, covers, ", ".join(dims))
        if isinstance(t, StructType):
            # a view of one record: rank 1, extent 1 (SPEC-03P.1 7.3 A-13)
            return "{CINT_GEN_STRUCT, %s, {%s}, 1u, 0u, {{CINT_SHAPE_EXTENT, CINT_SIG_NO_SYMBOL, 1, 0}, " \
                   "{0u, 0u, 0, 0}, {0u, 0u, 0, 0}, {0u, 0u, 0, 0}}}" % (mode, self.type_fields(t))
        return "{CINT_GEN_SCALAR, %s, {%s}, 0u, 0u, {{0u, 0u, 0, 0}}}" % (mode, self.type_fields(t))

    def type_fields(self, t) -> str:
        """The fields of the cint_type of a scalar or element type t (cint_rt_host.h): a Q format by its
        storage tag and fraction bits (SPEC-03P.1 7.5), a struct by its record layout row (A-19), any
        other type by its tag alone."""
        if isinstance(t, StructType):
            self.struct_name(t)
            return "CINT_TAG_STRUCT, 0u, 0u, 0u, 0u, %du, 0u" % self.struct_ids[t.qname]
        if isinstance(t, FixedType):
            return "CINT_TAG_Q, CINT_TAG_%s, 0u, %du, 0u, 0u, 0u" % (t.storage.name(), t.f)
        return "%s, 0u, 0u, 0u, 0u, 0u, 0u" % self.tag(t)

    def covers(self, info, p) -> bool:
        """Whether every work-item that completes stores its own element of out parameter p: a
        top-level `p[v1, .., vr] = e;` of the body with the over variables in order.  The runtime then
        need not zero-fill p's staging (no zero could be published)."""
        if p.info != "out" or not isinstance(p.type, ArrayType) or len(info.over) != p.type.rank:
            return False
        for st in info.decl.body.stmts:
            if isinstance(st, A.Assign) and st.op == "=" and isinstance(st.place, A.Index) and \
                    isinstance(st.place.base, A.Name) and st.place.base.ref is p and \
                    len(st.place.items) == len(info.over) and \
                    all(isinstance(i, A.Name) and i.ref is ov for i, ov in zip(st.place.items, info.over)):
                return True
        return False

    def kernel_desc(self, info):
        d = info.decl
        rows = [self.gen_param(p, info, True) for p in info.params]
        K = self.use(info)
        self.descs.append("static const cint_gen_param KP_%s[] = {%s};" % (K, ", ".join(rows) or
                                                                           "{0u, 0u, {0}, 0u, 0u, {{0}}}"))
        sizes = [s.name for s in info.size_params]
        over = []
        for ov in d.over:
            over.append("{CINT_SHAPE_EXTENT, %du, 0, 0}" % sizes.index(ov.extent.ident))
        while len(over) < 4:
            over.append("{0u, 0u, 0, 0}")
        qn = info.qname.encode()
        self.descs.append("static const cint_gen_kernel KD_%s = {{%s, %du, 0u}, %du, %du, KP_%s, %du, 0u, {%s}};" % (
            K, c_str(qn), len(qn), len(info.params), len(info.size_params), K, len(d.over),
            ", ".join(over)))

    # ------------------------------------------------------------------ statements

    def block(self, b, lines):
        # LS-185..LS-189: a block's deferred statements are scheduled as reached; every exit of the block
        # (its end, return, break/continue/fallthrough, an error leaving by `try` or `return .e`) runs
        # those reached so far, latest first, inlined at the exit; a fault (goto fail) runs none (A-7b)
        scopes = self.__dict__.setdefault("defer_scopes", [])
        pending = []
        scopes.append(pending)
        # LS-110: the local arrays a block declares are released when it ends (after its deferred
        # statements); its other exits release them at the loop, switch or function they leave
        fe = None
        if self.fn_kind != "kernel" and any(_charged(s) for s in b.stmts):
            self.tmpn += 1
            fe = "fe%d" % self.tmpn
            lines.append("const int64_t %s = cint_gen_frame_charged(ctx);" % fe)
        try:
            for s in b.stmts:
                if type(s) is A.Defer:
                    pending.append(s)
                    continue
                m = getattr(self, "s_" + type(s).__name__, None)
                if m is None:
                    raise refuse(s.span, "the statement %s" % type(s).__name__)
                m(s, lines)
            if pending:
                self.run_defers(lines, len(scopes) - 1, False)
            if fe is not None:
                lines.append("cint_gen_frame_release(ctx, %s);" % fe)
        finally:
            scopes.pop()

    def run_defers(self, lines, depth, error_exit):
        """The deferred statements of the open blocks from scope `depth` on: the innermost block first, each
        block's latest first; `errdefer` only on an error exit (no fuel of their own, LS-317)."""
        scopes = self.__dict__.setdefault("defer_scopes", [])
        for k in range(len(scopes) - 1, depth - 1, -1):
            for d in reversed(list(scopes[k])):
                if d.is_err and not error_exit:
                    continue
                inner = []
                saved = scopes[:]
                del scopes[k:]          # a deferred statement runs in the scope of its block, outside later ones
                try:
                    m = getattr(self, "s_" + type(d.stmt).__name__, None)
                    if m is None:
                        raise refuse(d.stmt.span, "the statement %s" % type(d.stmt).__name__)
                    m(d.stmt, inner)
                finally:
                    scopes[:] = saved
                lines.append("{")
                lines += ["    " + l for l in inner]
                lines.append("}")

    def defer_depth(self):
        return len(self.__dict__.setdefault("defer_scopes", []))

    def has_defers(self, depth=0):
        return any(self.__dict__.setdefault("defer_scopes", [])[depth:])

    def s_Block(self, s, lines):
        inner = []
        self.block(s, inner)
        lines.append("{")
        lines += ["    " + l for l in inner]
        lines.append("}")

    def s_VarDecl(self, d, lines):
        t = d.resolved
        name = self.local_name(d.name)
        if d.mode is not None:
            # a view variable: the view itself, no copy (LS-106)
            if not isinstance(t, ArrayType):
                raise refuse(d.span, "a view variable of type %s" % t)
            v = self.expr(d.init, lines)
            lines.append("cint_gen_array %s = %s; (void)%s;" % (name, v, name))
            self.vars[d.sym] = name
            return
        if d.is_const and isinstance(t, ArrayType):
            # a constant array is folded at compile time (x_Name reads its static storage); as in the
            # interpreter, its declaration counts the steps of the folded elements (decision 5)
            def steps(x):
                if isinstance(x, A.ArrayLit):
                    return sum(steps(i) for i in x.items)
                return x.csteps if x.cval is not NOTCONST and not isinstance(x.ty, ArrayType) else 0
            n = steps(d.init)
            if self.fn_kind == "kernel" and n:
                lines.append("step += %d;" % n)
            if self.fn_kind != "kernel":     # LS-110: a local constant array is charged as any other
                lines.append("{ const int64_t shc_[4] = {%s}; if (cint_gen_frame_charge(ctx, %s, %du, shc_)) goto fail; }"
                             % (", ".join(str(x) for x in list(t.dims) + [0] * (4 - len(t.dims))),
                                self.at_nostep(d.span), t.rank))
            return
        self.vars[d.sym] = name
        if isinstance(t, ArrayType):
            self.local_array(d, t, name, lines)
            return
        ct = self.ctype(t, d.span)
        if d.init is None:
            lines.append("%s %s;" % (ct, name))
            lines.append("memset(&%s, 0, sizeof %s);" % (name, name))
            return
        v = self.coerce(self.expr(d.init, lines), d.init.ty, t)
        lines.append("%s %s = %s; (void)%s;" % (ct, name, v, name))

    def local_array(self, d, t, name, lines):
        # in a kernel: a private array of the work-item (SPEC-04 LS-250), in the frame arena, given back after
        # the work-item (work_items); decl.shape counts no step of its own (interp: s_VarDecl)
        shape = []
        for x in t.dims:
            if isinstance(x, int):
                shape.append("INT64_C(%d)" % x)
            elif isinstance(x, str):
                sym = next(s for s in self.vars if getattr(s, "kind", None) == "sizeparam" and s.name == x)
                shape.append(self.vars[sym])
            else:
                shape.append(self.expr(x, lines))
        shp = "sh_%s" % name
        lines.append("int64_t %s[4] = {%s};" % (shp, ", ".join(shape + ["0"] * (4 - len(shape)))))
        lines.append("cint_gen_array %s; memset(&%s, 0, sizeof %s);" % (name, name, name))
        for k in range(len(shape)):
            lines.append("if (%s[%d] < 0) { cint_tvalue ops_[2]; cint_tv_i64(&ops_[0], %d); cint_tv_i64(&ops_[1], %s[%d]); "
                         "cint_tvalue lim_; cint_tv_i64(&lim_, 0); const cint_gen_fault f_ = {CINT_E_SHAPE, 2u, 0u, "
                         "\"%s\", ops_, NULL, &lim_}; cint_gen_raise(ctx, %s, &f_); goto fail; }" % (
                             shp, k, k, shp, k, O.DECL_SHAPE, self.at_nostep(d.span)))
        if self.fn_kind != "kernel":     # LS-110: the frame arena's charge, before the initializer
            lines.append("if (cint_gen_frame_charge(ctx, %s, %du, %s)) goto fail;" % (self.at_nostep(d.span), t.rank, shp))
        lines.append(self.alloc_array(name, t.elem, t.rank, shp, self.at_nostep(d.span), d.span))
        if d.init is not None:
            src = self.expr(d.init, lines)
            self.copy_array(name, src, t, d.eq_span or d.span, lines)

    def alloc_array(self, name, elem, rank, shp, at, span=None):
        """The statement that allocates local array `name` (zero-filled) of shape `shp` in the frame arena."""
        if isinstance(elem, (StructType, HandleType)) or wide(elem):   # an element size A-13a's table lacks
            return "if (cintg_local_array(ctx, %s, &%s, %s, (int64_t)sizeof(%s), %du, %s)) goto fail;" % (
                at, name, self.elem_type(elem, span), self.ctype(elem, span), rank, shp)
        return "if (cint_gen_local_array(ctx, %s, &%s, %s, %du, %s)) goto fail;" % (
            at, name, self.elem_type(elem, span), rank, shp)

    def elem_type(self, t, span=None) -> str:
        """The cint_type of an array element; each struct type has its own record id."""
        if isinstance(t, StructType):
            self.struct_name(t, span)
            return "(cint_type){CINT_TAG_STRUCT, 0u, 0u, 0u, 0u, %du, 0u}" % self.struct_ids[t.qname]
        return "(cint_type){%s}" % self.type_fields(t)

    def copy_array(self, dst, src, t, span, lines):
        """Whole-array copy with the copy.shape check (IM-187); source and destination are cint_gen_array."""
        ct = self.ctype(t.elem)
        lines.append("if (cintg_copy(ctx, %s, &%s, &%s, sizeof(%s))) goto fail;" % (self.at_nostep(span), dst, src, ct))

    def place(self, e, lines):
        """A C lvalue for a place (checks evaluated first, IM-98)."""
        if isinstance(e, A.Paren):
            return self.place(e.inner, lines)
        if isinstance(e, A.Name):
            return self.var(e.ref, e.span)
        if isinstance(e, A.Index):
            return self.index_lvalue(e, lines)
        if isinstance(e, A.Member):
            if getattr(e, "mkind", None) not in (None, "field"):
                raise refuse(e.span, "this assignment target")
            base = self.place(e.base, lines)
            if isinstance(e.ty, ArrayType):
                return self.field_view(e, base, lines)
            return "(%s).f_%s" % (base, e.name)
        raise refuse(e.span, "this assignment target")

    def gview(self, sym):
        """The C name of a view of module-level array sym in the current function: declared at the top of
        its body (gview_decls) over the storage after the array's header."""
        used = self.__dict__.setdefault("gviews", {})
        if sym not in used:
            used[sym] = "gv%d" % len(used)
        return used[sym]

    def gview_decls(self):
        out = []
        for sym, name in self.__dict__.pop("gviews", {}).items():
            t = sym.type
            out.append("cint_gen_array %s; cintg_inline(&%s, (uint8_t *)cint_gen_globals(ctx) + %d, (int64_t)sizeof(%s), "
                       "%s, %du, (const int64_t[4]){%s}); (void)%s;" % (
                           name, name, self.gdata[sym], self.ctype(t.elem), self.elem_type(t.elem), t.rank,
                           ", ".join(str(x) for x in list(t.dims) + [0] * (4 - t.rank)), name))
        return out

    def var(self, sym, span):
        if sym.kind == "container":
            return MC.container_ref(sym)
        if sym.kind == "global":
            off, ct, size = self.globals_layout[sym]
            if ct == "array":
                return self.gview(sym)
            if ct == "struct":
                return "(*(%s *)((uint8_t *)cint_gen_globals(ctx) + %d))" % (self.ctype(sym.type, span), self.gdata[sym])
            return "(*(%s *)((uint8_t *)cint_gen_globals(ctx) + %d))" % (ct, off)
        if sym not in self.vars:
            raise refuse(span, "this name")
        return self.vars[sym]

    def s_Reduce(self, s, lines):
        KRC.s_reduce(self, s, lines)

    def s_Assign(self, s, lines):
        if getattr(s, "subword", None) is not None:      # `x.byte[k] = v;` (LS-86, Proposed), decision 31
            from cint_compiler.backend.c17 import proposed as proposed_c
            return proposed_c.subword_write(self, s, lines)
        t = s.place.ty
        if isinstance(t, ArrayType):
            if s.op != "=":
                raise refuse(s.span, "a compound assignment to an array")
            dst = self.place(s.place, lines)
            src = self.expr(s.value, lines)
            self.copy_array(dst, src, t, s.span, lines)
            return
        lv = self.place(s.place, lines)
        bf = bitfield_of(s.place)
        if s.op == "=":
            v = self.coerce(self.expr(s.value, lines), s.value.ty, t)
            if bf is not None:
                v = self.bitfield_check(bf, v, s.span, lines)
            lines.append("%s = %s;" % (lv, v))
            return
        cur = self.tmp(self.ctype(t, s.span), lines, lv)
        v = self.expr(s.value, lines)
        if s.op in ("&=", "|=", "^=") and self.fn_kind == "kernel":
            lines.append("step++;")         # a compound assignment counts one step (interp: s_Assign)
        r = self.binop(s.op[:-1], t, cur, v, s.value.ty, s.span, lines)
        if bf is not None:
            r = self.bitfield_check(bf, r, s.span, lines)
        lines.append("%s = %s;" % (lv, r))

    def bitfield_check(self, bf, v, span, lines):
        """A store into a bit field (LS-82): one step, E_NARROW `bitfield.checked.<T>` when the value does not
        fit the width (interp: Evaluator.bitfield_check, checker.bitfield_fault).  Returns the value's temporary."""
        t, w = bf
        if isinstance(t, BoolType):
            if self.fn_kind == "kernel":
                lines.append("step++;")
            return v
        ct = self.ctype(t)
        x = self.tmp(ct, lines, v)
        if t.signed:
            lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
            cond = "(int64_t)%s < INT64_C(%d) || (int64_t)%s > INT64_C(%d)" % (x, lo, x, hi) if w < t.bits else "0"
            lim = "(uint64_t)(int64_t)(%s > 0 ? INT64_C(%d) : INT64_C(%d))" % (x, hi, lo)
        else:
            hi = (1 << w) - 1
            cond = "(uint64_t)%s > UINT64_C(%d)" % (x, hi) if w < t.bits else "0"
            lim = "UINT64_C(%d)" % hi
        lines.append("{ const cint_gen_at *bfat_ = %s; if (%s) { cintg_raise(ctx, bfat_, CINT_E_NARROW, "
                     "\"%s\", %s, 1u, (uint64_t)%s, 0u, 1, (cintg_i128)%s, 1, %s); goto fail; } }"
                     % (self.at(span), cond, O.op("bitfield", "checked", t), self.tag(t), x, x, lim))
        return x

    def s_IncDec(self, s, lines):
        t = s.place.ty
        if isinstance(t, FixedType):
            raise refuse(s.span, "`++`/`--` on fixed point")
        lv = self.place(s.place, lines)
        cur = self.tmp(self.ctype(t, s.span), lines, lv)
        r = self.binop("+" if s.op == "++" else "-", t, cur, int_lit(t, 1), t, s.span, lines)
        bf = bitfield_of(s.place)
        if bf is not None:
            r = self.bitfield_check(bf, r, s.span, lines)
        lines.append("%s = %s;" % (lv, r))

    def s_ExprStmt(self, s, lines):
        self.expr(s.expr, lines, void_ok=True)

    def s_Discard(self, s, lines):
        self.expr(s.value, lines, void_ok=True)

    def s_If(self, s, lines):
        c = self.expr(s.cond, lines)
        then = []
        self.block(s.then, then)
        lines.append("if (%s) {" % c)
        lines += ["    " + l for l in then]
        if s.other is not None:
            other = []
            if isinstance(s.other, A.If):
                self.s_If(s.other, other)
            else:
                self.block(s.other, other)
            lines.append("} else {")
            lines += ["    " + l for l in other]
        lines.append("}")

    def charge(self, span, lines):
        lines.append("if (cint_gen_charge(ctx, %s, 1)) goto fail;" % self.at_nostep(span))

    def at_nostep(self, span):
        """The position of a fault that counts no step of its own (in a kernel: the current step)."""
        if self.fn_kind == "kernel":
            return "(at.pos.index = %du, at.step = step, &at)" % self.site(span)
        return "(at.pos.index = %du, &at)" % self.site(span)

    def loop(self, s, lines, head, cond_lines, cond, body_prefix=(), update=(), cond_after=False):
        """A loop: labels for labelled continue/break; the fuel charge of each iteration after the
        condition evaluates true (IM-139), or, for `do`, before each body with the condition after it."""
        self.tmpn += 1
        lab = "L%d" % self.tmpn
        entry = [s.label, lab, False, False]
        self.loop_labels.append(entry)
        self.__dict__.setdefault("jump_depth", {})[lab] = self.defer_depth()
        body = []
        self.block(s.body, body)
        self.loop_labels.pop()
        if cond_after:             # the condition is evaluated after the body (and after `continue`)
            cond_lines, update = [], list(update) + list(cond_lines) + ["if (!(%s)) break;" % cond]
            cond = None
        lines += list(head)
        # frame-arena storage that an iteration allocates (its local arrays, its callees') is given back
        # when the next iteration starts: nothing of it outlives the iteration
        reset = _frame_use(s.body)
        if reset:
            fm = "fm%d" % self.tmpn
            lines.append("const size_t %s = cint_gen_frame_mark(ctx);" % fm)
        # LS-110: the elements charged by an iteration's local arrays are released when its body exits:
        # at its end (the body block), at `continue` (before the update) and at `break` (after the loop)
        charged = self.fn_kind != "kernel" and _charges(s.body)
        if charged:
            fl = "fl%d" % self.tmpn
            lines.append("const int64_t %s = cint_gen_frame_charged(ctx);" % fl)
        lines.append("for (;;) {")
        lines += ["    " + l for l in cond_lines]
        if cond is not None:
            lines.append("    if (!(%s)) break;" % cond)
        lines.append("    if (cint_gen_charge(ctx, %s, 1)) goto fail;" % self.at_nostep(s.span))
        if reset:
            lines.append("    cint_gen_frame_reset(ctx, %s);" % fm)
        lines += ["    " + l for l in body_prefix]
        lines.append("    {")
        lines += ["        " + l for l in body]
        lines.append("    }")
        if entry[2]:
            lines.append("    %s_next:;" % lab)
        if charged:
            lines.append("    cint_gen_frame_release(ctx, %s);" % fl)
        lines += ["    " + l for l in update]
        lines.append("}")
        if entry[3]:
            lines.append("%s_end:;" % lab)
        if charged:
            lines.append("cint_gen_frame_release(ctx, %s);" % fl)
        if reset:
            lines.append("cint_gen_frame_reset(ctx, %s);" % fm)

    def s_While(self, s, lines):
        cl = []
        c = self.expr(s.cond, cl)
        self.loop(s, lines, [], cl, c)

    def s_DoWhile(self, s, lines):
        cl = []
        c = self.expr(s.cond, cl)
        self.loop(s, lines, [], cl, c, cond_after=True)

    def s_ForC(self, s, lines):
        head = []
        if s.init is not None:
            getattr(self, "s_" + type(s.init).__name__)(s.init, head)
        cl = []
        c = self.expr(s.cond, cl)
        upd = []
        if s.update is not None:
            getattr(self, "s_" + type(s.update).__name__)(s.update, upd)
        lines.append("{")
        inner = []
        self.loop(s, inner, head, cl, c, update=upd)
        lines += ["    " + l for l in inner]
        lines.append("}")

    def s_ForRange(self, s, lines):
        lo = self.tmp("int64_t", lines, self.expr(s.lo, lines))
        hi = self.tmp("int64_t", lines, self.expr(s.hi, lines))
        step = s.step.cval if s.step is not None else 1
        iv = self.local_name(s.var or "_")
        self.vars[s.sym] = iv
        cur = self.tmp("int64_t", lines, lo)
        done = self.tmp("int", lines, "0")
        if step > 0:
            if not s.inclusive:
                lines.append("if (%s == INT64_MIN) %s = 1;" % (hi, done))   # empty: hi - 1 would overflow
                last_v = self.tmp("int64_t", lines, "(%s == INT64_MIN) ? 0 : %s - 1" % (hi, hi))
            else:
                last_v = self.tmp("int64_t", lines, hi)
            cond = "!%s && %s <= %s" % (done, cur, last_v)
            update = ["if (%s - %s < INT64_C(%d)) %s = 1; else %s += INT64_C(%d);" % (last_v, cur, step, done, cur,
                                                                                     step)]
        else:
            if not s.inclusive:
                lines.append("if (%s == INT64_MAX) %s = 1;" % (hi, done))
                last_v = self.tmp("int64_t", lines, "(%s == INT64_MAX) ? 0 : %s + 1" % (hi, hi))
            else:
                last_v = self.tmp("int64_t", lines, hi)
            cond = "!%s && %s >= %s" % (done, cur, last_v)
            update = ["if (%s - %s < INT64_C(%d)) %s = 1; else %s += INT64_C(%d);" % (cur, last_v, -step, done, cur,
                                                                                     step)]
        self.loop(s, lines, [], [], cond, body_prefix=["const int64_t %s = %s; (void)%s;" % (iv, cur, iv)], update=update)

    def s_ForEach(self, s, lines):
        """`for i, x in v`: each element of the rank-1 view in order, one fuel unit per iteration; in a kernel
        (and the work-item form of a function) the same, on the work-item's step counter (interp: s_ForEach)."""
        arr = self.tmp("cint_gen_array", lines, self.expr(s.iterable, lines))
        k = self.tmp("int64_t", lines, "0")
        et = s.iterable.ty.elem
        ct = self.ctype(et, s.span)
        prefix = []
        if s.index is not None:
            iv = self.local_name(s.index)
            self.vars[s.isym] = iv
            prefix.append("const int64_t %s = %s.lower[0] + %s; (void)%s;" % (iv, arr, k, iv))
        if s.var is not None:
            xv = self.local_name(s.var)
            self.vars[s.xsym] = xv
            prefix.append("const %s %s = *(const %s *)(%s.data + %s * %s.stride[0] * %s.elem_size); (void)%s;" % (
                ct, xv, ct, arr, k, arr, arr, xv))
        self.loop(s, lines, [], [], "%s < %s.shape[0]" % (k, arr), body_prefix=prefix, update=["%s++;" % k])

    def find_loop(self, label, span, loops_only=False):
        """The innermost loop (or, for an unlabelled break, loop or switch) a jump leaves."""
        for entry in reversed(self.loop_labels):
            if loops_only and len(entry) > 4:
                continue
            if label is None or entry[0] == label:
                return entry
        raise refuse(span, "this jump")

    def s_Break(self, s, lines):
        entry = self.find_loop(s.label, s.span)
        entry[3] = True
        self.run_defers(lines, self.jump_depth[entry[1]], False)
        lines.append("goto %s_end;" % entry[1])

    def s_Continue(self, s, lines):
        entry = self.find_loop(s.label, s.span, loops_only=True)
        entry[2] = True
        self.run_defers(lines, self.jump_depth[entry[1]], False)
        lines.append("goto %s_next;" % entry[1])

    def s_Switch(self, s, lines):
        """LS-177..LS-183: the case number from the scrutinee (a C switch over single values, then the
        ranges), then the bodies as a C switch whose cases leave unless they end in `fallthrough;`."""
        t = s.scrutinee.ty
        v = self.tmp(self.ctype(t, s.span), lines, self.expr(s.scrutinee, lines))
        kt = t.underlying if isinstance(t, (EnumType, ErrorSetType)) else t

        def key_lit(key):
            if s.key_kind == "bool":
                return "1" if key else "0"
            if s.key_kind == "error":
                return int_lit(kt, t.tag_of(key))
            return int_lit(kt, key)

        k = self.tmp("int", lines, "-1")
        if wide(kt):
            # I128..I1024: no C switch over a structure; the labels by comparison, then the ranges
            cmp = lambda op, key: "cint_cmp_%s(%s, %s) %s 0" % (kt.token, v, int_lit(kt, key), op)
            for key, idx in s.table.items():
                lines.append("if (%s < 0 && %s) %s = %d;" % (k, cmp("==", key), k, idx))
            for lo, hi, idx in s.ranges:
                conds = ["%s < 0" % k] + ([] if lo <= kt.min else [cmp(">=", lo)]) + \
                    ([] if hi >= kt.max else [cmp("<=", hi)])
                lines.append("if (%s) %s = %d;" % (" && ".join(conds), k, idx))
        elif s.table:
            lines.append("switch (%s) {" % v)
            for key, idx in s.table.items():
                lines.append("case %s: %s = %d; break;" % (key_lit(key), k, idx))
            lines.append("default: break;")
            lines.append("}")
        for lo, hi, idx in ([] if wide(kt) else s.ranges):
            conds = ["%s < 0" % k]
            if not (isinstance(kt, IntType) and lo <= kt.min):
                conds.append("%s >= %s" % (v, int_lit(kt, lo)))
            if not (isinstance(kt, IntType) and hi >= kt.max):
                conds.append("%s <= %s" % (v, int_lit(kt, hi)))
            lines.append("if (%s) %s = %d;" % (" && ".join(conds), k, idx))
        if s.default_index is not None:
            lines.append("if (%s < 0) %s = %d;" % (k, k, s.default_index))
        self.tmpn += 1
        lab = "W%d" % self.tmpn
        entry = [None, lab, False, False, "switch"]
        self.loop_labels.append(entry)
        self.__dict__.setdefault("jump_depth", {})[lab] = self.defer_depth()
        # LS-110: a case body left by `break` releases its local arrays after the switch
        charged = self.fn_kind != "kernel" and any(_charges(b) for b in s.bodies)
        if charged:
            lines.append("const int64_t fs%s = cint_gen_frame_charged(ctx);" % lab)
        lines.append("switch (%s) {" % k)
        for idx, body in enumerate(s.bodies):
            inner = []
            self.block(body, inner)
            lines.append("case %d: {" % idx)
            lines += ["    " + l for l in inner]
            lines.append("}")
            if body.stmts and isinstance(body.stmts[-1], A.Fallthrough):
                lines.append("/* fallthrough */")
            else:
                lines.append("goto %s_end;" % lab)
        lines.append("default: break;")
        lines.append("}")
        self.loop_labels.pop()
        lines.append("%s_end:;" % lab)
        if charged:
            lines.append("cint_gen_frame_release(ctx, fs%s);" % lab)

    def s_Fallthrough(self, s, lines):
        pass

    def s_Return(self, s, lines):
        err = bool(getattr(s, "is_error", False))
        if s.value is None:
            store = "result->tag = 0;" if isinstance(self.result, ErrorUnionType) else ""
        elif isinstance(self.result, ErrorUnionType):
            v = self.expr(s.value, lines)
            if err:
                store = "memset(result, 0, sizeof *result); result->tag = %s;" % self.err_tag(
                    s.value.ty, self.result.errset, v, s.span)
            else:
                store = "memset(result, 0, sizeof *result); result->value = %s;" % self.coerce(
                    v, s.value.ty, self.result.value)
        else:
            v = self.coerce(self.expr(s.value, lines), s.value.ty, self.result)
            store = "*result = %s;" % v
        if store:
            lines.append(store)
        if self.has_defers() and s.value is not None and _holds_array(self.result):
            # the interpreter returns a copy made before the deferred statements run (interp: s_Return)
            rt = self.result
            if isinstance(rt, ErrorUnionType):
                if not err:
                    self.detach(rt.value, "result->value", s.span, lines)
            else:
                self.detach(rt, "(*result)", s.span, lines)
        self.run_defers(lines, 0, err)
        if getattr(self, "fn_frame", None):
            lines.append("cint_gen_frame_release(ctx, %s);" % self.fn_frame)
        lines.append("*stepp = step; return 0;" if getattr(self, "kvariant", False) else "return 0;")

    def err_tag(self, src: ErrorSetType, dst: ErrorSetType, v, span):
        """The tag in dst of the value with tag v in src (every value of src is in dst, LS-97)."""
        if src == dst:
            return v
        table = [0] + [dst.tag_of(x) or 0 for x in src.values]
        ct = self.ctype(dst.underlying)
        return "((const %s[]){%s})[%s]" % (ct, ", ".join(str(x) for x in table), v)

    def s_Print(self, s, lines):
        if self.fn_kind == "kernel":
            raise refuse(s.span, "print in a kernel")
        lines.append("if (cint_gen_print_begin(ctx)) goto fail;")
        for p in s.text.parts:
            if isinstance(p, A.Hole):
                v = self.expr(p.expr, lines)
                t = p.expr.ty
                if p.eq:
                    b = (p.source + "=").encode()
                    lines.append("if (cint_gen_print_bytes(ctx, %s, %du)) goto fail;" % (c_str(b), len(b)))
                self.print_value(p, t, v, getattr(p, "fspec", None), lines)
            else:
                b = p.encode("utf-8") if isinstance(p, str) else p
                if b:
                    lines.append("if (cint_gen_print_bytes(ctx, %s, %du)) goto fail;" % (c_str(b), len(b)))
        lines.append("if (cint_gen_print_end(ctx, %s)) goto fail;" % self.at_nostep(s.span))

    def print_text(self, b: bytes, lines):
        if b:
            lines.append("if (cint_gen_print_bytes(ctx, %s, %du)) goto fail;" % (c_str(b), len(b)))

    def print_value(self, p, t, v, fs, lines):
        """One hole's value, byte for byte fmt.format_value: an array as nested `[x, y]` lists with the spec
        applied to each element (LS-212), a struct as `Name(f=x, ...)` with every field in the default rendering
        (an array field as a nested list), a scalar under its spec or in the default rendering."""
        from cint_compiler.semantics.fmt import DEFAULT_SPEC
        if isinstance(t, ArrayType):
            a = self.tmp("cint_gen_array", lines, v)
            ect = self.ctype(t.elem)
            ext = ["%s.shape[%d]" % (a, d) for d in range(t.rank)]

            def at(ix):
                off = " + ".join("%s * %s.stride[%d]" % (x, a, d) for d, x in enumerate(ix))
                return "(*(const %s *)(%s.data + (%s) * %s.elem_size))" % (ect, a, off, a)
            self.print_nested(p, t.elem, ext, at, fs, lines)
            return
        if isinstance(t, StructType):
            sv = self.tmp(self.ctype(t), lines, v)
            self.print_text((t.name() + "(").encode("utf-8"), lines)
            for k, (fname, ft, bits) in enumerate(t.fields):
                self.print_text(((", " if k else "") + fname + "=").encode("utf-8"), lines)
                fv = "%s.f_%s" % (sv, fname)
                if isinstance(ft, ArrayType):
                    dims = list(ft.dims)

                    def at(ix, fv=fv, dims=dims):
                        flat = "0"
                        for d, x in enumerate(ix):
                            flat = "(%s) * %d + %s" % (flat, dims[d], x)
                        return "%s[%s]" % (fv, flat)
                    self.print_nested(p, ft.elem, [str(x) for x in dims], at, DEFAULT_SPEC, lines)
                else:
                    self.print_value(p, ft, fv, DEFAULT_SPEC, lines)
            self.print_text(b")", lines)
            return
        if fs is not None and (fs.text or fs.conv is not None):
            self.print_spec(p, t, v, fs, lines)
        elif wide(t):                   # the default rendering: decimal (cint_rt_wide.h)
            w = self.tmp(self.ctype(t), lines, v)
            lines.append("if (cint_w_print(ctx, %s, %s.l)) goto fail;" % (self.tag(t), w))
        elif isinstance(t, IntType) and t.bits <= 64:
            fn = "cint_gen_print_i64" if t.signed else "cint_gen_print_u64"
            lines.append("if (%s(ctx, %s)) goto fail;" % (fn, v))
        elif isinstance(t, FixedType):
            lines.append("if (cintg_print_q(ctx, (int64_t)%s, %du)) goto fail;" % (v, t.f))
        elif isinstance(t, BoolType):
            lines.append("if (cint_gen_print_bytes(ctx, (%s) ? \"true\" : \"false\", (%s) ? 4u : 5u)) goto fail;"
                         % (v, v))
        elif isinstance(t, StrType):
            sv = self.tmp("cint_gen_array", lines, v)
            lines.append("if (cintg_print_str(ctx, NULL, &%s)) goto fail;" % sv)
        else:
            self.print_spec(p, t, v, DEFAULT_SPEC, lines)

    def print_nested(self, p, et, ext, at, fs, lines):
        """The elements of an array of extents ext (C expressions) as nested lists; at(ix) is the C lvalue of
        the element at the index variables ix."""
        ix = []
        for d, n in enumerate(ext):
            i = self.tmp("int64_t", lines, "0")
            ix.append(i)
            lines.append("if (cint_gen_print_bytes(ctx, \"[\", 1u)) goto fail;")
            lines.append("for (%s = 0; %s < %s; %s++) {" % (i, i, n, i))
            lines.append("if (%s && cint_gen_print_bytes(ctx, \", \", 2u)) goto fail;" % i)
        self.print_value(p, et, at(ix), fs, lines)
        for _ in ext:
            lines.append("}")
            lines.append("if (cint_gen_print_bytes(ctx, \"]\", 1u)) goto fail;")

    def fmt_desc(self, fs, elem=False) -> str:
        """A static cint_fmt_spec for a checked spec (runtime-c/include/cint_rt_fmt.h)."""
        fill = fs.fill.encode("utf-8")
        key = (fill, fs.align, fs.sign, fs.kind, fs.group, fs.alt, fs.zero, fs.width, fs.precision, fs.scale_digits)
        table = self.__dict__.setdefault("fmt_descs", {})
        if key not in table:
            name = "FS%d" % len(table)
            ch = lambda c: "'%s'" % c if c else "0"
            self.descs.append("static const cint_fmt_spec %s = {%s, %du, %s, %s, %s, %s, %du, %du, %s, %s, %s};" % (
                name, c_str(fill), len(fill), ch(fs.align), ch(fs.sign), ch(fs.kind), ch(fs.group), int(fs.alt),
                int(fs.zero), "INT64_C(%d)" % (-1 if fs.width is None else fs.width),
                "INT64_C(%d)" % (-1 if fs.precision is None else fs.precision),
                "INT64_C(%d)" % (-1 if fs.scale_digits is None else fs.scale_digits)))
            table[key] = name
        return "&" + table[key]

    def print_spec(self, p, t, v, fs, lines):
        """One hole under a format specification or conversion, byte for byte fmt.format_value (LS-201 to
        LS-215): the value's sign and magnitude (or its name) handed to the runtime formatter."""
        conv = fs.conv
        d = self.fmt_desc(fs)

        def sm(x, signed):
            """(neg, mag) of a C integer value."""
            if not signed:
                return "0", "(uint64_t)%s" % x
            x = self.tmp("int64_t", lines, "(int64_t)%s" % x)
            return "(%s < 0)" % x, "(%s < 0 ? (uint64_t)0 - (uint64_t)%s : (uint64_t)%s)" % (x, x, x)

        def call(fn, *args):
            lines.append("if (%s(ctx, %s)) goto fail;" % (fn, ", ".join(args)))
        def char_check(x, it):
            """kind `c`: E_NARROW format.char.<T> unless x (of type it) is a Unicode scalar value (LS-209)."""
            if fs.kind != "c":
                return
            x = self.tmp("int64_t", lines, "(int64_t)%s" % x) if it.signed else self.tmp("uint64_t", lines, x)
            bad = ("(%s < 0 || %s > 0x10FFFF || (%s >= 0xD800 && %s <= 0xDFFF))" % (x, x, x, x) if it.signed else
                   "(%s > 0x10FFFFu || (%s >= 0xD800u && %s <= 0xDFFFu))" % (x, x, x))
            lines.append("if %s { cint_tvalue ops_[1]; cint_tv_int(&ops_[0], %s, (uint64_t)%s); const cint_gen_fault "
                         "f_ = {CINT_E_NARROW, 1u, 0u, \"%s\", ops_, NULL, NULL}; cint_gen_raise(ctx, %s, "
                         "&f_); goto fail; }" % (bad, self.tag(it), x, O.format_char(it), self.at_nostep(p.expr.span)))
        num = isinstance(t, (IntType, FixedType))
        if wide(t):
            self.print_wide(p, t, v, fs, d, lines)
            return
        if num and t.bits > 64:
            raise refuse(p.span, "printing %s" % t)
        if conv == "bits":
            w = t.bits
            call("cint_fmt_int", d, "0", "((uint64_t)%s & UINT64_C(%d))" % (v, (1 << w) - 1), "%du" % w)
        elif conv == "raw":
            char_check(v, t.storage)
            neg, mag = sm(v, True)
            call("cint_fmt_int", d, neg, mag, "0u")
        elif conv == "ratio":
            neg, mag = sm(v, True)
            call("cint_fmt_ratio", d, neg, mag, "%du" % t.f)
        elif conv is not None:                  # !lanes(T)
            lane = conv[1]
            u = self.tmp("uint64_t", lines, "(uint64_t)%s & UINT64_C(%d)" % (v, (1 << t.bits) - 1))
            de = self.fmt_desc(fs.element())
            lines.append("if (cint_gen_print_bytes(ctx, \"[\", 1u)) goto fail;")
            for k in range(t.bits // lane.bits):
                if k:
                    lines.append("if (cint_gen_print_bytes(ctx, \", \", 2u)) goto fail;")
                x = self.tmp(CT[(False, lane.bits)], lines, "(%s)((%s >> %d) & UINT64_C(%d))" % (
                    CT[(False, lane.bits)], u, k * lane.bits, (1 << lane.bits) - 1))
                char_check(x, lane)
                call("cint_fmt_int", de, "0", "(uint64_t)%s" % x, "0u")
            lines.append("if (cint_gen_print_bytes(ctx, \"]\", 1u)) goto fail;")
        elif isinstance(t, IntType):
            char_check(v, t)
            neg, mag = sm(v, t.signed)
            call("cint_fmt_int", d, neg, mag, "0u")
        elif isinstance(t, FixedType):
            neg, mag = sm(v, True)
            call("cint_fmt_fixed", d, neg, mag, "%du" % t.f)
        elif isinstance(t, BoolType):
            call("cint_fmt_text", d, "(%s) ? \"true\" : \"false\"" % v, "(%s) ? 4u : 5u" % v)
        elif isinstance(t, StrType):
            sv = self.tmp("cint_gen_array", lines, v)
            call("cintg_print_str", d, "&" + sv)
        elif isinstance(t, (EnumType, ErrorSetType)):
            names = []
            if isinstance(t, EnumType):
                for n, m in t.members.items():
                    names.append((m, (t.name() + "." + n) if fs.alt else n))
            else:
                for k, (dset, n) in enumerate(t.values):
                    names.append((k + 1, dset.rsplit(".", 1)[-1] + "." + n))
            nm = self.tmp("const char *", lines, '""')
            lines.append("switch (%s) {" % v)
            for m, n in names:
                lines.append("case %s: %s = %s; break;" % (int_lit(t.underlying, m), nm, c_str(n.encode("utf-8"))))
            lines.append("default: break;")
            lines.append("}")
            call("cint_fmt_text", d, nm, "strlen(%s)" % nm)
        else:
            raise refuse(p.span, "printing a value of type %s" % t)

    def print_wide(self, p, t, v, fs, d, lines):
        """print_spec for I128..I1024: the limbs to cint_fmt_wide (runtime-c/src/fmt.c), byte for byte
        fmt._format_scalar; `!lanes(T)` takes each lane out of its limb (a lane is at most 64 bits)."""
        x = self.tmp(self.ctype(t), lines, v)
        n = t.bits // 64
        conv = fs.conv
        if conv == "bits":
            lines.append("if (cint_fmt_wide(ctx, %s, 0, %s.l, %du, %du)) goto fail;" % (d, x, n, t.bits))
            return
        if conv is not None:                    # !lanes(T): T is U8..U64
            lane = conv[1]
            lb = lane.bits
            de = self.fmt_desc(fs.element())
            kk = self.tmp("int", lines, "0")
            lines.append("if (cint_gen_print_bytes(ctx, \"[\", 1u)) goto fail;")
            lines.append("for (%s = 0; %s < %d; %s++) {" % (kk, kk, t.bits // lb, kk))
            lines.append("    if (%s && cint_gen_print_bytes(ctx, \", \", 2u)) goto fail;" % kk)
            lines.append("    uint64_t ly_ = (%s.l[%s * %d / 64] >> (%s * %d %% 64)) & UINT64_C(%d);" % (
                x, kk, lb, kk, lb, (1 << lb) - 1))
            y = "ly_"
            if fs.kind == "c":
                lines.append("    if (%s > 0x10FFFFu || (%s >= 0xD800u && %s <= 0xDFFFu)) { cint_tvalue ops_[1]; "
                             "cint_tv_int(&ops_[0], %s, (uint64_t)%s); const cint_gen_fault f_ = {CINT_E_NARROW, 1u, 0u, "
                             "\"%s\", ops_, NULL, NULL}; cint_gen_raise(ctx, %s, &f_); goto fail; }" % (
                                 y, y, y, self.tag(lane), y, O.format_char(lane), self.at_nostep(p.expr.span)))
            lines.append("    if (cint_fmt_int(ctx, %s, 0, (uint64_t)%s, 0u)) goto fail;" % (de, y))
            lines.append("}")
            lines.append("if (cint_gen_print_bytes(ctx, \"]\", 1u)) goto fail;")
            return
        if fs.kind == "c":
            # E_NARROW format.char.<T> unless the value is a Unicode scalar value (LS-209)
            bad = "(cint_cmp_%s(%s, %s) < 0 || cint_cmp_%s(%s, %s) > 0 || (%s.l[0] >= 0xD800u && %s.l[0] <= 0xDFFFu))" % (
                t.token, x, int_lit(t, 0), t.token, x, int_lit(t, 0x10FFFF), x, x)
            lines.append("if %s { cint_tvalue ops_[1]; cint_w_tv(&ops_[0], %s, %s.l); const cint_gen_fault f_ = "
                         "{CINT_E_NARROW, 1u, 0u, \"%s\", ops_, NULL, NULL}; cint_gen_raise(ctx, %s, &f_); "
                         "goto fail; }" % (bad, self.tag(t), x, O.format_char(t), self.at_nostep(p.expr.span)))
        lines.append("if (cint_fmt_wide(ctx, %s, 1, %s.l, %du, 0u)) goto fail;" % (d, x, n))

    def s_Assert(self, s, lines):
        c = s.cond
        if isinstance(c, A.Binary) and c.op in CMP_OPS and isinstance(c.left.ty, (IntType, BoolType)):
            a = self.tmp(self.ctype(c.left.ty), lines, self.expr(c.left, lines))
            b = self.tmp(self.ctype(c.right.ty), lines, self.expr(c.right, lines))
            if wide(c.left.ty):
                lines.append("if (!(cint_cmp_%s(%s, %s) %s 0)) { cint_tvalue ops_[2]; cint_w_tv(&ops_[0], %s, %s.l); "
                             "cint_w_tv(&ops_[1], %s, %s.l); const cint_gen_fault f_ = {CINT_E_ASSERT, 2u, 0u, "
                             "\"%s\", ops_, NULL, NULL}; cint_gen_raise(ctx, %s, &f_); goto fail; }" % (
                                 c.left.ty.token, a, b, c.op, self.tag(c.left.ty), a, self.tag(c.right.ty), b,
                                 O.ASSERT, self.at_nostep(s.span)))
                return
            lines.append("if (!(%s %s %s)) { cint_tvalue ops_[2]; cint_tv_int(&ops_[0], %s, (uint64_t)%s); "
                         "cint_tv_int(&ops_[1], %s, (uint64_t)%s); const cint_gen_fault f_ = {CINT_E_ASSERT, 2u, 0u, "
                         "\"%s\", ops_, NULL, NULL}; cint_gen_raise(ctx, %s, &f_); goto fail; }" % (
                             a, c.op, b, self.tag(c.left.ty), a, self.tag(c.right.ty), b, O.ASSERT,
                             self.at_nostep(s.span)))
            return
        v = self.expr(c, lines)
        lines.append("if (!(%s)) { const cint_gen_fault f_ = {CINT_E_ASSERT, 0u, 0u, \"%s\", NULL, "
                     "NULL, NULL}; cint_gen_raise(ctx, %s, &f_); goto fail; }" % (v, O.ASSERT, self.at_nostep(s.span)))

    def s_StaticAssert(self, s, lines):
        pass

    # ------------------------------------------------------------------ expressions

    def const(self, t, v, span):
        if isinstance(t, IntType):
            return int_lit(t, v)
        if isinstance(t, BoolType):
            return "1" if v else "0"
        if isinstance(t, EnumType):
            return int_lit(t.underlying, v.value)
        if isinstance(t, ErrorSetType):
            return int_lit(t.underlying, t.tag_of((v.set, v.name)))
        if isinstance(t, FixedType):
            return int_lit(t.storage, v)
        raise refuse(span, "a constant of type %s" % t)

    def expr(self, e, lines, void_ok=False) -> str:
        cv = e.cval
        if cv is not NOTCONST and not e.skip_fold:
            if self.fn_kind == "kernel" and e.csteps:
                lines.append("step += %d;" % e.csteps)
            if isinstance(e.ty, (ArrayType, StructType, ErrorUnionType, TupleType, StrType)):
                return self.x_dispatch(e, lines)
            return self.const(e.ty, cv, e.span)
        return self.x_dispatch(e, lines)

    def x_dispatch(self, e, lines):
        m = getattr(self, "x_" + type(e).__name__, None)
        if m is None:
            raise refuse(e.span, "the expression %s" % type(e).__name__)
        return m(e, lines)

    def x_IntLit(self, e, lines):
        return self.const(e.ty, e.value, e.span)

    def x_BoolLit(self, e, lines):
        return "1" if e.value else "0"

    def x_Paren(self, e, lines):
        return self.expr(e.inner, lines)

    def x_Name(self, e, lines):
        sym = e.ref
        if sym.kind == "const":
            if isinstance(sym.type, ArrayType):
                return self.const_array(sym, e.span, lines)
            return self.const(sym.type, sym.value, e.span)
        return self.var(sym, e.span)

    def const_array(self, sym, span, lines):
        """A read-only view of constant array sym (SPEC-04 5.2): its elements, folded at compile time, are
        static storage of the generated code, written once per constant."""
        t = sym.type
        v = sym.value
        et = t.elem
        if not self.packable(et):
            raise refuse(span, "a constant array of %s" % et)
        names = self.__dict__.setdefault("const_arrays", {})
        if id(v) not in names:
            names[id(v)] = ("ca%d" % len(names), v)
            if isinstance(et, (BoolType, EnumType, ErrorSetType)) or (isinstance(et, IntType) and et.bits <= 64):
                cells = [self.const(et, x, span) for x in v.elements()] or ["0"]
                self.descs.append("static const %s %s[%d] = {%s};" % (self.ctype(et), names[id(v)][0], len(cells),
                                                                      ", ".join(cells)))
            else:
                # Q, I128..I1024 and struct elements: the bytes of their C layout (c_pack; the layout of a
                # struct is checked by _Static_assert), aligned for the element
                data = b"".join(self.c_pack(et, x, span) for x in v.elements()) or bytes(1)
                self.descs.append("static const _Alignas(8) uint8_t %s[%d] = {%s};" % (
                    names[id(v)][0], len(data), ", ".join(str(b) for b in data)))
        name = self.tmp("cint_gen_array", lines)
        lines.append("cintg_inline(&%s, %s, (int64_t)sizeof(%s), %s, %du, (const int64_t[4]){%s});" % (
            name, names[id(v)][0], self.ctype(et), self.elem_type(et), t.rank,
            ", ".join(str(x) for x in list(v.shape) + [0] * (4 - t.rank))))
        lines.append("%s.perm = CINT_VIEW_READ;" % name)
        return name

    def x_DotName(self, e, lines):
        return self.const(e.ty, e.cval, e.span)

    def x_Member(self, e, lines):
        if getattr(e, "mkind", None) == "const":
            return self.const(e.ty, e.cval, e.span)
        if getattr(e, "mkind", None) == "raw":
            self.qcheck(e.span)
            return self.expr(e.base, lines)
        if getattr(e, "mkind", None) == "qname":
            sym = e.ref
            if sym.kind == "const":
                if isinstance(sym.type, ArrayType):
                    return self.const_array(sym, e.span, lines)
                return self.const(sym.type, sym.value, e.span)
            return self.var(sym, e.span)
        base = self.expr(e.base, lines)
        if isinstance(e.ty, ArrayType):
            return self.field_view(e, base, lines)
        return "(%s).f_%s" % (base, e.name)

    def field_view(self, e, base, lines):
        """A cint_gen_array over the storage of an array field inside a struct value (a view of it)."""
        ft = e.ty
        name = self.tmp("cint_gen_array", lines)
        dims = ["INT64_C(%d)" % x for x in ft.dims] + ["0"] * (4 - ft.rank)
        lines.append("cintg_inline(&%s, (%s).f_%s, (int64_t)sizeof(%s), %s, %du, (const int64_t[4]){%s});" % (
            name, base, e.name, self.ctype(ft.elem, e.span), self.elem_type(ft.elem, e.span), ft.rank,
            ", ".join(dims)))
        return name

    def x_Unary(self, e, lines):
        v = self.expr(e.operand, lines)
        t = e.ty
        if e.op == "!":
            return "(!(%s))" % v
        if e.op == "~":
            if wide(t):
                return "cint_not_%s(%s)" % (t.token, v)
            return "((%s)~(%s))" % (self.ctype(t), v)
        if e.op == "-%" and self.fn_kind == "kernel" and not isinstance(t, FixedType):
            lines.append("step++;")         # `-%` counts one step like `-` (interp: Evaluator.x_Unary; qfin counts Q's)
        if wide(t) and e.op == "-%":
            return "cint_neg_wrap_%s(%s)" % (t.token, v)
        if isinstance(t, FixedType):
            self.qcheck(e.span)
            a = self.tmp(self.ctype(t), lines, v)
            if e.op == "-%":
                return self.qfin("CINT_E_OVERFLOW", O.op("neg", "checked", t), 1, t, a, "0", t, "wrap",
                                 "-(cintg_i128)%s" % a, e.span, lines)
            if e.op != "-":
                raise refuse(e.span, "unary `%s` on fixed point" % e.op)
            return self.qfin("CINT_E_OVERFLOW", O.op("neg", "checked", t), 1, t, a, "0", t, "checked",
                             "-(cintg_i128)%s" % a, e.span, lines)
        sfx = t.token
        if e.op == "-%":
            return "cint_sub_wrap_%s(0, %s)" % (sfx, v)
        r = self.tmp(self.ctype(t, e.span), lines)
        lines.append("if (cint_neg_checked_%s(ctx, %s, %s, &%s)) goto fail;" % (sfx, self.at(e.span), v, r))
        return r

    def binop(self, op, t, a, b, bt, span, lines):
        if isinstance(t, FixedType) and op in ARITH_OPS and op != "%":
            self.qcheck(span)
            name, form = ARITH_OPS[op]
            a = self.tmp(self.ctype(t), lines, a)
            b = self.tmp(self.ctype(t), lines, b)
            if name == "mul":
                return self.qmul(t, form, "half_even", a, b, span, lines)
            if name == "div":
                return self.qdiv(t, "half_even", a, b, span, lines)
            v = "(cintg_i128)%s %s (cintg_i128)%s" % (a, "+" if name == "add" else "-", b)
            return self.qfin("CINT_E_OVERFLOW", O.op(name, form, t), 2, t, a, b, t, form, v, span,
                             lines)
        if not isinstance(t, IntType):
            raise refuse(span, "arithmetic on %s" % t)
        sfx = t.token
        ct = self.ctype(t)
        if op in ("&", "|", "^"):
            if wide(t):
                return "cint_%s_%s(%s, %s)" % ({"&": "and", "|": "or", "^": "xor"}[op], sfx, a, b)
            return "((%s)(%s %s %s))" % (ct, a, op, b)
        if op in SHIFT_OPS and wide(bt):
            # a wide count: the generic shift of cint_rt_wide.h, operands in the limb convention
            name, form = SHIFT_OPS[op]
            code = {"shl": "CINT_OP_SHL" if form == "checked" else "CINT_OP_SHL_WRAP", "shr": "CINT_OP_SHR"}[name]
            kv = self.tmp(self.ctype(bt), lines, b)
            av = self.tmp(ct, lines, a)
            r = self.tmp(ct, lines)
            if wide(t):
                lines.append("if (cint_w_shift(ctx, %s, %s, %s, %s.l, %s, %s.l, %s.l)) goto fail;" % (
                    self.at(span), code, self.tag(t), av, self.tag(bt), kv, r))
                return r
            rb = self.tmp("uint64_t", lines, "0")
            lines.append("if (cint_w_shift(ctx, %s, %s, %s, (const uint64_t[1]){(uint64_t)%s}, %s, %s.l, &%s)) goto fail;"
                         % (self.at(span), code, self.tag(t), av, self.tag(bt), kv, rb))
            return "cintg_wrap_%s(%s)" % (sfx, rb)
        if op in SHIFT_OPS:
            name, form = SHIFT_OPS[op]
            fn = {"shl": "cint_shl_%s_%s" % (form, sfx), "shr": "cint_shr_checked_%s" % sfx}[name]
            r = self.tmp(ct, lines)
            lines.append("if (%s(ctx, %s, %s, %s, (uint64_t)%s, &%s)) goto fail;" % (fn, self.at(span), a,
                                                                                       self.tag(bt), b, r))
            return r
        name, form = ARITH_OPS[op]
        if form in ("wrap", "sat"):
            if self.fn_kind == "kernel":
                lines.append("step++;")
            return "cint_%s_%s_%s(%s, %s)" % (name, form, sfx, a, b)
        r = self.tmp(ct, lines)
        lines.append("if (cint_%s_checked_%s(ctx, %s, %s, %s, &%s)) goto fail;" % (name, sfx, self.at(span), a, b, r))
        return r

    def x_Binary(self, e, lines):
        op = e.op
        if op in ("&&", "||"):
            a = self.expr(e.left, lines)
            r = self.tmp("uint8_t", lines, "(uint8_t)(%s)" % a)
            inner = []
            b = self.expr(e.right, inner)
            lines.append("if (%s%s) {" % ("" if op == "&&" else "!", r))
            lines += ["    " + l for l in inner]
            lines.append("    %s = (uint8_t)(%s);" % (r, b))
            lines.append("}")
            return r
        a = self.tmp(self.ctype(e.left.ty, e.span), lines, self.expr(e.left, lines))
        b = self.tmp(self.ctype(e.right.ty, e.span), lines, self.expr(e.right, lines))
        if op in CMP_OPS:
            if isinstance(e.left.ty, StrType) and isinstance(e.right.ty, StrType):
                return "(cintg_strcmp(&%s, &%s) %s 0)" % (a, b, op)
            if isinstance(e.left.ty, (StructType, ArrayType, StrType)):
                raise refuse(e.span, "comparing %s" % e.left.ty)
            lt, rt = e.left.ty, e.right.ty
            if isinstance(lt, ErrorSetType) and isinstance(rt, ErrorSetType) and lt != rt:
                # compared as values: both in the set that holds the other (LS-97)
                if all(lt.tag_of(x) for x in rt.values):
                    b = self.err_tag(rt, lt, b, e.span)
                else:
                    a = self.err_tag(lt, rt, a, e.span)
            if wide(lt):
                return "(cint_cmp_%s(%s, %s) %s 0)" % (lt.token, a, b, op)
            return "(%s %s %s)" % (a, op, b)
        return self.binop(op, e.ty, a, b, e.right.ty, e.span, lines)

    def x_Cond(self, e, lines):
        c = self.expr(e.cond, lines)
        r = self.tmp(self.ctype(e.ty, e.span), lines)
        t, o = [], []
        tv = self.expr(e.then, t)
        ov = self.expr(e.other, o)
        lines.append("if (%s) {" % c)
        tv, ov = self.coerce(tv, e.then.ty, e.ty), self.coerce(ov, e.other.ty, e.ty)
        lines += ["    " + l for l in t] + ["    %s = %s;" % (r, tv), "} else {"]
        lines += ["    " + l for l in o] + ["    %s = %s;" % (r, ov), "}"]
        return r

    def enum_check(self, e, x, src, dst):
        """The C condition that x (of integer type src) is the value of an enumerator of dst (LS-89)."""
        if not isinstance(src, IntType) or src.bits > 64:
            raise refuse(e.span, "a conversion from %s to an enum" % src)
        vals = sorted(set(m for m in dst.members.values() if src.min <= m <= src.max))
        return " || ".join("(uint64_t)%s == UINT64_C(%d)" % (x, m % (1 << 64)) for m in vals) or "0"

    def enum_convert(self, e, lines):
        """`x as E` (LS-89): E_NARROW `as.checked.<S>.<e>` when x is not an enumerator's value."""
        src, dst = e.src, e.ty
        if not isinstance(src, IntType) or src.bits > 64:
            raise refuse(e.span, "a conversion from %s to an enum" % src)
        x = self.tmp(self.ctype(src), lines, self.expr(e.operand, lines))
        op = O.op("as", "checked", src, O.enum_token(dst))
        lines.append("if (!(%s)) { (void)cintg_enum_narrow(ctx, %s, \"%s\", %s, %d, (uint64_t)%s); goto fail; }" % (
            self.enum_check(e, x, src, dst), self.at(e.span), op, self.tag(src), int(src.signed), x))
        if self.fn_kind == "kernel":
            lines.append("step++;")
        return "((%s)%s)" % (self.ctype(dst), x)

    def x_Convert(self, e, lines):
        if e.op == "as?":
            return self.convert_result(e, lines)
        src = e.src
        dst = e.ty
        if isinstance(dst, EnumType):
            return self.enum_convert(e, lines)
        if isinstance(dst, FixedType) or isinstance(src, FixedType):
            return self.qconvert(e, lines)
        v = self.expr(e.operand, lines)
        if isinstance(src, EnumType):
            src = src.underlying
        if src == BOOL:
            if self.fn_kind == "kernel":
                lines.append("step++;")
            if wide(dst):
                return "cint_from64_%s(CINT_TAG_U8, (uint64_t)(%s))" % (dst.token, v)
            return "((%s)(%s))" % (self.ctype(dst), v)
        if isinstance(src, IntType) and isinstance(dst, IntType) and (wide(src) or wide(dst)) and \
                e.op in ("as", "as%", "as|"):
            form = {"as": "CINT_W_CHECKED", "as%": "CINT_W_WRAP", "as|": "CINT_W_SAT"}[e.op]
            return self.wconvert(form, src, dst, v, e.span, lines)
        if not isinstance(src, IntType) or src.bits > 64 or dst.bits > 64:
            raise refuse(e.span, "this conversion")
        self.ctype(dst)
        if e.op == "as%":
            if self.fn_kind == "kernel":
                lines.append("step++;")
            return "cintg_wrap_%s((uint64_t)(%s))" % (dst.token, v)
        r = self.tmp("uint64_t", lines)
        lines.append("if (cint_as_checked(ctx, %s, %s, %s, (uint64_t)(%s), &%s)) goto fail;" % (
            self.at(e.span), self.tag(src), self.tag(dst), v, r))
        return "cintg_wrap_%s(%s)" % (dst.token, r)

    def convert_result(self, e, lines):
        """`x as? T` (LS-95): T!ArithError, .narrow when x is outside T; one counted step, never a fault."""
        ut = e.ty
        u = self.tmp(self.ctype(ut, e.span), lines)
        if e.cval is not NOTCONST:
            kind, v = e.cval
            if kind == "ok":
                lines.append("%s.value = %s;" % (u, self.const(ut.value, v, e.span)))
            else:
                lines.append("%s.tag = %d;" % (u, ut.errset.tag_of((v.set, v.name))))
            return u
        src, dst = e.src, ut.value
        if isinstance(dst, EnumType):
            if not isinstance(src, IntType) or src.bits > 64:
                raise refuse(e.span, "`as?` from %s to %s" % (src, dst))
            x = self.tmp(self.ctype(src), lines, self.expr(e.operand, lines))
            if self.fn_kind == "kernel":
                lines.append("step++;")
            narrow = ut.errset.tag_of(("ArithError", "narrow"))
            lines.append("if (%s) %s.value = (%s)%s; else %s.tag = %d;" % (
                self.enum_check(e, x, src, dst), u, self.ctype(dst), x, u, narrow))
            return u
        if isinstance(src, EnumType):
            src = src.underlying
        if not isinstance(dst, IntType) or (dst.bits > 64 and src == BOOL) or not (src == BOOL or isinstance(src, IntType)):
            raise refuse(e.span, "`as?` from %s to %s" % (e.src, dst))
        x = self.tmp(self.ctype(src), lines, self.expr(e.operand, lines))
        if self.fn_kind == "kernel":
            lines.append("step++;")
        if wide(src) or wide(dst):
            # a wide side: in range exactly when the checked conversion would not fault
            val, rl = self.wout(dst, lines)
            narrow = ut.errset.tag_of(("ArithError", "narrow"))
            lines.append("if (cint_w_fits(%s, %s, %s)) { (void)cint_w_convert(ctx, NULL, CINT_W_WRAP, %s, %s, %s, %s); "
                         "%s.value = %s; } else %s.tag = %d;" % (
                             self.tag(src), self.limbs(src, x), self.tag(dst), self.tag(src), self.limbs(src, x),
                             self.tag(dst), rl, u, val, u, narrow))
            return u
        if src == BOOL or (not src.signed and src.bits < dst.bits) or \
                (src.signed == dst.signed and src.bits <= dst.bits):
            conds = []
        elif src.signed:
            conds = ["(int64_t)%s >= INT64_C(%d)" % (x, dst.min) if dst.min > -(1 << 63) else None,
                     ("(int64_t)%s <= INT64_C(%d)" % (x, dst.max)) if dst.max < (1 << 63) - 1 else None]
            conds = [c for c in conds if c]
        else:
            conds = ["(uint64_t)%s <= UINT64_C(%d)" % (x, dst.max)] if dst.max < (1 << 64) - 1 else []
        ok = " && ".join(conds) or "1"
        narrow = ut.errset.tag_of(("ArithError", "narrow"))
        lines.append("if (%s) %s.value = (%s)%s; else %s.tag = %d;" % (ok, u, self.ctype(dst), x, u, narrow))
        return u

    def qconvert(self, e, lines):
        from cint_compiler.semantics.types import ROUND_MODES
        self.qcheck(e.span)
        src, dst = e.src, e.ty
        form = {"as": "checked", "as%": "wrap", "as|": "sat"}.get(e.op)
        ok = lambda t: isinstance(t, FixedType) or (isinstance(t, IntType) and t.bits <= 64)
        if form is None or getattr(e, "literal", False) or not ok(src) or not ok(dst):
            raise refuse(e.span, "this fixed-point conversion")
        x = self.tmp(self.ctype(src), lines, self.expr(e.operand, lines))
        sf = src.f if isinstance(src, FixedType) else 0
        df = dst.f if isinstance(dst, FixedType) else 0
        parts = ["as", form, src.token, dst.token]
        # fixed to integer and fixed to a coarser fixed round and name the mode (intmachine.conversion_rounds)
        rounds = isinstance(src, FixedType) and (not isinstance(dst, FixedType) or df < sf)
        if not rounds:
            v = "(cintg_i128)%s * ((cintg_i128)1 << %d)" % (x, df - sf)
        else:
            parts.append(e.mode)
            v = "cintg_qrdiv((cintg_i128)%s, (cintg_i128)1 << %d, %d)" % (x, sf - df, ROUND_MODES.index(e.mode))
        return self.qfin("CINT_E_NARROW", ".".join(parts), 1, src, x, "0", dst, form, v, e.span, lines)

    def x_Index(self, e, lines):
        if getattr(e, "subword", None) is not None:      # `x.byte[k]` (LS-85, Proposed), decision 31
            from cint_compiler.backend.c17 import proposed as proposed_c
            return proposed_c.subword_read(self, e, lines)
        return self.index_lvalue(e, lines)

    def index_lvalue(self, e, lines):
        if getattr(e, "ckind", None) is not None:
            return MC.index(self, e, lines)
        bt = e.base.ty
        if isinstance(bt, StrType):
            # s[i]: one counted step, E_BOUNDS index.checked.u8 (interp: x_Index on bytes)
            bt = ArrayType(U8, (None,))
        if not isinstance(bt, ArrayType):
            raise refuse(e.span, "indexing a %s" % bt)
        if getattr(e, "view", False) or any(isinstance(i, A.SliceItem) for i in e.items) or len(e.items) != bt.rank:
            return self.view(e, lines)
        base = self.expr(e.base, lines)
        idx = [self.tmp("int64_t", lines, self.expr(i, lines)) for i in e.items]
        arr = self.tmp("cint_gen_array *", lines, "&(%s)" % base)
        MC.recheck(self, "*" + arr, e.span, lines)
        at = self.at(e.span)
        lines.append("{ const cint_gen_at *a_ = %s;" % at)
        for k, i in enumerate(idx):
            lines.append("  if (cint_index(ctx, a_, %s, %du, %s)) goto fail;" % (arr, k, i))
        lines.append("}")
        ct = self.ctype(bt.elem, e.span)
        return "(*(%s *)cint_elem%d(%s, %s))" % (ct, len(idx), arr, ", ".join(idx))

    def view(self, e, lines):
        """A slice or partial index: the base, every index and bound left to right, one counted step, then
        the dimensions checked in order (interp: Evaluator.form_view)."""
        bt = e.base.ty
        base = self.expr(e.base, lines)
        src = self.tmp("cint_gen_array *", lines, "&(%s)" % base)
        items = []
        for it in e.items:
            if isinstance(it, A.SliceItem):
                lo = None if it.lo is None else self.tmp("int64_t", lines, self.expr(it.lo, lines))
                hi = None if it.hi is None else self.tmp("int64_t", lines, self.expr(it.hi, lines))
                step = it.step.cval if it.step is not None else 1
                items.append("{1, %d, %d, %d, %s, %s, INT64_C(%d)}" % (
                    lo is not None, hi is not None, 1 if it.inclusive else 0, lo or "0", hi or "0", step))
            else:
                i = self.tmp("int64_t", lines, self.expr(it, lines))
                items.append("{0, 1, 0, 0, %s, 0, 1}" % i)
        out = self.tmp("cint_gen_array", lines)
        lines.append("{ const cintg_item it_[%d] = {%s};" % (len(items), ", ".join(items)))
        lines.append("  if (cintg_view(ctx, %s, \"%s\", \"%s\", %s, %du, it_, &%s)) goto fail; }"
                     % (self.at(e.span), O.index(bt.elem), O.slice_(bt.elem), src, len(items), out))
        return out

    def x_StrLit(self, e, lines):
        data = b"".join(p.encode("utf-8") if isinstance(p, str) else p for p in e.parts)
        name = self.tmp("cint_gen_array", lines)
        lines.append("cintg_inline(&%s, %s, 1, (cint_type){CINT_TAG_U8, 0u, 0u, 0u, 0u, 0u, 0u}, 1u, "
                     "(const int64_t[4]){%d, 0, 0, 0});" % (name, c_str(data), len(data)))
        lines.append("%s.perm = CINT_VIEW_READ;" % name)
        return name

    def x_TupleExpr(self, e, lines):
        """`(a, b)` in a return: the elements left to right, each copied (interp: x_TupleExpr)."""
        r = self.tmp(self.ctype(e.ty, e.span), lines)
        for k, (x, t) in enumerate(zip(e.items, e.ty.items)):
            v = self.expr(x, lines)
            lines.append("%s.f%d = %s;" % (r, k, self.coerce(v, x.ty, t)))
            self.detach(t, "%s.f%d" % (r, k), x.span, lines)
        return r

    def detach(self, t, lv, span, lines):
        """Replaces each array in the value at the C lvalue lv (of type t) by a copy in fresh frame-arena
        storage (interp: copy_value)."""
        if isinstance(t, ArrayType):
            src = self.tmp("cint_gen_array", lines, lv)
            lines.append(self.alloc_array(lv, t.elem, t.rank, "%s.shape" % src, self.at_nostep(span), span))
            self.copy_array(lv, src, t, span, lines)
        elif isinstance(t, TupleType):
            for k, x in enumerate(t.items):
                self.detach(x, "%s.f%d" % (lv, k), span, lines)

    def s_Destructure(self, s, lines):
        """LS-98 to LS-101: `(T a, T b) = e;` declares; `(p, q) = e;` evaluates and checks the places left to
        right, then the value, then stores each element."""
        t = s.value.ty
        places = []
        if not s.declare:
            for b in s.binds:
                places.append(self.place(b.place, lines) if b.place is not None else None)
        v = self.tmp(self.ctype(t, s.span), lines, self.expr(s.value, lines))
        for k, b in enumerate(s.binds):
            et = t.items[k]
            if s.declare:
                if b.sym is None:
                    continue
                name = self.local_name(b.name)
                self.vars[b.sym] = name
                lines.append("%s %s = %s.f%d; (void)%s;" % (self.ctype(et, s.span), name, v, k, name))
            elif places[k] is not None and isinstance(et, ArrayType):
                self.copy_array(places[k], "%s.f%d" % (v, k), b.place.ty, s.span, lines)
            elif places[k] is not None:
                x = self.coerce("%s.f%d" % (v, k), et, b.place.ty)
                bf = bitfield_of(b.place)
                if bf is not None:
                    x = self.bitfield_check(bf, x, s.span, lines)
                lines.append("%s = %s;" % (places[k], x))

    def x_ArrayLit(self, e, lines):
        t = e.ty
        if t.rank != 1:
            return self.nested_lit(e, lines)
        n = len(e.items)
        if isinstance(t.elem, StructType):
            vals = [self.expr(x, lines) for x in e.items]
        else:
            vals = [self.tmp(self.ctype(t.elem), lines, self.expr(x, lines)) for x in e.items]
        name = self.tmp("cint_gen_array", lines)
        lines.append("{ int64_t sh_[4] = {%d, 0, 0, 0};" % n)
        lines.append("  " + self.alloc_array(name, t.elem, 1, "sh_", self.at_nostep(e.span), e.span) + " }")
        for k, (v, x) in enumerate(zip(vals, e.items)):
            lines.append("*(%s *)cint_elem1(&%s, %d) = %s;" % (self.ctype(t.elem), name, k, self.coerce(v, x.ty, t.elem)))
        return name

    def nested_lit(self, e, lines):
        """A literal of rank 2 to 4 (interp: x_ArrayLit): its leaves in source order (depth first, left to
        right; each nested literal evaluates its items before it is copied), then one fresh row-major array of
        the literal's shape, known at compile time: every item of a nested literal is a literal.  A nested
        literal whose rows differ in length (the checker accepts it when an inner extent is computed) faults
        E_SHAPE copy.shape at the first offending row once its own items are evaluated, as the interpreter
        does: operands I64 1 and that row's first extent, limit the first row's (no step of its own)."""
        t = e.ty
        ct = self.ctype(t.elem, e.span)
        leaves = []
        vals = []

        def shape(x, r):
            if r == 1:
                for y in x.items:
                    leaves.append(y)
                    v = self.expr(y, lines)
                    vals.append(v if isinstance(t.elem, StructType) else self.tmp(ct, lines, v))
                return (len(x.items),)
            subs = [shape(y, r - 1) for y in x.items]
            inner = subs[0] if subs else (0,) * (r - 1)
            for y, sub in zip(x.items, subs):
                if sub != inner:
                    lines.append("{ cint_tvalue ops_[2], lim_; cint_tv_i64(&ops_[0], 1); cint_tv_i64(&ops_[1], %d); "
                                 "cint_tv_i64(&lim_, %d); const cint_gen_fault f_ = {CINT_E_SHAPE, 2u, 0u, "
                                 "\"%s\", ops_, NULL, &lim_}; cint_gen_raise(ctx, %s, &f_); goto fail; }"
                                 % (sub[0], inner[0], O.COPY_SHAPE, self.at_nostep(y.span)))
                    break
            return (len(x.items),) + inner

        shp = shape(e, t.rank)
        name = self.tmp("cint_gen_array", lines)
        lines.append("{ int64_t sh_[4] = {%s};" % ", ".join(str(x) for x in list(shp) + [0] * (4 - len(shp))))
        lines.append("  " + self.alloc_array(name, t.elem, t.rank, "sh_", self.at_nostep(e.span), e.span) + " }")
        total = 1
        for x in shp:
            total *= x
        for k, (v, x) in enumerate(zip(vals[:total], leaves)):       # (more leaves only after a row's fault)
            lines.append("((%s *)%s.data)[%d] = %s;" % (ct, name, k, self.coerce(v, x.ty, t.elem)))
        return name

    def x_Call(self, e, lines, void_ok=False):
        kind = e.kind
        if kind == "raw":
            self.qcheck(e.span)
            return self.expr(e.args[0].value, lines)
        if kind == "builtin":
            return self.builtin(e, lines)
        if kind == "func":
            return self.call(e, lines)
        if kind == "dispatch":
            return self.dispatch(e, lines)
        if kind == "mem":
            return MC.call(self, e, lines)
        if kind == "struct":
            # the fields in the order written; struct and array values are copied once all are evaluated,
            # after the copy.shape check of each array field (interp: Evaluator.x_Call)
            t = e.stype
            vals = self.args(e, lines)
            name = self.tmp(self.ctype(t, e.span), lines)
            lines.append("memset(&%s, 0, sizeof %s);" % (name, name))
            for (fname, ft, _), v in zip(t.fields, vals):
                if isinstance(ft, ArrayType):
                    for d, x in enumerate(ft.dims):
                        lines.append("if ((%s).shape[%d] != INT64_C(%d)) { cint_tvalue ops_[2], lim_; "
                                     "cint_tv_i64(&ops_[0], %d); cint_tv_i64(&ops_[1], (%s).shape[%d]); "
                                     "cint_tv_i64(&lim_, %d); const cint_gen_fault f_ = {CINT_E_SHAPE, 2u, 0u, "
                                     "\"%s\", ops_, NULL, &lim_}; cint_gen_raise(ctx, %s, &f_); goto fail; }"
                                     % (v, d, x, d, v, d, x, O.COPY_SHAPE, self.at_nostep(e.span)))
            vals = [self.bitfield_check((ft, w), self.coerce(v, a.ty, ft), e.span, lines) if w is not None else v
                    for (fname, ft, w), v, a in zip(t.fields, vals, e.argv)]
            for (fname, ft, _), v in zip(t.fields, vals):
                if isinstance(ft, ArrayType):
                    fe = A.Member(None, fname, span=e.span)
                    fe.ty = ft
                    dst = self.field_view(fe, name, lines)
                    self.copy_array(dst, v, ft, e.span, lines)
                else:
                    lines.append("%s.f_%s = %s;" % (name, fname, self.coerce(v, e.argv[[f[0] for f in t.fields].index(
                        fname)].ty, ft)))
            return name
        raise refuse(e.span, "this call")

    def args(self, e, lines):
        vals = [None] * len(e.argv)
        for i in e.order:
            a = e.argv[i]
            if getattr(a, "is_default", False) and isinstance(a.ty, ArrayType):
                # a constant array default (LS-125): a read-only view of static storage, as a constant's
                dsym = type("DefaultArray", (), {"type": a.ty, "value": a.cval})
                vals[i] = self.const_array(dsym, a.span, lines)
            elif isinstance(a.ty, (ArrayType, StructType)):
                v = self.expr(a, lines)
                vals[i] = v
            else:
                vals[i] = self.tmp(self.ctype(a.ty, a.span), lines, self.expr(a, lines))
        return vals

    def call(self, e, lines):
        info = e.info
        vals = self.args(e, lines)
        # a struct passed to an `in` parameter is copied once every argument is evaluated
        for k, (p, v) in enumerate(zip(info.params, vals)):
            if isinstance(p.type, StructType) and p.info != "inout":
                vals[k] = self.tmp(self.ctype(p.type, e.span), lines, v)
        # size parameters from argument shapes, checked for agreement (bind.shape)
        sizes = {}
        cargs = ["ctx"]
        checks = []
        for k, (p, v) in enumerate(zip(info.params, vals)):
            if isinstance(p.type, ArrayType):
                for d, spec in enumerate(p.type.dims):
                    if isinstance(spec, str):
                        if spec in sizes:
                            checks.append((k, d, "(%s).shape[%d]" % (v, d), sizes[spec]))
                        else:
                            sizes[spec] = "(%s).shape[%d]" % (v, d)
                    elif isinstance(spec, int):
                        checks.append((k, d, "(%s).shape[%d]" % (v, d), "INT64_C(%d)" % spec))
        computed = []       # the second pass (SPEC-02 K-6): `n + c` against the bound n
        for k, (p, v) in enumerate(zip(info.params, vals)):
            if isinstance(p.type, ArrayType):
                for d, spec in enumerate(p.type.dims):
                    if isinstance(spec, SymExtent):
                        off = "INT64_MIN" if spec.off == -(1 << 63) else "INT64_C(%d)" % spec.off
                        computed.append((k, d, "(%s).shape[%d]" % (v, d), sizes.get(spec.sym, "INT64_C(0)"), off))
        at = self.at_nostep(e.callee.span)
        if self.fn_kind == "kernel":
            # the call counts one step (IM-113); its entry checks, depth and fuel faults carry that ordinal,
            # and the callee (its work-item form) goes on counting from the next
            lines.append("step++;")
            at = "(at.pos.index = %du, at.step = step - 1, &at)" % self.site(e.callee.span)
            cargs += ["wi", "&step"]
        for k, d, got, want in checks:
            lines.append("if (%s != %s && cintg_bind_shape(ctx, %s, %d, %d, %s, %s)) goto fail;" % (
                got, want, at, k, d, got, want))
        for k, d, got, n, off in computed:
            lines.append("if (cintg_extent_differs(%s, %s, %s) && cintg_bind_shape(ctx, %s, %d, %d, %s, "
                         "cintg_extent_value(%s, %s))) goto fail;" % (got, n, off, at, k, d, got, n, off))
        if getattr(info.decl, "where", None) is not None:
            self.where_check(info, sizes, at, lines)
        self.alias_checks(info, vals, at, lines)
        for s in info.size_params:
            cargs.append(sizes.get(s.name, "0"))
        for p, v, a in zip(info.params, vals, e.argv):
            if isinstance(p.type, (ArrayType,)):
                cargs.append("&(%s)" % v)
            elif isinstance(p.type, StructType):
                cargs.append("&(%s)" % v)
            else:
                cargs.append(self.coerce(v, a.ty, p.type))
        r = None
        if info.result is not VOID:
            r = self.tmp(self.ctype(info.result, e.span), lines)
            cargs.append("&" + r)
        lines.append("if (cint_gen_call_enter(ctx, %s)) goto fail;" % at)
        lines.append("if (%s(%s)) goto fail;" % (self.kuse(info) if self.fn_kind == "kernel" else self.fname(info),
                                                  ", ".join(cargs)))
        lines.append("cint_gen_call_leave(ctx);")
        return r if r is not None else "0"

    def where_check(self, info, sizes, at, lines):
        """A function's `where` clause (LS-118; interp: check_where): after bind.shape, before bind.alias;
        a false constraint raises E_SHAPE `bind.where` with the operands of W_ (decision 18); no step."""
        zs = [sizes.get(s.name, "INT64_C(0)") for s in info.size_params]
        lines.append("{ const int64_t wz_[%d] = {%s}; int64_t wo_[3] = {0, 0, 0}; int wn_ = %s(wz_, wo_); "
                     "if (wn_ > 0) { cint_tvalue ops_[3]; for (int k_ = 0; k_ < wn_ && k_ < 3; k_++) "
                     "cint_tv_i64(&ops_[k_], wo_[k_]); const cint_gen_fault f_ = {CINT_E_SHAPE, (uint16_t)wn_, 0u, "
                     "\"%s\", ops_, NULL, NULL}; cint_gen_raise(ctx, %s, &f_); goto fail; } }"
                     % (max(len(zs), 1), ", ".join(zs) or "0", self.where_fn(info), O.BIND_WHERE, at))

    def where_fn(self, info):
        """The C function W_<callee>(S, o) of a `where` clause (cint_gen_where_fn; interp: check_where), emitted
        once: 0 when every constraint (checker.where_constraints) holds for the size values S, else the number
        of `bind.where` operands written to o for the first false one (its index, then the two compared values
        when it is one comparison of integers)."""
        name = "W_%s" % self.use(info)
        done = self.__dict__.setdefault("where_fns", set())
        if name in done:
            return name
        done.add(name)
        by = {s.name: "S[%d]" % k for k, s in enumerate(info.size_params)}

        def num(v):
            if isinstance(v, bool):
                return "1" if v else "0"
            return "INT64_MIN" if v == -(1 << 63) else "INT64_C(%d)" % v

        def c(x):
            if x.cval is not NOTCONST:
                return num(x.cval)
            if isinstance(x, (A.IntLit, A.BoolLit)):
                return num(x.value)
            if isinstance(x, A.Paren):
                return c(x.inner)
            if isinstance(x, A.Name):
                return "(int64_t)(%s)" % by[x.ref.name]
            if isinstance(x, A.Unary):
                return "(!%s)" % c(x.operand)
            return "(%s %s %s)" % (c(x.left), x.op, c(x.right))

        def fits(x):
            v = x.cval if x.cval is not NOTCONST else getattr(x, "value", 0) if isinstance(x, A.IntLit) else 0
            return -(1 << 63) <= int(v) < (1 << 63)
        body = ["static int %s(const int64_t *S, int64_t *o)" % name, "{", "    (void)S;"]
        for k, con in enumerate(where_constraints(info.decl.where)):
            sides = where_compared(con)
            if sides is not None and all(fits(x) for x in sides):
                body.append("    if (!%s) { o[0] = INT64_C(%d); o[1] = %s; o[2] = %s; return 3; }"
                            % (c(con), k, c(sides[0]), c(sides[1])))
            else:
                body.append("    if (!%s) { o[0] = INT64_C(%d); return 1; }" % (c(con), k))
        body += ["    return 0;", "}"]
        self.protos.append("\n".join(body))
        return name

    def alias_checks(self, info, vals, at, lines):
        """E_ALIAS bind.alias (SPEC-04 LS-121, interp: Context.check_alias): a written array sharing an
        element with another array argument, then an array inside an `inout` struct argument."""
        def written(p):
            return p.info in ("inout", "out")
        arrays = [(k, p, v) for k, (p, v) in enumerate(zip(info.params, vals)) if isinstance(p.type, ArrayType)]
        for i, p, v in arrays:
            if not written(p):
                continue
            for j, q, w in arrays:
                if j == i or p.type.elem != q.type.elem:
                    continue
                a, b = (i, j) if (not written(q) or i < j) else (j, i)
                lines.append("if (cintg_overlap(&(%s), &(%s)) && cintg_bind_alias(ctx, %s, %d, %d)) goto fail;" % (
                    v, w, at, a, b))
        for i, (p, v) in enumerate(zip(info.params, vals)):
            if not (isinstance(p.type, StructType) and p.info == "inout"):
                continue
            for j, q, w in arrays:
                wr = [k for k, r in ((i, p), (j, q)) if written(r)]
                a = min(wr)
                b = j if a == i else i
                lines.append("if (cintg_within(&(%s), sizeof(%s), &(%s)) && cintg_bind_alias(ctx, %s, %d, %d)) "
                             "goto fail;" % (v, v, w, at, a, b))

    def dispatch(self, e, lines):
        info = e.info
        if self.fn_kind == "kernel":
            raise refuse(e.span, "a dispatch in a kernel")
        vals = self.args(e, lines)
        n = len(info.params)
        name = "D%d" % (self.tmpn + 1)
        self.tmpn += 1
        lines.append("cint_gen_array %s_A[%d]; int64_t %s_S[%d]; int64_t %s_n = 0;" % (name, max(n, 1), name,
                                                                                      max(len(info.size_params), 1),
                                                                                      name))
        lines.append("memset(%s_A, 0, sizeof %s_A); memset(%s_S, 0, sizeof %s_S);" % (name, name, name, name))
        scal = []
        accs = KRC.dispatch_accumulators(self, e, name, lines)
        for k, (p, v) in enumerate(zip(info.params, vals)):
            if isinstance(p.type, ArrayType):
                lines.append("%s_A[%d] = %s;" % (name, k, v))
            else:
                scal.append(accs.get(k, v))
        # interleaved views of one array share no element (no alias, LS-121) but overlap in bytes, which the
        # runtime's check at the dispatch would take for an alias: such an argument runs on a copy
        arrays = [(k, p) for k, p in enumerate(info.params) if isinstance(p.type, ArrayType)]
        pairs = [(i, j) for i, p in arrays if p.info in ("inout", "out")
                 for j, q in arrays if j != i and p.type.elem == q.type.elem]
        back = []
        if pairs:
            lines.append("cint_gen_array %s_O[%d]; uint8_t %s_T[%d]; memcpy(%s_O, %s_A, sizeof %s_O); "
                         "memset(%s_T, 0, sizeof %s_T);" % (name, max(n, 1), name, max(n, 1), name, name, name,
                                                           name, name))
            for i, j in pairs:
                lines.append("if (!%s_T[%d] && cintg_interleaved(&%s_A[%d], &%s_A[%d])) { if (cintg_detach(ctx, %s, "
                             "&%s_A[%d])) goto fail; %s_T[%d] = 1; }" % (name, j, name, i, name, j,
                                                                       self.at_nostep(e.callee.span), name, j,
                                                                       name, j))
            back = [j for j, q in arrays if q.info in ("inout", "out") and any(j == jj for _, jj in pairs)]
        if info.decl.where:     # LS-244: checked by the runtime after bind.shape (cint_gen_dispatch_begin_where)
            lines.append("if (cint_gen_dispatch_begin_where(ctx, &KD_%s, %s, %s_A, %s_S, &%s_n, %s)) goto fail;" % (
                self.use(info), self.at_nostep(e.callee.span), name, name, name, self.where_fn(info)))
        else:
            lines.append("if (cint_gen_dispatch_begin(ctx, &KD_%s, %s, %s_A, %s_S, &%s_n)) goto fail;" % (
                self.use(info), self.at_nostep(e.callee.span), name, name, name))
        lines += self.work_items(info, "%s_A" % name, "%s_S" % name, scal, fail="{ cint_gen_dispatch_end(ctx); goto fail; }")
        stores = KRC.dispatch_epilogue(self, e, name, lines, "{ cint_gen_dispatch_end(ctx); goto fail; }")
        lines.append("cint_gen_dispatch_end(ctx);")
        for place, v in stores:     # publication of the scalar `out` arguments (decision 23)
            lines.append("%s = %s;" % (self.place(place, lines), v))
        for j in back:
            lines.append("if (%s_T[%d]) cintg_copy_raw(&%s_O[%d], &%s_A[%d]);" % (name, j, name, j, name, j))
        return "0"

    def work_items(self, info, A, S, scal, fail):
        """Loops over the over clause in row-major order, one call of the body per work-item.

        A kernel whose body is elementwise (kernel_fast) first runs blocks of work-items on a
        branch-free path over contiguous memory that only accumulates overflow flags; a block whose
        flags are all clear is done (its stores went to staging, published only if the whole
        dispatch completes), and a block with a flag is run again item by item on the exact path,
        which reports the canonical fault of the lowest work-item with its step ordinal.
        """
        d = info.decl
        sizes = [s.name for s in info.size_params]
        K = self.use(info)
        if K in self.__dict__.get("lir_kernels", ()):
            return ["if (ki_%s(%s)) %s" % (K, ", ".join(["ctx", A, S] + scal), fail)]
        fast = self.fast_kernels.get(K)
        if fast is not None:
            k = sizes.index(d.over[0].extent.ident)
            arrays = fast
            conds = " && ".join("cintg_flat(&%s[%d])" % (A, p) for p in arrays) or "1"
            args = ["ctx", A, S] + scal
            out = ["if (%s) {" % conds,
                   "  for (int64_t b_ = 0; b_ < %s[%d]; b_ += 1024) {" % (S, k),
                   "    int64_t e_ = %s[%d] - b_ < 1024 ? %s[%d] : b_ + 1024;" % (S, k, S, k),
                   "    if (kf_%s(%s, b_, e_)) {" % (K, ", ".join(args)),
                   "      for (int64_t o_ = b_; o_ < e_; o_++) if (kb_%s(%s, o_, o_)) %s" % (
                       K, ", ".join(args), fail),
                   "    }",
                   "  }",
                   "} else {"]
            slow = self.work_items_slow(info, A, S, scal, fail)
            return out + ["  " + l for l in slow] + ["}"]
        return self.work_items_slow(info, A, S, scal, fail)

    def work_items_slow(self, info, A, S, scal, fail):
        d = info.decl
        sizes = [s.name for s in info.size_params]
        # the private arrays of a work-item (frame arena) are given back when it completes
        frame = _frame_use(d.body)
        out = ["{ int64_t wi_ = 0;" + (" const size_t fmk_ = cint_gen_frame_mark(ctx);" if frame else "")]
        ind = "  "
        for ov in d.over:
            k = sizes.index(ov.extent.ident)
            out.append("%sfor (int64_t o_%s = 0; o_%s < %s[%d]; o_%s++) {" % (ind, ov.name, ov.name, S, k, ov.name))
            ind += "  "
        args = ["ctx", A, S] + scal + ["wi_"] + ["o_%s" % ov.name for ov in d.over]
        out.append("%sif (kb_%s(%s)) %s" % (ind, self.use(info), ", ".join(args), fail))
        if frame:
            out.append("%scint_gen_frame_reset(ctx, fmk_);" % ind)
        out.append("%swi_++;" % ind)
        for _ in d.over:
            ind = ind[:-2]
            out.append("%s}" % ind)
        out.append("}")
        return out

    def builtin(self, e, lines):
        """A built-in call: its row's handler (backend/c17/builtins.py)."""
        return CB.call(self, e, lines)

    def x_Catch(self, e, lines):
        u = self.tmp(self.ctype(e.operand.ty, e.span), lines, self.expr(e.operand, lines))
        t = e.ty
        r = None if t is VOID else self.tmp(self.ctype(t, e.span), lines)
        inner = []
        if e.block is not None:
            # `catch (e) { ... }`: the error bound to e, then the block, which always leaves (LS-96)
            name = self.local_name(e.binding or "err")
            self.vars[e.sym] = name
            inner.append("const %s %s = %s.tag; (void)%s;" % (self.ctype(e.operand.ty.errset.underlying), name, u,
                                                               name))
            self.block(e.block, inner)
        else:
            v = self.expr(e.value, inner)
            if r is not None:
                inner.append("%s = %s;" % (r, self.coerce(v, e.value.ty, t)))
        lines.append("if (%s.tag != 0) {" % u)
        lines += ["    " + l for l in inner]
        if r is not None:
            lines += ["} else {", "    %s = %s.value;" % (r, u)]
        lines.append("}")
        return r if r is not None else "0"

    def coerce(self, v, src, dst):
        """A value of type src where dst is expected: an error value of a subset takes its tag in dst."""
        if isinstance(src, ErrorSetType) and isinstance(dst, ErrorSetType) and src != dst:
            return self.err_tag(src, dst, v, None)
        return v

    def x_Try(self, e, lines):
        u = self.tmp(self.ctype(e.operand.ty, e.span), lines, self.expr(e.operand, lines))
        if getattr(self, "test_entry", False) and self.result is VOID:
            # an error leaving a test block (LS-315): the entry's error result, in the operand's error set, after
            # the deferred statements of an error exit; the harness reports it (harness_main, cpu_exec)
            es = e.operand.ty.errset
            inner = ["cint_gen_error(ctx, &%s, (uint64_t)%s.tag);" % (self.errset_desc(es), u)]
            self.run_defers(inner, 0, True)
            lines.append("if (%s.tag != 0) {" % u)
            lines += ["    " + l for l in inner] + ["    return 0;", "}"]
            return "%s.value" % u if e.ty is not VOID else "0"
        if not isinstance(self.result, ErrorUnionType):
            raise refuse(e.span, "`try` in a test block")
        tag = self.err_tag(e.operand.ty.errset, self.result.errset, "%s.tag" % u, e.span)
        inner = ["memset(result, 0, sizeof *result); result->tag = %s;" % tag]
        self.run_defers(inner, 0, True)
        if getattr(self, "fn_frame", None):
            inner.append("cint_gen_frame_release(ctx, %s);" % self.fn_frame)
        lines.append("if (%s.tag != 0) {" % u)
        lines += ["    " + l for l in inner] + ["    return 0;", "}"]
        return "%s.value" % u if e.ty is not VOID else "0"

    # ------------------------------------------------------------------ exports

    def exports(self, lenient=False):
        rows = []
        decls = list(self.p.functions.values()) + list(self.p.kernels.values())
        decls.sort(key=lambda i: (i.decl.span.line, i.decl.span.column))    # declaration order (A-19)
        for info in decls:
            if not info.decl.exported:
                continue
            from cint_compiler.check.export_boundary import has_c_wrapper
            if not has_c_wrapper(info):
                continue     # A-25 (an arena, pool or handle; a kernel's scalar `out`, decision 23): cint only
            if not lenient:
                rows.append(self.wrapper(info))
                continue
            # a harness runs one entry: an export this backend cannot wrap yet is left out of it
            marks = (len(self.descs), len(self.wrappers), len(self.typedefs))
            try:
                rows.append(self.wrapper(info))
            except Unsupported:
                del self.descs[marks[0]:]
                del self.wrappers[marks[1]:]
        if lenient:
            # a harness runs one entry: an export whose type signature cannot be written (a combined set of
            # another module, the built-in ArithError with no module part) gets no row in its table
            from cint_abi.typesig import SignatureError
            from cint_compiler.backend.c17.abi_sig import signature_bytes
            kept = []
            for row in rows:
                try:
                    signature_bytes(row[0], self.c.name, types=self.p.types)
                except (CompileError, SignatureError):
                    continue
                kept.append(row)
            rows = kept
        self.export_rows = rows
        self.library_desc(rows)

    def export_desc(self, info, ident, name_span):
        params = [self.gen_param(p, info) for p in info.params]
        pname = "XP_%s" % ident
        self.descs.append("static const cint_gen_param %s[] = {%s};" % (pname, ", ".join(params) or
                                                                         "{0u, 0u, {0}, 0u, 0u, {{0}}}"))
        kind = "CINT_EXPORT_KERNEL" if info.is_kernel else "CINT_EXPORT_FUNCTION"
        has_result = 0 if info.is_kernel or info.result is VOID else 1
        self.descs.append("static const cint_gen_export X_%s = {&PROGRAM, {0u, %du}, %s, %du, %s, %du, %du, %s};" % (
            ident, self.site(name_span), kind, len(info.params), pname, len(info.size_params), has_result,
            "&KD_%s" % self.use(info) if info.is_kernel else "NULL"))

    def wrapper(self, info):
        d = info.decl
        # a `where` clause is checked at host entry after bind.shape, before bind.alias (cint_gen_enter_where)
        where = bool(getattr(d, "where", None))
        sym = wrapper_symbol(self.c.name, d.name)
        self.export_desc(info, d.name, d.span)
        cparams = ["cint_ctx *ctx", "int64_t fuel"]
        argrows = []
        scal = []
        for p in info.params:
            pn = "a_" + p.name
            if isinstance(p.type, ArrayType):
                if isinstance(p.type.elem, StructType):     # an array of records (7.3 A-13, A-19)
                    self.boundary_record(p.type.elem, p.span)
                    if self.has_bit_fields(p.type.elem):
                        # the body reads such elements in place, in the C layout, not their record's
                        raise refuse(p.span, "the parameter %s, an array of struct %s, which holds bit fields, at "
                                             "the export boundary (one struct with bit fields crosses as an in or "
                                             "inout parameter or a result)" % (p.name, p.type.elem.name()))
                cparams.append("cint_view %s" % pn)
                argrows.append("{&%s, 0u, 0u}" % pn)
            elif isinstance(p.type, BoolType):
                cparams.append("uint8_t %s" % pn)
                argrows.append("{NULL, %s, 0u}" % pn)
                scal.append(pn)
            elif isinstance(p.type, FixedType) or (isinstance(p.type, IntType) and p.type.bits <= 64):
                # a Q<i>.<f> crosses as its storage integer, raw (SPEC-03P.1 7.3 A-13)
                cparams.append("%s %s" % (self.ctype(p.type), pn))
                argrows.append("{NULL, 0u, 0u}")
                scal.append(pn)
            elif isinstance(p.type, StructType) and not info.is_kernel and p.info in (None, "in", "inout"):
                # a view of one record whose record_id names the struct (7.3 A-13, 7.4 A-19)
                self.boundary_record(p.type, p.span)
                cparams.append("cint_view %s" % pn)
                argrows.append("{&%s, 0u, 0u}" % pn)
            elif wide(p.type) and not info.is_kernel:
                # I128..I1024: a pointer to the limb structure (7.3 A-13); NULL is a refused call (byte 1)
                cparams.append("const %s *%s" % (self.ctype(p.type), pn))
                argrows.append("{NULL, %s == NULL ? 1u : 0u, 0u}" % pn)
                scal.append(pn)
            else:
                raise refuse(p.span, "an export parameter of type %s" % p.type)
        res = info.result if not info.is_kernel else VOID
        # a struct holding bit fields crosses as its record's bytes (LS-84: raw storage units), bf_codec
        bfres = isinstance(res, StructType) and self.has_bit_fields(res)
        if bfres:
            self.boundary_record(res, d.span)
            cparams.append("uint8_t *result")
        elif isinstance(res, ErrorUnionType) and isinstance(res.value, StructType) and self.has_bit_fields(res.value):
            raise refuse(d.span, "the result %s of %s, an error union of a struct with bit fields, at the export "
                                 "boundary" % (res, d.name))
        elif res is not VOID:
            cparams.append("%s *result" % self.ctype(res, d.span))
        lines = ["CINT_EXPORT cint_status %s(%s)" % (sym, ", ".join(cparams)), "{"]
        self.wrapper_cparams[sym] = cparams[2:]
        np = max(len(info.params), 1)
        lines.append("    const cint_gen_arg args[%d] = {%s};" % (np, ", ".join(argrows) or "{NULL, 0u, 0u}"))
        lines.append("    cint_gen_array A[%d]; int64_t S[%d];" % (np, max(len(info.size_params), 1)))
        lines.append("    memset(S, 0, sizeof S);   /* cint_gen_enter zeroes the entries of A */")
        lines.append("    cint_status s = cint_gen_enter%s(ctx, &X_%s, fuel, args, %s, A, S%s);" % (
            "_where" if where else "", d.name, "result" if res is not VOID else "NULL",
            ", " + self.where_fn(info) if where else ""))
        lines.append("    if (s != CINT_OK) return s;")
        if info.is_kernel:
            scal_args = ["a_" + p.name for p in info.params if not isinstance(p.type, ArrayType)]
            lines += ["    " + l for l in self.work_items(info, "A", "S", scal_args, fail="goto done;")]
            lines.append("done:")
            lines.append("    cint_gen_dispatch_end(ctx);")
            lines.append("    return cint_gen_leave(ctx);")
        else:
            cargs = ["ctx"] + ["S[%d]" % k for k in range(len(info.size_params))]
            packs = []
            for k, p in enumerate(info.params):
                if isinstance(p.type, StructType) and self.has_bit_fields(p.type):
                    # the record's storage units unpacked into the C struct; an inout one packed back after
                    # the body, completed or faulted (6.4 M-30b: the stores that completed stay)
                    unp, pck = self.bf_codec(p.type, p.span)
                    lines.append("    %s v_%s; memset(&v_%s, 0, sizeof v_%s); %s(&v_%s, A[%d].data);" % (
                        self.ctype(p.type), p.name, p.name, p.name, unp, p.name, k))
                    if p.info == "inout":
                        packs.append("    %s(A[%d].data, &v_%s);" % (pck, k, p.name))
                    cargs.append("&v_%s" % p.name)
                    continue
                if isinstance(p.type, StructType):
                    sn = self.ctype(p.type)
                    if p.info == "inout":       # written in place, as an inout array (6.4 M-30b)
                        cargs.append("(%s *)(void *)A[%d].data" % (sn, k))
                    else:                       # `in`: the value is copied in before the body runs
                        lines.append("    %s v_%s; memcpy(&v_%s, A[%d].data, sizeof v_%s);" % (
                            sn, p.name, p.name, k, p.name))
                        cargs.append("&v_%s" % p.name)
                    continue
                cargs.append("&A[%d]" % k if isinstance(p.type, ArrayType) else
                             ("*a_" if wide(p.type) else "a_") + p.name)
            if res is not VOID:
                lines.append("    %s r_; memset(&r_, 0, sizeof r_);" % self.ctype(res))
                cargs.append("&r_")
            lines.append("    int failed_ = %s(%s);" % (self.fname(info), ", ".join(cargs)))
            lines += packs
            if isinstance(res, ErrorUnionType):
                lines.append("    if (!failed_ && r_.tag != 0) cint_gen_error(ctx, &%s, r_.tag);" % self.errset_desc(
                    res.errset))
            lines.append("    (void)failed_;")
            lines.append("    s = cint_gen_leave(ctx);")
            if bfres:
                lines.append("    if (s == CINT_OK) %s(result, &r_);" % self.bf_codec(res, d.span)[1])
            elif res is not VOID:
                lines.append("    if (s == CINT_OK) *result = r_;")
            lines.append("    return s;")
        lines.append("}")
        self.wrappers.append("\n".join(lines) + "\n")
        return (info, sym)

    def library_desc(self, rows):
        from cint_compiler.backend.c17.abi_sig import signature_bytes
        ex = []
        for info, sym in rows:
            d = info.decl
            sig = signature_bytes(info, self.c.name, types=self.p.types)
            ident = d.name
            self.descs.append("static const uint8_t SIG_%s[%d] = {%s};" % (ident, len(sig), ", ".join(
                str(b) for b in sig)))
            pn = ", ".join("{%s, %du, 0u}" % (c_str(p.name.encode()), len(p.name)) for p in info.params)
            sn = ", ".join("{%s, %du, 0u}" % (c_str(s.name.encode()), len(s.name)) for s in info.size_params)
            if pn:
                self.descs.append("static const cint_name PN_%s[] = {%s};" % (ident, pn))
            if sn:
                self.descs.append("static const cint_name SN_%s[] = {%s};" % (ident, sn))
            effect = "CINT_OBSERVE" if info.prints else "CINT_PURE"
            ex.append((ident, sym, info, effect, bool(pn), bool(sn), len(sig)))
        rows_c = []
        for ident, sym, info, effect, has_pn, has_sn, siglen in ex:
            rows_c.append("{{%s, %du, 0u}, %s, %s, %du, %du, %s, %s, SIG_%s, %du, (cint_entry_fn)%s}" % (
                c_str(ident.encode()), len(ident), "CINT_EXPORT_KERNEL" if info.is_kernel else "CINT_EXPORT_FUNCTION",
                effect, len(info.size_params), len(info.params), "SN_%s" % ident if has_sn else "NULL",
                "PN_%s" % ident if has_pn else "NULL", ident, siglen, sym))
        lines = []
        if rows_c:
            lines.append("static const cint_export EXPORTS[] = {%s};" % ", ".join(rows_c))
        lines.append("static const cint_module_table MT0 = {&%s, 0u, %du, %s, %s};" % (
            self.modinfo, len(rows_c), "EXPORTS" if rows_c else "NULL", "RNAMES" if self.struct_ids else "NULL"))
        lines.append("static const cint_module_table *const MTS[] = {&MT0};")
        lines.append("CINT_EXPORT const cint_library cint_library_desc = {CINT_ABI_VERSION, 1u, MTS};")
        lines.append("CINT_EXPORT const uint32_t cint_program_abi = CINT_ABI_VERSION;")
        lines.append("CINT_EXPORT const cint_observer cint_observer_desc = {sizeof(cint_observer), CINT_ABI_VERSION, "
                     "&PROGRAM, &cint_library_desc, 0u};")
        self.library_lines = lines

    def invoke_lines(self) -> List[str]:
        """`cint build --lib --with-state`: cintx_invoke, one exactly-typed entry to every wrapper by its row
        of the reflection table (docs/runtime.md): args[k] points at the k-th argument's value."""
        out = ["/* --with-state: every export by its row of cint_library_desc (docs/runtime.md) */",
               "CINT_EXPORT cint_status cintx_invoke(cint_ctx *ctx, uint32_t export_index, int64_t fuel, "
               "void *const *args, void *result)", "{", "    (void)args; (void)result;", "    switch (export_index) {"]
        for k, (info, sym) in enumerate(self.export_rows):
            cargs, checks, n = ["ctx", "fuel"], [], 0
            for decl in self.wrapper_cparams[sym]:
                ty, name = decl.rsplit(" ", 1)
                if name.startswith("*"):
                    ty += " *"
                if name.lstrip("*") == "result":
                    cargs.append("(%s)result" % ty)
                    continue
                checks.append("args[%d] == NULL" % n)
                cargs.append("*(%s%s *)args[%d]" % ("" if ty.startswith("const ") else "const ", ty, n))
                n += 1
            out.append("    case %du:" % k)
            if n:
                out.append("        if (args == NULL || %s) break;" % " || ".join(checks))
            out.append("        return %s(%s);" % (sym, ", ".join(cargs)))
        out += ["    default:", "        break;", "    }", "    return cint_gen_refuse_call(ctx);", "}"]
        return out

    # ------------------------------------------------------------------ harness

    def harness(self, kind, target, args):
        """An internal entry and a `main` that runs it once and prints the outcome (cint run/outcome)."""
        self.harness_kind = kind
        if kind == "func":
            info = target
            ident = "H_" + info.decl.name
            self.export_desc(info, ident, info.decl.span)
            if isinstance(info.result, ErrorUnionType):
                self.errset_desc(info.result.errset)   # harness_main names it; an unexported `main` has none yet
        else:
            span = target.span if kind == "test" else self.p.script_span
            block = target.body if kind == "test" else A.Block(self.p.script)
            fake = type("F", (), {})()
            fake.params = []
            fake.size_params = []
            fake.is_kernel = False
            fake.result = VOID
            ident = "H_entry"
            self.descs.append("static const cint_gen_param XP_%s[] = {{0u, 0u, {0}, 0u, 0u, {{0}}}};" % ident)
            self.descs.append("static const cint_gen_export X_%s = {&PROGRAM, {0u, %du}, CINT_EXPORT_FUNCTION, 0u, "
                              "XP_%s, 0u, 0u, NULL};" % (ident, self.site(span), ident))
            self.fn_kind = "func"
            self.fn_frame = None
            self.vars = {}
            self.loop_labels = []
            self.result = VOID
            body = ["cint_gen_at at = {{0u, 0u}, 0, 0};", "if (0) goto fail;", "(void)ctx;"]
            self.__dict__.pop("gviews", None)
            self.test_entry = kind == "test"
            try:
                self.block(block, body)
            finally:
                self.test_entry = False
            body[2:2] = self.gview_decls()
            body += ["return 0;", "fail:", "(void)at;", "return 1;"]
            self.bodies.append("static int h_entry(cint_ctx *ctx)\n{\n" + "\n".join("    " + l for l in body) + "\n}\n")
        self.harness_info = (kind, target, args, ident)


def harness_main(em: Emitter) -> str:
    """The `main` of a harness executable: runs the entry, prints the outcome lines."""
    kind, target, args, ident = em.harness_info
    lines = ["#include <stdio.h>", "#include <stdlib.h>",
             "typedef struct { uint8_t *b; size_t n, cap; } outbuf;",
             "static cint_status on_out(void *u, const uint8_t *b, size_t n) {",
             "    outbuf *o = u;",
             "    if (o->n + n > o->cap) {",
             "        size_t c = (o->cap + n) * 2;",
             "        uint8_t *nb = realloc(o->b, c);",
             "        if (!nb) return CINT_RESOURCE;",
             "        o->b = nb;",
             "        o->cap = c;",
             "    }",
             "    if (n) memcpy(o->b + o->n, b, n);",
             "    o->n += n;",
             "    return CINT_OK;",
             "}",
             "static void hex(const char *k, const uint8_t *b, size_t n) { printf(\"%s \", k);",
             "    for (size_t i = 0; i < n; i++) { printf(\"%02x\", b[i]); }",
             "    printf(\"\\n\"); }",
             "int main(int argc, char **argv) {",
             "    int64_t fuel = argc > 1 ? strtoll(argv[1], NULL, 10) : -1;",
             "    int64_t depth = argc > 2 ? strtoll(argv[2], NULL, 10) : 256;",
             "    outbuf o = {NULL, 0, 0};",
             "    cint_ctx_config cfg; memset(&cfg, 0, sizeof cfg); cfg.size = sizeof cfg;",
             "    cfg.program = &PROGRAM; cfg.module = &%s; cfg.output = on_out; cfg.output_user = &o;" % em.modinfo,
             "    cfg.depth_limit = depth;",
             "    cint_ctx *ctx = NULL; if (cint_ctx_create(&cfg, &ctx) != CINT_OK) { printf(\"status create\\n\"); return 3; }"]
    if kind == "func":
        info = target
        res = info.result
        argrows = []
        for (t, v) in args:
            argrows.append("{NULL, %s, 0u}" % ("1u" if v is True else "0u") if t == BOOL else "{NULL, 0u, 0u}")
        np = max(len(info.params), 1)
        lines.append("    const cint_gen_arg args[%d] = {%s};" % (np, ", ".join(argrows) or "{NULL, 0u, 0u}"))
        lines.append("    cint_gen_array A[%d]; int64_t S[%d]; memset(A, 0, sizeof A); memset(S, 0, sizeof S);" % (
            np, max(len(info.size_params), 1)))
        if res is not VOID:
            lines.append("    %s r_; memset(&r_, 0, sizeof r_);" % em.ctype(res))
        lines.append("    cint_status s = cint_gen_enter(ctx, &X_%s, fuel, args, %s, A, S);" % (
            ident, "&r_" if res is not VOID else "NULL"))
        cargs = ["ctx"]
        for (t, v), p in zip(args, info.params):
            cargs.append(em.const(p.type, v, None))
        if res is not VOID:
            cargs.append("&r_")
        lines.append("    if (s == CINT_OK) { int f_ = %s(%s); (void)f_;" % (em.fname(info), ", ".join(cargs)))
        if isinstance(res, ErrorUnionType):
            lines.append("      if (!f_ && r_.tag != 0) cint_gen_error(ctx, &%s, r_.tag);" % em.errset_desc(res.errset))
        lines.append("      s = cint_gen_leave(ctx); }")
    else:
        lines.append("    const cint_gen_arg args[1] = {{NULL, 0u, 0u}}; cint_gen_array A[1]; int64_t S[1];")
        lines.append("    cint_status s = cint_gen_enter(ctx, &X_%s, fuel, args, NULL, A, S);" % ident)
        lines.append("    if (s == CINT_OK) { (void)h_entry(ctx); s = cint_gen_leave(ctx); }")
        # an error result of a test block: its tag and the qualified name of its error set
        lines.append("    if (s == CINT_OK) { const cint_error_set *es = NULL; uint64_t tg = 0; cint_ctx_error(ctx, &es, &tg);"
                     " if (es) printf(\"error %llu\\nerrset %.*s\\n\", (unsigned long long)tg, (int)es->name_len, es->name); }")
    lines.append("    printf(\"status %d\\n\", (int)s);")
    lines.append("    int64_t fc = 0; cint_fuel_consumed(ctx, &fc); printf(\"fuel %lld\\n\", (long long)fc);")
    lines.append("    hex(\"stdout\", o.b, o.n);")
    lines.append("    size_t fl = 0; cint_fault_get(ctx, NULL, 0, &fl); if (fl) { uint8_t *fb = malloc(fl);"
                 " cint_fault_get(ctx, fb, fl, &fl); hex(\"fault\", fb, fl); free(fb); }")
    if kind == "func" and target.result is not VOID:
        res = target.result

        def show(t, v):
            if wide(t):
                return "{ char d_[320]; cint_w_dec(%s, (%s).l, d_); printf(\"result %%s\\n\", d_); }" % (em.tag(t), v)
            if isinstance(t, IntType) and not t.signed:
                return "printf(\"result %%llu\\n\", (unsigned long long)%s);" % v
            if isinstance(t, (IntType, BoolType, EnumType, FixedType)):
                return "printf(\"result %%lld\\n\", (long long)%s);" % v
            return ""          # a struct or array result is not part of the outcome
        if isinstance(res, ErrorUnionType):
            lines.append("    if (s == CINT_OK) { const cint_error_set *es = NULL; uint64_t tg = 0; cint_ctx_error(ctx, &es, &tg);"
                         " if (es) printf(\"error %%llu\\n\", (unsigned long long)tg); else { %s } }" % (
                             show(res.value, "r_.value") if res.value is not VOID else ""))
        else:
            lines.append("    if (s == CINT_OK) { %s }" % show(res, "r_"))
    for g, (off, ct, size) in em.globals_layout.items():
        if ct in ("array", "struct", "cint_handle"):          # not part of the outcome's state lines
            continue
        if wide(g.type):
            lines.append("    { char d_[320]; cint_w_dec(%s, (const uint64_t *)((uint8_t *)cint_gen_globals(ctx) + %d), d_); "
                         "printf(\"global %s.%s %%s\\n\", d_); }" % (em.tag(g.type), off, g.module, g.name))
            continue
        fmtc = "%llu" if ct.startswith("u") else "%lld"
        cast = "unsigned long long" if ct.startswith("u") else "long long"
        lines.append("    printf(\"global %s.%s %s\\n\", (%s)*(%s *)((uint8_t *)cint_gen_globals(ctx) + %d));" % (
            g.module, g.name, fmtc, cast, ct, off))
    lines.append("    cint_ctx_destroy(ctx); free(o.b); return 0;")
    lines.append("}")
    return "\n".join(lines) + "\n"


# The helpers every translation unit uses (cintg_*, CINTG_*) are C of the runtime, not text of the emitter:
# the static inline ones in runtime-c/include/cint_rt_prelude.h, the rest in runtime-c/src/prelude.c
# (docs/runtime.md, "What generated code includes"). Nothing of them depends on the program.
PRELUDE = '#include "cint_rt_prelude.h"\n'


def emit(compiled, harness=None, invoke=False) -> str:
    """The translation unit; invoke (`cint build --lib --with-state`) adds cintx_invoke (docs/runtime.md)."""
    bad = MC.unsupported(None, compiled)
    if bad is not None:
        raise Unsupported("C9102", bad[0], "%s runs on the reference executor only so far "
                          "(use --executor ref; docs/status.md)" % bad[1])
    em = Emitter(compiled)
    text = em.emit(harness)
    # the prelude's include goes after the runtime's includes; the library descriptor and harness at the end
    head, _, rest = text.partition('#include "cint_rt_ops.h"\n')
    out = head + '#include "cint_rt_ops.h"\n' + PRELUDE + rest + "\n".join(em.library_lines) + "\n"
    if invoke and harness is None:
        out += "\n".join(em.invoke_lines()) + "\n"
    if harness is not None:
        out += harness_main(em)
    return out
