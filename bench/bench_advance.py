#!/usr/bin/env python3
"""Benchmark of cint's `advance` kernel and checked `sum` against NumPy, Numba and plain C.

Run from the repository root:

    .venv/bin/python bench/bench_advance.py [--n 10000000] [--repeat 7] [--markdown FILE]

It builds bench/advance.ci with `cint build --lib`, loads libadvance.so with ctypes, and times
(time.perf_counter, one warm-up call, median of --repeat calls) each way of computing

    next[i] = pos[i] + vel[i] * dt        (I64, n elements)
    total   = sum(x)                      (I64, n elements)

Every result is checked against NumPy before it is timed, and an input that overflows must make
the cint entry fault with status 1 (CINT_FAULT).  See bench/README.md for what each row means.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent

try:
    import numpy as np
    from cint_abi import structs as S
except ImportError as exc:  # the venv is missing or not set up
    sys.exit("bench: cannot import %s (%s); run `bash scripts/setup.sh` and use .venv/bin/python" % (
        exc.name or "a module", exc))

# Constants of runtime-c/include/cint_rt_host.h
CINT_OK, CINT_FAULT = 0, 1
CINT_TAG_I64 = 0x14
CINT_VIEW_READ, CINT_VIEW_WRITE = 0, 1
CINT_MEM_HOST = 1
CINT_PUBLISH_NONE, CINT_PUBLISH_COPY = 0, 1
CINT_E_OVERFLOW = 1
FUEL_UNBOUNDED = -1
I64_MAX, I64_MIN = 2**63 - 1, -(2**63)


class BenchError(Exception):
    """A setup step failed (build, load, registration): reported and the run stops."""


# ---------------------------------------------------------------------------------------------
# Timing


def timeit(fn, repeat):
    """Warm up once, then time `repeat` calls; returns (median s, min s, results of every call)."""
    results = [fn()]
    times = []
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.perf_counter()
            r = fn()
            t1 = time.perf_counter()
            times.append(t1 - t0)
            results.append(r)
    finally:
        if gc_was:
            gc.enable()
    return statistics.median(times), min(times), results


# ---------------------------------------------------------------------------------------------
# Machine and versions


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "processor\t: ")) and ":" in line:
                    v = line.split(":", 1)[1].strip()
                    if v and not v.isdigit():
                        return v
    except OSError:
        pass
    return platform.processor() or platform.machine()


def core_counts():
    logical = os.cpu_count() or 0
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = logical
    return logical, usable


def cc_version(cc):
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30).stdout
        return out.splitlines()[0].strip() if out else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def dist_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001 - any failure means "unknown"
        return "?"


# ---------------------------------------------------------------------------------------------
# Building


def find_cint():
    cand = Path(sys.executable).parent / "cint"
    if cand.is_file() and os.access(cand, os.X_OK):
        return str(cand)
    found = shutil.which("cint")
    if found:
        return found
    raise BenchError("no `cint` executable beside %s or on PATH; run `bash scripts/setup.sh` and use "
                     ".venv/bin/python" % sys.executable)


def build_cint(src, out_dir):
    if not Path(src).is_file():
        raise BenchError("the kernel source %s is missing" % src)
    cint = find_cint()
    cmd = [cint, "build", "--lib", "--out", str(out_dir), str(src)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as exc:
        raise BenchError("cannot run %s: %s" % (" ".join(cmd), exc)) from exc
    lib = Path(out_dir) / "libadvance.so"
    if done.returncode != 0 or not lib.is_file():
        raise BenchError("`%s` failed (exit %d), so the cint library could not be built:\n%s%s" %
                         (" ".join(cmd), done.returncode, done.stdout, done.stderr))
    return lib


def runtime_flags():
    """The compiler and flags cint uses for libraries (cint_runtime.CFLAGS), and where they came from."""
    try:
        import cint_runtime
        return cint_runtime.compiler(), list(cint_runtime.CFLAGS), "cint_runtime.CFLAGS"
    except Exception:  # noqa: BLE001
        cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or "cc"
        return cc, ["-std=c17", "-Wall", "-Wextra", "-Wpedantic", "-O2", "-fPIC", "-fvisibility=hidden"], "fallback"


PLAIN_C = r"""
/* Baselines for bench_advance.py: the same computations as advance.ci, in plain C. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))
__extension__ typedef __int128 wide;

/* next = pos + vel * dt, wrapping (no check; unsigned arithmetic so nothing is undefined). */
API void adv_plain(const int64_t *pos, const int64_t *vel, int64_t dt, int64_t *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = (int64_t)((uint64_t)pos[i] + (uint64_t)vel[i] * (uint64_t)dt);
}

/* Checked: returns -1, or the first index whose product or sum overflows (out is then partial). */
API int64_t adv_checked(const int64_t *pos, const int64_t *vel, int64_t dt, int64_t *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t m, r;
        if (__builtin_mul_overflow(vel[i], dt, &m) || __builtin_add_overflow(pos[i], m, &r)) return i;
        out[i] = r;
    }
    return -1;
}

/* Staged as cint publishes a kernel output: fresh zero-filled staging per call, the checked loop
   into it, then one memcpy to out only when no element overflowed. -2: no memory. */
API int64_t adv_staged(const int64_t *pos, const int64_t *vel, int64_t dt, int64_t *out, int64_t n)
{
    size_t bytes = (size_t)n * sizeof(int64_t);
    int64_t *stage = malloc(bytes ? bytes : 1u);
    if (stage == NULL) return -2;
    memset(stage, 0, bytes);
    int64_t f = adv_checked(pos, vel, dt, stage, n);
    if (f < 0) memcpy(out, stage, bytes);
    free(stage);
    return f;
}

