"""The chunking plan of one kernel (docs/dask.md, "What can be chunked"): which dimension of each array
parameter follows which `over` variable, with what halo, from the export's type signature; and the check
of the kernel's body that makes a chunk-local call equal to the same work items of one call.

A chunk runs as a call of the kernel on the chunk's windows, with chunk-sized size symbols and `over`
variables counted from 0.  That is the same computation as those work items of one call on the whole
arrays exactly when the body never sees a coordinate or a chunked extent as a value:

- an `over` variable ``v`` appears only as an index of a parameter, at a dimension whose extent is
  ``s + c`` with ``s`` the extent symbol of ``v``, in the form ``v``, ``v + k``, ``k + v`` or ``v - k``
  with the literal shift in ``0..c`` (so the element read is inside the chunk's window);
- a size symbol that is the extent of an `over` variable is never read;
- a chunked parameter is only indexed (no ``len``, ``extent``, slice, whole-array use or call with it);
- no `where` clause (it would be checked on the chunk's sizes) and no `reduce` (a scalar `out`).

The body comes from the module's source (``cint.load`` of a .ci file sets ``Module.source``), which the
front end checks again here, on the caller's machine; workers never need the compiler.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from cint_abi import typesig as T

# element types a chunk crosses as NumPy arrays
DTYPES = {"I8": "int8", "I16": "int16", "I32": "int32", "I64": "int64",
          "U8": "uint8", "U16": "uint16", "U32": "uint32", "U64": "uint64"}


class ChunkingRefused(ValueError):
    """A kernel, or a call of it, that cannot be chunked with the outcome of one call (docs/dask.md).
    ``parameter`` names the parameter concerned, or is None."""

    def __init__(self, message, parameter=None):
        super().__init__(message)
        self.parameter = parameter


@dataclass(frozen=True)
class Dim:
    """One dimension of an array parameter: ``over`` is the index of the `over` variable it follows
    (None: the dimension is whole in every chunk); ``halo`` the constant c of an extent ``s + c``;
    ``symbol`` the size-symbol index of the extent (None: a literal ``offset``)."""
    over: Optional[int]
    halo: int
    symbol: Optional[int]
    offset: int


@dataclass(frozen=True)
class ParamPlan:
    name: str
    mode: str                   # in, inout, out
    array: bool
    elem: Optional[str] = None  # I8..U64: an array's elements, or a scalar's type (None: another type)
    dims: tuple = ()


@dataclass(frozen=True)
class KernelPlan:
    name: str
    size_names: tuple
    over_symbols: tuple         # size-symbol index of each `over` variable, in order
    over_names: tuple
    params: tuple               # ParamPlan, in declaration order

    @property
    def written(self):
        return [p for p in self.params if p.mode in ("out", "inout")]


def _bound_text(size_names, b):
    if b.symbol is None:
        return str(b.offset)
    s = size_names[b.symbol]
    return s if b.offset == 0 else "%s %s %d" % (s, "+" if b.offset > 0 else "-", abs(b.offset))


def _dims_text(size_names, t):
    out = []
    for d in t.dims:
        if isinstance(d, T.Extent):
            out.append(_bound_text(size_names, d.bound))
        elif isinstance(d, T.Range):
            out.append("%s..%s" % (_bound_text(size_names, d.lower), _bound_text(size_names, d.bound)))
        else:
            out.append("_")
    return "[%s]" % ", ".join(out)


def _kernel_decl(module, name):
    """The checked KernelDecl of export ``name`` in the module's root source."""
    src = getattr(module, "source", None)
    if src is None:
        raise ChunkingRefused(
            "cint_dask.kernel: %s was loaded from a library file; load the .ci source with cint.load so that "
            "the body of %s can be checked for chunking (docs/dask.md)" % (module, name))
    from cint_compiler import driver          # the caller's machine only; workers load the library bytes
    compiled = driver.compile_file(src)
    root = compiled.modules[-1] if compiled.modules else None
    for item in (root.items if root is not None else ()):
        if type(item).__name__ == "KernelDecl" and item.name == name:
            return item
    raise ChunkingRefused("cint_dask.kernel: the root module of %s declares no kernel %s" % (src, name))


