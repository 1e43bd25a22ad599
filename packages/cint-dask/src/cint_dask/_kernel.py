"""cint_dask.kernel: a kernel over chunked Dask arrays, built as one task graph (docs/dask.md).

Keys of one call (``T`` is the call's token):

    cint-lib-<digest>         the library bytes (one key for every call of one library)
    cint-state-<digest>       the checkpoint ``state=`` (one key), when given
    cint-win-T-<p>, b...      the window of `in`/`inout` parameter p that block b reads (halo included)
    cint-run-T, b...          the call of the kernel on block b: its summary and its outputs
    cint-sum-T, b...          the summary alone: (status, fuel consumed, record)
    cint-pre-T, j / cint-chk-T, j   with fuel=B: the fuel consumed before block j, and block j's verdict
    cint-res-T                the outcome of the whole call: nothing, or the cint.Fault it raises
    <param>-T, b...           the output blocks, each depending on its run and on cint-res-T
"""
from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import _faults, _worker
from ._plan import DTYPES, ChunkingRefused, plan_kernel

_faults.register_pickling()


class _Bytes:
    """Bytes that a graph carries as data (a plain tuple or str could be read as a task or a key)."""

    def __init__(self, digest, data):
        self.digest = digest
        self.data = data

    def __reduce__(self):
        return (_Bytes, (self.digest, self.data))


@dataclass(frozen=True)
class Box:
    lo: tuple
    shape: tuple

    @property
    def count(self):
        n = 1
        for s in self.shape:
            n *= s
        return n


@dataclass(frozen=True)
class _Static:
    plan: object
    scalars: tuple          # (name, value) pairs
    whole: tuple            # (param name, dim) -> extent, for whole dimensions of written arrays
    over_shape: tuple
    fuel: object            # None or the budget B
    windows: tuple          # names of the `in`/`inout` array parameters, in order


def _check_fuel(fuel):
    if fuel is None:
        return None
    if type(fuel) is bool or not isinstance(fuel, int) or not 0 <= fuel <= (1 << 63) - 1:
        raise ValueError("cint_dask.kernel: fuel is None or an int from 0 to 2**63 - 1, not %r" % (fuel,))
    return fuel


def kernel(module, name, *, state=None, fuel=None):
    """A callable that applies kernel ``name`` of ``module`` (a cint.Module loaded from .ci source) to Dask
    arrays: it takes the `in` and `inout` arguments (Dask arrays, NumPy arrays or scalars) and returns Dask
    arrays of the `out` and `inout` parameters in declaration order (one array when there is one).

    ``state`` is a checkpoint (Context.checkpoint()) restored into the context of every chunk; ``fuel`` the
    allowance B of the one call this stands for (None: no allowance, the call ``ctx.name(..., fuel=None)``).
    Raises ChunkingRefused (a ValueError) for a kernel that cannot be chunked with the outcome of one call."""
    plan = plan_kernel(module, name)
    fuel = _check_fuel(fuel)
    data = Path(module.path).read_bytes()
    lib = _Bytes(hashlib.sha256(data).hexdigest(), data)
    st = None
    if state is not None:
        if not isinstance(state, (bytes, bytearray, memoryview)):
            raise TypeError("cint_dask.kernel: state is a checkpoint (bytes), not %s" % type(state).__name__)
        state = bytes(state)
        probe = module.context()
        try:
            probe.restore(state)           # refused here, on the caller's side, as Context.restore refuses it
        finally:
            probe.close()
        st = _Bytes(hashlib.sha256(state).hexdigest(), state)
    return DaskKernel(plan, lib, st, fuel)


