#!/usr/bin/env python3
"""Benchmark of calls from Python into cint exports: the C call path of the cint package
(cint._fastcall) side by side with the same wrapper called through ctypes, through cffi (ABI mode),
the package's own ctypes path, a Numba @njit equivalent, and a C loop (the floor).

Run from the repository root:

    .venv/bin/python bench/bench_python.py [--n 10000000] [--small 1000] [--repeat 7] [--markdown FILE]

Four parts, every result checked before it is timed:

1. a scalar call, ``ctx.narrow(5)`` of calls.ci (the spec's example);
2. a kernel call at n = --small: ``ctx.advance(pos, vel, 3, next=out)`` of bench/advance.ci with two
   NumPy arrays borrowed for the call and a Buffer output (cint.empty), and the same with two Views;
3. the same kernel at n = --n from Python against the plain C staged loop of bench_advance.py;
4. ``cint.load`` of an unchanged source (the build cache hit) and ``Module.context()``.

Small calls are timed with timeit (--repeat runs of a loop of calls; the median and the minimum per
call); the big call with time.perf_counter around single calls. See bench/README.md.
"""
from __future__ import annotations

import argparse
import ctypes as C
import datetime
import gc
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = Path(os.environ.get("CINT_SPEC_EXAMPLES", HERE.parent.parent / "shared" / "spec" / "examples"))
sys.path.insert(0, str(HERE))

try:
    import numpy as np

    import bench_advance as BA
    import cint
    from cint import _module
    from cint_abi import structs as S
except ImportError as exc:
    sys.exit("bench: cannot import %s (%s); run `bash scripts/setup.sh` and use .venv/bin/python" % (
        exc.name or "a module", exc))

I64_MAX = 2**63 - 1

# A C loop that calls a wrapper many times: the floor of a call (no Python at all).
LOOP_C = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <string.h>
#include <time.h>
#define API __attribute__((visibility("default")))
typedef struct { uint64_t w[18]; } view144;          /* cint_view: 144 bytes, passed by value */
_Static_assert(sizeof(view144) == 144, "cint_view is 144 bytes");
typedef int32_t (*narrow_fn)(void *, int64_t, int64_t, int8_t *);
typedef int32_t (*advance_fn)(void *, int64_t, view144, view144, int64_t, view144);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* seconds per call of narrow(5), or -1 when a call fails */
API double loop_narrow(void *fn, void *ctx, int64_t calls)
{
    int8_t r = 0;
    narrow_fn f;
    memcpy(&f, &fn, sizeof f);
    double t0 = now();
    for (int64_t k = 0; k < calls; k++)
        if (f(ctx, -1, 5, &r) != 0 || r != 5) return -1.0;
    return (now() - t0) / (double)calls;
}

API double loop_advance(void *fn, void *ctx, const view144 *pos, const view144 *vel, int64_t dt,
                        const view144 *out, int64_t calls)
{
    advance_fn f;
    memcpy(&f, &fn, sizeof f);
    double t0 = now();
    for (int64_t k = 0; k < calls; k++)
        if (f(ctx, -1, *pos, *vel, dt, *out) != 0) return -1.0;
    return (now() - t0) / (double)calls;
}
"""

CFFI_DEFS = """
typedef struct { uint16_t code; uint8_t storage; uint8_t reserved0; uint16_t frac; uint16_t reserved1;
                 uint32_t record_id; uint32_t reserved2; } cint_type;
typedef struct { uint64_t buffer; uint64_t generation; cint_type type; uint8_t rank; uint8_t perm;
                 uint8_t reserved[6]; int64_t origin; int64_t shape[4]; int64_t stride[4];
                 int64_t lower[4]; } cint_view;