def plan_kernel(module, name) -> KernelPlan:
    row = module._rows.get(name) if hasattr(module, "_rows") else None
    if row is None:
        raise ChunkingRefused("cint_dask.kernel: the library exports no %r; its exports: %s" % (
            name, ", ".join(e.name for e in module.exports)))
    if row.kind != "kernel":
        raise ChunkingRefused("cint_dask.kernel: %s is a %s, not a kernel" % (name, row.kind))
    if row.signature is None:
        raise ChunkingRefused("cint_dask.kernel: %s has a type signature this package cannot decode (%s)" % (
            name, row.error))
    decl = _kernel_decl(module, name)
    sizes = tuple(row.size_names)
    over_names, over_syms = [], []
    for ov in decl.over or ():
        ext = ov.extent
        ident = getattr(ext, "ident", None)
        if ident not in sizes:
            raise ChunkingRefused("kernel %s: over variable %s has an extent that is not a size symbol" % (
                name, ov.name))
        over_names.append(ov.name)
        over_syms.append(sizes.index(ident))
    if not over_names:
        raise ChunkingRefused("kernel %s has no work items to chunk (no `over` clause)" % name)
    if decl.where:
        raise ChunkingRefused("kernel %s has a `where` clause, which a chunk would check on its own sizes; "
                              "it cannot be chunked with the outcome of one call" % name)
    params = []
    for pname, p in zip(row.parameters, row.signature.params):
        t = p.type
        if not isinstance(t, T.Array):
            if p.mode != "in":
                raise ChunkingRefused("kernel %s: parameter %s is a scalar %s (a `reduce` target); a reduction "
                                      "across chunks is not in cint_dask" % (name, pname, p.mode), pname)
            elem = ("I" if t.signed else "U") + str(t.bits) if isinstance(t, T.Int) and t.bits <= 64 else None
            params.append(ParamPlan(pname, p.mode, False, elem))
            continue
        elem = None
        if isinstance(t.elem, T.Int) and t.elem.bits <= 64:
            elem = ("I" if t.elem.signed else "U") + str(t.elem.bits)
        if elem not in DTYPES:
            raise ChunkingRefused("kernel %s: parameter %s has elements of a type cint_dask does not carry "
                                  "(integers of 8 to 64 bits only)" % (name, pname), pname)
        dims = []
        for k, d in enumerate(t.dims):
            if not isinstance(d, T.Extent):
                raise ChunkingRefused(
                    "kernel %s: parameter %s %s: dimension %d is %s, whose relation to the over extents cannot "
                    "be chunked" % (name, pname, _dims_text(sizes, t), k,
                                    "a range" if isinstance(d, T.Range) else "open (_)"), pname)
            b = d.bound
            if b.symbol is not None and b.symbol in over_syms:
                ov = over_syms.index(b.symbol)
                if b.offset < 0 or (p.mode != "in" and b.offset != 0):
                    raise ChunkingRefused(
                        "kernel %s: parameter %s %s: extent %s of dimension %d is the over extent %s %s a "
                        "constant; only an `in` array may be longer than the over extent (a halo), never "
                        "shorter" % (name, pname, _dims_text(sizes, t), _bound_text(sizes, b), k,
                                     sizes[b.symbol], "minus" if b.offset < 0 else "plus"), pname)
                dims.append(Dim(ov, b.offset, b.symbol, b.offset))
            else:
                dims.append(Dim(None, 0, b.symbol, b.offset))
        if p.mode != "in":
            lead = [d.over for d in dims[:len(over_syms)]]
            if lead != list(range(len(over_syms))):
                raise ChunkingRefused(
                    "kernel %s: parameter %s %s is written, and its leading extents are not the over extents "
                    "[%s] in order" % (name, pname, _dims_text(sizes, t),
                                       ", ".join(sizes[s] for s in over_syms)), pname)
        params.append(ParamPlan(pname, p.mode, True, elem, tuple(dims)))
    plan = KernelPlan(name, sizes, tuple(over_syms), tuple(over_names), tuple(params))
    if not plan.written:
        raise ChunkingRefused("kernel %s writes no array, so there is nothing to chunk" % name)
    _BodyCheck(plan).run(decl.body)
    return plan