class DaskKernel:
    def __init__(self, plan, lib, state, fuel):
        self.plan = plan
        self._lib = lib
        self._state = state
        self.fuel = fuel
        self.__name__ = plan.name

    def __repr__(self):
        return "<cint_dask kernel %s>" % self.plan.name

    def __call__(self, *args, chunks=None, sizes=None, **kwargs):
        import dask.array as da
        from dask.base import tokenize
        from dask.highlevelgraph import HighLevelGraph

        plan = self.plan
        takes = [p for p in plan.params if p.mode != "out"]
        if len(args) > len(takes):
            raise TypeError("%s takes %d arguments (its in and inout parameters %s), %d given" % (
                plan.name, len(takes), ", ".join(p.name for p in takes), len(args)))
        values = {p.name: v for p, v in zip(takes, args)}
        for k, v in kwargs.items():
            if k not in {p.name for p in takes}:
                raise TypeError("%s has no in or inout parameter %r" % (plan.name, k))
            if k in values:
                raise TypeError("%s: parameter %s given twice" % (plan.name, k))
            values[k] = v
        missing = [p.name for p in takes if p.name not in values]
        if missing:
            raise TypeError("%s: missing argument %s" % (plan.name, ", ".join(missing)))

        # the arrays, and the size symbols they fix
        arrays, scalars = {}, []
        user_dask = set()
        for p in takes:
            v = values[p.name]
            if not p.array:
                if isinstance(v, (da.Array, np.ndarray)):
                    raise TypeError("%s: parameter %s is a scalar, not an array" % (plan.name, p.name))
                if isinstance(v, np.integer):
                    v = int(v)
                if p.elem is not None:        # checked here, as the one call would refuse it (8.5)
                    bits = int(p.elem[1:])
                    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if p.elem[0] == "I" else (0, (1 << bits) - 1)
                    if type(v) is not int:
                        raise TypeError("%s: parameter %s is %s: it takes an int, not %s" % (
                            plan.name, p.name, p.elem, type(v).__name__))
                    if not lo <= v <= hi:
                        raise ValueError("%s: parameter %s is %s: %d is outside %d..%d" % (
                            plan.name, p.name, p.elem, v, lo, hi))
                scalars.append((p.name, v))
                continue
            if isinstance(v, da.Array):
                user_dask.add(p.name)
                a = v
            elif isinstance(v, np.ndarray):
                a = da.from_array(v, chunks=v.shape or -1)
            else:
                raise TypeError("%s: parameter %s takes a Dask or NumPy array, not %s" % (
                    plan.name, p.name, type(v).__name__))
            if a.dtype != np.dtype(DTYPES[p.elem]):
                raise TypeError("%s: parameter %s holds %s (%s); the argument holds %s (cint never converts)" % (
                    plan.name, p.name, p.elem, DTYPES[p.elem], a.dtype))
            if a.ndim != len(p.dims):
                raise TypeError("%s: parameter %s has rank %d; the argument has rank %d" % (
                    plan.name, p.name, len(p.dims), a.ndim))
            if any(np.isnan(c) for cs in a.chunks for c in cs):
                raise ValueError("%s: parameter %s has unknown chunk sizes; call compute_chunk_sizes() first" % (
                    plan.name, p.name))
            arrays[p.name] = a
        S = [None] * len(plan.size_names)
        bound_by = [None] * len(plan.size_names)
        for k, v in (sizes or {}).items():
            if k not in plan.size_names:
                raise TypeError("%s has no size symbol %r; its size symbols: %s" % (
                    plan.name, k, ", ".join(plan.size_names)))
            S[plan.size_names.index(k)] = int(v)
            bound_by[plan.size_names.index(k)] = "sizes="
        for p in takes:                       # the plain extents bind first (K-6), then the others are checked
            if p.array:
                for d, n in zip(p.dims, arrays[p.name].shape):
                    if d.symbol is not None and d.offset == 0 and S[d.symbol] is None:
                        S[d.symbol], bound_by[d.symbol] = n, p.name
        for p in takes:                       # a symbol only in computed extents (m + 4): solved from them
            if p.array:
                for d, n in zip(p.dims, arrays[p.name].shape):
                    if d.symbol is not None and S[d.symbol] is None and n - d.offset >= 0:
                        S[d.symbol], bound_by[d.symbol] = n - d.offset, p.name
        for k, s in enumerate(S):
            if s is None:
                for p in takes:
                    if p.array:
                        for dim, (d, n) in enumerate(zip(p.dims, arrays[p.name].shape)):
                            if d.symbol == k:
                                raise ValueError("%s: parameter %s has extent %d in dimension %d; its type needs "
                                                 "%s + %d, at least %d" % (plan.name, p.name, n, dim,
                                                                         plan.size_names[k], d.offset, d.offset))
                raise ValueError("%s: no `in` or `inout` argument fixes the size symbol %s; pass sizes={%r: ...}" % (
                    plan.name, plan.size_names[k], plan.size_names[k]))
        for p in takes:
            if p.array:
                shape = arrays[p.name].shape
                for k, (d, n) in enumerate(zip(p.dims, shape)):
                    want = d.offset if d.symbol is None else S[d.symbol] + d.offset
                    if n != want:
                        rel = str(d.offset) if d.symbol is None else "%s%s" % (
                            plan.size_names[d.symbol], " + %d" % d.offset if d.offset else "")
                        raise ValueError(
                            "%s: parameter %s has extent %d in dimension %d; its type needs %s = %d (%s)" % (
                                plan.name, p.name, n, k, rel, want,
                                "%s = %d from %s" % (plan.size_names[d.symbol], S[d.symbol], bound_by[d.symbol])
                                if d.symbol is not None else "a literal extent"))
        over_shape = tuple(S[s] for s in plan.over_symbols)

        # the chunks of the over domain
        over_chunks = []
        for k, n in enumerate(over_shape):
            cs = None
            if chunks is not None:
                given = chunks[k] if isinstance(chunks, (tuple, list)) else chunks
                cs = _normalize(given, n, plan.over_names[k])
            else:
                for p in takes:
                    if p.array and p.name in user_dask:
                        for dim, d in enumerate(p.dims):
                            if d.over == k and cs is None:
                                cs = _clip(arrays[p.name].chunks[dim], n)
            if cs is None or (self.fuel is not None and k > 0):
                cs = (n,)     # with fuel, blocks are runs of the row-major order: split the first dimension only
            over_chunks.append(cs)
        starts = [tuple(itertools.accumulate((0,) + cs[:-1])) for cs in over_chunks]

        token = tokenize(plan.name, self._lib.digest, self._state.digest if self._state else None, self.fuel,
                         [(n, arrays[n].name) for n in sorted(arrays)], scalars, over_chunks)
        lib_key = "cint-lib-" + self._lib.digest
        state_key = ("cint-state-" + self._state.digest) if self._state else None
        layer = {lib_key: self._lib}
        if state_key:
            layer[state_key] = self._state
        whole = {}
        for p in plan.params:
            if p.array:
                for k, d in enumerate(p.dims):
                    if d.over is None:
                        whole[(p.name, k)] = d.offset if d.symbol is None else S[d.symbol] + d.offset
        static = _Static(plan, tuple(scalars), tuple(sorted(whole.items())), over_shape, self.fuel,
                         tuple(p.name for p in takes if p.array))
        blocks = list(itertools.product(*[range(len(cs)) for cs in over_chunks]))
        run, summ = "cint-run-" + token, "cint-sum-" + token
        boxes = {}
        for b in blocks:
            box = Box(tuple(starts[k][b[k]] for k in range(len(b))), tuple(over_chunks[k][b[k]] for k in range(len(b))))
            boxes[b] = box
            wkeys = []
            for p in takes:
                if not p.array:
                    continue
                wk = ("cint-win-%s-%s" % (token, p.name),) + b
                layer[wk] = _window_task(arrays[p.name], p, box)
                wkeys.append(wk)
            layer[(run,) + b] = (_run, lib_key, state_key, static, box, wkeys)
            layer[(summ,) + b] = (_summary, (run,) + b)
        res = "cint-res-" + token
        if self.fuel is None:
            layer[res] = (_resolve, static, [(summ,) + b for b in blocks], [boxes[b] for b in blocks])
        else:
            pre, chk = "cint-pre-" + token, "cint-chk-" + token
            N = 1
            for n in over_shape:
                N *= n
            prev = N
            for j, b in enumerate(blocks):
                wkeys = [("cint-win-%s-%s" % (token, p.name),) + b for p in takes if p.array]
                layer[(chk, j)] = (_check, lib_key, state_key, static, boxes[b], wkeys, prev, (summ,) + b, j)
                layer[(pre, j)] = (_prefix, prev, (summ,) + b, boxes[b])
                prev = (pre, j)
            layer[res] = (_resolve_fuel, [(chk, j) for j in range(len(blocks))])
        outs = []
        deps = [arrays[n] for n in sorted(arrays)]
        for q, p in enumerate(plan.written):
            oname = "%s-%s" % (p.name, token)
            olayer = {}
            for b in blocks:
                idx = tuple(b[d.over] if d.over is not None else 0 for d in p.dims)
                olayer[(oname,) + idx] = (_pick, (run,) + b, res, q)
            ochunks = tuple(over_chunks[d.over] if d.over is not None else (whole[(p.name, k)],)
                            for k, d in enumerate(p.dims))
            graph = dict(layer)
            graph.update(olayer)
            hlg = HighLevelGraph.from_collections(oname, graph, dependencies=deps)
            outs.append(da.Array(hlg, oname, chunks=ochunks, dtype=np.dtype(DTYPES[p.elem])))
        return outs[0] if len(outs) == 1 else tuple(outs)


