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

What this backend does not implement yet is refused at build time with C9102 naming the
construct (docs/status.md lists them); it never compiles a program to something that could differ
from the reference interpreter.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from cint_abi.symbols import module_symbol, wrapper_symbol

from . import ast as A
from .ast import NOTCONST
from .checker import ARITH_OPS, CMP_OPS, SHIFT_OPS, FuncInfo
from .diagnostics import CompileError
from .types import (BOOL, I64, VOID, ArrayType, BoolType, EnumType, ErrorSetType, ErrorUnionType, IntType,
                    StrType, StructType, TupleType, Type, Z, FixedType, U8)
from .values import EnumValue, ErrorValue


class Unsupported(CompileError):
    pass


def refuse(span, what):
    return Unsupported("C9102", span, "%s is not yet supported by the executor cpu-c17 (use --executor ref; "
                       "docs/status.md)" % what)


CT = {(True, 8): "int8_t", (True, 16): "int16_t", (True, 32): "int32_t", (True, 64): "int64_t",
      (False, 8): "uint8_t", (False, 16): "uint16_t", (False, 32): "uint32_t", (False, 64): "uint64_t"}


def c_str(b: bytes) -> str:
    out = []
    for ch in b:
        if ch in (34, 92):
            out.append("\\" + chr(ch))
        elif 32 <= ch < 127 and ch != 63:
            out.append(chr(ch))
        else:
            out.append("\\%03o" % ch)
    return '"' + "".join(out) + '"'


def int_lit(t: IntType, v: int) -> str:
    if t.signed:
        if v == t.min and t.bits == 64:
            return "(-INT64_C(9223372036854775807) - 1)"
        if t.bits == 64:
            return "INT64_C(%d)" % v
        return "((%s)%d)" % (CT[(True, t.bits)], v)
    if t.bits == 64:
        return "UINT64_C(%d)" % v
    return "((%s)%du)" % (CT[(False, t.bits)], v)


