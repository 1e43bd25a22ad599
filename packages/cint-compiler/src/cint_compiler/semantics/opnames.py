"""Operation identifiers (SPEC-01P.1 section 9.8, IM-130 to IM-136, IM-184 to IM-187): one table.

Every identifier the compiler writes, in a fault record of the reference interpreter or in the C text of
the back end, is built by a function or a constant of this module; no other module of ``cint_compiler``
spells one (``tests/test_opnames.py`` greps the sources for a literal one).  The C runtime spells its own
(``runtime-c``), and the same test reads every identifier it writes back through :func:`parse`, so that
one table checks both.

An identifier is either ``<name>.<form>.<type>[.<type>][.<mode>]``, an operation of :data:`OPERATIONS`
(a row per name: the forms it takes, how many type tokens, whether a rounding mode ends it), or one of
the machine's own identifiers: :data:`SYSTEM` (``fuel.charge``, ``copy.shape``, ...), ``bind.<check>``
(:data:`BIND_CHECKS`) and ``host.<what>``.  Type tokens are those of IM-130 (``i64``, ``u8``, ``bool``,
``q16_16``); where IM-130 names none we write ``struct`` and ``handle`` for the element of an index or
slice, and an enum's name in lowercase for an enum (ours: ``index.checked.color``, ``as.checked.i32.color``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, NamedTuple, Optional, Tuple, Union

from cint_compiler.semantics.types import ROUND_MODES, EnumType, StructType, Type

FORMS = ("checked", "wrap", "sat", "result", "add", "mul")     # IM-130; `add`/`mul` for fold_checked only
INT_TOKENS = ("i8", "i16", "i32", "i64", "i128", "i256", "i512", "i1024", "u8", "u16", "u32", "u64")
_SPEC_TYPE = re.compile(r"(?:[iu](?:8|16|32|64)|i(?:128|256|512|1024)|bool|q\d+_\d+|t1|t27|pt5|pt4)\Z")
_NAMED_TYPE = re.compile(r"[a-z_][a-z0-9_]*\Z")     # struct, handle, an enum's token (ours)

# how a row's identifiers end: never with a mode, always, or exactly when the operation rounds
NO_MODE, MODE, MODE_IF_ROUNDS = "no", "always", "if it rounds"


@dataclass(frozen=True)
class Operation:
    """One row: the identifiers ``<name>.<form>.<type>...`` of an operation (IM-134)."""

    name: str
    forms: Tuple[str, ...]
    types: int = 1                 # type tokens: the operand's, then the result's where it differs (IM-132)
    mode: str = NO_MODE            # NO_MODE, MODE or MODE_IF_ROUNDS (IM-133)
    named: bool = False            # a type token may be `struct`, `handle` or an enum's (ours)
    source: str = "IM-134"         # the clause that gives the row


_ARITH = ("checked", "wrap", "sat", "result")
OPERATIONS: Dict[str, Operation] = {r.name: r for r in (
    Operation("add", _ARITH), Operation("sub", _ARITH),
    Operation("mul", _ARITH, mode=MODE_IF_ROUNDS),          # fixed point: mul.<form>.<Q>.<mode>
    Operation("div", _ARITH, mode=MODE_IF_ROUNDS), Operation("rem", _ARITH),
    Operation("neg", ("checked",)),
    Operation("shl", ("checked", "wrap", "result")), Operation("shr", ("checked",)),
    Operation("rotl", ("checked",)), Operation("rotr", ("checked",)),
    Operation("div_trunc", ("checked",)), Operation("rem_trunc", ("checked",)),
    Operation("div_euclid", ("checked",)), Operation("rem_euclid", ("checked",)),
    Operation("divmod", ("checked",)),
    Operation("div_round", ("checked",), mode=MODE),
    Operation("abs", ("checked",)), Operation("uabs", ("checked",), types=2),
    Operation("min", ("checked",)), Operation("max", ("checked",)), Operation("clamp", ("checked",)),
    Operation("as", ("checked", "wrap", "sat"), types=2, mode=MODE_IF_ROUNDS, named=True),
    Operation("mul_full", ("checked",), types=2),
    Operation("muldiv", ("checked",), types=2, mode=MODE),
    Operation("isqrt", ("checked",)), Operation("isqrt_round", ("checked",), mode=MODE),
    Operation("sqrt", ("checked", "wrap", "sat"), mode=MODE),
    Operation("sum", ("checked",), types=2), Operation("dot", ("checked",), types=2),
    Operation("fold_checked", ("add", "mul")),
    Operation("sum_wrap", ("wrap",)), Operation("sum_sat", ("sat",)),
    Operation("reduce_min", ("checked",)), Operation("reduce_max", ("checked",)),
    Operation("count", ("checked",)),
    Operation("from_f64", ("checked", "sat"), mode=MODE), Operation("from_f32", ("checked", "sat"), mode=MODE),
    Operation("index", ("checked",), named=True, source="IM-186"),
    Operation("slice", ("checked",), named=True, source="IM-186"),
    Operation("assert", ("checked",), source="IM-130"),
    Operation("format", ("char",), source="IM-130, SPEC-04P.1 9.3"),
    Operation("bitfield", ("checked",), source="ours: a store into a bit field, LS-82"),
    # ternary digits (SPEC-05): spelled here so that the grammar is whole; no executor of ours writes them
    Operation("trit", ("checked",), source="SPEC-05"), Operation("shl3", ("checked",), source="SPEC-05"),
    Operation("rescale3", ("checked",), source="SPEC-05"), Operation("rescale3_rem", ("checked",), source="SPEC-05"),
    Operation("tdot", ("checked",), types=2, source="SPEC-05"), Operation("decode", ("checked",), source="SPEC-05"),
)}

BIND_CHECKS = ("stale", "permission", "type", "scalar", "placement", "shape", "where", "injective", "alias",
               "domain", "limit")

FUEL_CHARGE = "fuel.charge"          # IM-141
CALL_ENTER = "call.enter"            # IM-119, IM-185
DISPATCH_ADMIT = "dispatch.admit"    # IM-185
COPY_SHAPE = "copy.shape"            # IM-187
COPY_ALIAS = "copy.alias"            # IM-187
DECL_SHAPE = "decl.shape"            # SPEC-04P.1 LS-62
UNASSIGNED = "unassigned"            # IM-184: a checked conversion of a literal at compile time
ARENA_ALLOC = "arena.alloc"          # SPEC-03 M-14 to M-19
ARENA_RESET = "arena.reset"
POOL_DEREF = "pool.deref"
POOL_INSERT = "pool.insert"
HANDLE_CHECK = "handle.check"
SYSTEM = frozenset((FUEL_CHARGE, CALL_ENTER, DISPATCH_ADMIT, COPY_SHAPE, COPY_ALIAS, DECL_SHAPE, UNASSIGNED,
                    ARENA_ALLOC, ARENA_RESET, POOL_DEREF, POOL_INSERT, HANDLE_CHECK))


def bind(check: str) -> str:
    """``bind.<check>``: a check of a call's or an entry's arguments (SPEC-02 F-5, F-8)."""
    if check not in BIND_CHECKS:
        raise ValueError("no entry check is named %r (IM-130 check-name)" % (check,))
    return "bind." + check


BIND_SHAPE, BIND_ALIAS, BIND_WHERE, BIND_TYPE = bind("shape"), bind("alias"), bind("where"), bind("type")


def host(what: str) -> str:
    """``host.<what>``: a record of the host boundary (SPEC-03 A-6)."""
    if not re.fullmatch(r"[A-Za-z0-9_.]+", what):
        raise ValueError("not a host record name: %r" % (what,))
    return "host." + what


HOST_RESOURCE = host("resource")


# ----------------------------------------------------------------------------- type tokens

def enum_token(enum) -> str:
    """The type token of an enum: its name in lowercase (ours; IM-130 lists no enum token)."""
    return enum.name().lower()


def token(t: Union[Type, str]) -> str:
    """The type token of ``t`` (IM-130): ``i64``, ``q16_16``, ``bool``; an enum's per :func:`enum_token`."""
    if isinstance(t, str):
        return t
    if isinstance(t, EnumType):
        return enum_token(t)
    return t.token


