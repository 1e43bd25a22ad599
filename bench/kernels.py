#!/usr/bin/env python3
"""Benchmark of the kernels users write (issue 13): cint from Python against a checked C twin, Numba and NumPy.

Run from anywhere with the worktree's venv:

    .venv/bin/python bench/kernels.py [--scale 1.0] [--repeat 7] [--only NAME ...] [--markdown FILE [--append]]

The exports of bench/kernels.ci (prefix_sum, fir5, histogram, stencil, collatz, matvec, advance, the checked
`sum` and `dot`) are called through `import cint` (`cint.load`, one context, NumPy inputs borrowed, outputs in
`cint.empty` Buffers, inout arrays borrowed writable), with unbounded fuel and with a large finite budget, and
side by side in the same process with: the checked plain-C twins of bench/kernels_twin.c (compiled with the
compiler and flags cint uses for libraries, called through ctypes on the same NumPy arrays), Numba @njit loops
(unchecked, and checked), the natural NumPy formulation, and for advance the STREAM triad over the same bytes.

Before anything is timed, every row's result is compared with cint's and with the exact expected value, and a
fault input per kernel must make cint raise the right fault at the index where the checked twin (and the
checked Numba loop) reports it; any mismatch stops the run (`bench: error: verification failed: ...`, status
2).  `--scale 0.01` is a quick smoke run.  See bench/README.md for the method and bench/RESULTS.md for figures.
"""
from __future__ import annotations

import argparse
import ctypes as C
import datetime
import gc
import math
import os
import platform
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
    import cint_runtime
except ImportError as exc:  # the venv is missing or not set up
    sys.exit("bench: cannot import %s (%s); run `bash scripts/setup.sh` and use .venv/bin/python" % (
        exc.name or "a module", exc))
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
from kernels_numba import load_numba, mul_bounds  # noqa: E402 - after the check above

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
FINITE_FUEL = 2**62           # the "large finite budget" rows: a budget changes which code path runs
SENTINEL = -7                 # what an inout array holds where a faulting call must not have stored
SUITE = ("prefix_sum", "fir5", "histogram", "stencil", "collatz", "matvec")   # the table
NAMES = SUITE + ("advance", "sum", "dot")

# the kinds of rows, in the order a table shows them
CINT, CINT_FUEL, TWIN, NUMBA, NUMBA_CHK, NUMPY, TRIAD = (
    "cint", "cint-fuel", "twin", "numba", "numba-checked", "numpy", "triad")


class BenchError(Exception):
    """A setup step or a check failed: reported and the run stops with status 2."""


def check(cond, what):
    if not cond:
        raise BenchError("verification failed: " + what)


# ---------------------------------------------------------------------------------------------
# Machine facts


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name") and ":" in line:
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def mem_total():
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return "%.1f GiB" % (int(line.split()[1]) / 2**20)
    except (OSError, ValueError, IndexError):
        pass
    return "?"


def load_average():
    try:
        return "%.2f %.2f %.2f (1, 5, 15 min)" % os.getloadavg()
    except OSError:
        return "?"


def dist_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001 - any failure means "unknown"
        return "?"


def cc_version(cc):
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=60).stdout
        return out.splitlines()[0].strip() if out else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def machine_facts(cc, flags, numba_version):
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    return [
        ("date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
        ("cpu", cpu_model()),
        ("cores", "%d logical, %d usable by this process; every row runs on one thread" % (
            os.cpu_count() or 0, usable)),
        ("memory", mem_total()),
        ("os", "%s %s (%s)" % (platform.system(), platform.release(), platform.machine())),
        ("python", platform.python_version()),
        ("numpy", np.__version__),
        ("numba", numba_version),
        ("cint", "cint-compiler %s, cint-runtime %s, cint-python %s" % (
            dist_version("cint-compiler"), dist_version("cint-runtime"), dist_version("cint-python"))),
        ("cc", "%s: %s; flags %s -shared (cint_runtime.compiler(), cint_runtime.CFLAGS)" % (
            cc, cc_version(cc), " ".join(flags))),
    ]


# ---------------------------------------------------------------------------------------------
# The checked C twins (bench/kernels_twin.c)


def build_twin(tmp: Path):
    """Compiles kernels_twin.c exactly as cint compiles libraries; a warning is an error (C17 clean)."""
    cc = cint_runtime.compiler()
    flags = list(cint_runtime.CFLAGS)
    lib = tmp / "libkernels_twin.so"
    cmd = [cc] + flags + ["-shared", str(HERE / "kernels_twin.c"), "-o", str(lib)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        raise BenchError("cannot run the C compiler: %s" % exc) from exc
    if done.returncode != 0 or done.stderr.strip():
        raise BenchError("compiling the checked C twins failed or warned:\n%s\n%s" % (" ".join(cmd), done.stderr))
    twin = C.CDLL(str(lib))
    i64, vp = C.c_int64, C.c_void_p
    protos = {
        "prefix_sum_chk": (i64, [vp, vp, i64]),
        "fir5_chk": (i64, [vp, vp, i64]),
        "histogram_chk": (i64, [vp, i64, i64, vp]),
        "stencil_chk": (i64, [vp, vp, i64, i64]),
        "collatz_chk": (i64, [vp, vp, i64]),
        "matvec_chk": (i64, [vp, vp, vp, i64, i64]),
        "advance_chk": (i64, [vp, vp, i64, vp, i64]),
        "total_chk": (C.c_int, [vp, i64, vp]),
        "dot64_chk": (C.c_int, [vp, vp, i64, vp]),
        "triad": (None, [vp, vp, i64, vp, i64]),
    }
    for name, (res, args) in protos.items():
        fn = getattr(twin, name)
        fn.restype = res
        fn.argtypes = args
    return twin, cc, flags


def ptr(a):
    """The address of a C-contiguous NumPy array, for the twins."""
    assert a.flags.c_contiguous, "the twins take C-contiguous arrays"
    return a.ctypes.data


# ---------------------------------------------------------------------------------------------
# Timing


class Row:
    """One way of computing a kernel's result: `call()` is timed, `read(value of call())` gives the result."""

    def __init__(self, kind, label, call, read):
        self.kind, self.label, self.call, self.read = kind, label, call, read
        self.med = self.min = None


def time_rows(rows, repeat):
    """Times every row `repeat` times, round robin (one call of each row per round, after one warm-up call of
    each), with the garbage collector off, so that rows compared with each other ran under the same load.
    Sets each row's median and minimum (seconds) and returns the last value of each call."""
    last = [row.call() for row in rows]
    times = [[] for _ in rows]
    was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            for k, row in enumerate(rows):
                t0 = time.perf_counter()
                last[k] = row.call()
                times[k].append(time.perf_counter() - t0)
    finally:
        if was:
            gc.enable()
    for row, ts in zip(rows, times):
        row.med, row.min = statistics.median(ts), min(ts)
    return last


def same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a.astype(np.int64), b.astype(np.int64)))
    return int(a) == int(b)


