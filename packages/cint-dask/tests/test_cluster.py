"""cint_dask.kernel on a distributed.LocalCluster of 2 worker processes (loopback only): the library
crosses as bytes under one key and is loaded from each worker's private folder, contexts are reused,
results and fault records equal one call, and a worker that dies mid-task is retried (docs/dask.md)."""
import os

import numpy as np
import pytest

import cint
import cint_dask
import dask.array as da

pytestmark = [pytest.mark.clause("H-21")]


def test_outputs_and_library_on_workers(mod, one, cluster):
    rng = np.random.default_rng(3)
    a = rng.integers(-1000, 1000, (30, 22), dtype=np.int64)
    b = cint_dask.kernel(mod, "blur")(da.from_array(a, chunks=(7, 9)))
    assert np.array_equal(cluster.compute(b).result(), one("blur", a, b=((28, 20), "I64")))
    x = rng.integers(-100, 100, 500, dtype=np.int32)
    y = cint_dask.kernel(mod, "fir")(da.from_array(x, chunks=(100, 37, 200, 163)))
    assert np.array_equal(y.compute(scheduler=cluster), one("fir", x, y=((496,), "I32")))

    def where_loaded():
        from cint import _build
        from cint_dask import _worker
        return (sorted(_worker._MODULES), [m.path for m in _worker._MODULES.values()],
                {d: len(p) for d, p in _worker._POOLS.items()}, _build.BUILDS[0], os.getpid())

    seen = cluster.run(where_loaded)
    assert len(seen) == 2
    pids = set()
    for digests, paths, pools, builds, pid in seen.values():
        assert len(digests) == 1 and all(os.path.basename(os.path.dirname(p)).startswith("cint-dask-") for p in paths)
        assert all(n == 1 for n in pools.values())     # one context per worker thread, reused across tasks
        assert builds == 0                             # workers build nothing: they load the bytes
        pids.add(pid)
    assert os.getpid() not in pids


def test_faults_cross_to_the_client(mod, one, cluster):
    x = np.full(200, 2, dtype=np.int64)
    x[[180, 77, 150]] = 4_000_000
    with pytest.raises(cint.OverflowFault) as ei:
        cint_dask.kernel(mod, "loopy")(da.from_array(x, chunks=25)).compute(scheduler=cluster)
    want = one("loopy", x, y=((200,), "I64"))
    assert type(ei.value) is type(want) and ei.value.record == want.record and ei.value.work_item == 77
    g = np.zeros((8, 9), dtype=np.int64)
    g[6, 2] = g[3, 8] = 2
    with pytest.raises(cint.OverflowFault) as ei:
        cint_dask.kernel(mod, "grid")(da.from_array(g, chunks=(3, 4)))[0].compute(scheduler=cluster)
    want = one("grid", g, y=((8, 9), "I64"), z=((8, 9), "I64"))
    assert ei.value.record == want.record and ei.value.work_index == (3, 8)


def test_fuel_on_the_cluster(mod, one, cluster):
    x = np.array([k % 5 for k in range(300)], dtype=np.int64)    # 300 + 600 charges
    for budget in (299, 300, 640, 900):
        want = one("loopy", x, y=((300,), "I64"), fuel=budget)
        y = cint_dask.kernel(mod, "loopy", fuel=budget)(da.from_array(x, chunks=45))
        if isinstance(want, cint.Fault):
            with pytest.raises(cint.FuelFault) as ei:
                y.compute(scheduler=cluster)
            assert ei.value.record == want.record
        else:
            assert np.array_equal(y.compute(scheduler=cluster), want)


def _die_once(block, marker):
    """An input block that kills its worker process the first time it runs (a worker lost mid-task)."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return block
    os.close(fd)
    os._exit(3)


def test_a_worker_that_dies_is_retried(mod, one, cluster, tmp_path):
    x = np.arange(-40, 40, dtype=np.int64)
    marker = str(tmp_path / "died")
    xs = da.from_array(x, chunks=10).map_blocks(_die_once, marker, dtype=np.int64, meta=np.array((), np.int64))
    y = cint_dask.kernel(mod, "scale")(xs, 3)
    assert np.array_equal(y.compute(scheduler=cluster), one("scale", x, 3, y=((80,), "I64")))
    assert os.path.exists(marker)
    cluster.wait_for_workers(2, timeout=30)


def test_a_worker_killed_while_its_block_runs(mod, one, cluster):
    import signal
    import time
    x = np.full(8, 10_000_000, dtype=np.int64)      # about 0.3 s a block of 2
    x[5] = 7
    want = one("spin", x, y=((8,), "I64"))
    y = cint_dask.kernel(mod, "spin")(da.from_array(x, chunks=2))
    pids = cluster.run(os.getpid)
    fut = cluster.compute(y)
    victim = None
    deadline = time.time() + 30
    while victim is None and time.time() < deadline and not fut.done():
        for addr, keys in cluster.processing().items():
            if any("cint-run-" in str(k) for k in keys):
                victim = addr
                break
        time.sleep(0.01)
    if victim is not None:
        time.sleep(0.1)
        os.kill(pids[victim], signal.SIGKILL)         # the nanny starts a new worker; Dask runs the block again
    assert np.array_equal(fut.result(timeout=120), want)
    assert victim is not None                          # the kill happened while a block was on the worker
    cluster.wait_for_workers(2, timeout=30)