class Emitter:
    def __init__(self, compiled):
        self.c = compiled
        self.p = compiled.program
        self.mod = compiled.program.module
        self.sites: Dict[tuple, int] = {}
        self.out: List[str] = []
        self.tmpn = 0
        self.structs: Dict[str, str] = {}
        self.unions: Dict[tuple, str] = {}
        self.errsets: Dict[str, str] = {}
        self.globals_layout = {}
        self.gsize = 0
        self.modinfo = module_symbol(compiled.name)
        self.fast_kernels = {}

    # ------------------------------------------------------------------ helpers

    def site(self, span) -> int:
        key = (span.line, span.column)
        if key not in self.sites:
            self.sites[key] = len(self.sites)
        return self.sites[key]

    def at(self, span) -> str:
        """A `const cint_gen_at *` for an operation at span (a step in a kernel)."""
        k = self.site(span)
        if self.fn_kind == "kernel":
            return "(at.pos.index = %du, at.step = step++, &at)" % k
        return "(at.pos.index = %du, &at)" % k

    def tmp(self, ctype, lines, init=None):
        self.tmpn += 1
        name = "t%d" % self.tmpn
        lines.append("%s %s%s;" % (ctype, name, "" if init is None else " = " + init))
        return name

    def ctype(self, t: Type, span=None) -> str:
        if isinstance(t, IntType):
            if t.bits > 64:
                raise refuse(span, "the wide integer type %s" % t)
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
            raise refuse(span, "fixed-point arithmetic")
        raise refuse(span, "values of type %s" % t)

    def tag(self, t: Type) -> str:
        if isinstance(t, IntType):
            return "CINT_TAG_%s" % t.name()
        if isinstance(t, BoolType):
            return "CINT_TAG_BOOL"
        if isinstance(t, (EnumType, ErrorSetType)):
            return self.tag(t.underlying)
        raise refuse(None, "the type %s in a fault record" % t)

    def struct_name(self, t: StructType, span=None):
        if t.qname not in self.structs:
            name = "s_%s" % t.qname.replace(".", "_")
            self.structs[t.qname] = name
            fields = []
            for fname, ft, bits in t.fields:
                if isinstance(ft, ArrayType):
                    raise refuse(span, "an array field of a struct")
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
        if self.mod.imports:
            raise refuse(self.mod.imports[0].span, "a program of several modules")
        self.typedefs: List[str] = []
        self.descs: List[str] = []
        self.protos: List[str] = []
        self.bodies: List[str] = []
        self.wrappers: List[str] = []
        self.fn_kind = "func"
        self.layout_globals()
        for name, info in self.p.functions.items():
            self.function(info)
        for name, info in self.p.kernels.items():
            self.kernel(info)
        self.exports()
        if harness is not None:
            self.harness(*harness)
        head = ["/* Generated by cint_compiler.backend_c (executor cpu-c17) from %s. Do not edit. */" % self.c.path,
                "#include \"cint_rt_ops.h\"", ""]
        prog = self.program_desc()
        return "\n".join(head + self.typedefs + [""] + prog + self.descs + [""] + self.protos + [""] +
                         self.bodies + self.wrappers) + "\n"

    def layout_globals(self):
        off = 0
        for g in self.p.globals:
            t = g.type
            if isinstance(t, ArrayType):
                raise refuse(g.span, "a module-level array")
            ct = self.ctype(t, g.span)
            size = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
                    "int64_t": 8, "uint64_t": 8}.get(ct)
            if size is None:
                raise refuse(g.span, "a module-level variable of type %s" % t)
            off = (off + size - 1) // size * size
            self.globals_layout[g] = (off, ct, size)
            off += size
        self.gsize = (off + 7) // 8 * 8

    def program_desc(self):
        lines = []
        path = self.c.path.encode()
        name = self.c.name.encode()
        sites = sorted(self.sites.items(), key=lambda kv: kv[1])
        lines.append("static const cint_site_info SITES[] = {%s};" % (
            ", ".join("{%du, %du}" % k for k, _ in sites) or "{0u, 0u}"))
        lines.append("static const cint_module MOD0 = {%s, %du, %du, SITES, %s, %du, 0u};" % (
            c_str(path), len(path), len(sites), c_str(name), len(name)))
        lines.append("static const cint_module *const MODS[] = {&MOD0};")
        init = bytearray(self.gsize)
        ginfo = []
        for g, (off, ct, size) in self.globals_layout.items():
            v = g.value if g.value is not NOTCONST else 0
            if isinstance(v, bool):
                v = int(v)
            if isinstance(v, EnumValue):
                v = v.value
            init[off:off + size] = (v % (1 << (8 * size))).to_bytes(size, "little")
            qn = ("%s.%s" % (self.c.name, g.name)).encode()
            ginfo.append("{{%s, %du, 0u}, {%s, 0u, 0u, 0u, 0u, 0u, 0u}, %du, %du}" % (
                c_str(qn), len(qn), self.tag(g.type), off, size))
        if self.gsize:
            lines.append("static const uint8_t GINIT[%d] = {%s};" % (self.gsize, ", ".join(str(b) for b in init)))
            lines.append("static const cint_global_info GINFO[] = {%s};" % ", ".join(ginfo))
        rev = ", ".join("0x%02x" % b for b in self.c.revision)
        lines.append("static const cint_program PROGRAM = {sizeof(cint_program), CINT_ABI_VERSION, 1u, "
                     "CINT_PROGRAM_HAS_REVISION, MODS, {%s}, {0}, %du, 8u, %s, %du, 0u, %s, NULL, "
                     "CINT_BACKEND_CPU_C17, 0u};" % (rev, self.gsize, "GINIT" if self.gsize else "NULL",
                                                    len(ginfo), "GINFO" if ginfo else "NULL"))
        sym = module_symbol(self.c.name)
        lines.append("CINT_EXPORT const cint_module_info %s = {sizeof(cint_module_info), CINT_ABI_VERSION, &PROGRAM, "
                     "0u, 0u, NULL};" % sym)
        self.modinfo = sym
        return lines

    # ------------------------------------------------------------------ functions

    def fname(self, info):
        return ("k_" if info.is_kernel else "f_") + info.decl.name

    def param_ctype(self, p):
        if isinstance(p.type, ArrayType):
            return "cint_gen_array *"
        if isinstance(p.type, StructType):
            return "const %s *" % self.ctype(p.type, p.span) if p.info != "inout" else "%s *" % self.ctype(p.type,
                                                                                                          p.span)
        return self.ctype(p.type, p.span)

    def function(self, info: FuncInfo):
        d = info.decl
        self.fn_kind = "func"
        self.vars = {}
        self.loop_labels = []
        params = ["cint_ctx *ctx"]
        for s in info.size_params:
            self.vars[s] = "z_%s" % s.name
            params.append("int64_t z_%s" % s.name)
        for p in info.params:
            self.vars[p] = ("(*p_%s)" % p.name) if isinstance(p.type, StructType) else (
                "(*p_%s)" % p.name if isinstance(p.type, ArrayType) else "p_%s" % p.name)
            params.append("%sp_%s" % (self.param_ctype(p) + ("" if self.param_ctype(p).endswith("*") else " "),
                                       p.name))
        self.result = info.result
        if isinstance(info.result, TupleType):
            raise refuse(d.span, "a tuple result")
        if info.result is not VOID:
            params.append("%s *result" % self.ctype(info.result, d.span))
        sig = "static int %s(%s)" % (self.fname(info), ", ".join(params))
        self.protos.append(sig + ";")
        body = ["cint_gen_at at = {{0u, 0u}, 0, 0};"]
        self.block(d.body, body)
        if info.result is VOID:
            body.append("return 0;")
        body.append("fail:")
        body.append("(void)at;")
        body.append("return 1;")
        self.bodies.append(sig + "\n{\n" + "\n".join("    " + l for l in body) + "\n}\n")

    def kernel(self, info: FuncInfo):
        d = info.decl
        self.fn_kind = "kernel"
        self.vars = {}
        self.loop_labels = []
        self.result = VOID
        for k, s in enumerate(info.size_params):
            self.vars[s] = "S[%d]" % k
        scal = []
        for k, p in enumerate(info.params):
            if isinstance(p.type, ArrayType):
                self.vars[p] = "A[%d]" % k
            else:
                self.vars[p] = "p_%s" % p.name
                scal.append("%s p_%s" % (self.ctype(p.type, p.span), p.name))
        for k, ov in enumerate(info.over):
            self.vars[ov] = "o_%s" % ov.name
        params = ["cint_ctx *ctx", "cint_gen_array *A", "const int64_t *S"] + scal + ["int64_t wi"] + [
            "int64_t o_%s" % ov.name for ov in info.over]
        sig = "static int kb_%s(%s)" % (d.name, ", ".join(params))
        self.protos.append(sig + ";")
        body = ["cint_gen_at at = {{0u, 0u}, wi, 0};", "int64_t step = 0;", "(void)S;"]
        self.block(d.body, body)
        body += ["return 0;", "fail:", "(void)step;", "return 1;"]
        self.bodies.append(sig + "\n{\n" + "\n".join("    " + l for l in body) + "\n}\n")
        self.kernel_desc(info)
        self.fn_kind = "func"
        self.fast_kernel(info, scal)

    # ------------------------------------------------------------------ the elementwise fast path

    def fast_kernel(self, info, scal):
        """kf_NAME(ctx, A, S, scalars, begin, end): the branch-free path of an elementwise kernel.

        Applies to a rank-1 over clause whose body only declares scalars and stores to `out[i]`, reading
        arrays at `[i]` and scalars, with + - * in every form, comparisons and bitwise operators on
        I8..U64.  Returns 1 when any item of the block may have faulted (then the caller reruns the
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
                lines.append("%s %s; ovf_ |= __builtin_%s_overflow(%s, %s, &%s);" % (ct, t, name, a, b, t))
                return t
            if isinstance(e, A.Binary) and e.op in CMP_OPS and isinstance(e.left.ty, IntType):
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
        body = ["int ovf_ = 0;", "(void)ctx; (void)S;"]
        body += ["%s *restrict ap%d = (%s *)A[%d].data;" % (ct, p, ct, p) for p, ct in sorted(ptrs.items())]
        body += ["for (int64_t o_ = b_; o_ < e_; o_++) {"]
        body += ["    " + l for l in lines] + ["}", "return ovf_ != 0;"]
        self.bodies.append("static int kf_%s(%s)\n{\n%s\n}\n" % (d.name, ", ".join(params), "\n".join(
            "    " + l for l in body)))
        self.fast_kernels[d.name] = sorted(arrays)

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
                else:
                    raise refuse(p.span, "a computed extent in a parameter type")
            while len(dims) < 4:
                dims.append("{0u, 0u, 0, 0}")
            covers = "CINT_GEN_PARAM_COVERS" if kernel and self.covers(info, p) else "0u"
            return "{CINT_GEN_ARRAY, %s, {%s, 0u, 0u, 0u, 0u, 0u, 0u}, %du, %s, {%s}}" % (
                mode, self.tag(t.elem), t.rank, covers, ", ".join(dims))
        return "{CINT_GEN_SCALAR, %s, {%s, 0u, 0u, 0u, 0u, 0u, 0u}, 0u, 0u, {{0u, 0u, 0, 0}}}" % (mode, self.tag(t))

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
        self.descs.append("static const cint_gen_param KP_%s[] = {%s};" % (d.name, ", ".join(rows) or
                                                                           "{0u, 0u, {0}, 0u, 0u, {{0}}}"))
        sizes = [s.name for s in info.size_params]
        over = []
        for ov in d.over:
            over.append("{CINT_SHAPE_EXTENT, %du, 0, 0}" % sizes.index(ov.extent.ident))
        while len(over) < 4:
            over.append("{0u, 0u, 0, 0}")
        qn = info.qname.encode()
        self.descs.append("static const cint_gen_kernel KD_%s = {{%s, %du, 0u}, %du, %du, KP_%s, %du, 0u, {%s}};" % (
            d.name, c_str(qn), len(qn), len(info.params), len(info.size_params), d.name, len(d.over),
            ", ".join(over)))

    # ------------------------------------------------------------------ statements

    def block(self, b, lines):
        for s in b.stmts:
            m = getattr(self, "s_" + type(s).__name__, None)
            if m is None:
                raise refuse(s.span, "the statement %s" % type(s).__name__)
            m(s, lines)

    def s_Block(self, s, lines):
        inner = []
        self.block(s, inner)
        lines.append("{")
        lines += ["    " + l for l in inner]
        lines.append("}")

    def s_VarDecl(self, d, lines):
        if d.mode is not None:
            raise refuse(d.span, "a view variable")
        t = d.resolved
        name = "v_%s_%d" % (d.name, id(d.sym) % 100000)
        self.vars[d.sym] = name
        if isinstance(t, ArrayType):
            self.local_array(d, t, name, lines)
            return
        ct = self.ctype(t, d.span)
        if d.init is None:
            lines.append("%s %s;" % (ct, name))
            lines.append("memset(&%s, 0, sizeof %s);" % (name, name))
            return
        v = self.expr(d.init, lines)
        lines.append("%s %s = %s;" % (ct, name, v))

    def local_array(self, d, t, name, lines):
        if self.fn_kind == "kernel":
            raise refuse(d.span, "a private array in a kernel")
        shape = []
        for x in t.dims:
            if isinstance(x, int):
                shape.append("INT64_C(%d)" % x)
            elif isinstance(x, str):
                sym = next(s for s in self.vars if getattr(s, "kind", None) == "sizeparam" and s.name == x)
                shape.append(self.vars[sym])
            else:
                shape.append(self.expr(x, lines))
        sh = self.tmp("int64_t", lines) if False else None
        shp = "sh_%s" % name
        lines.append("int64_t %s[4] = {%s};" % (shp, ", ".join(shape + ["0"] * (4 - len(shape)))))
        lines.append("cint_gen_array %s;" % name)
        for k in range(len(shape)):
            lines.append("if (%s[%d] < 0) { cint_tvalue ops_[2]; cint_tv_i64(&ops_[0], %d); cint_tv_i64(&ops_[1], %s[%d]); "
                         "cint_tvalue lim_; cint_tv_i64(&lim_, 0); const cint_gen_fault f_ = {CINT_E_SHAPE, 2u, 0u, "
                         "\"decl.shape\", ops_, NULL, &lim_}; cint_gen_raise(ctx, %s, &f_); goto fail; }" % (
                             shp, k, k, shp, k, self.at(d.span)))
        lines.append("if (cint_gen_local_array(ctx, %s, &%s, (cint_type){%s, 0u, 0u, 0u, 0u, 0u, 0u}, %du, %s)) goto fail;"
                     % (self.at(d.span), name, self.tag(t.elem), t.rank, shp))
        if d.init is not None:
            src = self.expr(d.init, lines)
            self.copy_array(name, src, t, d.eq_span or d.span, lines)

    def copy_array(self, dst, src, t, span, lines):
        """Whole-array copy with the copy.shape check (IM-187); source and destination are cint_gen_array."""
        ct = self.ctype(t.elem)
        lines.append("if (cintg_copy(ctx, %s, &%s, &%s, sizeof(%s))) goto fail;" % (self.at(span), dst, src, ct))

    def place(self, e, lines):
        """A C lvalue for a place (checks evaluated first, IM-98)."""
        if isinstance(e, A.Paren):
            return self.place(e.inner, lines)
        if isinstance(e, A.Name):
            return self.var(e.ref, e.span)
        if isinstance(e, A.Index):
            return self.index_lvalue(e, lines)
        if isinstance(e, A.Member):
            base = self.place(e.base, lines)
            return "(%s).f_%s" % (base, e.name)
        raise refuse(e.span, "this assignment target")

    def var(self, sym, span):
        if sym.kind == "global":
            off, ct, size = self.globals_layout[sym]
            return "(*(%s *)((uint8_t *)cint_gen_globals(ctx) + %d))" % (ct, off)
        if sym not in self.vars:
            raise refuse(span, "this name")
        return self.vars[sym]

    def s_Assign(self, s, lines):
        t = s.place.ty
        if isinstance(t, ArrayType):
            if s.op != "=":
                raise refuse(s.span, "a compound assignment to an array")
            dst = self.place(s.place, lines)
            src = self.expr(s.value, lines)
            self.copy_array(dst, src, t, s.span, lines)
            return
        lv = self.place(s.place, lines)
        if s.op == "=":
            v = self.expr(s.value, lines)
            lines.append("%s = %s;" % (lv, v))
            return
        cur = self.tmp(self.ctype(t, s.span), lines, lv)
        v = self.expr(s.value, lines)
        r = self.binop(s.op[:-1], t, cur, v, s.value.ty, s.span, lines)
        lines.append("%s = %s;" % (lv, r))

    def s_IncDec(self, s, lines):
        t = s.place.ty
        lv = self.place(s.place, lines)
        cur = self.tmp(self.ctype(t, s.span), lines, lv)
        r = self.binop("+" if s.op == "++" else "-", t, cur, int_lit(t, 1), t, s.span, lines)
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
        return "(at.pos.index = %du, &at)" % self.site(span)

    def loop(self, s, lines, head, cond_lines, cond, body_prefix=(), update=(), cond_after=False):
        """A loop: labels for labelled continue/break; the fuel charge of each iteration after the
        condition evaluates true (IM-139), or, for `do`, before each body with the condition after it."""
        self.tmpn += 1
        lab = "L%d" % self.tmpn
        entry = [s.label, lab, False, False]
        self.loop_labels.append(entry)
        body = []
        self.block(s.body, body)
        self.loop_labels.pop()
        if cond_after:             # the condition is evaluated after the body (and after `continue`)
            cond_lines, update = [], list(update) + list(cond_lines) + ["if (!(%s)) break;" % cond]
            cond = None
        lines += list(head)
        lines.append("for (;;) {")
        lines += ["    " + l for l in cond_lines]
        if cond is not None:
            lines.append("    if (!(%s)) break;" % cond)
        lines.append("    if (cint_gen_charge(ctx, %s, 1)) goto fail;" % self.at_nostep(s.span))
        lines += ["    " + l for l in body_prefix]
        lines.append("    {")
        lines += ["        " + l for l in body]
        lines.append("    }")
        if entry[2]:
            lines.append("    %s_next:;" % lab)
        lines += ["    " + l for l in update]
        lines.append("}")
        if entry[3]:
            lines.append("%s_end:;" % lab)

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
        iv = "v_%s_%d" % (s.var or "_", id(s.sym) % 100000)
        self.vars[s.sym] = iv
        cur = self.tmp("int64_t", lines, lo)
        done = self.tmp("int", lines, "0")
        if step > 0:
            last = hi if s.inclusive else "%s - 1" % hi
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
        self.loop(s, lines, [], [], cond, body_prefix=["const int64_t %s = %s;" % (iv, cur)], update=update)

    def s_ForEach(self, s, lines):
        raise refuse(s.span, "`for x in array`")

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
        lines.append("goto %s_end;" % entry[1])

    def s_Continue(self, s, lines):
        entry = self.find_loop(s.label, s.span, loops_only=True)
        entry[2] = True
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
        if s.table:
            lines.append("switch (%s) {" % v)
            for key, idx in s.table.items():
                lines.append("case %s: %s = %d; break;" % (key_lit(key), k, idx))
            lines.append("default: break;")
            lines.append("}")
        for lo, hi, idx in s.ranges:
            lines.append("if (%s < 0 && %s >= %s && %s <= %s) %s = %d;" % (k, v, int_lit(kt, lo), v, int_lit(kt, hi),
                                                                          k, idx))
        if s.default_index is not None:
            lines.append("if (%s < 0) %s = %d;" % (k, k, s.default_index))
        self.tmpn += 1
        lab = "W%d" % self.tmpn
        entry = [None, lab, False, False, "switch"]
        self.loop_labels.append(entry)
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

    def s_Fallthrough(self, s, lines):
        pass

    def s_Return(self, s, lines):
        if s.value is None:
            if isinstance(self.result, ErrorUnionType):
                lines.append("result->tag = 0; return 0;")
            else:
                lines.append("return 0;")
            return
        if isinstance(self.result, ErrorUnionType):
            v = self.expr(s.value, lines)
            if getattr(s, "is_error", False):
                lines.append("memset(result, 0, sizeof *result); result->tag = %s; return 0;" % self.err_tag(
                    s.value.ty, self.result.errset, v, s.span))
            else:
                lines.append("memset(result, 0, sizeof *result); result->value = %s; return 0;" % v)
            return
        v = self.expr(s.value, lines)
        lines.append("*result = %s; return 0;" % v)

    def err_tag(self, src: ErrorSetType, dst: ErrorSetType, v, span):
        if src == dst:
            return v
        raise refuse(span, "converting between error sets")

    def s_Print(self, s, lines):
        if self.fn_kind == "kernel":
            raise refuse(s.span, "print in a kernel")
        lines.append("if (cint_gen_print_begin(ctx)) goto fail;")
        for p in s.text.parts:
            if isinstance(p, A.Hole):
                if p.spec or p.conv:
                    raise refuse(p.span, "a format specification or conversion in a hole")
                v = self.expr(p.expr, lines)
                t = p.expr.ty
                if p.eq:
                    b = (p.source + "=").encode()
                    lines.append("if (cint_gen_print_bytes(ctx, %s, %du)) goto fail;" % (c_str(b), len(b)))
                if isinstance(t, IntType):
                    fn = "cint_gen_print_i64" if t.signed else "cint_gen_print_u64"
                    lines.append("if (%s(ctx, %s)) goto fail;" % (fn, v))
                elif isinstance(t, BoolType):
                    lines.append("if (cint_gen_print_bytes(ctx, (%s) ? \"true\" : \"false\", (%s) ? 4u : 5u)) goto fail;"
                                 % (v, v))
                else:
                    raise refuse(p.span, "printing a value of type %s" % t)
            else:
                b = p.encode("utf-8") if isinstance(p, str) else p
                if b:
                    lines.append("if (cint_gen_print_bytes(ctx, %s, %du)) goto fail;" % (c_str(b), len(b)))
        lines.append("if (cint_gen_print_end(ctx, %s)) goto fail;" % self.at_nostep(s.span))

    def s_Assert(self, s, lines):
        c = s.cond
        if isinstance(c, A.Binary) and c.op in CMP_OPS and isinstance(c.left.ty, (IntType, BoolType)):
            a = self.tmp(self.ctype(c.left.ty), lines, self.expr(c.left, lines))
            b = self.tmp(self.ctype(c.right.ty), lines, self.expr(c.right, lines))
            lines.append("if (!(%s %s %s)) { cint_tvalue ops_[2]; cint_tv_int(&ops_[0], %s, (uint64_t)%s); "
                         "cint_tv_int(&ops_[1], %s, (uint64_t)%s); const cint_gen_fault f_ = {CINT_E_ASSERT, 2u, 0u, "
                         "\"assert.checked.bool\", ops_, NULL, NULL}; cint_gen_raise(ctx, %s, &f_); goto fail; }" % (
                             a, c.op, b, self.tag(c.left.ty), a, self.tag(c.right.ty), b, self.at_nostep(s.span)))
            return
        v = self.expr(c, lines)
        lines.append("if (!(%s)) { const cint_gen_fault f_ = {CINT_E_ASSERT, 0u, 0u, \"assert.checked.bool\", NULL, "
                     "NULL, NULL}; cint_gen_raise(ctx, %s, &f_); goto fail; }" % (v, self.at_nostep(s.span)))

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
                raise refuse(e.span, "a constant array")
            return self.const(sym.type, sym.value, e.span)
        return self.var(sym, e.span)

    def x_DotName(self, e, lines):
        return self.const(e.ty, e.cval, e.span)

    def x_Member(self, e, lines):
        if getattr(e, "mkind", None) == "const":
            return self.const(e.ty, e.cval, e.span)
        if getattr(e, "mkind", None) == "raw":
            raise refuse(e.span, "fixed point")
        base = self.expr(e.base, lines)
        return "(%s).f_%s" % (base, e.name)

    def x_Unary(self, e, lines):
        v = self.expr(e.operand, lines)
        t = e.ty
        if e.op == "!":
            return "(!(%s))" % v
        if e.op == "~":
            return "((%s)~(%s))" % (self.ctype(t), v)
        sfx = t.token
        if e.op == "-%":
            return "cint_sub_wrap_%s(0, %s)" % (sfx, v)
        r = self.tmp(self.ctype(t, e.span), lines)
        lines.append("if (cint_neg_checked_%s(ctx, %s, %s, &%s)) goto fail;" % (sfx, self.at(e.span), v, r))
        return r

    def binop(self, op, t, a, b, bt, span, lines):
        if not isinstance(t, IntType) or t.bits > 64:
            raise refuse(span, "arithmetic on %s" % t)
        sfx = t.token
        ct = self.ctype(t)
        if op in ("&", "|", "^"):
            return "((%s)(%s %s %s))" % (ct, a, op, b)
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
            if isinstance(e.left.ty, (StructType, ArrayType, StrType)):
                raise refuse(e.span, "comparing %s" % e.left.ty)
            if isinstance(e.left.ty, ErrorSetType) and e.left.ty != e.right.ty:
                raise refuse(e.span, "comparing values of two error sets")
            return "(%s %s %s)" % (a, op, b)
        return self.binop(op, e.ty, a, b, e.right.ty, e.span, lines)

    def x_Cond(self, e, lines):
        c = self.expr(e.cond, lines)
        r = self.tmp(self.ctype(e.ty, e.span), lines)
        t, o = [], []
        tv = self.expr(e.then, t)
        ov = self.expr(e.other, o)
        lines.append("if (%s) {" % c)
        lines += ["    " + l for l in t] + ["    %s = %s;" % (r, tv), "} else {"]
        lines += ["    " + l for l in o] + ["    %s = %s;" % (r, ov), "}"]
        return r

    def x_Convert(self, e, lines):
        if e.op == "as?":
            raise refuse(e.span, "`as?`")
        src = e.src
        dst = e.ty
        if isinstance(dst, FixedType) or isinstance(src, FixedType):
            raise refuse(e.span, "fixed-point conversions")
        v = self.expr(e.operand, lines)
        if isinstance(src, EnumType):
            src = src.underlying
        if src == BOOL:
            if self.fn_kind == "kernel":
                lines.append("step++;")
            return "((%s)(%s))" % (self.ctype(dst), v)
        if not isinstance(src, IntType) or src.bits > 64 or dst.bits > 64:
            raise refuse(e.span, "this conversion")
        ct = self.ctype(dst)
        if e.op == "as%":
            if self.fn_kind == "kernel":
                lines.append("step++;")
            return "cintg_wrap_%s((uint64_t)(%s))" % (dst.token, v)
        r = self.tmp("uint64_t", lines)
        lines.append("if (cint_as_checked(ctx, %s, %s, %s, (uint64_t)(%s), &%s)) goto fail;" % (
            self.at(e.span), self.tag(src), self.tag(dst), v, r))
        return "cintg_wrap_%s(%s)" % (dst.token, r)

    def x_Index(self, e, lines):
        return self.index_lvalue(e, lines)

    def index_lvalue(self, e, lines):
        bt = e.base.ty
        if not isinstance(bt, ArrayType):
            raise refuse(e.span, "indexing a %s" % bt)
        if any(isinstance(i, A.SliceItem) for i in e.items) or len(e.items) != bt.rank:
            raise refuse(e.span, "slices and partial indexing")
        if any(x is not None and not isinstance(x, (int, str)) and False for x in bt.dims):
            raise refuse(e.span, "this array")
        base = self.expr(e.base, lines)
        idx = [self.tmp("int64_t", lines, self.expr(i, lines)) for i in e.items]
        arr = self.tmp("cint_gen_array *", lines, "&(%s)" % base)
        at = self.at(e.span)
        lines.append("{ const cint_gen_at *a_ = %s;" % at)
        for k, i in enumerate(idx):
            lines.append("  if (cint_index(ctx, a_, %s, %du, %s)) goto fail;" % (arr, k, i))
        lines.append("}")
        ct = self.ctype(bt.elem, e.span)
        return "(*(%s *)cint_elem%d(%s, %s))" % (ct, len(idx), arr, ", ".join(idx))

    def x_ArrayLit(self, e, lines):
        t = e.ty
        if t.rank != 1:
            raise refuse(e.span, "a nested array literal")
        n = len(e.items)
        vals = [self.tmp(self.ctype(t.elem), lines, self.expr(x, lines)) for x in e.items]
        name = self.tmp("cint_gen_array", lines)
        shp = self.tmp("int64_t", lines, None) if False else None
        lines.append("{ int64_t sh_[4] = {%d, 0, 0, 0};" % n)
        lines.append("  if (cint_gen_local_array(ctx, %s, &%s, (cint_type){%s, 0u, 0u, 0u, 0u, 0u, 0u}, 1u, sh_)) goto fail; }"
                     % (self.at_nostep(e.span), name, self.tag(t.elem)))
        for k, v in enumerate(vals):
            lines.append("*(%s *)cint_elem1(&%s, %d) = %s;" % (self.ctype(t.elem), name, k, v))
        return name

    def x_Call(self, e, lines, void_ok=False):
        kind = e.kind
        if kind == "builtin":
            return self.builtin(e, lines)
        if kind == "func":
            return self.call(e, lines)
        if kind == "dispatch":
            return self.dispatch(e, lines)
        if kind == "struct":
            t = e.stype
            name = self.tmp(self.ctype(t, e.span), lines)
            vals = [None] * len(e.argv)
            for i in e.order:
                vals[i] = self.tmp(self.ctype(e.argv[i].ty), lines, self.expr(e.argv[i], lines))
            for (fname, ft, _), v in zip(t.fields, vals):
                lines.append("%s.f_%s = %s;" % (name, fname, v))
            return name
        raise refuse(e.span, "this call")

    def args(self, e, lines):
        vals = [None] * len(e.argv)
        for i in e.order:
            a = e.argv[i]
            if isinstance(a.ty, (ArrayType, StructType)):
                v = self.expr(a, lines)
                vals[i] = v
            else:
                vals[i] = self.tmp(self.ctype(a.ty, a.span), lines, self.expr(a, lines))
        return vals

    def call(self, e, lines):
        info = e.info
        vals = self.args(e, lines)
        if self.fn_kind == "kernel":
            raise refuse(e.span, "a call in a kernel")
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
        at = self.at_nostep(e.callee.span)
        for k, d, got, want in checks:
            lines.append("if (%s != %s && cintg_bind_shape(ctx, %s, %d, %d, %s, %s)) goto fail;" % (
                got, want, at, k, d, got, want))
        for s in info.size_params:
            cargs.append(sizes.get(s.name, "0"))
        for p, v in zip(info.params, vals):
            if isinstance(p.type, (ArrayType,)):
                cargs.append("&(%s)" % v)
            elif isinstance(p.type, StructType):
                cargs.append("&(%s)" % v)
            else:
                cargs.append(v)
        r = None
        if info.result is not VOID:
            r = self.tmp(self.ctype(info.result, e.span), lines)
            cargs.append("&" + r)
        lines.append("if (cint_gen_call_enter(ctx, %s)) goto fail;" % at)
        lines.append("if (%s(%s)) goto fail;" % (self.fname(info), ", ".join(cargs)))
        lines.append("cint_gen_call_leave(ctx);")
        return r if r is not None else "0"

    def dispatch(self, e, lines):
        info = e.info
        if self.fn_kind == "kernel":
            raise refuse(e.span, "a dispatch in a kernel")
        vals = self.args(e, lines)
        n = len(info.params)
        arrs = self.tmp("cint_gen_array", lines + []) if False else None
        name = "D%d" % (self.tmpn + 1)
        self.tmpn += 1
        lines.append("cint_gen_array %s_A[%d]; int64_t %s_S[%d]; int64_t %s_n = 0;" % (name, max(n, 1), name,
                                                                                      max(len(info.size_params), 1),
                                                                                      name))
        lines.append("memset(%s_A, 0, sizeof %s_A); memset(%s_S, 0, sizeof %s_S);" % (name, name, name, name))
        scal = []
        for k, (p, v) in enumerate(zip(info.params, vals)):
            if isinstance(p.type, ArrayType):
                lines.append("%s_A[%d] = %s;" % (name, k, v))
            else:
                scal.append(v)
        lines.append("if (cint_gen_dispatch_begin(ctx, &KD_%s, %s, %s_A, %s_S, &%s_n)) goto fail;" % (
            info.decl.name, self.at_nostep(e.callee.span), name, name, name))
        lines += self.work_items(info, "%s_A" % name, "%s_S" % name, scal, fail="{ cint_gen_dispatch_end(ctx); goto fail; }")
        lines.append("cint_gen_dispatch_end(ctx);")
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
        fast = self.fast_kernels.get(d.name)
        if fast is not None:
            k = sizes.index(d.over[0].extent.ident)
            arrays = fast
            conds = " && ".join("cintg_flat(&%s[%d])" % (A, p) for p in arrays) or "1"
            args = ["ctx", A, S] + scal
            out = ["if (%s) {" % conds,
                   "  for (int64_t b_ = 0; b_ < %s[%d]; b_ += 1024) {" % (S, k),
                   "    int64_t e_ = %s[%d] - b_ < 1024 ? %s[%d] : b_ + 1024;" % (S, k, S, k),
                   "    if (kf_%s(%s, b_, e_)) {" % (d.name, ", ".join(args)),
                   "      for (int64_t o_ = b_; o_ < e_; o_++) if (kb_%s(%s, o_, o_)) %s" % (
                       d.name, ", ".join(args), fail),
                   "    }",
                   "  }",
                   "} else {"]
            slow = self.work_items_slow(info, A, S, scal, fail)
            return out + ["  " + l for l in slow] + ["}"]
        return self.work_items_slow(info, A, S, scal, fail)

    def work_items_slow(self, info, A, S, scal, fail):
        d = info.decl
        sizes = [s.name for s in info.size_params]
        out = ["{ int64_t wi_ = 0;"]
        ind = "  "
        for ov in d.over:
            k = sizes.index(ov.extent.ident)
            out.append("%sfor (int64_t o_%s = 0; o_%s < %s[%d]; o_%s++) {" % (ind, ov.name, ov.name, S, k, ov.name))
            ind += "  "
        args = ["ctx", A, S] + scal + ["wi_"] + ["o_%s" % ov.name for ov in d.over]
        out.append("%sif (kb_%s(%s)) %s" % (ind, d.name, ", ".join(args), fail))
        out.append("%swi_++;" % ind)
        for _ in d.over:
            ind = ind[:-2]
            out.append("%s}" % ind)
        out.append("}")
        return out

    def builtin(self, e, lines):
        name = e.bname
        if name == "len":
            a = e.argv[0]
            if isinstance(a.ty, StrType):
                raise refuse(e.span, "Str values")
            v = self.expr(a, lines)
            return "(%s).shape[0]" % v
        if name == "sum":
            xs = e.argv[-1]
            if e.elem.bits > 64 or e.R.bits > 64:
                raise refuse(e.span, "sum over wide integers")
            v = self.expr(xs, lines)
            r = self.tmp(self.ctype(e.R), lines)
            if self.fn_kind == "kernel":
                raise refuse(e.span, "a reduction in a kernel")
            lines.append("if (cint_gen_sum(ctx, %s, &(%s), %s, &%s)) goto fail;" % (self.at_nostep(e.callee.span),
                                                                                    v, self.tag(e.R), r))
            return r
        T = getattr(e, "T", None)
        if name in ("abs", "div_trunc", "rem_trunc", "div_euclid", "rem_euclid") and isinstance(T, IntType) \
                and T.bits <= 64:
            vals = [self.tmp(self.ctype(T), lines, self.expr(x, lines)) for x in e.argv]
            r = self.tmp(self.ctype(T), lines)
            lines.append("if (cintg_%s_%s(ctx, %s, %s, &%s)) goto fail;" % (name, T.token, self.at(e.callee.span),
                                                                         ", ".join(vals), r))
            return r
        if name in ("min", "max") and isinstance(T, IntType) and T.bits <= 64:
            a, b = [self.tmp(self.ctype(T), lines, self.expr(x, lines)) for x in e.argv]
            if self.fn_kind == "kernel":
                lines.append("step++;")
            return "((%s %s %s) ? %s : %s)" % (a, "<" if name == "min" else ">", b, a, b)
        raise refuse(e.span, "the built-in `%s`" % name)

    def x_Catch(self, e, lines):
        u = self.tmp(self.ctype(e.operand.ty, e.span), lines, self.expr(e.operand, lines))
        t = e.ty
        if e.block is not None:
            raise refuse(e.span, "`catch (e) { ... }`")
        r = self.tmp(self.ctype(t, e.span), lines)
        inner = []
        v = self.expr(e.value, inner)
        lines.append("if (%s.tag != 0) {" % u)
        lines += ["    " + l for l in inner] + ["    %s = %s;" % (r, v), "} else {", "    %s = %s.value;" % (r, u), "}"]
        return r

    def x_Try(self, e, lines):
        u = self.tmp(self.ctype(e.operand.ty, e.span), lines, self.expr(e.operand, lines))
        if not isinstance(self.result, ErrorUnionType):
            raise refuse(e.span, "`try` in a test block")
        tag = self.err_tag(e.operand.ty.errset, self.result.errset, "%s.tag" % u, e.span)
        lines.append("if (%s.tag != 0) { memset(result, 0, sizeof *result); result->tag = %s; return 0; }" % (u, tag))
        return "%s.value" % u if e.ty is not VOID else "0"

    # ------------------------------------------------------------------ exports

    def exports(self):
        rows = []
        decls = list(self.p.functions.values()) + list(self.p.kernels.values())
        decls.sort(key=lambda i: (i.decl.span.line, i.decl.span.column))    # declaration order
        for info in decls:
            if not info.decl.exported:
                continue
            rows.append(self.wrapper(info))
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
            "&KD_%s" % info.decl.name if info.is_kernel else "NULL"))

    def wrapper(self, info):
        d = info.decl
        sym = wrapper_symbol(self.c.name, d.name)
        self.export_desc(info, d.name, d.span)
        cparams = ["cint_ctx *ctx", "int64_t fuel"]
        argrows = []
        scal = []
        for p in info.params:
            pn = "a_" + p.name
            if isinstance(p.type, ArrayType):
                cparams.append("cint_view %s" % pn)
                argrows.append("{&%s, 0u, 0u}" % pn)
            elif isinstance(p.type, BoolType):
                cparams.append("uint8_t %s" % pn)
                argrows.append("{NULL, %s, 0u}" % pn)
                scal.append(pn)
            elif isinstance(p.type, IntType) and p.type.bits <= 64:
                cparams.append("%s %s" % (self.ctype(p.type), pn))
                argrows.append("{NULL, 0u, 0u}")
                scal.append(pn)
            else:
                raise refuse(p.span, "an export parameter of type %s" % p.type)
        res = info.result if not info.is_kernel else VOID
        if res is not VOID:
            cparams.append("%s *result" % self.ctype(res, d.span))
        lines = ["CINT_EXPORT cint_status %s(%s)" % (sym, ", ".join(cparams)), "{"]
        np = max(len(info.params), 1)
        lines.append("    const cint_gen_arg args[%d] = {%s};" % (np, ", ".join(argrows) or "{NULL, 0u, 0u}"))
        lines.append("    cint_gen_array A[%d]; int64_t S[%d];" % (np, max(len(info.size_params), 1)))
        lines.append("    memset(A, 0, sizeof A); memset(S, 0, sizeof S);")
        lines.append("    cint_status s = cint_gen_enter(ctx, &X_%s, fuel, args, %s, A, S);" % (
            d.name, "result" if res is not VOID else "NULL"))
        lines.append("    if (s != CINT_OK) return s;")
        if info.is_kernel:
            scal_args = ["a_" + p.name for p in info.params if not isinstance(p.type, ArrayType)]
            lines += ["    " + l for l in self.work_items(info, "A", "S", scal_args, fail="goto done;")]
            lines.append("done:")
            lines.append("    cint_gen_dispatch_end(ctx);")
            lines.append("    return cint_gen_leave(ctx);")
        else:
            cargs = ["ctx"] + ["S[%d]" % k for k in range(len(info.size_params))]
            for k, p in enumerate(info.params):
                cargs.append("&A[%d]" % k if isinstance(p.type, ArrayType) else "a_" + p.name)
            if res is not VOID:
                lines.append("    %s r_; memset(&r_, 0, sizeof r_);" % self.ctype(res))
                cargs.append("&r_")
            lines.append("    int failed_ = %s(%s);" % (self.fname(info), ", ".join(cargs)))
            if isinstance(res, ErrorUnionType):
                lines.append("    if (!failed_ && r_.tag != 0) cint_gen_error(ctx, &%s, r_.tag);" % self.errset_desc(
                    res.errset))
            lines.append("    (void)failed_;")
            lines.append("    s = cint_gen_leave(ctx);")
            if res is not VOID:
                lines.append("    if (s == CINT_OK) *result = r_;")
            lines.append("    return s;")
        lines.append("}")
        self.wrappers.append("\n".join(lines) + "\n")
        return (info, sym)

    def library_desc(self, rows):
        from .abi_sig import signature_bytes
        ex = []
        for info, sym in rows:
            d = info.decl
            sig = signature_bytes(info, self.c.name)
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
        self.protos += ["CINT_EXPORT cint_status %s();" % sym for _, sym, *_ in ex] if False else []
        rows_c = []
        for ident, sym, info, effect, has_pn, has_sn, siglen in ex:
            rows_c.append("{{%s, %du, 0u}, %s, %s, %du, %du, %s, %s, SIG_%s, %du, (cint_entry_fn)%s}" % (
                c_str(ident.encode()), len(ident), "CINT_EXPORT_KERNEL" if info.is_kernel else "CINT_EXPORT_FUNCTION",
                effect, len(info.size_params), len(info.params), "SN_%s" % ident if has_sn else "NULL",
                "PN_%s" % ident if has_pn else "NULL", ident, siglen, sym))
        lines = []
        if rows_c:
            lines.append("static const cint_export EXPORTS[] = {%s};" % ", ".join(rows_c))
        lines.append("static const cint_module_table MT0 = {&%s, 0u, %du, %s, NULL};" % (
            self.modinfo, len(rows_c), "EXPORTS" if rows_c else "NULL"))
        lines.append("static const cint_module_table *const MTS[] = {&MT0};")
        lines.append("CINT_EXPORT const cint_library cint_library_desc = {CINT_ABI_VERSION, 1u, MTS};")
        lines.append("CINT_EXPORT const uint32_t cint_program_abi = CINT_ABI_VERSION;")
        lines.append("CINT_EXPORT const cint_observer cint_observer_desc = {sizeof(cint_observer), CINT_ABI_VERSION, "
                     "&PROGRAM, &cint_library_desc, 0u};")
        self.library_lines = lines

    # ------------------------------------------------------------------ harness

    def harness(self, kind, target, args):
        """An internal entry and a `main` that runs it once and prints the outcome (cint run/outcome)."""
        self.harness_kind = kind
        if kind == "func":
            info = target
            ident = "H_" + info.decl.name
            self.export_desc(info, ident, info.decl.span)
            body_call = None
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
            self.vars = {}
            self.loop_labels = []
            self.result = VOID
            body = ["cint_gen_at at = {{0u, 0u}, 0, 0};"]
            self.block(block, body)
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
             "    for (size_t i = 0; i < n; i++) printf(\"%02x\", b[i]); printf(\"\\n\"); }",
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
    lines.append("    printf(\"status %d\\n\", (int)s);")
    lines.append("    int64_t fc = 0; cint_fuel_consumed(ctx, &fc); printf(\"fuel %lld\\n\", (long long)fc);")
    lines.append("    hex(\"stdout\", o.b, o.n);")
    lines.append("    size_t fl = 0; cint_fault_get(ctx, NULL, 0, &fl); if (fl) { uint8_t *fb = malloc(fl);"
                 " cint_fault_get(ctx, fb, fl, &fl); hex(\"fault\", fb, fl); free(fb); }")
    if kind == "func" and target.result is not VOID:
        res = target.result
        if isinstance(res, ErrorUnionType):
            lines.append("    if (s == CINT_OK) { const cint_error_set *es = NULL; uint64_t tg = 0; cint_ctx_error(ctx, &es, &tg);"
                         " if (es) printf(\"error %llu\\n\", (unsigned long long)tg); else printf(\"result %lld\\n\","
                         " (long long)r_.value); }" if res.value is not VOID else
                         "    if (s == CINT_OK) { const cint_error_set *es = NULL; uint64_t tg = 0; cint_ctx_error(ctx, &es, &tg);"
                         " if (es) printf(\"error %llu\\n\", (unsigned long long)tg); }")
        elif isinstance(res, IntType) and not res.signed:
            lines.append("    if (s == CINT_OK) printf(\"result %llu\\n\", (unsigned long long)r_);")
        else:
            lines.append("    if (s == CINT_OK) printf(\"result %lld\\n\", (long long)r_);")
    for g, (off, ct, size) in em.globals_layout.items():
        fmtc = "%llu" if ct.startswith("u") else "%lld"
        cast = "unsigned long long" if ct.startswith("u") else "long long"
        lines.append("    printf(\"global %s %s\\n\", (%s)*(%s *)((uint8_t *)cint_gen_globals(ctx) + %d));" % (
            g.name, fmtc, cast, ct, off))
    lines.append("    cint_ctx_destroy(ctx); free(o.b); return 0;")
    lines.append("}")
    return "\n".join(lines) + "\n"


PRELUDE = r"""
/* --- generated helpers ----------------------------------------------------------------- */
#define CINTG_WRAP_(T, SFX, W, SIGNED)                                                          \
    static inline T cintg_wrap_##SFX(uint64_t v)                                                \
    {                                                                                           \
        uint64_t m = (W == 64u) ? ~UINT64_C(0) : ((UINT64_C(1) << W) - 1u);                     \
        v &= m;                                                                                 \
        if (SIGNED && (v >> (W - 1u)) != 0u) return (T)(-(int64_t)((~v) & m) - 1);              \
        return (T)v;                                                                            \
    }