def buffer_array(buf, dtype, shape):
    """A copy of a published Buffer's elements (the export ends at once, so the Buffer can be written again)."""
    m = memoryview(buf)
    try:
        return np.array(m, copy=True).astype(dtype, copy=False).reshape(shape)
    finally:
        m.release()


def twin_ok(name, r):
    check(r == -1, "the checked C twin of %s reported a fault at %d on the timing input" % (name, r))


def nb_ok(name, r):
    check(r == -1, "the checked Numba loop of %s reported a fault at %d on the timing input" % (name, r))


# ---------------------------------------------------------------------------------------------
# The kernels


def pick(n):
    """Where a fault is planted: an index about 5/7 of the way into 0..n-1, at lane 13 of a block of 16
    (so inside, not at the edge of, any vector block of 4, 8 or 16 lanes), clamped to n - 1."""
    base = (n * 5) // 7
    return min(n - 1, base - base % 16 + 13)


def expect_fault(ctx, what, call, cls, operation, work_item=None, operands=None):
    """Calls `call()`, which must raise `cls` with `operation` (and the work item and operands when given);
    clears the fault and returns it."""
    try:
        call()
    except cint.Fault as f:
        ctx.clear_fault()
        check(isinstance(f, cls), "%s: cint raised %s (%s %s), not %s" % (
            what, type(f).__name__, f.code, f.operation, cls.__name__))
        check(f.operation == operation, "%s: cint's fault operation is %s, expected %s" % (
            what, f.operation, operation))
        if work_item is not None:
            check(f.work_item == work_item, "%s: cint faulted at work item %s, expected %d" % (
                what, f.work_item, work_item))
        if operands is not None:
            check(tuple(f.operands) == tuple(operands), "%s: cint's fault operands are %s, expected %s" % (
                what, tuple(f.operands), tuple(operands)))
        return f
    raise BenchError("verification failed: %s: cint did not fault" % what)


class Kernel:
    """A kernel of the benchmark: its data at a scale, the exact result, its rows and its fault checks."""

    name = ""
    what = ""           # one line: the computation

    def __init__(self, env, scale):
        self.env, self.ctx, self.nb, self.tw = env, env.ctx, env.nb, env.twin
        self.rng = np.random.default_rng(20261206 + NAMES.index(self.name))
        self.setup(scale)

    def fuel_rows(self, label, call, read):
        """The cint row with unbounded fuel and the same call with a budget of 2^62."""
        return [Row(CINT, "cint " + label, lambda: call(None), read),
                Row(CINT_FUEL, "cint " + label + ", fuel 2^62", lambda: call(FINITE_FUEL), read)]

    def check_fuel(self, call, restore=None):
        """The fuel of one call is the same with either budget; that budget exactly suffices and one less
        raises FuelFault.  Returns the fuel consumed."""
        call(None)
        used = self.ctx.fuel_consumed()
        call(FINITE_FUEL)
        check(self.ctx.fuel_consumed() == used, "%s: fuel consumed %d with unbounded fuel, %d with 2^62" % (
            self.name, used, self.ctx.fuel_consumed()))
        if used > 0:
            if restore:
                restore()
            call(used)
            if restore:
                restore()
            try:
                call(used - 1)
            except cint.FuelFault:
                self.ctx.clear_fault()
            else:
                raise BenchError("verification failed: %s: a budget of %d (one less than it consumes) ran to the "
                                 "end" % (self.name, used - 1))
            if restore:
                restore()
        return used


def ident(x):
    return x


def fuel_note(used):
    if used == 0:
        return "fuel consumed: 0 with either budget"
    return ("fuel consumed: {:,} with either budget; a budget of exactly that runs, one less raises FuelFault"
            .format(used))


class PrefixSum(Kernel):
    name = "prefix_sum"
    what = "prefix scan, a function writing `inout I64[n] s`: s[i] = x[0] + ... + x[i]"

    def setup(self, scale):
        n = self.n = max(64, round(10_000_000 * scale))
        self.size = "n = {:,}".format(n)
        self.x = self.rng.integers(-(2**30), 2**30, n, dtype=np.int64)
        check(n * 2**30 < 2**63, "prefix_sum: n too large for an exact int64 reference")
        self.expected = np.cumsum(self.x)                       # exact: |partial sums| < n * 2^30 < 2^63

    def rows(self):
        ctx, x, nb, tw, n = self.ctx, self.x, self.nb, self.tw, self.n
        s = np.zeros(n, np.int64)
        sv = cint.borrow(s, writable=True)
        rows = self.fuel_rows("(inout borrowed)", lambda fuel: ctx.prefix_sum(x, s=sv, fuel=fuel), lambda r: s)
        st = np.zeros(n, np.int64)
        rows.append(Row(TWIN, "checked C twin", lambda: tw.prefix_sum_chk(ptr(x), ptr(st), n),
                        lambda r: (twin_ok(self.name, r), st)[1]))
        if nb:
            sn = np.zeros(n, np.int64)
            rows.append(Row(NUMBA, "Numba @njit, unchecked", lambda: nb.prefix_sum(x, sn), lambda r: sn))
            rows.append(Row(NUMBA_CHK, "Numba @njit, checked", lambda: nb.prefix_sum_chk(x, sn),
                            lambda r: (nb_ok(self.name, r), sn)[1]))
        sp = np.zeros(n, np.int64)
        rows.append(Row(NUMPY, "NumPy np.cumsum(x, out=s)", lambda: np.cumsum(x, out=sp), ident))
        return rows

    def faults(self):
        ctx, n = self.ctx, self.n
        k = min(pick(n), n - 3)
        xf = self.x.copy()
        xf[k:k + 3] = 2**62
        acc = int(self.expected[k - 1]) if k > 0 else 0
        j = k
        while I64_MIN <= acc + int(xf[j]) <= I64_MAX:           # the exact first overflow: by k + 2
            acc += int(xf[j])
            j += 1
        good = np.full(n, SENTINEL, np.int64)
        good[:j] = np.cumsum(xf[:j])
        for fuel in (None, FINITE_FUEL):
            s = np.full(n, SENTINEL, np.int64)
            expect_fault(ctx, "prefix_sum, x[%d:%d] = 2^62" % (k, k + 3),
                         lambda: ctx.prefix_sum(xf, s=cint.borrow(s, writable=True), fuel=fuel),
                         cint.OverflowFault, "add.checked.i64", operands=(acc, int(xf[j])))
            check(np.array_equal(s, good), "prefix_sum: after the fault, cint's s is not the stores of the steps "
                  "before index %d" % j)
        st = np.full(n, SENTINEL, np.int64)
        r = self.tw.prefix_sum_chk(ptr(xf), ptr(st), n)
        check(r == j and np.array_equal(st, good), "prefix_sum: the checked C twin faults at %d, cint at %d" % (r, j))
        if self.nb:
            sn = np.full(n, SENTINEL, np.int64)
            r = self.nb.prefix_sum_chk(xf, sn)
            check(r == j and np.array_equal(sn, good), "prefix_sum: checked Numba faults at %d, cint at %d" % (r, j))
        used = self.check_fuel(lambda fuel: ctx.prefix_sum(self.x, s=cint.borrow(np.zeros(n, np.int64),
                                                                                  writable=True), fuel=fuel))
        return ["x[%d:%d] = 2^62: OverflowFault add.checked.i64 at index %d (cint's s holds the stores "
                "before it and none after)" % (k, k + 3, j), fuel_note(used)]


