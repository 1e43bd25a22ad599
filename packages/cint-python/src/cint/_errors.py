"""The exceptions of SPEC-03P.1 8.1 paragraph 7, and the fault classes by code."""
from __future__ import annotations

import re

from cint_abi.codes import FAULT_CODES, FAULT_NAMES
from cint_replay.recorder import RecorderError

__all__ = [
    "Fault", "Refused", "RecorderClosed", "BorrowRefused", "Busy", "Faulted", "Unpublished", "StaleHandle", "ResourceError",
    "ReplayDivergence", "Unreplayable", "ErrorResult", "LoadError", "BuildError", "FAULT_CLASSES", "fault_class",
]

_PHASE_NAMES = {0: "entry", 1: "work-item", 2: "epilogue"}


class Fault(Exception):
    """CINT_FAULT: the held fault record of a context, decoded from cint_fault_get's canonical bytes."""

    code = None

    def __init__(self, data, record: bytes):
        self.record = bytes(record)
        self.code = FAULT_NAMES[data.code]
        self.operation = data.operation
        self.operands = tuple(_value(v) for _, v in data.operands)
        self.operand_types = tuple(d for d, _ in data.operands)
        self.exact = data.exact
        self.limit = _value(data.limit[1]) if data.limit is not None else None
        self.file = data.path
        self.line = data.line
        self.column = data.column
        self.stack = tuple("%s:%d:%d" % p for p in data.stack)
        self.revision = data.revision
        self.source_map = data.source_map
        addr = data.address
        self.kernel = addr[0] if addr else None
        self.dispatch = addr[1] if addr else None
        self.phase = _PHASE_NAMES[addr[2]] if addr else None
        self.work_item = addr[3] if addr else None
        self.work_index = None   # the index tuple over the kernel's over shape: set by the call (cint._module)
        self.step = addr[4] if addr else None
        self.reason = None       # SPEC-01P.2 reasons are not in the v2 record
        super().__init__(self._text())

    @property
    def position(self) -> str:
        return "%s:%d:%d" % (self.file, self.line, self.column)

    def _text(self) -> str:
        info = self.__dict__.get("_entry")
        head = "%s at %s" % (self.code, self.position)
        said = _explain(self, info) if info is not None else None
        if said:
            head += ": " + said
        lines = [head, "", _row("operation", self.operation)]
        for k, (label, v) in enumerate(zip(_labels(self, info), self.operands)):
            name = info.pname(v) if info is not None and k == 0 and label == "parameter" else None
            lines.append(_row(label, "%s (%s)" % (v, name) if name is not None else v))
        if self.exact is not None:
            lines.append(_row("result", self.exact))
        if self.limit is not None:
            if self.exact is not None and isinstance(self.limit, int):
                label = "maximum" if self.exact > self.limit else "minimum"
            elif self.operation.startswith("index.") or self.operation == "bind.shape":
                label = "extent" if self.operation.startswith("index.") else "expected"
            else:
                label = "limit"
            lines.append(_row(label, self.limit))
        if self.kernel is not None:
            k = "%s, dispatch %d, phase %s" % (self.kernel, self.dispatch, self.phase)
            if self.work_item is not None:
                k += ", work item %d" % self.work_item
                if self.work_index is not None:
                    k += " (index %s)" % (", ".join(map(str, self.work_index)),)
                k += ", step %d" % self.step
            lines.append(_row("kernel", k))
        for s in self.stack:
            lines.append(_row("called at", s))
        if self.__dict__.get("hint"):     # what to do, when the package knows (a bind.type fault of a call)
            lines.append(_row("hint", self.hint))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._text()


def _row(label, value) -> str:
    return ("%s:" % label).ljust(11) + str(value)


def _value(v):
    if isinstance(v, bool) or isinstance(v, int):
        return v
    return v


# -- the record in the user's terms (issue 17 item 3): derived from the record's fields, never changing them --