def _normalize(given, n, var):
    if isinstance(given, int):
        if given < 1:
            raise ValueError("chunks for over variable %s: a block size is at least 1, not %d" % (var, given))
        cs = tuple(min(given, n - s) for s in range(0, n, given))
        return cs or (0,)
    cs = tuple(int(c) for c in given)
    if sum(cs) != n or any(c < 0 for c in cs):
        raise ValueError("chunks for over variable %s: %r do not add up to the extent %d" % (var, cs, n))
    return cs


def _clip(cs, n):
    """The chunk boundaries of an argument's dimension, cut at the over extent n (a halo's rest is dropped)."""
    out, pos = [], 0
    for c in cs:
        if pos >= n:
            break
        c = min(c, n - pos)
        if c:
            out.append(c)
        pos += c
    if pos < n:
        out.append(n - pos)
    return tuple(out) or (0,)


def _window_task(a, p, box):
    """A task for the window of argument ``a`` (parameter p) that ``box`` reads, from the blocks it meets."""
    lo, hi = [], []
    for k, d in enumerate(p.dims):
        if d.over is None:
            lo.append(0)
            hi.append(a.shape[k])
        else:
            lo.append(box.lo[d.over])
            hi.append(box.lo[d.over] + box.shape[d.over] + d.halo)
    keys, cuts = [], []
    per_dim = []
    for k, cs in enumerate(a.chunks):
        pos, hit = 0, []
        for i, c in enumerate(cs):
            s, e = max(pos, lo[k]), min(pos + c, hi[k])
            if s < e or (c == 0 and lo[k] == hi[k] == pos):
                hit.append((i, slice(s - pos, e - pos), slice(s - lo[k], e - lo[k])))
            pos += c
        if not hit:                      # an empty window
            hit.append((0, slice(0, 0), slice(0, 0)))
        per_dim.append(hit)
    for combo in itertools.product(*per_dim):
        keys.append((a.name,) + tuple(c[0] for c in combo))
        cuts.append((tuple(c[1] for c in combo), tuple(c[2] for c in combo)))
    shape = tuple(h - l for l, h in zip(lo, hi))
    whole_block = len(keys) == 1 and all(
        s.start == 0 and s.stop == a.chunks[k][keys[0][k + 1]] for k, s in enumerate(cuts[0][0]))
    if whole_block:
        return keys[0]
    return (_assemble, shape, DTYPES[p.elem], keys, cuts)