TAPS = (1, 4, 6, 4, 1)


class Fir5(Kernel):
    name = "fir5"
    what = "5-tap FIR over constant taps [1, 4, 6, 4, 1], a kernel, I32 in and out"

    def setup(self, scale):
        m = self.m = max(64, round(10_000_000 * scale))
        self.size = "m = {:,}".format(m)
        self.x = self.rng.integers(-(2**26), 2**26, m + 4, dtype=np.int32)
        x64 = self.x.astype(np.int64)
        self.expected = sum(t * x64[k:k + m] for k, t in enumerate(TAPS))   # |y| < 16 * 2^26: fits I32
        check(int(np.abs(self.expected).max()) <= I32_MAX, "fir5: reference out of I32")

    def rows(self):
        ctx, x, nb, tw, m = self.ctx, self.x, self.nb, self.tw, self.m
        y = self.y = cint.empty((m,), "I32")
        rows = self.fuel_rows("(Buffer out)", lambda fuel: ctx.fir5(x, y=y, fuel=fuel),
                              lambda r: buffer_array(y, np.int32, (m,)))
        yt = np.zeros(m, np.int32)
        rows.append(Row(TWIN, "checked C twin", lambda: tw.fir5_chk(ptr(x), ptr(yt), m),
                        lambda r: (twin_ok(self.name, r), yt)[1]))
        if nb:
            yn = np.zeros(m, np.int32)
            rows.append(Row(NUMBA, "Numba @njit, unchecked", lambda: nb.fir5(x, yn), lambda r: yn))
            rows.append(Row(NUMBA_CHK, "Numba @njit, checked", lambda: nb.fir5_chk(x, yn),
                            lambda r: (nb_ok(self.name, r), yn)[1]))
        rows.append(Row(NUMPY, "NumPy x[0:m] + 4*x[1:m+1] + ... (slices)",
                        lambda: x[0:m] + 4 * x[1:m + 1] + 6 * x[2:m + 2] + 4 * x[3:m + 3] + x[4:m + 4], ident))
        return rows

    def faults(self):
        ctx, m = self.ctx, self.m
        k = pick(m)
        xf = self.x.copy()
        xf[k + 2] = 2**30
        first = None
        for i in range(max(0, k - 2), min(m, k + 3)):           # the items that read x[k + 2]
            acc = 0
            for t, tap in enumerate(TAPS):
                p = tap * int(xf[i + t])
                if not I32_MIN <= p <= I32_MAX:
                    first = (i, "mul.checked.i32", (tap, int(xf[i + t])))
                    break
                if not I32_MIN <= acc + p <= I32_MAX:
                    first = (i, "add.checked.i32", (acc, p))
                    break
                acc += p
            if first:
                break
        check(first is not None, "fir5: the planted value does not overflow")
        i, op, operands = first
        before = buffer_array(self.y, np.int32, (m,))
        for fuel in (None, FINITE_FUEL):
            expect_fault(ctx, "fir5, x[%d] = 2^30" % (k + 2), lambda: ctx.fir5(xf, y=self.y, fuel=fuel),
                         cint.OverflowFault, op, work_item=i, operands=operands)
            check(np.array_equal(buffer_array(self.y, np.int32, (m,)), before),
                  "fir5: the faulting dispatch changed its output")
        scratch = np.zeros(m, np.int32)
        r = self.tw.fir5_chk(ptr(xf), ptr(scratch), m)
        check(r == i, "fir5: the checked C twin faults at %d, cint at %d" % (r, i))
        if self.nb:
            r = self.nb.fir5_chk(xf, np.zeros(m, np.int32))
            check(r == i, "fir5: checked Numba faults at %d, cint at %d" % (r, i))
        used = self.check_fuel(lambda fuel: ctx.fir5(self.x, y=self.y, fuel=fuel))
        return ["x[%d] = 2^30: OverflowFault %s at work item %d, output unchanged" % (
            k + 2, op, i), fuel_note(used)]


class Histogram(Kernel):
    name = "histogram"
    what = "histogram of a 2-D U8 image, a function scattering into `inout I64[256] hist`"

    def setup(self, scale):
        h = self.h = max(8, round(4000 * math.sqrt(scale)))
        w = self.w = max(8, round(2500 * math.sqrt(scale)))
        self.size = "{:,} x {:,}".format(h, w)
        self.img = self.rng.integers(0, 256, (h, w), dtype=np.uint8)
        self.expected = np.bincount(self.img.ravel(), minlength=256).astype(np.int64)

    def rows(self):
        ctx, img, nb, tw, h, w = self.ctx, self.img, self.nb, self.tw, self.h, self.w
        # every call starts from zero counts (hist[:] = 0 is inside the timed call: 256 stores)
        hist = np.zeros(256, np.int64)
        hv = cint.borrow(hist, writable=True)

        def cint_call(fuel):
            hist[:] = 0
            ctx.histogram(img, hist=hv, fuel=fuel)

        rows = self.fuel_rows("(inout borrowed)", cint_call, lambda r: hist)
        ht = np.zeros(256, np.int64)

        def twin_call():
            ht[:] = 0
            return tw.histogram_chk(ptr(img), h, w, ptr(ht))

        rows.append(Row(TWIN, "checked C twin", twin_call, lambda r: (twin_ok(self.name, r), ht)[1]))
        if nb:
            hn = np.zeros(256, np.int64)

            def nb_call(fn):
                hn[:] = 0
                return fn(img, hn)

            rows.append(Row(NUMBA, "Numba @njit, unchecked", lambda: nb_call(nb.histogram), lambda r: hn))
            rows.append(Row(NUMBA_CHK, "Numba @njit, checked", lambda: nb_call(nb.histogram_chk),
                            lambda r: (nb_ok(self.name, r), hn)[1]))
        rows.append(Row(NUMPY, "NumPy np.bincount(img.ravel(), minlength=256)",
                        lambda: np.bincount(img.ravel(), minlength=256), ident))
        return rows

    def faults(self):
        ctx, h, w = self.ctx, self.h, self.w
        flat = self.img.ravel()
        k = pick(h * w)
        v = int(flat[k])
        start = np.zeros(256, np.int64)
        start[v] = I64_MAX - int(np.count_nonzero(flat[:k] == v))   # pixel k is the first to overflow
        good = start + np.bincount(flat[:k], minlength=256)
        for fuel in (None, FINITE_FUEL):
            hist = start.copy()
            expect_fault(ctx, "histogram, hist[%d] near I64 MAX" % v,
                         lambda: ctx.histogram(self.img, hist=cint.borrow(hist, writable=True), fuel=fuel),
                         cint.OverflowFault, "add.checked.i64", operands=(I64_MAX, 1))
            check(np.array_equal(hist, good), "histogram: after the fault, cint's hist is not the counts of the "
                  "pixels before %d" % k)
        ht = start.copy()
        r = self.tw.histogram_chk(ptr(self.img), h, w, ptr(ht))
        check(r == k and np.array_equal(ht, good), "histogram: the checked C twin faults at %d, cint at %d" % (r, k))
        if self.nb:
            hn = start.copy()
            r = self.nb.histogram_chk(self.img, hn)
            check(r == k and np.array_equal(hn, good), "histogram: checked Numba faults at %d, cint at %d" % (r, k))
        zero = np.zeros(256, np.int64)
        used = self.check_fuel(lambda fuel: ctx.histogram(self.img, hist=cint.borrow(zero, writable=True), fuel=fuel),
                               restore=lambda: zero.fill(0))
        return ["hist[%d] = I64 MAX - (its count before pixel %d): OverflowFault add.checked.i64 at pixel %d (cint's "
                "hist holds the counts before it)" % (v, k, k), fuel_note(used)]