class EntryInfo:
    """What the package knows of the entry a fault came from: its export row (name, kind, parameter and size
    names) and its decoded type signature, so the record's parameter indices and dimensions can be named."""

    def __init__(self, name, kind, params, size_names):
        self.name = name
        self.kind = kind
        self.params = params            # (name, typesig Param) in declaration order
        self.size_names = size_names

    def pname(self, k):
        return self.params[k][0] if isinstance(k, int) and 0 <= k < len(self.params) else None

    def dim(self, k, d):
        """The declared extent of dimension d of parameter k: (its text, its size symbol or None)."""
        if self.pname(k) is None:
            return None, None
        t = self.params[k][1].type
        dims = getattr(t, "dims", ())
        if not isinstance(d, int) or not 0 <= d < len(dims):
            return None, None
        return _extent_text(dims[d], self.size_names), _extent_symbol(dims[d])


def _bound_text(b, names):
    if b.symbol is None:
        return str(b.offset)
    n = names[b.symbol] if b.symbol < len(names) else "size %d" % b.symbol
    return n if b.offset == 0 else "%s %s %d" % (n, "+" if b.offset > 0 else "-", abs(b.offset))


def _extent_text(shape, names):
    if hasattr(shape, "lower"):
        return "%d..=%s" % (shape.lower, _bound_text(shape.bound, names))
    if hasattr(shape, "bound"):
        return _bound_text(shape.bound, names)
    return "_"


def _extent_symbol(shape):
    b = getattr(shape, "bound", None)
    return b.symbol if b is not None else None


def _labels(f, info):
    """The row labels of the record's operands, by operation."""
    n, op = len(f.operands), f.operation
    if op.startswith("bind.") and n >= 1:
        base = {"bind.shape": ["parameter", "dimension", "extent"],
                "bind.stale": ["parameter", "generation"],
                "bind.type": ["parameter", "rank"]}.get(op, ["parameter"])
        labels = (base + ["operand %d" % (k + 1) for k in range(len(base), n)])[:n]
        return labels
    if op.startswith("index."):
        return ["index"] if n == 1 else ["dimension", "index"] if n == 2 else ["operand %d" % (k + 1) for k in range(n)]
    return ["left", "right"] if n == 2 else ["operand"] if n == 1 else ["operand %d" % (k + 1) for k in range(n)]


def _explain(f, info):
    """One sentence in the user's terms for an entry fault of the export described by info, or None."""
    op, ops = f.operation, f.operands
    if not op.startswith("bind.") or not ops:
        return None
    p = info.pname(ops[0])
    if p is None:
        return None
    mode = info.params[ops[0]][1].mode
    who = "%s: parameter %s" % (info.name, p)
    if op == "bind.shape" and len(ops) >= 3:
        d, given = ops[1], ops[2]
        text, sym = info.dim(ops[0], d)
        if sym is None:         # a constant extent (or `_`, which never mismatches)
            return "%s, dimension %d, has extent %d, but its declared extent is %s; pass an array of that " \
                   "extent" % (who, d, given, f.limit)
        out = "%s, dimension %d, has extent %d, but its declared extent %s is %s" % (who, d, given, text, f.limit)
        sname = info.size_names[sym] if sym < len(info.size_names) else "size %d" % sym
        src = _size_source(info, sym)
        if src is not None and src != (ops[0], d):
            if text == sname:
                out += " (size %s was fixed by parameter %s, dimension %d)" % (sname, info.pname(src[0]), src[1])
            elif isinstance(f.limit, int):
                off = _dim_offset(info, ops[0], d)
                out += " (%s = %d, fixed by parameter %s, dimension %d)" % (
                    sname, f.limit - off, info.pname(src[0]), src[1])
        return out + "; make the extents agree"
    if op == "bind.limit":
        return ("%s is %s of a kernel, and its View was borrowed without publish=\"copy\": borrow it with "
                "cint.borrow(a, writable=True, publish=\"copy\"), or pass a cint.Buffer (cint.empty) and read it "
                "after the call (spec: 6.4)" % (who, mode))
    if op == "bind.permission":
        return "%s is %s, and its View is read-only: borrow it with writable=True" % (who, mode)
    if op == "bind.stale" and len(ops) >= 2:
        return ("%s: the View is of generation %d, its registration of generation %s: the memory was registered "
                "again; borrow it again" % (who, ops[1], f.limit))
    if op == "bind.alias":
        return "%s overlaps another array argument: pass a separate output (spec: 6.5)" % who
    if op == "bind.injective":
        return "%s is written, and its View names one element more than once: pass a View of distinct " \
               "elements" % who
    if op == "bind.type":
        return "%s: the argument's element type or rank is not the parameter's" % who
    if op == "bind.placement":
        return "%s: the array is in the wrong placement for this context" % who
    return None