def _nodes(node):
    """The child nodes of an AST node (dataclass fields holding nodes or lists of them)."""
    if not dataclasses.is_dataclass(node):
        return
    for f in dataclasses.fields(node):
        if f.name in ("span", "ty"):
            continue
        v = getattr(node, f.name, None)
        if isinstance(v, (list, tuple)):
            for x in v:
                if dataclasses.is_dataclass(x):
                    yield x
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            yield v


def _text(e):
    """A short source form of an index expression, for messages."""
    k = _kind(e)
    if k == "Name":
        return e.ident
    if k == "IntLit":
        return str(e.value)
    if k == "Paren":
        return "(%s)" % _text(e.inner)
    if k == "Binary":
        return "%s %s %s" % (_text(e.left), e.op, _text(e.right))
    if k == "Unary":
        return "%s%s" % (e.op, _text(e.operand))
    return "an expression (%s)" % k


def _kind(node):
    return type(node).__name__


class _BodyCheck:
    def __init__(self, plan: KernelPlan):
        self.plan = plan
        self.over = {v: k for k, v in enumerate(plan.over_names)}
        self.over_syms = {plan.size_names[s] for s in plan.over_symbols}
        self.arrays = {p.name: p for p in plan.params if p.array}
        self.chunked = {p.name for p in plan.params if p.array and any(d.over is not None for d in p.dims)}

    def refuse(self, what, parameter=None):
        raise ChunkingRefused("kernel %s cannot be chunked with the outcome of one call: %s (docs/dask.md)" % (
            self.plan.name, what), parameter)

    def run(self, body):
        self.walk(body)

    def walk(self, node):
        k = _kind(node)
        if k == "Reduce":
            self.refuse("it has a `reduce` statement")
        if k in ("VarDecl", "Bind") and getattr(node, "name", None) in (
                set(self.over) | self.over_syms | set(self.arrays)):
            self.refuse("it declares a local named %s" % node.name)
        if k == "Index" and _kind(node.base) == "Name" and node.base.ident in self.arrays:
            self.index(node)
            return
        if k == "Name":
            ident = node.ident
            if ident in self.over:
                self.refuse("it reads the value of the over variable %s, not only as an index of a parameter "
                            "with its over extent; a chunk counts its work items from 0" % ident)
            if ident in self.over_syms:
                self.refuse("it reads the size symbol %s, the extent of an over variable; a chunk has its own "
                            "extent" % ident)
            if ident in self.chunked:
                self.refuse("it uses the chunked parameter %s other than by indexing its elements (len, extent, a "
                            "slice, a call or a whole-array expression)" % ident, ident)
            return
        for c in _nodes(node):
            self.walk(c)

    def index(self, node):
        p = self.arrays[node.base.ident]
        items = list(node.items)
        if len(items) < len(p.dims) and any(d.over is not None for d in p.dims[len(items):]):
            self.refuse("%s is indexed in %d of its %d dimensions, leaving a chunked dimension as a view" % (
                p.name, len(items), len(p.dims)), p.name)
        for d, it in zip(p.dims, items):
            if d.over is None:
                self.walk(it)
                continue
            shift = self.shift(it, self.plan.over_names[d.over])
            if shift is None:
                self.refuse("%s is indexed by %s at a dimension that follows the over variable %s; only %s, "
                            "%s + k and %s - k with a literal k are chunked" % (
                                p.name, _text(it), self.plan.over_names[d.over],
                                *(self.plan.over_names[d.over],) * 3), p.name)
            if not 0 <= shift <= d.halo:
                self.refuse("%s is read at %s %+d, outside the halo 0..%d that its extent allows; one call would "
                            "read another element, or fault, where a chunk cannot" % (
                                p.name, self.plan.over_names[d.over], shift, d.halo), p.name)

    def shift(self, e, var):
        """k when e is var, var + k, k + var or var - k (k a literal), else None."""
        while _kind(e) == "Paren":
            e = e.inner
        k = _kind(e)
        if k == "Name":
            return 0 if e.ident == var else None
        if k == "Binary" and e.op in ("+", "-"):
            l, r = e.left, e.right
            while _kind(l) == "Paren":
                l = l.inner
            while _kind(r) == "Paren":
                r = r.inner
            if _kind(l) == "Name" and l.ident == var and _kind(r) == "IntLit":
                return r.value if e.op == "+" else -r.value
            if e.op == "+" and _kind(r) == "Name" and r.ident == var and _kind(l) == "IntLit":
                return l.value
        return None
