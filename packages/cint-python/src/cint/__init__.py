"""cint: the Python package of SPEC-03P.1 clause 8 (docs/python.md).

- ``cint.load(source)`` builds a .ci file into a cache keyed by the SHA-256 of its modules and the
  toolchain (``cint._build``, ``cint build --lib --with-state``), or loads a library file;
- ``Module.context()`` creates a context; each export is a method (``cint._fastcall``: exact scalar
  checks in C, the GIL released during each entry, ``Busy`` for a second caller; the ctypes path of
  ``cint._module`` serves libraries without ``cintx_invoke`` and builds every exception);
- error results (``cint.ErrorResult``, a subclass per error set on the Module), faults (a
  ``cint.Fault`` subclass per code, decoded from the canonical fault-record bytes), Faulted, Refused;
- ``cint.borrow`` through the buffer protocol and DLPack (``cint._dlpack``), ``cint.empty`` and
  ``cint.copy`` Buffers with counted read-only exports (``cint._exports``: buffer protocol, DLPack);
- values (8.5): ``cint.Fixed``, ``from_float``, ``to_float`` (``cint._values``), Q and I128..I1024
  parameters and results;
- checkpoints (9.2): ``Context.checkpoint()``, ``restore()``, ``state_hash()``, ``entry_scope()``,
  ``cint.read_checkpoint``; recordings and replay (9.3): ``cint.Recorder``, ``cint.replay``
  (``cint._record`` over ``cint_replay``).

NotImplementedError: ``backend="cuda"`` and ``device=...`` (gpu-cuda), struct parameters and results
(8.1 paragraph 3), and checkpoints on a library written by plain ``cint build --lib``.
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


def load_source(text, *, name="main", backend="cpu") -> Module:
    """A Module built from cint source text, as module ``name`` (its positions read ``NAME.ci:line:col``).

    The text is kept in the build cache as NAME.ci and built like a file: the same text under the same
    name builds once, and shares its library with a file NAME.ci of the same bytes. A source that does
    not compile raises BuildError with every diagnostic. The text cannot import other modules."""
    if backend not in ("cpu", "cuda"):
        raise LoadError("backend is 'cpu' or 'cuda', not %r" % (backend,))
    from ._build import source_file
    return load(source_file(text, name), backend=backend)


def load_ipython_extension(ipython):
    """``%load_ext cint``: registers the ``%%cint`` cell magic (cint._magic)."""
    from ._magic import register
    register(ipython)


def unload_ipython_extension(ipython):
    """``%unload_ext cint``: removes the ``%%cint`` cell magic."""
    from ._magic import unregister
    unregister(ipython)


def _not_in_slice(what):
    def f(*args, **kwargs):
        raise NotImplementedError("%s is not in this slice of the cint package" % what)
    f.__name__ = what.split("(")[0].rsplit(".", 1)[-1]
    return f


from ._values import Fixed, from_float, to_float  # noqa: E402  (8.5 P-21a, X-1..X-11)
from cint_replay import Recorder, RecorderError, RecordingError  # noqa: E402  (RecordingError: an Unreplayable)
from ._record import replay  # noqa: E402
from ._module import read_checkpoint  # noqa: E402  (9.2 paragraph 4; module= for struct layouts)


__all__ = ["load", "load_source", "Module", "Context", "EntryReport", "View", "Buffer", "borrow", "copy", "empty",
           "from_float", "to_float", "Recorder", "RecorderError", "RecordingError", "replay", "read_checkpoint", "Fixed",
           "__version__"] + list(_errors_all)