def _size_source(info, sym):
    """(parameter index, dimension) of the argument that fixed size symbol sym: the first dimension, in declaration
    order, whose declared extent is the plain symbol (the entry binds plain extents first, then checks the computed
    ones such as ``n + 2`` against them; SPEC-02 K-6, as both executors do)."""
    for k, (_name, p) in enumerate(info.params):
        for d, shape in enumerate(getattr(p.type, "dims", ())):
            b = getattr(shape, "bound", None)
            if b is not None and b.symbol == sym and b.offset == 0 and not hasattr(shape, "lower"):
                return k, d
    return None


def _dim_offset(info, k, d):
    """The constant c of a declared extent ``s + c`` (dimension d of parameter k)."""
    b = getattr(info.params[k][1].type.dims[d], "bound", None)
    return b.offset if b is not None else 0


# A clause identifier of the specifications (LS-168, P-18, H-14b): a user cannot look it up where the message
# is read, so it moves out of the sentence to a trailing "(spec: ...)".
_CLAUSE = re.compile(r"\b[A-Z]{1,2}-\d+[a-z]?\b")
_SECTION = re.compile(r"^(?:SPEC-\S+ )?\d+(?:\.\d+)*(?: paragraph \d+)?$")
_REF = re.compile(r"^(?:(?:SPEC-\S+ )?\d+(?:\.\d+)*(?: paragraph \d+)? )?[A-Z]{1,2}-\d+[a-z]?"
                  r"(?: [A-Z]{1,2}-\d+[a-z]?)*$")
_GROUP = re.compile(r"\s?([(\[])([^()\[\]]*)([)\]])")


def user_text(message: str) -> str:
    """message with its parenthesised clause references moved to one trailing "(spec: ...)"."""
    if not isinstance(message, str) or not _CLAUSE.search(message) or message.endswith(")") and \
            message.rstrip(")").rpartition("(spec: ")[1]:
        return message
    refs = []

    def group(m):
        inner = m.group(2)
        if not _CLAUSE.search(inner):
            return m.group(0)
        keep = []
        for part in re.split(r",\s*|;\s*", inner):
            part = part.strip()
            if _REF.match(part) or _SECTION.match(part):
                refs.append(part)
            elif _CLAUSE.search(part):
                refs.extend(_CLAUSE.findall(part))
                part = _CLAUSE.sub("", part).strip(" :")
                if part:
                    keep.append(part)
            elif part:
                keep.append(part)
        if not keep:
            return ""
        lead = m.group(0)[0] if m.group(0)[0].isspace() else ""
        return "%s%s%s%s" % (lead, m.group(1), ", ".join(keep), m.group(3))

    text = _GROUP.sub(group, message)
    seen = []
    for r in refs:
        if r not in seen:
            seen.append(r)
    if not seen or not any(_CLAUSE.search(r) for r in seen):
        return message
    return "%s (spec: %s)" % (text.rstrip(), ", ".join(seen))


class _UserText:
    """Mixin: the message of the exception is user_text(message) (its clause references at the end)."""

    def __init__(self, message="", *rest, **kw):
        super().__init__(user_text(message), *rest, **kw)


