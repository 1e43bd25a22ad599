"""What runs on a worker (docs/dask.md, "Workers"): the library loaded from its bytes into a private folder
of the process, a pool of contexts reused across tasks, and one chunk's call.

No compiler is imported here: a worker needs cint (the Python package over the built library) and NumPy.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading

import numpy as np

_LOCK = threading.Lock()
_DIR = []              # the private folder of this process, made on first use
_MODULES = {}          # library digest -> cint.Module
_POOLS = {}            # library digest -> contexts not in use (one per concurrent task, reused)


def _private_dir():
    if not _DIR or _DIR[0][0] != os.getpid():
        d = tempfile.mkdtemp(prefix="cint-dask-%d-" % os.getpid())
        _DIR[:] = [(os.getpid(), d)]
        atexit.register(shutil.rmtree, d, True)
    return _DIR[0][1]


def module_for(lib):
    """The cint.Module of the library bytes ``lib`` = (digest, bytes), loaded once per process."""
    digest, data = lib
    with _LOCK:
        mod = _MODULES.get(digest)
        if mod is not None:
            return mod
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError("cint_dask: the library bytes do not have their digest %s" % digest)
        path = os.path.join(_private_dir(), "lib%s.so" % digest[:32])
        if not os.path.exists(path):
            tmp = path + ".tmp%d" % threading.get_ident()
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        import cint
        mod = _MODULES[digest] = cint.Module(path)
        _POOLS[digest] = []
        return mod


class _Lease:
    """A context of the pool for one task; returned to the pool at the end (cleared of any fault)."""

    def __init__(self, lib, state):
        self.digest = lib[0]
        self.module = module_for(lib)
        with _LOCK:
            pool = _POOLS[self.digest]
            self.ctx = pool.pop() if pool else None
        if self.ctx is None:
            self.ctx = self.module.context(fuel=None)
        self.state = state

    def __enter__(self):
        if self.state is not None:
            self.ctx.restore(self.state)
        return self.ctx

    def __exit__(self, *exc):
        self.ctx.clear_fault()
        with _LOCK:
            _POOLS[self.digest].append(self.ctx)
        return False


def _aligned(a):
    """A C-contiguous array whose address suits its elements: blocks that crossed between processes can
    sit at any offset of a frame, which cint.borrow refuses (8.2)."""
    a = np.ascontiguousarray(a)
    if a.size and (not a.flags.aligned or a.ctypes.data % a.itemsize):
        a = a.copy()
    return a


def call_chunk(lib, state, plan, out_shapes, scalars, windows, fuel):
    """One call of the kernel on a chunk: (status, consumed, record bytes or None, outputs or None).

    ``scalars`` maps scalar parameter names to values; ``windows`` maps each array `in`/`inout` parameter to
    its window (a NumPy array); ``out_shapes`` each `out` parameter to the shape of its chunk.  Outputs
    are NumPy arrays of the `out` and `inout` parameters, in order."""
    import cint
    with _Lease(lib, state) as ctx:
        named, outs = {}, []
        for p in plan.params:
            if not p.array:
                named[p.name] = scalars[p.name]
            elif p.mode == "in":
                named[p.name] = _aligned(windows[p.name])
            else:
                if p.mode == "out":
                    buf = cint.empty(out_shapes[p.name], p.elem)
                    named[p.name] = buf
                    outs.append(("out", buf))
                else:
                    arr = np.array(windows[p.name], copy=True, order="C")
                    named[p.name] = cint.borrow(arr, writable=True, publish="copy")
                    outs.append(("inout", (arr, named[p.name])))
        entry = ctx.entry(plan.name)
        try:
            entry(fuel=fuel, **named)
        except cint.Fault as f:
            return ("fault", ctx.fuel_consumed(), f.record, None)
        finally:
            for kind, v in outs:
                if kind == "inout":
                    v[1].release()
        consumed = ctx.fuel_consumed()
        result = []
        for kind, v in outs:
            if kind == "out":
                result.append(np.array(v, copy=True))
                v.release()
            else:
                result.append(v[0])
        return ("ok", consumed, None, result)