def elem_token(t: Union[Type, str]) -> str:
    """The element part of ``index.checked.<E>`` and ``slice.checked.<E>``: ``struct`` for a struct
    element (IM-186), ``handle`` for a handle, an enum's token, else the element's type token."""
    if isinstance(t, StructType):
        return "struct"
    return t if isinstance(t, str) else getattr(t, "token", None) or t.name().lower()


# ----------------------------------------------------------------------------- building

_BUILT: Dict[tuple, str] = {}


def op(name: str, form: str, *types: Union[Type, str], mode: Optional[str] = None) -> str:
    """The identifier of operation ``name`` in ``form`` on ``types`` (operand type first), with ``mode``
    when the operation rounds: ``op("add", "checked", I64)`` is ``add.checked.i64``.  Raises ValueError
    for a combination its row does not admit."""
    key = (name, form, types, mode)
    try:
        s = _BUILT.get(key)
    except TypeError:             # a type that does not hash: build it each time
        key, s = None, None
    if s is None:
        s = ".".join((name, form) + tuple(token(t) for t in types) + ((mode,) if mode is not None else ()))
        parse(s)
        if key is not None:
            _BUILT[key] = s
    return s


def index(elem: Union[Type, str]) -> str:
    """``index.checked.<E>`` (IM-186)."""
    return op("index", "checked", elem_token(elem))


