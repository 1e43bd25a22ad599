#!/usr/bin/env python3
"""Benchmark of the array reductions called from Python: cint's checked `sum`, `fold_checked` and `dot`
(exports of bench/reduce.ci, called through the cint package with borrowed NumPy arrays) side by side
with NumPy, Numba (@njit loops, unchecked and checked) and plain C (the same loops compiled with cc -O2
and called through ctypes), in one run.

Run from the repository root:

    .venv/bin/python bench/bench_reduce.py [--n 10000000] [--repeat 7]

Every result is checked against the exact value (Python integers) before it is timed. Times are the
median and minimum of --repeat single calls after one warm-up; the last column is (row time) / (cint
time), so above 1 means cint is faster. NumPy's integer sum and dot wrap silently on overflow; the
checked rows (cint, Numba checked, C checked) detect it. See bench/README.md.
"""
from __future__ import annotations

import argparse
import ctypes as C
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

try:
    import numpy as np

    import cint
except ImportError as exc:
    sys.exit("bench: cannot import %s (%s); run `bash scripts/setup.sh` and use .venv/bin/python" % (
        exc.name or "a module", exc))

C_SRC = r"""
#include <stdint.h>
int64_t sum_plain(const int64_t *a, int64_t n) { int64_t s = 0; for (int64_t i = 0; i < n; i++) s += a[i]; return s; }
int sum_checked(const int64_t *a, int64_t n, int64_t *out) {
    int64_t s = 0;
    for (int64_t i = 0; i < n; i++) if (__builtin_add_overflow(s, a[i], &s)) return 1;
    *out = s; return 0;
}
int64_t dot_plain(const int32_t *a, const int32_t *b, int64_t n) {
    int64_t s = 0; for (int64_t i = 0; i < n; i++) s += (int64_t)a[i] * b[i]; return s;
}
int dot_checked(const int32_t *a, const int32_t *b, int64_t n, int64_t *out) {
    int64_t s = 0;
    for (int64_t i = 0; i < n; i++) if (__builtin_add_overflow(s, (int64_t)a[i] * b[i], &s)) return 1;
    *out = s; return 0;
}
"""


def timed(fn, repeat):
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), min(ts)


def build_c(tmp: Path):
    src = tmp / "red.c"
    src.write_text(C_SRC)
    lib = tmp / "red.so"
    subprocess.run(["cc", "-std=c17", "-O2", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return C.CDLL(str(lib))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    n = args.n
    rng = np.random.default_rng(7)
    x = rng.integers(-1_000_000, 1_000_000, n, dtype=np.int64)
    a = rng.integers(-30_000, 30_000, n, dtype=np.int32)
    b = rng.integers(-30_000, 30_000, n, dtype=np.int32)
    exact_sum = int(x.astype(object).sum())
    exact_dot = int((a.astype(object) * b.astype(object)).sum())

    ctx = cint.load(HERE / "reduce.ci").context()
    rows = {}
    p64, p32 = C.POINTER(C.c_int64), C.POINTER(C.c_int32)
    with tempfile.TemporaryDirectory() as td:
        lib = build_c(Path(td))
        lib.sum_plain.restype = C.c_int64
        lib.sum_plain.argtypes = [p64, C.c_int64]
        lib.sum_checked.argtypes = [p64, C.c_int64, p64]
        lib.dot_plain.restype = C.c_int64
        lib.dot_plain.argtypes = [p32, p32, C.c_int64]
        lib.dot_checked.argtypes = [p32, p32, C.c_int64, p64]
        xp, ap_, bp = x.ctypes.data_as(p64), a.ctypes.data_as(p32), b.ctypes.data_as(p32)
        out = C.c_int64()

        def c_sum_checked():
            assert lib.sum_checked(xp, n, C.byref(out)) == 0
            return out.value

        def c_dot_checked():
            assert lib.dot_checked(ap_, bp, n, C.byref(out)) == 0
            return out.value

        cases = {
            "sum (I64 elements into I64)": (exact_sum, [
                ("cint sum(I64, xs), checked", lambda: ctx.total(x)),
                ("cint fold_checked(add, 0, xs)", lambda: ctx.folded(x)),
                ("NumPy x.sum() (wraps)", lambda: int(x.sum())),
                ("plain C loop, unchecked", lambda: lib.sum_plain(xp, n)),
                ("plain C loop, checked", c_sum_checked),
            ]),
            "dot (I32 elements into I64)": (exact_dot, [
                ("cint dot(I64, a, b), checked", lambda: ctx.dot64(a, b)),
                ("NumPy np.dot(a.astype(int64), b) (wraps)", lambda: int(np.dot(a.astype(np.int64), b))),
                ("plain C loop, unchecked", lambda: lib.dot_plain(ap_, bp, n)),
                ("plain C loop, checked", c_dot_checked),
            ]),
        }
        try:
            import numba

            @numba.njit(cache=False)
            def nb_sum(v):
                s = 0
                for i in range(v.shape[0]):
                    s += v[i]
                return s

            @numba.njit(cache=False)
            def nb_sum_checked(v):
                s = np.int64(0)
                for i in range(v.shape[0]):
                    t = s + v[i]
                    if (s >= 0) == (v[i] >= 0) and (t >= 0) != (s >= 0):
                        raise OverflowError("sum")
                    s = t
                return s

            @numba.njit(cache=False)
            def nb_dot(p, q):
                s = np.int64(0)
                for i in range(p.shape[0]):
                    s += np.int64(p[i]) * np.int64(q[i])
                return s

            @numba.njit(cache=False)
            def nb_dot_checked(p, q):
                s = np.int64(0)
                for i in range(p.shape[0]):
                    m = np.int64(p[i]) * np.int64(q[i])
                    t = s + m
                    if (s >= 0) == (m >= 0) and (t >= 0) != (s >= 0):
                        raise OverflowError("dot")
                    s = t
                return s

            cases["sum (I64 elements into I64)"][1].extend([
                ("Numba @njit loop, unchecked", lambda: int(nb_sum(x))),
                ("Numba @njit loop, checked", lambda: int(nb_sum_checked(x)))])
            cases["dot (I32 elements into I64)"][1].extend([
                ("Numba @njit loop, unchecked", lambda: int(nb_dot(a, b))),
                ("Numba @njit loop, checked", lambda: int(nb_dot_checked(a, b)))])
        except ImportError:
            print("(Numba is not installed: its rows are left out)")

        print("n = %d, median (min) of %d runs, ms; last column: row / cint" % (n, args.repeat))
        for title, (exact, fns) in cases.items():
            print("\n| %s | median ms | min ms | row / cint |\n| --- | ---: | ---: | ---: |" % title)
            base = None
            for label, fn in fns:
                got = fn()
                if got != exact:
                    sys.exit("bench: %s gave %r, expected %r" % (label, got, exact))
                med, mn = timed(fn, args.repeat)
                base = base if base is not None else med
                rows[(title, label)] = med
                print("| %s | %.2f | %.2f | %.2f |" % (label, med * 1e3, mn * 1e3, med / base))


if __name__ == "__main__":
    main()
