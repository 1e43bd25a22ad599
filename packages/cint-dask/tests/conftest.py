"""Fixtures of the cint-dask tests: one module of kernels built into a private cache, the single call
that each chunked call must equal, and a 2-worker distributed.LocalCluster on the loopback only."""
import os

import numpy as np
import pytest

import cint

SRC = """\
I64 calls = 0;

export I64 touch(I64 d) {
    calls += d;
    return calls;
}

export kernel scale[n](in I64[n] x, in I64 f, out I64[n] y) over [i: n] {
    y[i] = x[i] * f;
}

export kernel fir[m](in I32[m + 4] x, out I32[m] y) over [i: m] {
    y[i] = x[i] * 3 + x[i + 1] - x[i + 4] * x[i + 2];
}

export kernel blur[h, w](in I64[h + 2, w + 2] a, out I64[h, w] b) over [i: h, j: w] {
    b[i, j] = a[i, j + 1] + a[i + 1, j] + a[i + 1, j + 1] * 4 + a[i + 1, j + 2] + a[i + 2, j + 1];
}

export kernel loopy[n](in I64[n] x, out I64[n] y) over [i: n] {
    I64 s = 0;
    for (I64 k = 0; k < x[i]; k++) {
        s = s + k;
    }
    y[i] = s * 1000000000000;
}

export kernel grid[h, w](in I64[h, w] x, out I64[h, w] y, out I64[h, w] z) over [i: h, j: w] {
    I64 s = 0;
    for (I64 k = 0; k < x[i, j]; k++) {
        s = s + 1;
    }
    y[i, j] = s * 4611686018427387904;
    z[i, j] = x[i, j] + 1;
}

export kernel bump[n](inout I64[n] x, in I64 d) over [i: n] {
    x[i] = x[i] + d;
}

export kernel times[n](in I64[n] a, in I64[n] b, out I64[n] c) {
    c = a * b;
}

export kernel rows[h, w](in I64[h, w] a, out I64[h] s) over [i: h] {
    I64 t = 0;
    for (I64 j = 0; j < w; j++) {
        t = t + a[i, j];
    }
    s[i] = t;
}

export kernel gather[n, k](in I64[n] idx, in I64[k] t, out I64[n] y) over [i: n] {
    y[i] = t[idx[i]];
}

export kernel spin[n](in I64[n] x, out I64[n] y) over [i: n] {
    I64 s = 0;
    for (I64 k = 0; k < x[i]; k++) {
        s = (s * 7 + k) % 1000003;
    }
    y[i] = s;
}

export kernel constant[n](in I64 v, out I64[n] y) over [i: n] {
    y[i] = v * 2;
}

export kernel ramp[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] + i;
}

export kernel rev[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[n - 1 - i];
}

export kernel sized[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] * n;
}

export kernel lag[m](in I64[m + 1] x, out I64[m] y) over [i: m] {
    y[i] = x[i + 2];
}

export kernel firstof[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[0];
}

export kernel short[m](in I64[m] x, out I64[m + 1] y) over [i: m] {
    y[i] = x[i];
}

export kernel total[n](in I64[n] x, out I64 s) over [i: n] {
    reduce s = sum(x[i]);
}

export kernel limited[n](in I64[n] x, out I64[n] y) over [i: n] where n >= 4 {
    y[i] = x[i];
}
"""


@pytest.fixture(scope="session")
def mod(tmp_path_factory):
    base = tmp_path_factory.mktemp("cint_dask")
    old = os.environ.get("CINT_PY_CACHE")
    os.environ["CINT_PY_CACHE"] = str(base / "cache")
    src = base / "kernels.ci"
    src.write_text(SRC)
    try:
        yield cint.load(src)
    finally:
        if old is None:
            os.environ.pop("CINT_PY_CACHE", None)
        else:
            os.environ["CINT_PY_CACHE"] = old


@pytest.fixture(scope="session")
def one(mod):
    """single(mod, ...) bound to the test module: one(name, *args, fuel=..., state=..., **shapes)."""
    return lambda name, *args, **kw: single(mod, name, *args, **kw)


def single(mod, name, *args, fuel=None, state=None, **shapes):
    """One call on a fresh context (restored from ``state``): (outputs as arrays, or the cint.Fault).

    ``shapes`` gives each `out` parameter's (shape, element); `inout` arrays are given as their
    (array, element) and come back written; other keyword arguments are passed as they are."""
    ctx = mod.context(fuel=None)
    if state is not None:
        ctx.restore(state)
    named, order = {}, []
    for k, spec in shapes.items():
        if not isinstance(spec, tuple):
            named[k] = spec
            continue
        v, elem = spec
        if isinstance(v, np.ndarray):
            a = v.copy()
            named[k] = cint.borrow(a, writable=True, publish="copy")
            order.append(("inout", a))
        else:
            named[k] = cint.empty(v, elem)
            order.append(("out", named[k]))
    try:
        getattr(ctx, name)(*args, fuel=fuel, **named)
    except cint.Fault as f:
        return f
    finally:
        for k, v in named.items():
            if isinstance(v, cint.View):
                v.release()
    out = [np.array(v) if kind == "out" else v for kind, v in order]
    ctx.close()
    return out[0] if len(out) == 1 else tuple(out)


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, worker_dashboard_address=None,
                                  silence_logs=40) as lc, distributed.Client(lc) as client:
        yield client