CINTG_WRAP_(int8_t, i8, 8u, 1) CINTG_WRAP_(int16_t, i16, 16u, 1) CINTG_WRAP_(int32_t, i32, 32u, 1)
CINTG_WRAP_(int64_t, i64, 64u, 1) CINTG_WRAP_(uint8_t, u8, 8u, 0) CINTG_WRAP_(uint16_t, u16, 16u, 0)
CINTG_WRAP_(uint32_t, u32, 32u, 0) CINTG_WRAP_(uint64_t, u64, 64u, 0)

__extension__ typedef __int128 cintg_i128;
__extension__ typedef unsigned __int128 cintg_u128;

/* A fault of a named operation on integers of type tag: operands as uint64_t bits, an exact
   value when has_exact (two's complement, any width up to 128 bits) and a limit of type tag. */
static inline int cintg_raise(cint_ctx *ctx, const cint_gen_at *at, uint16_t code, const char *op, uint32_t tag,
                              uint32_t nops, uint64_t a, uint64_t b, int has_exact, cintg_i128 exact, int has_limit,
                              uint64_t limit)
{
    cint_tvalue ops[2], lim;
    uint8_t ex[16];
    cint_tv_int(&ops[0], tag, a);
    cint_tv_int(&ops[1], tag, b);
    cint_tv_int(&lim, tag, limit);
    for (int k = 0; k < 16; k++) ex[k] = (uint8_t)((cintg_u128)exact >> (8 * k));
    const cint_gen_fault f = {code, (uint16_t)nops, has_exact ? 16u : 0u, op, ops, has_exact ? ex : NULL,
                              has_limit ? &lim : NULL};
    return cint_gen_raise(ctx, at, &f);
}