/* Staged into a staging buffer the caller keeps (no allocation, no zero fill): loop + memcpy. */
API int64_t adv_staged_reuse(const int64_t *pos, const int64_t *vel, int64_t dt, int64_t *out, int64_t n,
                             int64_t *stage)
{
    int64_t f = adv_checked(pos, vel, dt, stage, n);
    if (f < 0) memcpy(out, stage, (size_t)n * sizeof(int64_t));
    return f;
}

/* Components of staging, timed alone. */
API int64_t part_alloc_zero(int64_t n)
{
    size_t bytes = (size_t)n * sizeof(int64_t);
    volatile int64_t *p = malloc(bytes ? bytes : 1u);
    if (p == NULL) return -2;
    memset((void *)p, 0, bytes);
    int64_t last = n > 0 ? p[n - 1] : 0;
    free((void *)p);
    return last;
}

API void part_memset(int64_t *dst, int64_t n)
{
    memset(dst, 0, (size_t)n * sizeof(int64_t));
}

API void part_memcpy(int64_t *dst, const int64_t *src, int64_t n)
{
    memcpy(dst, src, (size_t)n * sizeof(int64_t));
}

/* A rank-generic element walk that copies one element at a time with memcpy of a run-time size
   (a general strided copy, as a copy-out for any view layout must be able to do). */
