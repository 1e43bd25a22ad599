"""SIR: the canonical intermediate form of a checked module, and its byte encoding (docs/sir.md).

SIR version 1 is the checked tree itself, written in pre-order: each node is
its kind (U8, from the table ``KINDS``), its source position (line U32,
column U32; positions are part of meaning because fault records carry them),
the static type of an expression (a U32-length type name, or an empty name),
then its fields in declaration order.  Scalars are typed: ``00`` none, ``01``
false, ``02`` true, ``03`` integer (as a canonical Z), ``04`` text (U32 length
and UTF-8), ``05`` a list (U32 count then items), ``06`` a node, ``07`` a
rational (two Z).  Comments, whitespace and the order of map iteration never
reach the bytes, so the same source gives the same bytes on any machine.

The revision identity (SPEC-01P.1 IM-157) is SHA-256 over the profile, the
runtime contract ``cint-rt-3`` and these bytes; see :func:`revision_of`.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction

from cint_abi.codes import PROFILE, RUNTIME_CONTRACT
from cint_abi.encoding import encode_z, revision_identity

from cint_compiler.syntax import tree as A

DOMAIN = "cint-core-1/sir/v1"

KINDS = [
    "Module", "ImportDecl", "FuncDecl", "KernelDecl", "StructDecl", "FieldDecl", "EnumDecl", "Enumerator",
    "ErrorDecl", "TypeAlias", "GlobalDecl", "TestDecl", "Param", "OverVar", "Attribute",
    "TypeName", "Dim", "ArrayTypeExpr", "TupleTypeExpr", "ErrorUnionTypeExpr", "VoidTypeExpr",
    "IntLit", "FracLit", "BoolLit", "Hole", "StrLit", "Name", "Paren", "Unary", "Binary", "Cond", "Convert",
    "Arg", "Call", "SliceItem", "Index", "Member", "TypeMember", "DotName", "ArrayLit", "TupleExpr", "Try",
    "Catch", "Block", "VarDecl", "Bind", "Destructure", "Assign", "IncDec", "ExprStmt", "Discard", "Print",
    "If", "While", "DoWhile", "ForC", "ForRange", "ForEach", "Case", "Switch", "Break", "Continue",
    "Fallthrough", "Return", "Defer", "Assert", "StaticAssert", "Reduce",
    "ContainerDecl",
]
_KIND = {k: i for i, k in enumerate(KINDS)}
_SKIP = {"span", "ty", "eq_span", "var_span", "expect_fault_span", "default_span", "text"}


def _u32(n):
    return n.to_bytes(4, "little")


def _text(s):
    b = s.encode("utf-8")
    return _u32(len(b)) + b


_FIELDS = {}


def _fields_of(cls):
    """The names of the fields a node of class ``cls`` writes, in declaration order (computed once per class)."""
    names = _FIELDS.get(cls)
    if names is None:
        skip = _SKIP | ({"path", "source"} if cls.__name__ == "Module" else set())
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)
                                     if f.name not in skip and not A.is_annotation(f))
    return names


class _Writer:
    def __init__(self):
        self.out = bytearray()

    def value(self, v):
        o = self.out
        if v is None:
            o.append(0)
        elif v is False:
            o.append(1)
        elif v is True:
            o.append(2)
        elif isinstance(v, int):
            o.append(3)
            o += encode_z(v)
        elif isinstance(v, str):
            o.append(4)
            o += _text(v)
        elif isinstance(v, bytes):
            o.append(4)
            o += _u32(len(v)) + v
        elif isinstance(v, (list, tuple)):
            o.append(5)
            o += _u32(len(v))
            for x in v:
                self.value(x)
        elif isinstance(v, A.Node):     # before Fraction, whose isinstance goes through ABCMeta (slow)
            o.append(6)
            self.node(v)
        elif isinstance(v, Fraction):
            o.append(7)
            o += encode_z(v.numerator) + encode_z(v.denominator)
        else:
            raise TypeError("SIR cannot encode %r" % (v,))

    def node(self, n):
        kind = type(n).__name__
        o = self.out
        o.append(_KIND[kind])
        sp = n.span
        o += _u32(sp.line if sp else 0) + _u32(sp.column if sp else 0)
        if isinstance(n, A.Expr):
            ty = n.ty
            o += _text(ty.name() if ty is not None else "")
        for name in _fields_of(type(n)):
            self.value(getattr(n, name))


def encode_module(module: A.Module) -> bytes:
    """The canonical SIR bytes of a checked module."""
    w = _Writer()
    w.out += _text(DOMAIN)
    w.out += _text(module.name)
    w.node(module)
    return bytes(w.out)


def revision_of(modules, sirs=None) -> bytes:
    """IM-157: SHA-256 over profile, runtime contract and each module's (path, SIR bytes); ``sirs`` may hold
    bytes already encoded, by module path."""
    sirs = sirs or {}
    return revision_identity(PROFILE, RUNTIME_CONTRACT,
                             [(m.path, sirs.get(m.path) or encode_module(m)) for m in modules])