FAULT_CLASSES = {}
_CLASS_NAMES = {
    "E_OVERFLOW": "OverflowFault", "E_DIV_ZERO": "DivZeroFault", "E_BOUNDS": "BoundsFault", "E_SHAPE": "ShapeFault",
    "E_SHIFT": "ShiftFault", "E_NARROW": "NarrowFault", "E_ALIAS": "AliasFault", "E_STALE_HANDLE": "StaleHandleFault",
    "E_FUEL": "FuelFault", "E_UNSUPPORTED": "UnsupportedFault", "E_DOMAIN": "DomainFault", "E_DEPTH": "DepthFault",
    "E_ASSERT": "AssertFault",
}
assert set(_CLASS_NAMES) == set(FAULT_CODES)
for _code, _name in _CLASS_NAMES.items():
    FAULT_CLASSES[_code] = type(_name, (Fault,), {"__doc__": "A fault with code %s." % _code, "__module__": "cint"})
    globals()[_name] = FAULT_CLASSES[_code]
    __all__.append(_name)


def fault_class(code: str):
    return FAULT_CLASSES[code]


class Refused(Exception):
    """CINT_REFUSED, or an argument the package refuses before the call: nothing ran.

    ``code`` is the fault-code name the refusal corresponds to (E_NARROW for a value out of range,
    E_UNSUPPORTED for a value of another type or a form the package does not take); ``reason``
    is the runtime's refusal reason name when the runtime refused, else None; ``parameter``
    names the parameter when there is one."""

    def __init__(self, message, *, code="E_UNSUPPORTED", reason=None, parameter=None):
        super().__init__(user_text(message))
        self.code = code
        self.reason = reason
        self.parameter = parameter


class RecorderClosed(Refused, RecorderError):
    """A call on a recorded context after its Recorder closed: refused (8.1, nothing ran or was
    recorded) and a misuse of the Recorder, so it is both ``cint.Refused`` and ``cint.RecorderError``."""


class BorrowRefused(Refused):
    """A borrow that cint.borrow cannot make without a copy (8.2)."""


class Busy(Exception):
    """CINT_BUSY: another call is running on the context, or an output has a live export (code E_ALIAS)."""

    def __init__(self, message, *, code=None):
        super().__init__(user_text(message))
        self.code = code


class Faulted(Exception):
    """CINT_FAULTED: the context holds a fault; nothing of this call ran."""

    def __init__(self, held, nothing_ran):
        super().__init__("the context holds a fault (%s at %s); call clear_fault() first" % (
            held.code, held.position) if held is not None else "the context holds a fault")
        self.held = held
        self.nothing_ran = nothing_ran


class Unpublished(_UserText, Exception):
    """Reading a Buffer that has never been published."""


class StaleHandle(_UserText, Exception):
    """Using a View or Buffer after its release."""


class ResourceError(_UserText, Exception):
    """CINT_RESOURCE during an entry."""


from cint_replay.errors import ReplayDivergence, Unreplayable  # noqa: E402  (CINT_DIVERGED, CINT_UNREPLAYABLE)


class ErrorResult(Exception):
    """An entry that returned an error value; not a Fault. Each error set has a subclass on the Module."""

    set = None

    def __init__(self, name: str, tag: int):
        super().__init__("%s.%s" % (self.set, name))
        self.name = name
        self.value = name
        self.tag = tag


class LoadError(_UserText, Exception):
    """A library that cannot be loaded."""


class BuildError(Exception):
    """A source that cannot be built. ``diagnostics`` lists every compile diagnostic (cint._build.Diagnostic:
    code, message, path, line, column, help, and ``text``, the form `cint check` prints with its caret
    snippet); str() of the error is that text, which IPython and Jupyter show instead of a traceback."""

    def __init__(self, message, diagnostics=()):
        self.diagnostics = tuple(diagnostics)
        super().__init__("".join(d.text for d in self.diagnostics).rstrip("\n") if self.diagnostics else message)

    def _render_traceback_(self):
        return ["BuildError: " + line if k == 0 else line for k, line in enumerate(str(self).split("\n"))]