API void part_walk_copy(uint8_t *dst, const uint8_t *src, int64_t n, int64_t elem_size, const int64_t *shape,
                        const int64_t *stride, uint32_t rank)
{
    int64_t idx[4] = {0, 0, 0, 0};
    size_t es = (size_t)elem_size;
    (void)n;
    int64_t count = 1;
    for (uint32_t d = 0; d < rank; d++) count *= shape[d];
    for (int64_t e = 0; e < count; e++) {
        int64_t off = 0;
        for (uint32_t d = 0; d < rank; d++) off += idx[d] * stride[d];
        memcpy(dst + off * elem_size, src, es);
        src += es;
        for (uint32_t d = rank; d-- > 0;) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
}

/* sum, wrapping. */
API int64_t sum_plain(const int64_t *x, int64_t n)
{
    uint64_t s = 0;
    for (int64_t i = 0; i < n; i++) s += (uint64_t)x[i];
    return (int64_t)s;
}

/* sum, every partial sum checked: returns 0 and *out, or 1 on overflow. */
API int32_t sum_checked(const int64_t *x, int64_t n, int64_t *out)
{
    int64_t s = 0;
    for (int64_t i = 0; i < n; i++)
        if (__builtin_add_overflow(s, x[i], &s)) return 1;
    *out = s;
    return 0;
}

/* sum, exact in 128 bits, then one range check of the total (cint's sum semantics: the
   mathematical sum must fit the result type; partial sums may leave it). Exact for
   n < 2^64. */
API int32_t sum_exact(const int64_t *x, int64_t n, int64_t *out)
{
    wide s = 0;
    for (int64_t i = 0; i < n; i++) s += x[i];
    if (s > INT64_MAX || s < INT64_MIN) return 1;
    *out = (int64_t)s;
    return 0;
}
"""


def build_plain(out_dir):
    cc, flags, origin = runtime_flags()
    src = Path(out_dir) / "plain_advance.c"
    lib = Path(out_dir) / "libplain_advance.so"
    src.write_text(PLAIN_C, encoding="utf-8")
    cmd = [cc] + flags + ["-shared", str(src), "-o", str(lib)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        raise BenchError("cannot run the C compiler: %s" % exc) from exc
    if done.returncode != 0:
        raise BenchError("compiling the plain C baseline failed:\n%s\n%s" % (" ".join(cmd), done.stderr))
    return lib, cc, flags, origin


# ---------------------------------------------------------------------------------------------
# The cint library through ctypes


I64P = C.POINTER(C.c_int64)
VP = C.c_void_p


class CintLib:
    """libadvance.so with the prototypes of cint_rt_host.h and the two wrappers of advance.ci."""

    def __init__(self, path):
        try:
            self.lib = lib = C.CDLL(str(path))
        except OSError as exc:
            raise BenchError("cannot load %s: %s" % (path, exc)) from exc

        def fn(name, restype, *argtypes):
            try:
                f = getattr(lib, name)
            except AttributeError as exc:
                raise BenchError("%s does not export %s" % (path, name)) from exc
            f.restype = restype
            f.argtypes = list(argtypes)
            return f

        u64p = C.POINTER(C.c_uint64)
        self.abi_version = fn("cint_abi_version", C.c_uint32)
        self.ctx_create = fn("cint_ctx_create", C.c_int32, C.POINTER(S.cint_ctx_config), C.POINTER(VP))
        self.ctx_destroy = fn("cint_ctx_destroy", None, VP)
        self.buffer_register = fn("cint_buffer_register", C.c_int32, VP, C.POINTER(S.cint_buffer_desc), u64p, u64p)
        self.buffer_create = fn("cint_buffer_create", C.c_int32, VP, S.cint_type, C.c_int64, C.c_uint32, u64p, u64p)
        self.buffer_release = fn("cint_buffer_release", C.c_int32, VP, C.c_uint64)
        self.buffer_lease = fn("cint_buffer_lease", C.c_int32, VP, C.c_uint64, C.POINTER(VP), u64p)
        self.lease_end = fn("cint_lease_end", C.c_int32, VP, C.c_uint64)
        self.buffer_read = fn("cint_buffer_read", C.c_int32, VP, S.cint_view, VP, C.c_size_t)
        self.ctx_fault = fn("cint_ctx_fault", C.c_int32, VP, C.POINTER(S.cint_fault_record))
        self.ctx_clear_fault = fn("cint_ctx_clear_fault", C.c_int32, VP)
        self.ctx_refusal = fn("cint_ctx_refusal", C.c_int32, VP, C.POINTER(C.c_uint32))
        self.advance = fn("cx_7_advance_7_advance", C.c_int32, VP, C.c_int64, S.cint_view, S.cint_view, C.c_int64,
                          S.cint_view)
        self.total = fn("cx_7_advance_5_total", C.c_int32, VP, C.c_int64, S.cint_view, I64P)
        try:
            self.module = S.cint_module_info.in_dll(lib, "cm_7_advance")
        except ValueError as exc:
            raise BenchError("%s has no module descriptor cm_7_advance" % path) from exc


def i64_type():
    t = S.cint_type()
    t.code = CINT_TAG_I64
    return t


def make_view(buf_id, generation, n, writable):
    v = S.cint_view()
    v.buffer = buf_id
    v.generation = generation
    v.type.code = CINT_TAG_I64
    v.rank = 1
    v.perm = CINT_VIEW_WRITE if writable else CINT_VIEW_READ
    v.shape[0] = n
    v.stride[0] = 1
    return v


class CachingAllocator:
    """A cint_allocator that keeps released blocks for reuse by size and never returns them to the
    system while it lives. The staging storage of each dispatch then lands on pages that are already
    mapped, so the difference with the default allocator (malloc and free) is the cost of fresh pages."""

    def __init__(self):
        self.free = {}    # size -> [address, ...]
        self.blocks = {}  # address -> ctypes buffer that owns the block
        self.calls = 0

        def alloc(user, size, align):
            self.calls += 1
            spare = self.free.get(size)
            if spare:
                return spare.pop()
            buf = C.create_string_buffer(size)  # malloc'd: 16-byte aligned on x86-64 and AArch64
            addr = C.addressof(buf)
            if addr % max(align, 1):
                return None
            self.blocks[addr] = buf
            return addr

        def release(user, ptr, size, align):
            self.free.setdefault(size, []).append(ptr)

        self.c_alloc = S.cint_alloc_fn(alloc)
        self.c_release = S.cint_release_fn(release)

    def install(self, cfg):
        cfg.allocator.alloc = self.c_alloc
        cfg.allocator.release = self.c_release
        cfg.allocator.user = None


class Context:
    def __init__(self, cl: CintLib, allocator: CachingAllocator = None):
        self.cl = cl
        cfg = S.cint_ctx_config()
        cfg.size = C.sizeof(S.cint_ctx_config)
        cfg.program = cl.module.program
        cfg.module = C.pointer(cl.module)
        self.allocator = allocator
        if allocator is not None:
            allocator.install(cfg)
        self._cfg = cfg
        self.ptr = VP()
        st = cl.ctx_create(C.byref(cfg), C.byref(self.ptr))
        if st != CINT_OK:
            raise BenchError("cint_ctx_create returned status %d" % st)
        self.ids = []
        self._keep = []

    def refusal(self):
        r = C.c_uint32()
        self.cl.ctx_refusal(self.ptr, C.byref(r))
        return r.value

    def register(self, arr: np.ndarray, writable: bool, publish: int):
        """Registers a contiguous I64 NumPy array (borrowed memory) and returns a view of all of it."""
        assert arr.dtype == np.int64 and arr.flags.c_contiguous and arr.ndim == 1
        d = S.cint_buffer_desc()
        d.size = C.sizeof(S.cint_buffer_desc)
        d.writable = 1 if writable else 0
        d.type.code = CINT_TAG_I64
        d.mem.kind = CINT_MEM_HOST
        d.mem.u.host.ptr = arr.ctypes.data
        d.extent = arr.shape[0]
        d.publish = publish
        bid, gen = C.c_uint64(), C.c_uint64()
        st = self.cl.buffer_register(self.ptr, C.byref(d), C.byref(bid), C.byref(gen))
        if st != CINT_OK:
            raise BenchError("cint_buffer_register returned status %d (refusal reason %d)" % (st, self.refusal()))
        self.ids.append(bid.value)
        self._keep.append(arr)
        return make_view(bid.value, gen.value, arr.shape[0], writable)

    def create(self, n):
        """A runtime-owned, zero-filled I64 buffer of n elements (cint_buffer_create); a write view of it."""
        bid, gen = C.c_uint64(), C.c_uint64()
        st = self.cl.buffer_create(self.ptr, i64_type(), n, 0, C.byref(bid), C.byref(gen))
        if st != CINT_OK:
            raise BenchError("cint_buffer_create returned status %d (refusal reason %d)" % (st, self.refusal()))
        self.ids.append(bid.value)
        return make_view(bid.value, gen.value, n, True)

    def lease_array(self, view, n):
        """(lease, read-only NumPy array over the runtime's storage of a created buffer)."""
        p, lease = VP(), C.c_uint64()
        st = self.cl.buffer_lease(self.ptr, view.buffer, C.byref(p), C.byref(lease))
        if st != CINT_OK:
            raise BenchError("cint_buffer_lease returned status %d" % st)
        a = np.ctypeslib.as_array(C.cast(p, I64P), shape=(n,))
        a.flags.writeable = False
        return lease.value, a

    def fault(self):
        rec = S.cint_fault_record()
        st = self.cl.ctx_fault(self.ptr, C.byref(rec))
        if st != CINT_OK:
            raise BenchError("cint_ctx_fault returned status %d" % st)
        return rec

    def clear_fault(self):
        st = self.cl.ctx_clear_fault(self.ptr)
        if st != CINT_OK:
            raise BenchError("cint_ctx_clear_fault returned status %d" % st)

    def close(self):
        for bid in reversed(self.ids):
            self.cl.buffer_release(self.ptr, bid)
        self.ids.clear()
        self.cl.ctx_destroy(self.ptr)
        self.ptr = VP()
        self._keep.clear()


# ---------------------------------------------------------------------------------------------
# Numba


def load_numba():
    try:
        import numba
        from numba import njit
    except Exception as exc:  # noqa: BLE001 - ImportError or a broken install
        return None, "numba is not installed (%s); `.venv/bin/pip install numba` to add its rows" % exc

    @njit(cache=False, nogil=True)
    def nb_advance(pos, vel, dt, out):
        for i in range(pos.shape[0]):
            out[i] = pos[i] + vel[i] * dt

    @njit(cache=False, nogil=True)
    def nb_advance_checked(pos, vel, dt, out, lo, hi):
        # vel[i] * dt fits I64 exactly when lo <= vel[i] <= hi (bounds computed once per call);
        # the sum overflows exactly when both operands differ in sign from the wrapped result.
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

    return (numba.__version__, nb_advance, nb_advance_checked), None


def mul_bounds(dt):
    """(lo, hi) such that v * dt fits I64 exactly when lo <= v <= hi (Python integers, exact)."""
    if dt == 0:
        return I64_MIN, I64_MAX
    if dt > 0:
        lo, hi = -((-I64_MIN) // dt), I64_MAX // dt
    else:
        lo, hi = -((-I64_MAX) // dt), I64_MIN // dt
    return max(lo, I64_MIN), min(hi, I64_MAX)


# ---------------------------------------------------------------------------------------------
# Reporting


class Table:
    def __init__(self, title, ref_label, nbytes):
        self.title, self.ref_label, self.nbytes = title, ref_label, nbytes
        self.rows = []  # (label, median, min, bytes) or (label, None, note, None)

    def add(self, label, med, mn, nbytes=None):
        self.rows.append((label, med, mn, nbytes or self.nbytes))

    def skip(self, label, why):
        self.rows.append((label, None, why, None))

    def get(self, label, which=1):
        for r in self.rows:
            if r[0] == label and r[1] is not None:
                return r[which]
        return None

    def get_min(self, label):
        return self.get(label, 2)

    def lines(self, md=False):
        ref = self.get(self.ref_label)
        head = ("row", "median ms", "min ms", "GB/s", "cint / row")
        w = max(len(r[0]) for r in self.rows)
        out = []
        if md:
            out.append("| " + " | ".join(head) + " |")
            out.append("| --- | ---: | ---: | ---: | ---: |")
        else:
            out.append("%-*s  %10s  %10s  %7s  %10s" % ((w,) + head))
            out.append("-" * (w + 45))
        for lab, med, mn, nb in self.rows:
            if med is None:
                cells = (lab, "skipped: " + mn, "", "", "")
            else:
                ratio = "%.2f" % (ref / med) if ref else "-"
                cells = (lab, "%.2f" % (med * 1e3), "%.2f" % (mn * 1e3), "%.1f" % (nb / med / 1e9), ratio)
            if md:
                out.append("| " + " | ".join(cells) + " |")
            else:
                out.append("%-*s  %10s  %10s  %7s  %10s" % ((w,) + cells))
        return out


def ratio_line(t_num, t_den, what):
    if t_num is None or t_den is None:
        return "%-48s  n/a" % what
    return "%-48s  %.2f" % (what, t_num / t_den)


# ---------------------------------------------------------------------------------------------
# The benchmark


def check(cond, what):
    if not cond:
        raise BenchError("verification failed: " + what)


def run(args):
    n, repeat = args.n, args.repeat
    if n < 16:
        raise BenchError("--n must be at least 16")
    if repeat < 1:
        raise BenchError("--repeat must be at least 1")
    logical, usable = core_counts()
    info = {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "cpu": cpu_model(),
        "cores": "%d logical, %d usable by this process" % (logical, usable),
        "os": "%s %s (%s)" % (platform.system(), platform.release(), platform.machine()),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cint": "cint-compiler %s, cint-runtime %s" % (dist_version("cint-compiler"), dist_version("cint-runtime")),
    }
    lines_out = []

    def say(s=""):
        print(s, flush=True)
        lines_out.append(s)

    tmp = tempfile.mkdtemp(prefix="cint-bench-")
    try:
        print("building %s with `cint build --lib` ..." % (HERE / "advance.ci"), flush=True)
        cint_path = build_cint(HERE / "advance.ci", tmp)
        cl = CintLib(cint_path)
        abi = cl.abi_version()
        info["cint"] += ", interface %d.%d" % (abi >> 16, abi & 0xFFFF)

        plain = None
        plain_why = None
        try:
            plain_path, cc, flags, origin = build_plain(tmp)
            plain = C.CDLL(str(plain_path))
            info["cc"] = "%s: %s (%s %s)" % (cc, cc_version(cc), origin, " ".join(flags))
        except (BenchError, OSError) as exc:
            plain_why = "plain C baseline unavailable: %s" % exc
            info["cc"] = plain_why
        if plain is not None:
            for name, res, argt in [
                ("adv_plain", None, [I64P, I64P, C.c_int64, I64P, C.c_int64]),
                ("adv_checked", C.c_int64, [I64P, I64P, C.c_int64, I64P, C.c_int64]),
                ("adv_staged", C.c_int64, [I64P, I64P, C.c_int64, I64P, C.c_int64]),
                ("adv_staged_reuse", C.c_int64, [I64P, I64P, C.c_int64, I64P, C.c_int64, I64P]),
                ("part_alloc_zero", C.c_int64, [C.c_int64]),
                ("part_memset", None, [I64P, C.c_int64]),
                ("part_memcpy", None, [I64P, I64P, C.c_int64]),
                ("part_walk_copy", None, [VP, VP, C.c_int64, C.c_int64, I64P, I64P, C.c_uint32]),
                ("sum_plain", C.c_int64, [I64P, C.c_int64]),
                ("sum_checked", C.c_int32, [I64P, C.c_int64, I64P]),
                ("sum_exact", C.c_int32, [I64P, C.c_int64, I64P]),
            ]:
                f = getattr(plain, name)
                f.restype = res
                f.argtypes = argt

        nb, nb_why = load_numba()
        info["numba"] = nb[0] if nb else "not available"

        say("cint benchmark: advance and sum on I64, n = {:,}, median of {} runs after one warm-up".format(n, repeat))
        for k in ("date", "cpu", "cores", "os", "python", "numpy", "numba", "cint", "cc"):
            say("  %-7s %s" % (k + ":", info[k]))
        say("  all rows run on one thread")
        if nb_why:
            say("  note: " + nb_why)
        if plain_why:
            say("  note: " + plain_why)
        say()

        # ---- data ----
        rng = np.random.default_rng(20260101)
        pos = rng.integers(-(2**40), 2**40, size=n, dtype=np.int64)
        vel = rng.integers(-(2**20), 2**20, size=n, dtype=np.int64)
        dt = 3
        expected = pos + vel * dt

        ctx = Context(cl)
        vp = ctx.register(pos, False, CINT_PUBLISH_NONE)
        vv = ctx.register(vel, False, CINT_PUBLISH_NONE)
        nxt = np.zeros(n, dtype=np.int64)
        vn = ctx.register(nxt, True, CINT_PUBLISH_COPY)
        vb = ctx.create(n)
        cptr = ctx.ptr
        adv = cl.advance

        # ---- verification, part 1 ----
        st = adv(cptr, FUEL_UNBOUNDED, vp, vv, dt, vn)
        check(st == CINT_OK, "cint advance (borrowed output) returned status %d" % st)
        check(np.array_equal(nxt, expected), "cint advance (borrowed output) differs from NumPy")
        st = adv(cptr, FUEL_UNBOUNDED, vp, vv, dt, vb)
        check(st == CINT_OK, "cint advance (runtime buffer) returned status %d" % st)
        lease, leased = ctx.lease_array(vb, n)
        check(np.array_equal(leased, expected), "cint advance (runtime buffer) differs from NumPy")
        del leased
        check(cl.lease_end(cptr, lease) == CINT_OK, "cint_lease_end failed")
        readback = np.empty(n, dtype=np.int64)
        st = cl.buffer_read(cptr, vb, readback.ctypes.data, readback.nbytes)
        check(st == CINT_OK and np.array_equal(readback, expected), "cint_buffer_read of the output differs")

        # overflow: vel[k] * 2 = 2^63 at k = n // 2; the dispatch faults and publishes nothing
        k_bad = n // 2
        vel_bad = vel.copy()
        vel_bad[k_bad] = 2**62
        vvb = ctx.register(vel_bad, False, CINT_PUBLISH_NONE)
        before = nxt.copy()
        st = adv(cptr, FUEL_UNBOUNDED, vp, vvb, 2, vn)
        check(st == CINT_FAULT, "cint advance on an overflowing input returned status %d, not 1" % st)
        rec = ctx.fault()
        check(rec.code == CINT_E_OVERFLOW, "the fault code is %d, not E_OVERFLOW" % rec.code)
        check(rec.has_address and rec.address.work_item == k_bad,
              "the fault is not at work item %d" % k_bad)
        op = bytes(rec.operation[:rec.operation_len]).decode("ascii", "replace")
        check(np.array_equal(nxt, before), "a faulting dispatch changed the borrowed output")
        ctx.clear_fault()
        fault_note = "overflow input (vel[%d] = 2^62, dt = 2): status %d, %s at work item %d, output unchanged" % (
            k_bad, st, op, rec.address.work_item)

        # per-call cost of the wrapper at n = 1 (entry checks, staging, ctypes)
        s_pos, s_vel, s_nxt = pos[:1].copy(), vel[:1].copy(), np.zeros(1, dtype=np.int64)
        svp = ctx.register(s_pos, False, CINT_PUBLISH_NONE)
        svv = ctx.register(s_vel, False, CINT_PUBLISH_NONE)
        svn = ctx.register(s_nxt, True, CINT_PUBLISH_COPY)
        check(adv(cptr, FUEL_UNBOUNDED, svp, svv, dt, svn) == CINT_OK and s_nxt[0] == expected[0],
              "cint advance at n = 1")
        calls = 2000
        t0 = time.perf_counter()
        for _ in range(calls):
            adv(cptr, FUEL_UNBOUNDED, svp, svv, dt, svn)
        per_call_cint = (time.perf_counter() - t0) / calls

        # NumPy, Numba and plain C outputs
        tmp_np = np.empty(n, dtype=np.int64)
        out_np = np.empty(n, dtype=np.int64)
        out_x = np.empty(n, dtype=np.int64)
        stage = np.empty(n, dtype=np.int64)

        def np_out():
            np.multiply(vel, dt, out=tmp_np)
            np.add(pos, tmp_np, out=out_np)

        np_out()
        check(np.array_equal(out_np, expected), "NumPy out= differs")

        pp, vvp, op_ = (a.ctypes.data_as(I64P) for a in (pos, vel, out_x))
        velbp = vel_bad.ctypes.data_as(I64P)
        stp = stage.ctypes.data_as(I64P)
        if plain is not None:
            for name in ("adv_plain", "adv_checked", "adv_staged", "adv_staged_reuse"):
                out_x.fill(0)
                extra = (stp,) if name == "adv_staged_reuse" else ()
                r = getattr(plain, name)(pp, vvp, dt, op_, n, *extra)
                check(r in (None, -1), "plain C %s returned %s" % (name, r))
                check(np.array_equal(out_x, expected), "plain C %s differs from NumPy" % name)
                if name != "adv_plain":
                    out_x.fill(7)
                    r = getattr(plain, name)(pp, velbp, 2, op_, n, *extra)
                    check(r == k_bad, "plain C %s does not detect the overflow at %d (got %s)" % (name, k_bad, r))
                    if name != "adv_checked":
                        check(bool(np.all(out_x == 7)), "plain C %s published after an overflow" % name)
            # the add check too: pos[1] = I64 MAX, vel[1] * dt = 1
            a_pos = np.array([0, I64_MAX, 0], dtype=np.int64)
            a_vel = np.array([0, 1, 0], dtype=np.int64)
            a_out = np.zeros(3, dtype=np.int64)
            r = plain.adv_checked(a_pos.ctypes.data_as(I64P), a_vel.ctypes.data_as(I64P), 1,
                                  a_out.ctypes.data_as(I64P), 3)
            check(r == 1, "plain C adv_checked does not detect an add overflow")

        if nb is not None:
            _, nb_adv, nb_chk = nb
            lo, hi = mul_bounds(dt)
            lo2, hi2 = mul_bounds(2)
            for d in (-7, -3, -2, -1, 0, 1, 2, 3, 5, 1 << 40, -(1 << 40), I64_MAX, I64_MIN):
                blo, bhi = mul_bounds(d)
                for v in (I64_MIN, I64_MIN + 1, -(2**62), -5, -1, 0, 1, 5, 2**62, I64_MAX - 1, I64_MAX,
                          blo, bhi, max(blo - 1, I64_MIN), min(bhi + 1, I64_MAX)):
                    check((blo <= v <= bhi) == (I64_MIN <= v * d <= I64_MAX), "mul_bounds(%d) at %d" % (d, v))
            out_x.fill(0)
            nb_adv(pos, vel, dt, out_x)
            check(np.array_equal(out_x, expected), "Numba unchecked differs from NumPy")
            out_x.fill(0)
            check(nb_chk(pos, vel, dt, out_x, lo, hi) == -1, "Numba checked reports an overflow")
            check(np.array_equal(out_x, expected), "Numba checked differs from NumPy")
            check(nb_chk(pos, vel_bad, 2, out_x, lo2, hi2) == k_bad, "Numba checked misses the mul overflow")
            a_pos = np.array([0, I64_MAX, 0], dtype=np.int64)
            a_vel = np.array([0, 1, 0], dtype=np.int64)
            l1, h1 = mul_bounds(1)
            check(nb_chk(a_pos, a_vel, 1, np.zeros(3, dtype=np.int64), l1, h1) == 1,
                  "Numba checked misses an add overflow")

        # ---- timing, part 1 ----
        nbytes_adv = 3 * 8 * n  # read pos, vel; write next
        t1 = Table("advance", "cint, borrowed out (publish copy)", nbytes_adv)
        ok0 = lambda rs: all(r == CINT_OK for r in rs)  # noqa: E731

        def row(table, label, fn, ok=None, nbytes=None):
            med, mn, rs = timeit(fn, repeat)
            if ok is not None and not ok(rs):
                raise BenchError("%s: a timed call failed: %r" % (label, sorted(set(map(str, rs)))))
            table.add(label, med, mn, nbytes)
            return med

        row(t1, "cint, borrowed out (publish copy)", lambda: adv(cptr, FUEL_UNBOUNDED, vp, vv, dt, vn), ok0)
        row(t1, "cint, runtime buffer out (cint_buffer_create)", lambda: adv(cptr, FUEL_UNBOUNDED, vp, vv, dt, vb),
            ok0)
        # the same kernel in a context whose allocator reuses staging blocks (cint_ctx_config.allocator)
        actx = Context(cl, CachingAllocator())
        nxt2 = np.zeros(n, dtype=np.int64)
        avp = actx.register(pos, False, CINT_PUBLISH_NONE)
        avv = actx.register(vel, False, CINT_PUBLISH_NONE)
        avn = actx.register(nxt2, True, CINT_PUBLISH_COPY)
        aptr = actx.ptr
        row(t1, "cint, borrowed out, caching allocator", lambda: adv(aptr, FUEL_UNBOUNDED, avp, avv, dt, avn), ok0)
        check(np.array_equal(nxt2, expected), "cint advance with the caching allocator differs from NumPy")
        actx.close()
        del nxt2
        rb_ptr, rb_bytes = readback.ctypes.data, readback.nbytes
        bread = cl.buffer_read

        def buf_then_read():
            s = adv(cptr, FUEL_UNBOUNDED, vp, vv, dt, vb)
            return s or bread(cptr, vb, rb_ptr, rb_bytes)

        row(t1, "cint, runtime buffer out + cint_buffer_read", buf_then_read, ok0)
        check(np.array_equal(nxt, expected) and np.array_equal(readback, expected), "cint outputs after timing")

        # the new array is dropped at once, so its release is timed too (as in a loop that reuses the name)
        row(t1, "NumPy pos + vel * dt (allocating)", lambda: (pos + vel * dt, None)[1])
        row(t1, "NumPy out= (multiply, add)", np_out)
        if nb is not None:
            row(t1, "Numba @njit loop, unchecked", lambda: nb_adv(pos, vel, dt, out_x))
            row(t1, "Numba @njit loop, checked", lambda: nb_chk(pos, vel, dt, out_x, lo, hi), lambda rs: set(rs) == {-1})
        else:
            t1.skip("Numba @njit loop, unchecked", "numba missing")
            t1.skip("Numba @njit loop, checked", "numba missing")
        okc = lambda rs: set(rs) == {-1}  # noqa: E731
        if plain is not None:
            row(t1, "plain C, unchecked", lambda: plain.adv_plain(pp, vvp, dt, op_, n))
            row(t1, "plain C, checked (__builtin_*_overflow)", lambda: plain.adv_checked(pp, vvp, dt, op_, n), okc)
            row(t1, "plain C, checked, staged (malloc+zero+memcpy)", lambda: plain.adv_staged(pp, vvp, dt, op_, n),
                okc)
            row(t1, "plain C, checked, staged into reused buffer",
                lambda: plain.adv_staged_reuse(pp, vvp, dt, op_, n, stp), okc)
            check(np.array_equal(out_x, expected), "plain C output after timing")
        else:
            for lab in ("plain C, unchecked", "plain C, checked (__builtin_*_overflow)",
                        "plain C, checked, staged (malloc+zero+memcpy)", "plain C, checked, staged into reused buffer"):
                t1.skip(lab, "no C compiler")

        # components of staging (plain C, n elements of I64)
        parts = Table("staging components", None, 2 * 8 * n)
        if plain is not None:
            sp = stage.ctypes.data_as(I64P)
            shape = (C.c_int64 * 4)(n, 0, 0, 0)
            stride = (C.c_int64 * 4)(1, 0, 0, 0)
            row(parts, "malloc + memset 0 + free (fresh staging)", lambda: plain.part_alloc_zero(n), nbytes=8 * n)
            row(parts, "memset 0 of a reused buffer (pages mapped)", lambda: plain.part_memset(sp, n), nbytes=8 * n)
            row(parts, "memcpy staging -> output", lambda: plain.part_memcpy(op_, sp, n))
            row(parts, "element-wise generic walk copy (memcpy of 8 B each)",
                lambda: plain.part_walk_copy(out_x.ctypes.data, stage.ctypes.data, n, 8, shape, stride, 1))

        # ---- part 2: sum ----
        x = rng.integers(-(2**30), 2**30, size=n, dtype=np.int64)
        expected_sum = int(np.sum(x))
        # |x[i]| < 2^30, so numpy.sum cannot wrap for n < 2^33: its answer is the exact sum
        vx = ctx.register(x, False, CINT_PUBLISH_NONE)
        res = C.c_int64()
        resp = C.byref(res)
        tot = cl.total
        st = tot(cptr, FUEL_UNBOUNDED, vx, resp)
        check(st == CINT_OK and res.value == expected_sum, "cint total differs from numpy.sum (%d: %d vs %d)" % (
            st, res.value, expected_sum))
        # an overflowing total: four elements of 2^62 make the exact sum leave I64
        x_bad = x.copy()
        x_bad[:4] = 2**62
        vxb = ctx.register(x_bad, False, CINT_PUBLISH_NONE)
        res.value = 12345
        st = tot(cptr, FUEL_UNBOUNDED, vxb, resp)
        check(st == CINT_FAULT, "cint total on an overflowing input returned status %d, not 1" % st)
        rec = ctx.fault()
        sop = bytes(rec.operation[:rec.operation_len]).decode("ascii", "replace")
        check(rec.code == CINT_E_OVERFLOW and res.value == 12345, "cint total fault record or result")
        ctx.clear_fault()
        # partial sums that leave I64 while the total fits: cint's sum is exact, so it answers
        x_edge = np.array([I64_MAX, 1, -1, -5], dtype=np.int64)
        vxe = ctx.register(x_edge, False, CINT_PUBLISH_NONE)
        st = tot(cptr, FUEL_UNBOUNDED, vxe, resp)
        check(st == CINT_OK and res.value == int(np.sum(x_edge)) == I64_MAX - 5, "cint total with wide partial sums")
        sum_note = ("overflow input (x[0:4] = 2^62): status %d, %s (numpy.sum wraps to %d); "
                    "[I64 MAX, 1, -1, -5]: status 0, %d" % (1, sop, int(np.sum(x_bad)), res.value))
        xp = x.ctypes.data_as(I64P)
        if plain is not None:
            check(plain.sum_plain(xp, n) == expected_sum, "plain C sum")
            check(plain.sum_checked(xp, n, resp) == 0 and res.value == expected_sum, "plain C checked sum")
            check(plain.sum_exact(xp, n, resp) == 0 and res.value == expected_sum, "plain C exact sum")
            check(plain.sum_exact(x_bad.ctypes.data_as(I64P), n, resp) == 1, "plain C exact sum misses the overflow")
            check(plain.sum_checked(x_bad.ctypes.data_as(I64P), n, resp) == 1,
                  "plain C checked sum misses the overflow")

        t2 = Table("sum", "cint total (checked sum)", 8 * n)
        row(t2, "cint total (checked sum)", lambda: tot(cptr, FUEL_UNBOUNDED, vx, resp), ok0)
        check(res.value == expected_sum, "cint total after timing")
        row(t2, "numpy.sum(x)", lambda: np.sum(x), lambda rs: set(int(r) for r in rs) == {expected_sum})
        if plain is not None:
            row(t2, "plain C, unchecked (wrapping)", lambda: plain.sum_plain(xp, n),
                lambda rs: set(rs) == {expected_sum})
            row(t2, "plain C, checked per step (__builtin_add_overflow)", lambda: plain.sum_checked(xp, n, resp),
                lambda rs: set(rs) == {0})
            row(t2, "plain C, exact (__int128) + one range check", lambda: plain.sum_exact(xp, n, resp),
                lambda rs: set(rs) == {0})
        else:
            for lab in ("plain C, unchecked (wrapping)", "plain C, checked per step (__builtin_add_overflow)",
                        "plain C, exact (__int128) + one range check"):
                t2.skip(lab, "no C compiler")

        ctx.close()

        # ---- report ----
        md = args.markdown is not None
        say("1. advance: next[i] = pos[i] + vel[i] * dt, I64, n = {:,} (GB/s counts 24 bytes per element)".format(n))
        for ln in t1.lines():
            say(ln)
        say()
        cb = t1.get("cint, borrowed out (publish copy)")
        cr = t1.get("cint, runtime buffer out (cint_buffer_create)")
        say("ratios (time / time; above 1 means cint is slower):")
        for lab_c, tc in (("cint borrowed", cb), ("cint buffer", cr)):
            say("  " + ratio_line(tc, t1.get("plain C, checked, staged (malloc+zero+memcpy)"),
                                  "%s / plain-C-staged" % lab_c))
            say("  " + ratio_line(tc, t1.get("NumPy pos + vel * dt (allocating)"), "%s / NumPy-allocating" % lab_c))
            say("  " + ratio_line(tc, t1.get("NumPy out= (multiply, add)"), "%s / NumPy-out" % lab_c))
        say("  " + ratio_line(t1.get("cint, borrowed out, caching allocator"),
                              t1.get("plain C, checked, staged into reused buffer"),
                              "cint caching allocator / plain-C-staged-reused"))
        say("  " + ratio_line(cb, t1.get("plain C, checked (__builtin_*_overflow)"), "cint borrowed / plain-C-checked"))
        say("  " + ratio_line(cb, t1.get("plain C, unchecked"), "cint borrowed / plain-C-unchecked"))
        say("per-call cost of the cint wrapper at n = 1 through ctypes: %.2f us" % (per_call_cint * 1e6))
        fresh = parts.get_min("malloc + memset 0 + free (fresh staging)")
        walk = parts.get_min("element-wise generic walk copy (memcpy of 8 B each)")
        cbm = t1.get_min("cint, borrowed out (publish copy)")
        chk = t1.get_min("plain C, checked (__builtin_*_overflow)")
        cpy = parts.get_min("memcpy staging -> output") if parts.rows else None
        if None not in (cbm, chk, cpy):
            # a borrowed output's floor is the checked loop plus the one staged copy RT-19 and M-30a require
            say("floor of a borrowed output: checked loop %.1f + one memcpy %.1f = %.1f ms; cint borrowed %.1f ms" % (
                chk * 1e3, cpy * 1e3, (chk + cpy) * 1e3, cbm * 1e3))
        say("check: " + fault_note)
        say()
        if parts.rows:
            say("staging components in plain C, n = {:,} I64 (GB/s counts the bytes written, plus those read "
                "by a copy):".format(n))
            for ln in parts.lines():
                say(ln)
            say()
        say("2. sum: total = sum(x), I64, n = {:,} (GB/s counts 8 bytes per element)".format(n))
        for ln in t2.lines():
            say(ln)
        say()
        ct = t2.get("cint total (checked sum)")
        say("ratios:")
        say("  " + ratio_line(ct, t2.get("numpy.sum(x)"), "cint total / numpy.sum"))
        say("  " + ratio_line(ct, t2.get("plain C, unchecked (wrapping)"), "cint total / plain-C-unchecked"))
        say("  " + ratio_line(ct, t2.get("plain C, exact (__int128) + one range check"),
                              "cint total / plain-C-exact"))
        say("check: " + sum_note)
        say("all results equal NumPy's")

        if md:
            write_markdown(Path(args.markdown), info, n, repeat, t1, parts, t2, lines_out)
            print("wrote %s" % args.markdown)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def write_markdown(path, info, n, repeat, t1, parts, t2, lines_out):
    out = ["# Benchmark results", "",
           "Produced by `.venv/bin/python bench/bench_advance.py --n %d --repeat %d --markdown %s`." % (
               n, repeat, path), ""]
    for k in ("date", "cpu", "cores", "os", "python", "numpy", "numba", "cint", "cc"):
        out.append("- %s: %s" % (k, info[k]))
    out.append("- every row is single-threaded; times are the median (and minimum) of %d runs after one warm-up" %
               repeat)
    out += ["", "## 1. advance (I64, n = {:,})".format(n), ""] + t1.lines(md=True)
    out += ["", "`cint / row` is the cint borrowed-output time divided by the row's time. GB/s counts 24 bytes "
            "per element.", ""]
    if parts.rows:
        out += ["### staging components (plain C, n = {:,})".format(n), ""] + parts.lines(md=True) + [""]
    out += ["## 2. sum (I64, n = {:,})".format(n), ""] + t2.lines(md=True) + [""]
    out += ["## Ratios and checks", "", "```"]
    keep = False
    for ln in lines_out:
        if ln.startswith(("ratios", "per-call", "estimate", "check:", "all results")):
            keep = True
        elif not ln.startswith("  "):
            keep = False
        if keep:
            out.append(ln)
    out += ["```", ""]
    path.write_text("\n".join(out), encoding="utf-8")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="elements (default 10,000,000)")
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per row; the median is reported (default 7)")
    ap.add_argument("--markdown", metavar="FILE", help="also write the results as Markdown to FILE")
    args = ap.parse_args(argv)
    try:
        run(args)
    except BenchError as exc:
        print("bench: error: %s" % exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