def _assemble(shape, dtype, blocks, cuts):
    out = np.empty(shape, dtype=dtype)
    for blk, (src, dst) in zip(blocks, cuts):
        out[dst] = np.asarray(blk)[src]
    return out


def _out_shapes(static, box):
    whole = dict(static.whole)
    out = {}
    for p in static.plan.params:
        if p.mode == "out":
            out[p.name] = tuple(box.shape[d.over] if d.over is not None else whole[(p.name, k)]
                                for k, d in enumerate(p.dims))
    return out


def _call(lib, state, static, box, windows, fuel):
    return _worker.call_chunk((lib.digest, lib.data), state.data if state is not None else None, static.plan,
                              _out_shapes(static, box), dict(static.scalars), dict(zip(static.windows, windows)), fuel)


def _run(lib, state, static, box, windows):
    # with fuel=B a block runs with the allowance B: a block whose own charges pass B stops early (its
    # verdict is then a re-run, or, for a single block, this very call is the reference call)
    status, consumed, record, outs = _call(lib, state, static, box, windows, static.fuel)
    return (status, consumed, record), outs


def _summary(r):
    return r[0]


def _pick(r, resolved, q):
    return r[1][q]


def _resolve(static, summaries, boxes):
    """Without an allowance every work item runs in one call: its fault is the lowest faulting work item."""
    best = None
    for (status, consumed, record), box in zip(summaries, boxes):
        if status == "fault":
            rec, windex, key = _faults.globalize(record, box.lo, box.shape, static.over_shape)
            if best is None or key < best[0]:
                best = (key, rec, windex)
    if best is not None:
        raise _faults.make_fault(best[1], best[2])
    return None


def _prefix(before, summary, box):
    """The fuel one call has consumed after block j: before it, plus the charges of its work items."""
    return before + summary[1] - box.count


def _check(lib, state, static, box, windows, before, summary, j):
    """Block j's verdict with the allowance B: None (within budget, no fault), or (record, work index)."""
    B = static.fuel
    status, consumed, record = summary
    if before > B:
        if j != 0:
            return None                   # an earlier block crossed B
        # the dispatch charge N itself is over B: E_FUEL before any work item (a run with too little for
        # this block's own charge gives that record; its limit becomes B)
        st, _, rec, _ = _call(lib, state, static, box, windows, box.count - 1)
        return _faults.globalize(rec, box.lo, box.shape, static.over_shape, fuel_limit=B)[:2]
    if before + consumed - box.count <= B:
        if status == "fault":
            return _faults.globalize(record, box.lo, box.shape, static.over_shape)[:2]
        return None
    st, _, rec, _ = _call(lib, state, static, box, windows, B - before + box.count)
    if st != "fault":
        raise RuntimeError("cint_dask: block %d ran within the allowance left that its own run exceeded" % j)
    return _faults.globalize(rec, box.lo, box.shape, static.over_shape, fuel_limit=B)[:2]


def _resolve_fuel(verdicts):
    for v in verdicts:
        if v is not None:
            raise _faults.make_fault(v[0], v[1])
    return None


__all__ = ["kernel", "DaskKernel", "ChunkingRefused"]
