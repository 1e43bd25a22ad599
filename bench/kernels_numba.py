"""The Numba loops of bench/kernels.py: each kernel of bench/kernels.ci as an @njit loop, unchecked (integer
arithmetic wraps, as Numba's does) and checked (the same loop with the checks cint makes, returning the index of
the first fault, or -1).  Numba is a benchmark dependency only: `.venv/bin/pip install numba`.
"""
from __future__ import annotations

import types

import numpy as np

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
NUMBA_HINT = "`.venv/bin/pip install numba` adds the Numba rows"



def load_numba():
    """(namespace of jitted functions, version) or (None, why not)."""
    try:
        import numba
        from numba import njit
    except Exception as exc:  # noqa: BLE001 - ImportError or a broken install
        return None, "not installed (%s); %s" % (exc.__class__.__name__, NUMBA_HINT)

    taps = np.array([1, 4, 6, 4, 1], dtype=np.int32)
    jit = njit(cache=False, nogil=True)

    @jit
    def prefix_sum(x, s):
        acc = np.int64(0)
        for i in range(x.shape[0]):
            acc += x[i]
            s[i] = acc

    @jit
    def prefix_sum_chk(x, s):
        acc = np.int64(0)
        for i in range(x.shape[0]):
            v = x[i]
            t = acc + v
            if ((acc ^ t) & (v ^ t)) < 0:
                return i
            acc = t
            s[i] = acc
        return -1

    @jit
    def fir5(x, y):
        for i in range(y.shape[0]):
            acc = np.int64(0)
            for k in range(5):
                acc += taps[k] * x[i + k]
            y[i] = acc                                  # the store to I32 wraps

    @jit
    def fir5_chk(x, y):
        for i in range(y.shape[0]):
            acc = np.int64(0)                           # exact: |products| < 2^34, |sums| < 2^35
            for k in range(5):
                p = np.int64(taps[k]) * np.int64(x[i + k])
                if p < I32_MIN or p > I32_MAX:
                    return i
                acc += p
                if acc < I32_MIN or acc > I32_MAX:
                    return i
            y[i] = acc
        return -1

    @jit
    def histogram(img, hist):
        for r in range(img.shape[0]):
            for c in range(img.shape[1]):
                hist[img[r, c]] += 1

    @jit
    def histogram_chk(img, hist):
        w = img.shape[1]
        for r in range(img.shape[0]):
            for c in range(w):
                v = img[r, c]
                if hist[v] == I64_MAX:
                    return r * w + c
                hist[v] += 1
        return -1

    @jit
    def stencil(u, v):
        for i in range(v.shape[0]):
            for j in range(v.shape[1]):
                v[i, j] = u[i + 1, j + 1] * 4 - u[i, j + 1] - u[i + 2, j + 1] - u[i + 1, j] - u[i + 1, j + 2]

    @jit
    def stencil_chk(u, v):
        w = v.shape[1]
        for i in range(v.shape[0]):
            for j in range(w):
                t = np.int64(u[i + 1, j + 1]) * 4       # exact in I64, then range-checked as I32
                if t < I32_MIN or t > I32_MAX:
                    return i * w + j
                t -= u[i, j + 1]
                if t < I32_MIN or t > I32_MAX:
                    return i * w + j
                t -= u[i + 2, j + 1]
                if t < I32_MIN or t > I32_MAX:
                    return i * w + j
                t -= u[i + 1, j]
                if t < I32_MIN or t > I32_MAX:
                    return i * w + j
                t -= u[i + 1, j + 2]
                if t < I32_MIN or t > I32_MAX:
                    return i * w + j
                v[i, j] = t
        return -1

    @jit
    def collatz(x, steps):
        for i in range(x.shape[0]):
            v = x[i]
            s = 0
            while v != 1:
                if v % 2 == 0:
                    v = v // 2
                else:
                    v = 3 * v + 1
                s += 1
            steps[i] = s

    hi3 = (I64_MAX - 1) // 3                            # 3 * v + 1 <= I64 MAX exactly when v <= hi3
    lo3 = -((-I64_MIN) // 3)                            # 3 * v >= I64 MIN exactly when v >= lo3

    @jit
    def collatz_chk(x, steps):
        for i in range(x.shape[0]):
            v = x[i]
            s = 0
            while v != 1:
                if v % 2 == 0:
                    v = v // 2
                else:
                    if v > hi3 or v < lo3:
                        return i
                    v = 3 * v + 1
                if s == I64_MAX:
                    return i
                s += 1
            steps[i] = s
        return -1

    @jit
    def matvec(a, x, y):
        for i in range(a.shape[0]):
            s = np.int64(0)
            for j in range(a.shape[1]):
                s += np.int64(a[i, j]) * np.int64(x[j])
            y[i] = s

    @jit
    def dot_exact(a, b):
        """(total, wraps): the wrapped sum of the I64 products and how often it wrapped (+1 up, -1 down);
        the exact total fits I64 exactly when wraps is 0."""
        s = np.int64(0)
        wraps = 0
        for k in range(a.shape[0]):
            p = np.int64(a[k]) * np.int64(b[k])
            t = s + p
            if ((s ^ t) & (p ^ t)) < 0:
                wraps += 1 if p > 0 else -1
            s = t
        return s, wraps

    @jit
    def matvec_chk(a, x, y):
        for i in range(a.shape[0]):
            s, wraps = dot_exact(a[i], x)
            if wraps != 0:
                return i
            y[i] = s
        return -1

    @jit
    def advance(pos, vel, dt, out):
        for i in range(pos.shape[0]):
            out[i] = pos[i] + vel[i] * dt

    @jit
    def advance_chk(pos, vel, dt, out, lo, hi):
        # vel[i] * dt fits I64 exactly when lo <= vel[i] <= hi (bounds computed once per call, in Python)
        for i in range(pos.shape[0]):
            v = vel[i]
            if v < lo or v > hi:
                return i
            m = v * dt
            p = pos[i]
            r = p + m
            if ((p ^ r) & (m ^ r)) < 0:
                return i
            out[i] = r
        return -1

    @jit
    def total(x):
        s = np.int64(0)
        for i in range(x.shape[0]):
            s += x[i]
        return s

    @jit
    def total_chk(x):
        s = np.int64(0)
        wraps = 0
        for i in range(x.shape[0]):
            v = x[i]
            t = s + v
            if ((s ^ t) & (v ^ t)) < 0:
                wraps += 1 if v > 0 else -1
            s = t
        return s, wraps

    @jit
    def dot64(a, b):
        s = np.int64(0)
        for k in range(a.shape[0]):
            s += np.int64(a[k]) * np.int64(b[k])
        return s

    jitted = {k: v for k, v in locals().items() if hasattr(v, "py_func")}
    return types.SimpleNamespace(**jitted), numba.__version__


def mul_bounds(dt):
    """(lo, hi) such that v * dt fits I64 exactly when lo <= v <= hi (dt != 0)."""
    if dt > 0:
        return -((-I64_MIN) // dt), I64_MAX // dt
    return -(I64_MAX // -dt), I64_MIN // dt
