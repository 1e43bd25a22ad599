"""The exceptions of SPEC-03P.1 8.1 paragraph 7, and the fault classes by code."""
from __future__ import annotations

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
        self.work_index = None   # multi-dimensional work index: needs the kernel's over clause; not in this slice
        self.step = addr[4] if addr else None
        self.reason = None       # SPEC-01P.2 reasons are not in the v2 record
        super().__init__(self._text())

    @property
    def position(self) -> str:
        return "%s:%d:%d" % (self.file, self.line, self.column)

    def _text(self) -> str:
        lines = ["%s at %s" % (self.code, self.position), "", _row("operation", self.operation)]
        n = len(self.operands)
        labels = ["left", "right"] if n == 2 else ["operand"] if n == 1 else ["operand %d" % (k + 1) for k in range(n)]
        for label, v in zip(labels, self.operands):
            lines.append(_row(label, v))
        if self.exact is not None:
            lines.append(_row("result", self.exact))
        if self.limit is not None:
            if self.exact is not None and isinstance(self.limit, int):
                label = "maximum" if self.exact > self.limit else "minimum"
            else:
                label = "limit"
            lines.append(_row(label, self.limit))
        if self.kernel is not None:
            k = "%s, dispatch %d, phase %s" % (self.kernel, self.dispatch, self.phase)
            if self.work_item is not None:
                k += ", work item %d, step %d" % (self.work_item, self.step)
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
        super().__init__(message)
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
        super().__init__(message)
        self.code = code


class Faulted(Exception):
    """CINT_FAULTED: the context holds a fault; nothing of this call ran."""

    def __init__(self, held, nothing_ran):
        super().__init__("the context holds a fault (%s at %s); call clear_fault() first" % (
            held.code, held.position) if held is not None else "the context holds a fault")
        self.held = held
        self.nothing_ran = nothing_ran


class Unpublished(Exception):
    """Reading a Buffer that has never been published."""


class StaleHandle(Exception):
    """Using a View or Buffer after its release."""


class ResourceError(Exception):
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


class LoadError(Exception):
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