"""


class BenchError(Exception):
    pass


def check(cond, what):
    if not cond:
        raise BenchError("verification failed: " + what)


def per_call(stmt, env, repeat, target=0.2):
    """(median s, min s) per call of stmt (a string timed by timeit with env as globals)."""
    t = timeit.Timer(stmt, globals=env)
    number = 1
    while True:
        took = t.timeit(number)
        if took >= target / 4 or number >= 10**7:
            break
        number *= 4
    number = max(1, int(number * (target / max(took, 1e-9)) / 2))
    gc_was = gc.isenabled()
    gc.disable()
    try:
        runs = [t.timeit(number) / number for _ in range(repeat)]
    finally:
        if gc_was:
            gc.enable()
    return statistics.median(runs), min(runs)


def single(fn, repeat):
    fn()
    times = []
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    finally:
        gc.enable()
    return statistics.median(times), min(times)


class Rows:
    def __init__(self, title, ref, unit):
        self.title, self.ref, self.unit = title, ref, unit
        self.rows = []

    def add(self, label, t):
        self.rows.append((label, t))

    def skip(self, label, why):
        self.rows.append((label, why))

    def get(self, label):
        for lab, t in self.rows:
            if lab == label and isinstance(t, tuple):
                return t[0]
        return None

    def lines(self, md=False):
        scale = {"ns": 1e9, "us": 1e6, "ms": 1e3}[self.unit]
        ref = self.get(self.ref)
        head = ("row", "median " + self.unit, "min " + self.unit, "row / cint C path")
        out = []
        w = max(len(r[0]) for r in self.rows)
        if md:
            out += ["| " + " | ".join(head) + " |", "| --- | ---: | ---: | ---: |"]
        else:
            out += ["%-*s  %12s  %12s  %18s" % ((w,) + head), "-" * (w + 50)]
        for lab, t in self.rows:
            if isinstance(t, tuple):
                cells = (lab, "%.1f" % (t[0] * scale) if scale != 1e3 else "%.2f" % (t[0] * scale),
                         "%.1f" % (t[1] * scale) if scale != 1e3 else "%.2f" % (t[1] * scale),
                         "%.2f" % (t[0] / ref) if ref else "-")
            else:
                cells = (lab, "skipped: " + t, "", "")
            out.append(("| " + " | ".join(cells) + " |") if md else "%-*s  %12s  %12s  %18s" % ((w,) + cells))
        return out


def load_cffi():
    try:
        import cffi
    except ImportError as exc:
        return None, "cffi is not installed (%s); `.venv/bin/pip install cffi`" % exc
    ffi = cffi.FFI()
    ffi.cdef(CFFI_DEFS)
    return ffi, None


def cffi_view(ffi, v):
    cv = ffi.new("cint_view *")
    ffi.memmove(cv, bytes(v), C.sizeof(v))
    return cv


def run(args):
    repeat = args.repeat
    load0 = os.getloadavg()
    logical, usable = BA.core_counts()
    info = {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "cpu": BA.cpu_model(),
        "cores": "%d logical, %d usable by this process" % (logical, usable),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cint": "cint %s, cint-runtime %s" % (cint.__version__, BA.dist_version("cint-runtime")),
        "cffi": BA.dist_version("cffi"),
        "numba": BA.dist_version("numba"),
    }
    out_lines = []

    def say(s=""):
        print(s, flush=True)
        out_lines.append(s)

    from cint import _fastcall as FC   # noqa: F401 - the benchmark is of the C path
    tmp = Path(tempfile.mkdtemp(prefix="cint-bench-py-"))
    os.environ["CINT_PY_CACHE"] = str(tmp / "cache")
    try:
        # ---- builds ----
        calls_src = tmp / "calls.ci"
        shutil.copy(EXAMPLES / "calls.ci", calls_src)
        adv_src = tmp / "advance.ci"
        shutil.copy(HERE / "advance.ci", adv_src)
        print("building calls.ci and advance.ci (cint.load) and the C baselines ...", flush=True)
        calls = cint.load(calls_src)
        advm = cint.load(adv_src)
        plain_path, cc, flags, origin = BA.build_plain(str(tmp))
        plain = C.CDLL(str(plain_path))
        I64P = C.POINTER(C.c_int64)
        for name, res, argt in [("adv_staged", C.c_int64, [I64P, I64P, C.c_int64, I64P, C.c_int64]),
                                ("adv_staged_reuse", C.c_int64, [I64P, I64P, C.c_int64, I64P, C.c_int64, I64P]),
                                ("adv_checked", C.c_int64, [I64P, I64P, C.c_int64, I64P, C.c_int64])]:
            f = getattr(plain, name)
            f.restype, f.argtypes = res, argt
        loop_src = tmp / "loop.c"
        loop_src.write_text(LOOP_C)
        done = subprocess.run([cc] + flags + ["-shared", str(loop_src), "-o", str(tmp / "libloop.so")],
                              capture_output=True, text=True)
        if done.returncode:
            raise BenchError("compiling the C loop failed:\n" + done.stderr)
        loop = C.CDLL(str(tmp / "libloop.so"))
        loop.loop_narrow.restype = C.c_double
        loop.loop_narrow.argtypes = [C.c_void_p, C.c_void_p, C.c_int64]
        loop.loop_advance.restype = C.c_double
        loop.loop_advance.argtypes = [C.c_void_p, C.c_void_p, C.POINTER(S.cint_view), C.POINTER(S.cint_view),
                                      C.c_int64, C.POINTER(S.cint_view), C.c_int64]
        info["cc"] = "%s (%s %s)" % (BA.cc_version(cc), origin, " ".join(flags))
        ffi, cffi_why = load_cffi()
        nbinfo, nb_why = BA.load_numba()

        # ---- 1. scalar ----
        ctx = calls.context(fuel=None)
        check(type(ctx.narrow).__name__ == "Caller", "the C call path is not in use (cint._fastcall missing?)")
        h = ctx._h.value
        addr = calls._rows["narrow"].address
        check(ctx.narrow(5) == 5 and ctx.narrow._python(5) == 5, "narrow(5)")
        ct_fn = C.CFUNCTYPE(C.c_int32, C.c_void_p, C.c_int64, C.c_int64, C.POINTER(C.c_int8))(addr)
        r8 = C.c_int8()
        rp = C.byref(r8)
        check(ct_fn(h, -1, 5, rp) == 0 and r8.value == 5, "ctypes narrow")
        t1 = Rows("1. scalar call narrow(5), calls.ci", "cint C path: ctx.narrow(5)", "ns")
        t1.add("cint C path: ctx.narrow(5)", per_call("ctx.narrow(5)", {"ctx": ctx}, repeat))
        t1.add("cint C path: f(5), f = ctx.narrow", per_call("f(5)", {"f": ctx.narrow}, repeat))
        t1.add("ctypes, cached CFUNCTYPE pointer", per_call("f(h, -1, 5, rp)", {"f": ct_fn, "h": h, "rp": rp}, repeat))
        if ffi is not None:
            cf = ffi.cast("int32_t(*)(void *, int64_t, int64_t, int8_t *)", addr)
            hp = ffi.cast("void *", h)
            res = ffi.new("int8_t *")
            check(cf(hp, -1, 5, res) == 0 and res[0] == 5, "cffi narrow")
            t1.add("cffi ABI mode, cached pointer", per_call("f(hp, -1, 5, res)", {"f": cf, "hp": hp, "res": res},
                                                            repeat))
        else:
            t1.skip("cffi ABI mode, cached pointer", cffi_why)
        t1.add("cint Python path (ctypes _Entry)", per_call("f(5)", {"f": ctx.narrow._python}, repeat))
        if nbinfo is not None:
            from numba import njit

            @njit(cache=False)
            def nb_narrow(x):
                if x < -128 or x > 127:
                    raise OverflowError("narrow")
                return x
            check(nb_narrow(5) == 5, "numba narrow")
            t1.add("Numba @njit equivalent, called from Python", per_call("f(5)", {"f": nb_narrow}, repeat))
        else:
            t1.skip("Numba @njit equivalent, called from Python", nb_why)
        floor = statistics.median(loop.loop_narrow(addr, h, 200_000) for _ in range(repeat))
        check(floor > 0, "C loop narrow")
        t1.add("C loop calling the wrapper (floor)", (floor, floor))
        t1.add("timeit loop overhead (pass)", per_call("pass", {}, repeat))
        ctx.close()

        # ---- 2. kernel, small n (and n = 1: the cost of a call) ----
        rng = np.random.default_rng(7)
        lo, hi = BA.mul_bounds(3)
        nb_chk = nbinfo[2] if nbinfo is not None else None

        def kernel_rows(n):
            pos = rng.integers(-(2**40), 2**40, size=n, dtype=np.int64)
            vel = rng.integers(-(2**20), 2**20, size=n, dtype=np.int64)
            expected = pos + vel * 3
            actx = advm.context(fuel=None)
            adv = actx.advance
            out = cint.empty(n, "I64")
            adv(pos, vel, 3, next=out)
            check(np.array_equal(np.asarray(out), expected), "cint advance (bare arrays, Buffer out)")
            vp, vv = cint.borrow(pos), cint.borrow(vel)
            out2 = cint.empty(n, "I64")
            adv(vp, vv, 3, next=out2)
            check(np.array_equal(np.asarray(out2), expected), "cint advance (Views, Buffer out)")
            # the raw wrapper: views registered once, through the context of the package
            ah = actx._h.value
            aaddr = advm._rows["advance"].address
            cv_pos, cv_vel, cv_out = vp._cview(actx, 0), vv._cview(actx, 0), out2._cview(actx, 1)
            ct_adv = C.CFUNCTYPE(C.c_int32, C.c_void_p, C.c_int64, S.cint_view, S.cint_view, C.c_int64,
                                 S.cint_view)(aaddr)
            check(ct_adv(ah, -1, cv_pos, cv_vel, 3, cv_out) == 0, "ctypes advance")
            rows = Rows("2. kernel call advance(pos, vel, 3, next=out), I64, n = %d" % n,
                      "cint C path: 2 NumPy arrays borrowed for the call, Buffer out", "us")
            rows.add("cint C path: 2 NumPy arrays borrowed for the call, Buffer out",
                   per_call("adv(pos, vel, 3, next=out)", {"adv": adv, "pos": pos, "vel": vel, "out": out}, repeat))
            rows.add("cint C path: 2 Views, Buffer out",
                   per_call("adv(vp, vv, 3, next=out)", {"adv": adv, "vp": vp, "vv": vv, "out": out2}, repeat))
            rows.add("ctypes, cached pointer, views built once",
                   per_call("f(h, -1, a, b, 3, c)", {"f": ct_adv, "h": ah, "a": cv_pos, "b": cv_vel, "c": cv_out},
                            repeat))
            if ffi is not None:
                cfa = ffi.cast("int32_t(*)(void *, int64_t, cint_view, cint_view, int64_t, cint_view)", aaddr)
                fa, fb, fc = cffi_view(ffi, cv_pos), cffi_view(ffi, cv_vel), cffi_view(ffi, cv_out)
                hp = ffi.cast("void *", ah)
                check(cfa(hp, -1, fa[0], fb[0], 3, fc[0]) == 0, "cffi advance")
                rows.add("cffi ABI mode, cached pointer, views built once",
                       per_call("f(h, -1, a[0], b[0], 3, c[0])", {"f": cfa, "h": hp, "a": fa, "b": fb, "c": fc}, repeat))
            else:
                rows.skip("cffi ABI mode, cached pointer, views built once", cffi_why)
            rows.add("cint Python path (ctypes _Entry), 2 Views, Buffer out",
                   per_call("f(vp, vv, 3, next=out)", {"f": adv._python, "vp": vp, "vv": vv, "out": out2}, repeat))
            nb_out = np.empty(n, dtype=np.int64)
            if nbinfo is not None:
                check(nb_chk(pos, vel, 3, nb_out, lo, hi) == -1 and np.array_equal(nb_out, expected), "numba advance")
                rows.add("Numba @njit checked loop, called from Python",
                       per_call("f(pos, vel, 3, o, lo, hi)", {"f": nb_chk, "pos": pos, "vel": vel, "o": nb_out, "lo": lo,
                                                             "hi": hi}, repeat))
            else:
                rows.skip("Numba @njit checked loop, called from Python", nb_why)
            floors = [loop.loop_advance(aaddr, ah, C.byref(cv_pos), C.byref(cv_vel), 3, C.byref(cv_out),
                                        max(1000, 2_000_000 // max(n, 1))) for _ in range(repeat)]
            check(min(floors) > 0, "C loop advance")
            rows.add("C loop calling the wrapper, views built once (floor)", (statistics.median(floors), min(floors)))
            check(np.array_equal(np.asarray(out), expected) and np.array_equal(np.asarray(out2), expected),
                  "outputs after timing")
            vp.release()
            vv.release()
            actx.close()
            return rows

        t2 = kernel_rows(args.small)
        t2b = kernel_rows(1)
        n = args.small


        # ---- 3. kernel, big n ----
        N = args.n
        pos = rng.integers(-(2**40), 2**40, size=N, dtype=np.int64)
        vel = rng.integers(-(2**20), 2**20, size=N, dtype=np.int64)
        expected = pos + vel * 3
        bctx = advm.context(fuel=None)
        adv = bctx.advance
        bout = cint.empty(N, "I64")
        nxt = np.zeros(N, dtype=np.int64)
        bv = cint.borrow(nxt, writable=True, publish="copy")
        adv(pos, vel, 3, next=bout)
        adv(pos, vel, 3, next=bv)
        check(np.array_equal(np.asarray(bout), expected) and np.array_equal(nxt, expected), "cint advance, big n")
        out_x = np.zeros(N, dtype=np.int64)
        stage = np.zeros(N, dtype=np.int64)
        pp, vvp, op_, stp = (a.ctypes.data_as(I64P) for a in (pos, vel, out_x, stage))
        check(plain.adv_staged(pp, vvp, 3, op_, N) == -1 and np.array_equal(out_x, expected), "plain C staged")
        t3 = Rows("3. advance at n = {:,} from Python".format(N), "cint C path: 2 NumPy arrays borrowed, Buffer out",
                  "ms")
        t3.add("cint C path: 2 NumPy arrays borrowed, Buffer out", single(lambda: adv(pos, vel, 3, next=bout), repeat))
        t3.add("cint C path: 2 NumPy arrays borrowed, borrowed out (publish copy)",
               single(lambda: adv(pos, vel, 3, next=bv), repeat))
        t3.add("plain C, checked, staged (malloc+zero+memcpy)",
               single(lambda: plain.adv_staged(pp, vvp, 3, op_, N), repeat))
        t3.add("plain C, checked, staged into reused buffer",
               single(lambda: plain.adv_staged_reuse(pp, vvp, 3, op_, N, stp), repeat))
        t3.add("plain C, checked, no staging", single(lambda: plain.adv_checked(pp, vvp, 3, op_, N), repeat))
        t3.add("NumPy out= (multiply, add)", single(lambda: np.add(pos, np.multiply(vel, 3, out=out_x), out=out_x),
                                                     repeat))
        if nbinfo is not None:
            t3.add("Numba @njit checked loop", single(lambda: nb_chk(pos, vel, 3, out_x, lo, hi), repeat))
        else:
            t3.skip("Numba @njit checked loop", nb_why)
        check(np.array_equal(np.asarray(bout), expected) and np.array_equal(nxt, expected), "outputs after timing")
        bv.release()
        del bout
        bctx.close()
        del pos, vel, expected, nxt, out_x, stage

        # ---- 4. load ----
        t4 = Rows("4. cint.load of unchanged source (build cache hit), and Module.context()",
                  "cint.load(calls.ci)", "ms")
        t4.add("cint.load(calls.ci)", single(lambda: cint.load(calls_src), repeat))
        t4.add("cint.load(advance.ci)", single(lambda: cint.load(adv_src), repeat))
        t4.add("Module.context() of calls.ci", single(lambda: calls.context().close(), repeat))

        load1 = os.getloadavg()
        say("machine: %s, %s; load average %.2f at start, %.2f at end (1 min)" % (
            info["cpu"], info["cores"], load0[0], load1[0]))
        say("python %s, numpy %s, cffi %s, numba %s, %s" % (info["python"], info["numpy"], info["cffi"],
                                                          info["numba"], info["cint"]))
        say()
        for t in (t1, t2, t2b, t3, t4):
            say(t.title)
            for ln in t.lines():
                say(ln)
            say()
        s_c = t1.get("cint C path: ctx.narrow(5)")
        K_BARE = "cint C path: 2 NumPy arrays borrowed for the call, Buffer out"
        K_VIEWS = "cint C path: 2 Views, Buffer out"
        K_FLOOR = "C loop calling the wrapper, views built once (floor)"
        k_c, k_v, k_floor = t2.get(K_BARE), t2.get(K_VIEWS), t2.get(K_FLOOR)
        b_c = t3.get("cint C path: 2 NumPy arrays borrowed, Buffer out")
        b_s = t3.get("plain C, checked, staged (malloc+zero+memcpy)")
        l_c = t4.get("cint.load(calls.ci)")
        targets = [
            ("scalar call ctx.narrow(5)", "%.0f ns" % (s_c * 1e9), "<= 200 ns", s_c <= 200e-9),
            ("kernel n=%d, 2 borrowed NumPy arrays + Buffer out" % n, "%.2f us" % (k_c * 1e6), "<= 2 us",
             k_c <= 2e-6),
            ("  same with 2 Views", "%.2f us" % (k_v * 1e6), "<= 2 us", k_v <= 2e-6),
            ("  the wrapper alone from a C loop", "%.2f us" % (k_floor * 1e6), "", None),
            ("  cint C path above the C loop (bare / Views), n = 1", "%.2f / %.2f us" % (
                (t2b.get(K_BARE) - t2b.get(K_FLOOR)) * 1e6, (t2b.get(K_VIEWS) - t2b.get(K_FLOOR)) * 1e6), "", None),
            ("advance n=%d / plain C staged" % N, "%.2fx" % (b_c / b_s), "<= 1.10x", b_c / b_s <= 1.10),
            ("cint.load of unchanged source", "%.2f ms" % (l_c * 1e3), "<= 20 ms", l_c <= 20e-3),
        ]
        say("targets:")
        for what, got, want, ok in targets:
            say("  %-52s %14s  %-9s %s" % (what, got, want, "" if ok is None else "met" if ok else "NOT met"))
        say("ratios (time / time):")
        for lab in ("ctypes, cached CFUNCTYPE pointer", "cffi ABI mode, cached pointer",
                    "cint Python path (ctypes _Entry)", "Numba @njit equivalent, called from Python",
                    "C loop calling the wrapper (floor)"):
            v = t1.get(lab)
            if v:
                say("  scalar: %-44s / cint C path  %.2f" % (lab, v / s_c))
        for lab in ("ctypes, cached pointer, views built once", "cffi ABI mode, cached pointer, views built once",
                    "cint Python path (ctypes _Entry), 2 Views, Buffer out",
                    "Numba @njit checked loop, called from Python"):
            v = t2.get(lab)
            if v:
                say("  kernel: %-44s / cint C path  %.2f" % (lab, v / k_c))
        if args.markdown:
            md = ["## Calls from Python (bench/bench_python.py)", "",
                  "Produced by `.venv/bin/python bench/bench_python.py --n %d --small %d --repeat %d`." % (
                      N, n, repeat), "",
                  "- date: %s" % info["date"],
                  "- machine: %s, %s; load average (1 min) %.2f at start, %.2f at end" % (
                      info["cpu"], info["cores"], load0[0], load1[0]),
                  "- python %s, numpy %s, cffi %s, numba %s, %s" % (info["python"], info["numpy"], info["cffi"],
                                                                   info["numba"], info["cint"]),
                  "- cc: %s" % info["cc"], ""]
            for t in (t1, t2, t2b, t3, t4):
                md += ["### " + t.title, ""] + t.lines(md=True) + [""]
            md += ["```"] + [ln for ln in out_lines if ln.startswith(("targets", "ratios", "  "))] + ["```", ""]
            path = Path(args.markdown)
            mode = "a" if args.append else "w"
            with open(path, mode, encoding="utf-8") as f:
                if mode == "a":
                    f.write("\n")
                f.write("\n".join(md))
            print("wrote %s" % path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="elements of the big advance (default 10,000,000)")
    ap.add_argument("--small", type=int, default=1000, help="elements of the small advance (default 1000)")
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per row; the median is reported (default 7)")
    ap.add_argument("--markdown", metavar="FILE", help="also write the results as Markdown to FILE")
    ap.add_argument("--append", action="store_true", help="append to --markdown FILE instead of replacing it")
    args = ap.parse_args(argv)
    if args.n < 16 or args.small < 1 or args.repeat < 1:
        ap.error("--n >= 16, --small >= 1 and --repeat >= 1")
    try:
        run(args)
    except (BenchError, BA.BenchError) as exc:
        print("bench: error: %s" % exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
