"""cint: the Python package of SPEC-03P.1 clause 8.

This is a pure-Python slice over ctypes; the C extension SPEC-03P.1 8.1 asks for (which releases
the GIL in its own code, counts exports and carries DLPack, wide integers and fixed point) is out of
its scope.  What it does:

- ``cint.load(source)`` builds a .ci file into a cache keyed by the SHA-256 of its modules and the
  toolchain (``cint._build``), or loads a .so; ``backend="cuda"`` raises NotImplementedError;
- ``Module.context()`` creates a context; each export is a method, with exact scalar checks, error
  results (``cint.ErrorResult`` and a subclass per error set on the Module), faults (a ``cint.Fault``
  subclass per code, decoded from cint_fault_get's canonical bytes), Faulted, Busy and Refused;
- ``cint.borrow`` through the buffer protocol (ctypes.pythonapi.PyObject_GetBuffer), ``cint.empty``
  and ``cint.copy`` Buffers (see ``cint._arrays`` for where their storage lives), ``Buffer.tolist()``
  and ``numpy.asarray(buffer)`` as a read-only leased export;
- Buffer exports counted by the C base ``cint._exports.ExportBase`` (buffer protocol and DLPack, always
  read-only, 6.3 P-18), and ``cint.borrow`` through DLPack (8.3, ``cint._dlpack``);
- checkpoints (9.2): ``Context.checkpoint()``, ``restore()``, ``state_hash()`` and ``entry_scope()`` on a
  library that cint.load built (``--with-state``), and ``cint.read_checkpoint`` (``cint_abi.checkpoint``).

What raises NotImplementedError in this slice: backend="cuda" and device=..., record=..., checkpoints,
restore, state hashes and entry_scope on a library built by plain ``cint build --lib``, cint.Recorder and cint.replay (9.3), DLPack of device memory,
fixed-point parameters and results (cint.Fixed itself, from_float and to_float are here, in
``cint._values``), wide integers (I128..I1024), struct parameters.
"""
from __future__ import annotations

import os
from pathlib import Path

from ._errors import *  # noqa: F401,F403
from ._errors import __all__ as _errors_all
from ._arrays import Buffer, View, borrow, copy, empty
from ._module import Context, EntryReport, Module
from ._errors import BuildError, LoadError

__version__ = "0.2.0"


def load(source, *, backend="cpu") -> Module:
    """A Module from a .ci source (built once into the cache) or a library file (8.1 paragraph 1)."""
    if backend == "cuda":
        raise NotImplementedError("backend='cuda' (gpu-cuda) is not in this slice of the cint package")
    if backend != "cpu":
        raise LoadError("backend is 'cpu' or 'cuda', not %r" % (backend,))
    path = Path(os.fspath(source))
    if path.suffix == ".ci":
        from ._build import library_for_source
        module = Module(library_for_source(path), backend)
        module.source = path.resolve()
        return module
    if not path.is_file():
        raise LoadError("%s: no such file" % source)
    return Module(path.resolve(), backend)


def _not_in_slice(what):
    def f(*args, **kwargs):
        raise NotImplementedError("%s is not in this slice of the cint package" % what)
    f.__name__ = what.split("(")[0].rsplit(".", 1)[-1]
    return f


from ._values import Fixed, from_float, to_float  # noqa: E402  (8.5 P-21a, X-1..X-11)
from cint_replay import Recorder  # noqa: E402
from ._record import replay  # noqa: E402
from cint_abi.checkpoint import read_checkpoint  # noqa: E402  (9.2 paragraph 4)


__all__ = ["load", "Module", "Context", "EntryReport", "View", "Buffer", "borrow", "copy", "empty", "from_float",
           "to_float", "Recorder", "replay", "read_checkpoint", "Fixed", "__version__"] + list(_errors_all)