def slice_(elem: Union[Type, str]) -> str:
    """``slice.checked.<E>`` (IM-186, SPEC-04P.1 LS-161)."""
    return op("slice", "checked", elem_token(elem))


def format_char(t: Union[Type, str]) -> str:
    """``format.char.<T>``: a `{x:c}` hole whose value is not a Unicode scalar value (SPEC-04P.1 9.3)."""
    return op("format", "char", t)




# ----------------------------------------------------------------------------- reading

class OpId(NamedTuple):
    name: str                 # the operation, or the identifier itself for one of SYSTEM, bind.*, host.*
    form: Optional[str]
    types: Tuple[str, ...]
    mode: Optional[str]


def parse(ident: str, wildcard: Optional[str] = None) -> OpId:
    """Reads ``ident`` by the rows of this module; ValueError says what does not fit.  With ``wildcard``
    (say ``%s``), a part spelled so stands for any value that fits there (a C format the runtime fills)."""
    w = wildcard

    def fail(why):
        raise ValueError("%r is not an operation identifier of SPEC-01P.1 9.8: %s" % (ident, why))
    if ident in SYSTEM:
        return OpId(ident, None, (), None)
    head, dot, rest = ident.partition(".")
    if not dot:
        fail("it has no form")
    if head == "bind":
        if rest not in BIND_CHECKS and rest != w:
            fail("`bind.` is followed by one of %s" % ", ".join(BIND_CHECKS))
        return OpId(ident, None, (), None)
    if head == "host":
        if not re.fullmatch(r"[A-Za-z0-9_.%]+", rest):
            fail("`host.` is followed by a name")
        return OpId(ident, None, (), None)
    if head == w:
        errors = []
        for name in OPERATIONS:
            try:
                return parse(name + dot + rest, w)
            except ValueError as e:
                errors.append(e)
        fail("no operation fits its other parts")
    row = OPERATIONS.get(head)
    if row is None:
        fail("no operation is named %r" % head)
    parts = rest.split(".")
    form = parts[0]
    if form not in row.forms and form != w:
        fail("%s takes the forms %s, not %r" % (head, ", ".join(row.forms), form))
    tail = parts[1:]
    mode = None
    if tail and tail[-1] in ROUND_MODES:
        mode = tail.pop()
    elif tail and tail[-1] == w and len(tail) > row.types and row.mode != NO_MODE:
        mode = tail.pop()
    if len(tail) != row.types:
        fail("%s has %d type token%s, not %d" % (head, row.types, "s" if row.types > 1 else "", len(tail)))
    for t in tail:
        if t == w or _SPEC_TYPE.match(t) or (row.named and _NAMED_TYPE.match(t)):
            continue
        fail("%r is not a type token" % t)
    if mode is None and row.mode == MODE:
        fail("%s ends with a rounding mode (IM-133)" % head)
    if mode is not None and row.mode == NO_MODE:
        fail("%s does not round, so it has no mode" % head)
    if mode is not None and row.mode == MODE_IF_ROUNDS and head in ("mul", "div") and \
            not (tail[0] == w or tail[0].startswith("q")):
        fail("integer %s does not round" % head)
    return OpId(head, form, tuple(tail), mode)


def is_identifier(ident: str) -> bool:
    try:
        parse(ident)
    except ValueError:
        return False
    return True


ASSERT = op("assert", "checked", "bool")      # E_ASSERT outside a test block