def stencil_ref(u):
    u = u.astype(np.int64)
    return u[1:-1, 1:-1] * 4 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]


class Stencil(Kernel):
    name = "stencil"
    what = "5-point stencil, a kernel over a 2-D I32 grid with a halo of 1"

    def setup(self, scale):
        h = w = self.h = self.w = max(8, round(2000 * math.sqrt(scale)))
        self.size = "{:,} x {:,} (+ halo)".format(h, w)
        self.u = self.rng.integers(-(2**26), 2**26, (h + 2, w + 2), dtype=np.int32)
        self.expected = stencil_ref(self.u)                     # |v| < 8 * 2^26: fits I32 at every step

    def rows(self):
        ctx, u, nb, tw, h, w = self.ctx, self.u, self.nb, self.tw, self.h, self.w
        v = self.v = cint.empty((h, w), "I32")
        rows = self.fuel_rows("(Buffer out)", lambda fuel: ctx.stencil(u, v=v, fuel=fuel),
                              lambda r: buffer_array(v, np.int32, (h, w)))
        vt = np.zeros((h, w), np.int32)
        rows.append(Row(TWIN, "checked C twin", lambda: tw.stencil_chk(ptr(u), ptr(vt), h, w),
                        lambda r: (twin_ok(self.name, r), vt)[1]))
        if nb:
            vn = np.zeros((h, w), np.int32)
            rows.append(Row(NUMBA, "Numba @njit, unchecked", lambda: nb.stencil(u, vn), lambda r: vn))
            rows.append(Row(NUMBA_CHK, "Numba @njit, checked", lambda: nb.stencil_chk(u, vn),
                            lambda r: (nb_ok(self.name, r), vn)[1]))
        rows.append(Row(NUMPY, "NumPy u[1:-1, 1:-1] * 4 - u[:-2, 1:-1] - ... (slices)",
                        lambda: u[1:-1, 1:-1] * 4 - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:], ident))
        return rows

    def faults(self):
        ctx, h, w = self.ctx, self.h, self.w
        kr, kc = 1 + pick(h // 2), 1 + pick(w)             # the centre of item (kr - 1, kc - 1)
        uf = self.u.copy()
        uf[kr, kc] = 2**29
        first = None
        cand = sorted((i, j) for i, j in ((kr - 2, kc - 1), (kr - 1, kc - 1), (kr, kc - 1), (kr - 1, kc - 2),
                                          (kr - 1, kc)) if 0 <= i < h and 0 <= j < w)
        for i, j in cand:                                       # the items that read u[kr, kc], row-major
            t = 4 * int(uf[i + 1, j + 1])
            if not I32_MIN <= t <= I32_MAX:
                first = (i * w + j, "mul.checked.i32", (int(uf[i + 1, j + 1]), 4))
                break
            for q in (uf[i, j + 1], uf[i + 2, j + 1], uf[i + 1, j], uf[i + 1, j + 2]):
                if not I32_MIN <= t - int(q) <= I32_MAX:
                    first = (i * w + j, "sub.checked.i32", (t, int(q)))
                    break
                t -= int(q)
            if first:
                break
        check(first is not None, "stencil: the planted value does not overflow")
        item, op, operands = first
        before = buffer_array(self.v, np.int32, (h, w))
        for fuel in (None, FINITE_FUEL):
            expect_fault(ctx, "stencil, u[%d, %d] = 2^29" % (kr, kc), lambda: ctx.stencil(uf, v=self.v, fuel=fuel),
                         cint.OverflowFault, op, work_item=item, operands=operands)
            check(np.array_equal(buffer_array(self.v, np.int32, (h, w)), before),
                  "stencil: the faulting dispatch changed its output")
        scratch = np.zeros((h, w), np.int32)
        r = self.tw.stencil_chk(ptr(uf), ptr(scratch), h, w)
        check(r == item, "stencil: the checked C twin faults at %d, cint at %d" % (r, item))
        if self.nb:
            r = self.nb.stencil_chk(uf, np.zeros((h, w), np.int32))
            check(r == item, "stencil: checked Numba faults at %d, cint at %d" % (r, item))
        used = self.check_fuel(lambda fuel: ctx.stencil(self.u, v=self.v, fuel=fuel))
        return ["u[%d, %d] = 2^29: OverflowFault %s at work item %d = (%d, %d), output unchanged" % (
            kr, kc, op, item, item // w, item % w), fuel_note(used)]


def collatz_steps(x):
    """The Collatz step counts of positive int64 values, vectorised over the items still running (the exact
    reference; it checks that no value passes 2^62, so int64 is exact)."""
    steps = np.zeros(x.shape[0], np.int64)
    idx = np.arange(x.shape[0])
    v = x.copy()
    while idx.size:
        run = v != 1
        idx, v = idx[run], v[run]
        if not idx.size:
            break
        check(int(v.max()) < 2**62, "collatz: the reference passed 2^62")
        odd = (v & 1) == 1
        v = np.where(odd, 3 * v + 1, v >> 1)
        steps[idx] += 1
    return steps


class Collatz(Kernel):
    name = "collatz"
    what = "Collatz steps, a kernel with a per-item `while` loop, I64"

    def setup(self, scale):
        n = self.n = max(64, round(250_000 * scale))
        self.size = "n = {:,}, x in [1, 10^6)".format(n)
        self.x = self.rng.integers(1, 1_000_000, n, dtype=np.int64)
        self.expected = collatz_steps(self.x)

    def rows(self):
        ctx, x, nb, tw, n = self.ctx, self.x, self.nb, self.tw, self.n
        steps = self.steps = cint.empty((n,), "I64")
        rows = self.fuel_rows("(Buffer out)", lambda fuel: ctx.collatz(x, steps=steps, fuel=fuel),
                              lambda r: buffer_array(steps, np.int64, (n,)))
        st = np.zeros(n, np.int64)
        rows.append(Row(TWIN, "checked C twin", lambda: tw.collatz_chk(ptr(x), ptr(st), n),
                        lambda r: (twin_ok(self.name, r), st)[1]))
        if nb:
            sn = np.zeros(n, np.int64)
            rows.append(Row(NUMBA, "Numba @njit, unchecked", lambda: nb.collatz(x, sn), lambda r: sn))
            rows.append(Row(NUMBA_CHK, "Numba @njit, checked", lambda: nb.collatz_chk(x, sn),
                            lambda r: (nb_ok(self.name, r), sn)[1]))
        return rows

    def faults(self):
        ctx, n = self.ctx, self.n
        k = pick(n)
        xf = self.x.copy()
        start = 2 * 3074457345618258603                # even: halves once, then 3 * v leaves I64
        xf[k] = start
        v, op = start, None
        for _ in range(10_000):                        # the exact trajectory of x[k] until it overflows
            if v % 2 == 0:
                v //= 2
            elif not I64_MIN <= 3 * v <= I64_MAX:
                op, operands = "mul.checked.i64", (3, v)
                break
            elif not I64_MIN <= 3 * v + 1 <= I64_MAX:
                op, operands = "add.checked.i64", (3 * v, 1)
                break
            else:
                v = 3 * v + 1
        check(op is not None, "collatz: the planted value does not overflow")
        before = buffer_array(self.steps, np.int64, (n,))
        for fuel in (None, FINITE_FUEL):
            expect_fault(ctx, "collatz, x[%d] = %d" % (k, start), lambda: ctx.collatz(xf, steps=self.steps, fuel=fuel),
                         cint.OverflowFault, op, work_item=k, operands=operands)
            check(np.array_equal(buffer_array(self.steps, np.int64, (n,)), before),
                  "collatz: the faulting dispatch changed its output")
        scratch = np.zeros(n, np.int64)
        r = self.tw.collatz_chk(ptr(xf), ptr(scratch), n)
        check(r == k, "collatz: the checked C twin faults at %d, cint at %d" % (r, k))
        if self.nb:
            r = self.nb.collatz_chk(xf, np.zeros(n, np.int64))
            check(r == k, "collatz: checked Numba faults at %d, cint at %d" % (r, k))
        used = self.check_fuel(lambda fuel: ctx.collatz(self.x, steps=self.steps, fuel=fuel))
        return ["x[%d] = %d: OverflowFault %s at work item %d on its second step, output unchanged (twin, "
                "Numba: %d)" % (k, start, op, k, k), fuel_note(used)]


class Matvec(Kernel):
    name = "matvec"
    what = "matvec, a kernel with an inner checked `dot(I64, a[i], x)`, I32 -> I64"

    def setup(self, scale):
        r = c = self.r = self.c = max(16, round(2000 * math.sqrt(scale)))
        self.size = "{:,} x {:,}".format(r, c)
        self.a = self.rng.integers(-(2**15), 2**15, (r, c), dtype=np.int32)
        self.x = self.rng.integers(I32_MIN, I32_MAX + 1, c, dtype=np.int32)
        check(c * 2**46 < 2**63, "matvec: c too large for an exact int64 reference")
        self.x64 = self.x.astype(np.int64)
        self.expected = self.a.astype(np.int64) @ self.x64      # exact: |y| <= c * 2^15 * 2^31 < 2^63

    def rows(self):
        ctx, a, x, nb, tw, r, c = self.ctx, self.a, self.x, self.nb, self.tw, self.r, self.c
        y = self.y = cint.empty((r,), "I64")
        rows = self.fuel_rows("(Buffer out)", lambda fuel: ctx.matvec(a, x, y=y, fuel=fuel),
                              lambda _: buffer_array(y, np.int64, (r,)))
        yt = np.zeros(r, np.int64)
        rows.append(Row(TWIN, "checked C twin", lambda: tw.matvec_chk(ptr(a), ptr(x), ptr(yt), r, c),
                        lambda res: (twin_ok(self.name, res), yt)[1]))
        if nb:
            yn = np.zeros(r, np.int64)
            rows.append(Row(NUMBA, "Numba @njit, unchecked", lambda: nb.matvec(a, x, yn), lambda _: yn))
            rows.append(Row(NUMBA_CHK, "Numba @njit, checked", lambda: nb.matvec_chk(a, x, yn),
                            lambda res: (nb_ok(self.name, res), yn)[1]))
        x64 = self.x64
        rows.append(Row(NUMPY, "NumPy a @ x.astype(int64)", lambda: a @ x64, ident))
        return rows

    def faults(self):
        ctx, r, c = self.ctx, self.r, self.c
        k = pick(r)
        af = self.a.copy()
        af[k, :] = np.where(self.x >= 0, I32_MAX, I32_MIN)     # every product of row k is >= 0
        total = sum(int(p) * int(q) for p, q in zip(af[k], self.x))
        check(total > I64_MAX, "matvec: the planted row does not overflow")
        before = buffer_array(self.y, np.int64, (r,))
        for fuel in (None, FINITE_FUEL):
            expect_fault(ctx, "matvec, row %d" % k, lambda: ctx.matvec(af, self.x, y=self.y, fuel=fuel),
                         cint.OverflowFault, "dot.checked.i32.i64", work_item=k)
            check(np.array_equal(buffer_array(self.y, np.int64, (r,)), before),
                  "matvec: the faulting dispatch changed its output")
        scratch = np.zeros(r, np.int64)
        res = self.tw.matvec_chk(ptr(af), ptr(self.x), ptr(scratch), r, c)
        check(res == k, "matvec: the checked C twin faults at %d, cint at %d" % (res, k))
        if self.nb:
            res = self.nb.matvec_chk(af, self.x, np.zeros(r, np.int64))
            check(res == k, "matvec: checked Numba faults at %d, cint at %d" % (res, k))
        used = self.check_fuel(lambda fuel: ctx.matvec(self.a, self.x, y=self.y, fuel=fuel))
        return ["row %d of a = +-(2^31) matching the signs of x (total %.3g): OverflowFault dot.checked.i32.i64 at "
                "work item %d, output unchanged" % (k, total, k), fuel_note(used)]


class Advance(Kernel):
    name = "advance"
    what = "advance, the spec's example: next[i] = pos[i] + vel[i] * dt, a kernel, I64"

    def setup(self, scale):
        n = self.n = max(64, round(10_000_000 * scale))
        self.size = "n = {:,}".format(n)
        self.pos = self.rng.integers(-(2**40), 2**40, n, dtype=np.int64)
        self.vel = self.rng.integers(-(2**20), 2**20, n, dtype=np.int64)
        self.dt = 3
        self.expected = self.pos + self.vel * self.dt           # |.| < 2^40 + 3 * 2^20: exact

    def rows(self):
        ctx, pos, vel, dt, nb, tw, n = self.ctx, self.pos, self.vel, self.dt, self.nb, self.tw, self.n
        nxt = self.next = cint.empty((n,), "I64")
        rows = self.fuel_rows("(Buffer out)", lambda fuel: ctx.advance(pos, vel, dt, next=nxt, fuel=fuel),
                              lambda r: buffer_array(nxt, np.int64, (n,)))
        ot = np.zeros(n, np.int64)
        rows.append(Row(TWIN, "checked C twin", lambda: tw.advance_chk(ptr(pos), ptr(vel), dt, ptr(ot), n),
                        lambda r: (twin_ok(self.name, r), ot)[1]))
        if nb:
            on = np.zeros(n, np.int64)
            lo, hi = mul_bounds(dt)
            rows.append(Row(NUMBA, "Numba @njit, unchecked", lambda: nb.advance(pos, vel, dt, on), lambda r: on))
            rows.append(Row(NUMBA_CHK, "Numba @njit, checked", lambda: nb.advance_chk(pos, vel, dt, on, lo, hi),
                            lambda r: (nb_ok(self.name, r), on)[1]))
        rows.append(Row(NUMPY, "NumPy pos + vel * dt", lambda: pos + vel * dt, ident))
        ta = np.zeros(n, np.int64)
        rows.append(Row(TRIAD, "STREAM triad a = b + s * c (plain C, int64, same n)",
                        lambda: tw.triad(ptr(ta), ptr(pos), dt, ptr(vel), n), lambda r: ta))
        return rows

    def faults(self):
        ctx, n, dt = self.ctx, self.n, self.dt
        k = pick(n)
        vf = self.vel.copy()
        vf[k] = 2**62
        before = buffer_array(self.next, np.int64, (n,))
        for fuel in (None, FINITE_FUEL):
            expect_fault(ctx, "advance, vel[%d] = 2^62" % k,
                         lambda: ctx.advance(self.pos, vf, dt, next=self.next, fuel=fuel),
                         cint.OverflowFault, "mul.checked.i64", work_item=k, operands=(2**62, dt))
            check(np.array_equal(buffer_array(self.next, np.int64, (n,)), before),
                  "advance: the faulting dispatch changed its output")
        scratch = np.zeros(n, np.int64)
        r = self.tw.advance_chk(ptr(self.pos), ptr(vf), dt, ptr(scratch), n)
        check(r == k, "advance: the checked C twin faults at %d, cint at %d" % (r, k))
        if self.nb:
            lo, hi = mul_bounds(dt)
            r = self.nb.advance_chk(self.pos, vf, dt, np.zeros(n, np.int64), lo, hi)
            check(r == k, "advance: checked Numba faults at %d, cint at %d" % (r, k))
        used = self.check_fuel(lambda fuel: ctx.advance(self.pos, self.vel, dt, next=self.next, fuel=fuel))
        return ["vel[%d] = 2^62: OverflowFault mul.checked.i64 at work item %d, output unchanged" % (
            k, k), fuel_note(used)]


class Total(Kernel):
    name = "sum"
    what = "checked `sum(x)` of I64: exact, one range check of the total"

    def setup(self, scale):
        n = self.n = max(64, round(10_000_000 * scale))
        self.size = "n = {:,}".format(n)
        self.x = self.rng.integers(-(2**30), 2**30, n, dtype=np.int64)
        check(n * 2**30 < 2**63, "sum: n too large for an exact int64 reference")
        self.expected = int(self.x.sum())                       # exact: |sum| < n * 2^30

    def rows(self):
        ctx, x, nb, tw, n = self.ctx, self.x, self.nb, self.tw, self.n
        rows = self.fuel_rows("total(x)", lambda fuel: ctx.total(x, fuel=fuel), ident)
        out = C.c_int64()

        def twin_call():
            check(tw.total_chk(ptr(x), n, C.addressof(out)) == 0, "the checked C twin of sum reported an overflow")
            return out.value

        rows.append(Row(TWIN, "checked C twin", twin_call, ident))
        if nb:
            rows.append(Row(NUMBA, "Numba @njit, unchecked", lambda: nb.total(x), ident))

            def nb_chk():
                s, wraps = nb.total_chk(x)
                check(wraps == 0, "checked Numba sum reported an overflow")
                return s

            rows.append(Row(NUMBA_CHK, "Numba @njit, checked", nb_chk, ident))
        rows.append(Row(NUMPY, "NumPy numpy.sum(x)", lambda: np.sum(x), ident))
        return rows

    def faults(self):
        ctx, n = self.ctx, self.n
        xf = self.x.copy()
        xf[:4] = 2**62
        check(int(xf.astype(object).sum()) > I64_MAX, "sum: the planted values do not overflow")
        edge = np.array([I64_MAX, 1, -1, -5], np.int64)       # partial sums leave I64, the total fits
        out = C.c_int64()
        for fuel in (None, FINITE_FUEL):
            expect_fault(ctx, "sum, x[0:4] = 2^62", lambda: ctx.total(xf, fuel=fuel), cint.OverflowFault,
                         "sum.checked.i64.i64")
            check(ctx.total(edge, fuel=fuel) == I64_MAX - 5, "sum: cint's total of [I64 MAX, 1, -1, -5]")
        check(self.tw.total_chk(ptr(xf), n, C.addressof(out)) == 1, "sum: the checked C twin misses the overflow")
        check(self.tw.total_chk(ptr(edge), 4, C.addressof(out)) == 0 and out.value == I64_MAX - 5,
              "sum: the checked C twin's total of [I64 MAX, 1, -1, -5]")
        if self.nb:
            check(self.nb.total_chk(xf)[1] != 0, "sum: checked Numba misses the overflow")
            check(tuple(self.nb.total_chk(edge)) == (I64_MAX - 5, 0), "sum: checked Numba's total of the edge")
        used = self.check_fuel(lambda fuel: ctx.total(self.x, fuel=fuel))
        return ["x[0:4] = 2^62: OverflowFault sum.checked.i64.i64 (numpy.sum wraps to %d); "
                "[I64 MAX, 1, -1, -5] gives %d" % (int(np.sum(xf)), I64_MAX - 5),
                fuel_note(used)]


class Dot(Kernel):
    name = "dot"
    what = "checked `dot(I64, a, b)` of I32 vectors: exact, one range check of the total"

    def setup(self, scale):
        n = self.n = max(64, round(10_000_000 * scale))
        self.size = "n = {:,}".format(n)
        self.a = self.rng.integers(-(2**16), 2**16, n, dtype=np.int32)
        self.b = self.rng.integers(-(2**16), 2**16, n, dtype=np.int32)
        check(n * 2**32 < 2**63, "dot: n too large for an exact int64 reference")
        self.a64 = self.a.astype(np.int64)
        self.expected = int(self.a64 @ self.b.astype(np.int64))    # exact: |dot| <= n * 2^32

    def rows(self):
        ctx, a, b, nb, tw, n = self.ctx, self.a, self.b, self.nb, self.tw, self.n
        rows = self.fuel_rows("dot64(a, b)", lambda fuel: ctx.dot64(a, b, fuel=fuel), ident)
        out = C.c_int64()

        def twin_call():
            check(tw.dot64_chk(ptr(a), ptr(b), n, C.addressof(out)) == 0,
                  "the checked C twin of dot reported an overflow")
            return out.value

        rows.append(Row(TWIN, "checked C twin", twin_call, ident))
        if nb:
            rows.append(Row(NUMBA, "Numba @njit, unchecked", lambda: nb.dot64(a, b), ident))

            def nb_chk():
                s, wraps = nb.dot_exact(a, b)
                check(wraps == 0, "checked Numba dot reported an overflow")
                return s

            rows.append(Row(NUMBA_CHK, "Numba @njit, checked", nb_chk, ident))
        rows.append(Row(NUMPY, "NumPy np.dot(a.astype(int64), b)", lambda: np.dot(a.astype(np.int64), b), ident))
        return rows

    def faults(self):
        ctx, n = self.ctx, self.n
        af, bf = self.a.copy(), self.b.copy()
        af[:4] = I32_MIN
        bf[:4] = I32_MIN
        check(int((af.astype(object) * bf.astype(object)).sum()) > I64_MAX, "dot: the planted values do not overflow")
        ea = np.array([I32_MIN, I32_MIN, I32_MIN], np.int32)  # partial sums leave I64, the total fits
        eb = np.array([I32_MIN, I32_MIN, I32_MAX], np.int32)
        exact = sum(int(p) * int(q) for p, q in zip(ea, eb))
        out = C.c_int64()
        for fuel in (None, FINITE_FUEL):
            expect_fault(ctx, "dot, a[0:4] = b[0:4] = I32 MIN", lambda: ctx.dot64(af, bf, fuel=fuel),
                         cint.OverflowFault, "dot.checked.i32.i64")
            check(ctx.dot64(ea, eb, fuel=fuel) == exact, "dot: cint's total with wide partial sums")
        check(self.tw.dot64_chk(ptr(af), ptr(bf), n, C.addressof(out)) == 1,
              "dot: the checked C twin misses the overflow")
        check(self.tw.dot64_chk(ptr(ea), ptr(eb), 3, C.addressof(out)) == 0 and out.value == exact,
              "dot: the checked C twin's total with wide partial sums")
        if self.nb:
            check(self.nb.dot_exact(af, bf)[1] != 0, "dot: checked Numba misses the overflow")
            check(tuple(self.nb.dot_exact(ea, eb)) == (exact, 0), "dot: checked Numba's total with wide partial sums")
        used = self.check_fuel(lambda fuel: ctx.dot64(self.a, self.b, fuel=fuel))
        return ["a[0:4] = b[0:4] = I32 MIN: OverflowFault dot.checked.i32.i64; "
                "[MIN, MIN, MIN] . [MIN, MIN, MAX] gives %d" % exact, fuel_note(used)]


KERNELS = {k.name: k for k in (PrefixSum, Fir5, Histogram, Stencil, Collatz, Matvec, Advance, Total, Dot)}
assert tuple(KERNELS) == NAMES


# ---------------------------------------------------------------------------------------------
# Running one kernel


class Result:
    def __init__(self, kernel, rows, notes):
        self.name, self.what, self.size = kernel.name, kernel.what, kernel.size
        self.rows, self.notes = rows, notes
        self.load = load_average()

    def get(self, kind):
        for r in self.rows:
            if r.kind == kind and r.med is not None:
                return r
        return None


def run_kernel(env, name, scale, repeat, say):
    k = KERNELS[name](env, scale)
    rows = k.rows()
    # every row's result equals the exact value (and so cint's) before anything is timed
    for row in rows:
        got = row.read(row.call())
        check(same(got, k.expected), "%s: %s differs from the exact result" % (name, row.label))
    notes = k.faults()
    notes.insert(1, "the fault inputs faulted with a finite fuel budget too, and %s reported the same fault%s" % (
        "the checked C twin and the checked Numba loop" if env.nb else "the checked C twin",
        "" if name in ("sum", "dot") else " at the same index"))
    for row, last in zip(rows, time_rows(rows, repeat)):
        check(same(row.read(last), k.expected), "%s: %s differs from the exact result after timing" % (
            name, row.label))
    for row in rows:                    # let this kernel's arrays go before the next one runs
        row.call = row.read = None
    res = Result(k, rows, notes)
    for line in kernel_table(res):
        say(line)
    say()
    return res


# ---------------------------------------------------------------------------------------------
# Tables


def fmt_ms(t):
    if t is None:
        return "-"
    return "%.2f" % (t * 1e3) if t >= 0.001 else "%.4f" % (t * 1e3)


def fmt_ratio(r):
    return "-" if r is None else "%.2f" % r


def ratio(res, kind):
    base, other = res.get(CINT), res.get(kind)
    if base is None or other is None:
        return None
    return base.med / other.med


def kernel_table(res, md=False):
    head = ["row", "median ms", "min ms", "cint / row"]
    cint_row = res.get(CINT)
    body = [[r.label, fmt_ms(r.med), fmt_ms(r.min), fmt_ratio(cint_row.med / r.med if cint_row else None)]
            for r in res.rows]
    title = "%s: %s, %s" % (res.name, res.what, res.size)
    out = ["### " + title, ""] if md else [title]
    out += table(head, body, md)
    if md:
        out.append("")
    out += [("- " if md else "  ") + "check: " + n for n in res.notes]
    out.append(("- " if md else "  ") + "load average after it: " + res.load)
    return out


def table(head, body, md):
    if md:
        return (["| " + " | ".join(head) + " |", "| " + " | ".join(["---"] + ["---:"] * (len(head) - 1)) + " |"]
                + ["| " + " | ".join(b) + " |" for b in body])
    widths = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
    lines = ["  " + "  ".join(str(h).ljust(widths[0]) if i == 0 else str(h).rjust(widths[i])
                              for i, h in enumerate(head))]
    for b in body:
        lines.append("  " + "  ".join(str(x).ljust(widths[0]) if i == 0 else str(x).rjust(widths[i])
                                      for i, x in enumerate(b)))
    return lines


def geomean(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def summary(results):
    """The summary table (one row per kernel, ratios of medians, cint with unbounded fuel) and the targets."""
    head = ["kernel", "cint ms", "checked C ms", "Numba ms", "NumPy ms", "cint / checked-C", "cint / Numba",
            "cint / NumPy", "cint fuel 2^62 / cint"]
    body = []
    for res in results.values():
        get = res.get
        fuel = get(CINT_FUEL)
        body.append([res.name, fmt_ms(get(CINT).med), fmt_ms(get(TWIN) and get(TWIN).med),
                     fmt_ms(get(NUMBA) and get(NUMBA).med), fmt_ms(get(NUMPY) and get(NUMPY).med),
                     fmt_ratio(ratio(res, TWIN)), fmt_ratio(ratio(res, NUMBA)), fmt_ratio(ratio(res, NUMPY)),
                     fmt_ratio(fuel.med / get(CINT).med if fuel else None)])
    suite = [results[n] for n in SUITE if n in results]
    gm = {kind: geomean([ratio(r, kind) for r in suite]) for kind in (TWIN, NUMBA, NUMPY)}
    gm_all = {kind: geomean([ratio(r, kind) for r in results.values()]) for kind in (TWIN, NUMBA, NUMPY)}
    if suite:
        body.append(["geomean, the %d of the suite" % len(suite), "", "", "", "", fmt_ratio(gm[TWIN]),
                     fmt_ratio(gm[NUMBA]), fmt_ratio(gm[NUMPY]), ""])
    if len(results) > len(suite):
        body.append(["geomean, all %d" % len(results), "", "", "", "", fmt_ratio(gm_all[TWIN]),
                     fmt_ratio(gm_all[NUMBA]), fmt_ratio(gm_all[NUMPY]), ""])
    return head, body, targets(results, suite, gm)


def targets(results, suite, gm):
    """(target, figure, met / not met / not measured) for each target of issue 13."""
    out = []

    def verdict(ok):
        return "not measured" if ok is None else ("met" if ok else "not met")

    if suite:
        tw = [(r.name, ratio(r, TWIN)) for r in suite]
        worst = max((x for x in tw if x[1] is not None), key=lambda x: x[1], default=None)
        out.append(("each kernel of the suite within 1.25x its checked-C twin",
                    "worst %s %.2f" % worst if worst else "-",
                    verdict(None if worst is None else all(x[1] <= 1.25 for x in tw if x[1] is not None))))
        out.append(("geomean cint / checked-C <= 1.0", fmt_ratio(gm[TWIN]),
                    verdict(None if gm[TWIN] is None else gm[TWIN] <= 1.0)))
        nb = [(r.name, ratio(r, NUMBA)) for r in suite if ratio(r, NUMBA) is not None]
        out.append(("geomean cint / Numba unchecked <= 1.3", fmt_ratio(gm[NUMBA]),
                    verdict(None if gm[NUMBA] is None else gm[NUMBA] <= 1.3)))
        worst = max(nb, key=lambda x: x[1], default=None)
        out.append(("no kernel worse than 2x Numba unchecked", "worst %s %.2f" % worst if worst else "-",
                    verdict(None if worst is None else worst[1] <= 2.0)))
    if "advance" in results:
        r = ratio(results["advance"], TRIAD)
        out.append(("advance (Buffer out) within 1.10x the STREAM triad", fmt_ratio(r),
                    verdict(None if r is None else r <= 1.10)))
    if "sum" in results:
        r = ratio(results["sum"], NUMPY)
        out.append(("checked sum within 1.10x numpy.sum", fmt_ratio(r), verdict(None if r is None else r <= 1.10)))
    return out


# ---------------------------------------------------------------------------------------------
# The run


class Env:
    """What every kernel uses: the cint context, the twins' library and the Numba functions (or None)."""

    def __init__(self, ctx, twin, nb):
        self.ctx, self.twin, self.nb = ctx, twin, nb


def run(args):
    lines = []

    def say(s=""):
        print(s, flush=True)
        lines.append(s)

    names = [n for n in NAMES if not args.only or n in args.only]
    if args.scale <= 0 or args.scale > 4:
        raise BenchError("--scale must be in (0, 4] (1.0 is the issue's sizes), not %g" % args.scale)
    if args.repeat < 1:
        raise BenchError("--repeat must be at least 1, not %d" % args.repeat)
    if args.no_numba:
        nb, nb_version = None, "left out (--no-numba)"
    else:
        nb, nb_version = load_numba()
    with tempfile.TemporaryDirectory(prefix="cint-kernels-") as tmp:
        twin, cc, flags = build_twin(Path(tmp))
        facts = machine_facts(cc, flags, nb_version)
        load_start = load_average()
        say("cint kernels benchmark (bench/kernels.py), scale %g, median and min of %d runs after one warm-up" % (
            args.scale, args.repeat))
        for k, v in facts:
            say("  %-7s %s" % (k + ":", v))
        say("  load average at start: " + load_start)
        say()
        try:
            mod = cint.load(str(HERE / "kernels.ci"))
        except cint.BuildError as exc:
            raise BenchError("bench/kernels.ci does not build:\n%s" % exc) from exc
        ctx = mod.context()
        env = Env(ctx, twin, nb)
        results = {}
        for name in names:
            results[name] = run_kernel(env, name, args.scale, args.repeat, say)
        ctx.close()
    head, body, tg = summary(results)
    say("summary: ratios of medians, cint with unbounded fuel and a Buffer output or a borrowed inout array "
        "(above 1: cint is slower)")
    for ln in table(head, body, False):
        say(ln)
    say()
    say("targets of issue 13 (the suite is the six kernels of its table):")
    for t, fig, v in tg:
        say("  %-58s %-22s %s" % (t, fig, v))
    load_end = load_average()
    say()
    say("load average at end: " + load_end)
    say("every row's result equals the exact value and cint's; every fault input faulted where the twin says")
    if args.markdown:
        write_markdown(Path(args.markdown), args, facts, load_start, load_end, results, head, body, tg)
        print("wrote %s" % args.markdown)


def write_markdown(path, args, facts, load_start, load_end, results, head, body, tg):
    cmd = ".venv/bin/python bench/kernels.py --scale %g --repeat %d" % (args.scale, args.repeat)
    if args.only:
        cmd += " --only " + " ".join(args.only)
    if args.no_numba:
        cmd += " --no-numba"
    out = ["## Kernels (`bench/kernels.py`), %s" % facts[0][1], "", "Produced by `%s`." % cmd, ""]
    out += ["- %s: %s" % (k, v) for k, v in facts]
    out += ["- load average at start: %s; at end: %s" % (load_start, load_end), ""]
    out += ["### Summary", "", "Ratios of medians, cint with unbounded fuel (above 1: cint is slower).", ""]
    out += table(head, body, True) + [""]
    out += ["| target of issue 13 | figure | verdict |", "| --- | --- | --- |"]
    out += ["| %s | %s | %s |" % t for t in tg] + [""]
    for res in results.values():
        out += kernel_table(res, md=True) + [""]
    text = "\n".join(out) + "\n"
    if args.append and path.exists():
        with path.open("a", encoding="utf-8") as f:
            f.write("\n" + text)
    else:
        path.write_text(text, encoding="utf-8")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0,
                    help="sizes relative to the issue's (1.0: n = 10^7, 2000 x 2000, ...); 0.01 is a quick smoke run")
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per row after one warm-up (default 7)")
    ap.add_argument("--only", nargs="+", choices=NAMES, metavar="NAME",
                    help="run only these kernels: " + ", ".join(NAMES))
    ap.add_argument("--markdown", metavar="FILE", help="also write the tables as Markdown to FILE")
    ap.add_argument("--append", action="store_true", help="append to the --markdown FILE instead of replacing it")
    ap.add_argument("--no-numba", action="store_true", help="leave the Numba rows out even if numba is installed")
    args = ap.parse_args(argv)
    if args.append and not args.markdown:
        ap.error("--append needs --markdown FILE")
    try:
        run(args)
    except BenchError as exc:
        print("bench: error: %s" % exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