#define CINTG_NAMED_(T, SFX, TAG, SIGNED, MINV, MAXV)                                                      \
    static inline int cintg_abs_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T *r)                     \
    {                                                                                                       \
        if (SIGNED && a == (T)(MINV))                                                                       \
            return cintg_raise(ctx, at, CINT_E_OVERFLOW, "abs.checked." #SFX, TAG, 1u, (uint64_t)a, 0u, 1,  \
                               -(cintg_i128)a, 1, (uint64_t)(T)(MAXV));                                     \
        *r = (SIGNED && cint_is_neg((int64_t)a)) ? (T)-a : a;                                              \
        return 0;                                                                                           \
    }                                                                                                       \
    static inline int cintg_divcheck_##SFX(cint_ctx *ctx, const cint_gen_at *at, const char *op, T a, T b,  \
                                           int quotient)                                                    \
    {                                                                                                       \
        if (b == 0) return cintg_raise(ctx, at, CINT_E_DIV_ZERO, op, TAG, 2u, (uint64_t)a, (uint64_t)b, 0,  \
                                       0, 0, 0u);                                                           \
        if (quotient && SIGNED && a == (T)(MINV) && b == (T)-1)                                             \
            return cintg_raise(ctx, at, CINT_E_OVERFLOW, op, TAG, 2u, (uint64_t)a, (uint64_t)b, 1,          \
                               -(cintg_i128)a, 1, (uint64_t)(T)(MAXV));                                     \
        return 0;                                                                                           \
    }                                                                                                       \
    static inline int cintg_div_trunc_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)          \
    {                                                                                                       \
        if (cintg_divcheck_##SFX(ctx, at, "div_trunc.checked." #SFX, a, b, 1)) return 1;                    \
        *r = (T)(a / b);                                                                                    \
        return 0;                                                                                           \
    }                                                                                                       \
    static inline int cintg_rem_trunc_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)          \
    {                                                                                                       \
        if (cintg_divcheck_##SFX(ctx, at, "rem_trunc.checked." #SFX, a, b, 0)) return 1;                    \
        *r = (SIGNED && b == (T)-1) ? (T)0 : (T)(a % b);                                                   \
        return 0;                                                                                           \
    }                                                                                                       \
    static inline int cintg_div_euclid_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)         \
    {                                                                                                       \
        if (cintg_divcheck_##SFX(ctx, at, "div_euclid.checked." #SFX, a, b, 1)) return 1;                   \
        T q = (T)(a / b), m = (T)(a % b);                                                                   \
        if (SIGNED && cint_is_neg((int64_t)m)) q = cint_is_neg((int64_t)b) ? (T)(q + 1) : (T)(q - 1);      \
        *r = q;                                                                                             \
        return 0;                                                                                           \
    }                                                                                                       \
    static inline int cintg_rem_euclid_##SFX(cint_ctx *ctx, const cint_gen_at *at, T a, T b, T *r)         \
    {                                                                                                       \
        if (cintg_divcheck_##SFX(ctx, at, "rem_euclid.checked." #SFX, a, b, 0)) return 1;                   \
        if (SIGNED && b == (T)-1) { *r = 0; return 0; }                                                     \
        T m = (T)(a % b);                                                                                   \
        if (SIGNED && cint_is_neg((int64_t)m)) m = cint_is_neg((int64_t)b) ? (T)(m - b) : (T)(m + b);      \
        *r = m;                                                                                             \
        return 0;                                                                                           \
    }
CINTG_NAMED_(int8_t, i8, CINT_TAG_I8, 1, INT8_MIN, INT8_MAX)
CINTG_NAMED_(int16_t, i16, CINT_TAG_I16, 1, INT16_MIN, INT16_MAX)
CINTG_NAMED_(int32_t, i32, CINT_TAG_I32, 1, INT32_MIN, INT32_MAX)
CINTG_NAMED_(int64_t, i64, CINT_TAG_I64, 1, INT64_MIN, INT64_MAX)
CINTG_NAMED_(uint8_t, u8, CINT_TAG_U8, 0, 0, UINT8_MAX)
CINTG_NAMED_(uint16_t, u16, CINT_TAG_U16, 0, 0, UINT16_MAX)
CINTG_NAMED_(uint32_t, u32, CINT_TAG_U32, 0, 0, UINT32_MAX)
CINTG_NAMED_(uint64_t, u64, CINT_TAG_U64, 0, 0, UINT64_MAX)

/* Whether an array is rank 1, contiguous and 0-based: the layout of the elementwise fast path. */
static inline int cintg_flat(const cint_gen_array *a)
{
    return a->rank == 1 && a->stride[0] == 1 && a->lower[0] == 0;
}

/* E_SHAPE bind.shape at a call: parameter, dimension, extent given; limit the extent expected. */
static inline int cintg_bind_shape(cint_ctx *ctx, const cint_gen_at *at, int64_t param, int64_t dim, int64_t got,
                                   int64_t want)
{
    cint_tvalue ops[3], lim;
    cint_tv_i64(&ops[0], param);
    cint_tv_i64(&ops[1], dim);
    cint_tv_i64(&ops[2], got);
    cint_tv_i64(&lim, want);
    const cint_gen_fault f = {CINT_E_SHAPE, 3u, 0u, "bind.shape", ops, NULL, &lim};
    return cint_gen_raise(ctx, at, &f);
}

/* Whole-array copy in row-major order after the copy.shape check (SPEC-01P.1 IM-187). */
static inline int cintg_copy(cint_ctx *ctx, const cint_gen_at *at, cint_gen_array *dst, const cint_gen_array *src,
                      size_t esize)
{
    for (uint32_t d = 0; d < dst->rank; d++) {
        if (dst->shape[d] != src->shape[d]) {
            cint_tvalue ops[2], lim;
            cint_tv_i64(&ops[0], (int64_t)d);
            cint_tv_i64(&ops[1], src->shape[d]);
            cint_tv_i64(&lim, dst->shape[d]);
            const cint_gen_fault f = {CINT_E_SHAPE, 2u, 0u, "copy.shape", ops, NULL, &lim};
            return cint_gen_raise(ctx, at, &f);
        }
    }
    int64_t idx[4] = {0, 0, 0, 0}, total = 1;
    for (uint32_t d = 0; d < dst->rank; d++) total *= dst->shape[d];
    for (int64_t k = 0; k < total; k++) {
        int64_t so = 0, doff = 0;
        for (uint32_t d = 0; d < dst->rank; d++) {
            so += idx[d] * src->stride[d];
            doff += idx[d] * dst->stride[d];
        }
        memmove(dst->data + doff * (int64_t)esize, src->data + so * (int64_t)esize, esize);
        for (int d = (int)dst->rank - 1; d >= 0; d--) {
            if (++idx[d] < dst->shape[d]) break;
            idx[d] = 0;
        }
    }
    return 0;
}
"""


def emit(compiled, harness=None) -> str:
    em = Emitter(compiled)
    text = em.emit(harness)
    # the prelude goes after the includes; the library descriptor and harness at the end
    head, _, rest = text.partition('#include "cint_rt_ops.h"\n')
    out = head + '#include "cint_rt_ops.h"\n' + PRELUDE + rest + "\n".join(em.library_lines) + "\n"
    if harness is not None:
        out += harness_main(em)
    return out
