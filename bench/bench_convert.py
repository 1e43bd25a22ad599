"""cint.from_float / cint.copy(from_float=) / cint.to_float at n elements: the NumPy path against the
pure-Python path (the oracle, forced with cint._values._numpy_ok = False) in one run.

    .venv/bin/python bench/bench_convert.py [--n 1000000] [--repeat 5]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import cint
from cint import _values as V


def best(f, repeat, clock=time.perf_counter):
    r = float("inf")
    for _ in range(repeat):
        t = clock()
        f()
        r = min(r, clock() - t)
    return r * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pure-repeat", type=int, default=1)
    ns = ap.parse_args()
    rng = np.random.default_rng(1)
    x = rng.normal(0, 1000, ns.n)
    x32 = x.astype(np.float32)
    b = cint.from_float(x, "I64")
    q = cint.from_float(x, "Q16.16")
    v = cint.borrow(np.arange(ns.n, dtype=np.int64)[::-1])
    rows = [
        ("from_float binary64 -> I64", lambda: cint.from_float(x, "I64")),
        ("from_float binary64 -> Q16.16", lambda: cint.from_float(x, "Q16.16")),
        ("from_float binary32 -> I32, floor", lambda: cint.from_float(x32, "I32", rounding="floor")),
        ("copy(from_float=True) binary64 -> I64", lambda: cint.copy(x, elem="I64", from_float=True)),
        ("to_float I64 Buffer", lambda: cint.to_float(b)),
        ("to_float Q16.16 Buffer", lambda: cint.to_float(q)),
        ("to_float I64 View, reversed", lambda: cint.to_float(v)),
    ]
    print("n = %d; best of %d (NumPy) and %d (pure Python)" % (ns.n, ns.repeat, ns.pure_repeat))
    print("| conversion | pure Python ms | NumPy ms | NumPy CPU ms | speed-up |")
    print("| --- | ---: | ---: | ---: | ---: |")
    ref = best(lambda: x.astype(np.int64), ns.repeat)
    for name, f in rows:
        fast = best(f, ns.repeat)
        cpu = best(f, ns.repeat, time.process_time)
        keep = V._numpy_ok
        V._numpy_ok = lambda: False
        try:
            slow = best(f, ns.pure_repeat)
        finally:
            V._numpy_ok = keep
        print("| %s | %.0f | %.1f | %.1f | %.0fx |" % (name, slow, fast, cpu, slow / fast))
    print("reference: x.astype(np.int64) %.2f ms; load average %.1f" % (ref, __import__("os").getloadavg()[0]))


if __name__ == "__main__":
    main()
