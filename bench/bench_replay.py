"""Replay speed (issue 5): entries per second replayed for counter.ci on each backend.

Records N calls of bump() on a cpu-c17 context through cint.Recorder, then replays the recording
with cint.replay on backend "ref" (cpu-sir-interp) and "cpu" (cpu-c17) and prints entries per
second (median of --repeat runs). Every replay compares every outcome, effect and state hash.

    .venv/bin/python bench/bench_replay.py [--n 2000] [--repeat 3]
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COUNTER = Path(os.environ.get("CINT_SPEC_EXAMPLES") or HERE.parent.parent / "shared" / "spec" / "examples") / "counter.ci"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ns = ap.parse_args()
    if not COUNTER.is_file():
        print("bench_replay: %s is absent (set CINT_SPEC_EXAMPLES to the spec's examples folder)" % COUNTER)
        return 2
    import cint
    d = Path(tempfile.mkdtemp(prefix="cint-bench-replay-"))
    try:
        shutil.copy(COUNTER, d / "counter.ci")
        mod = cint.load(d / "counter.ci")
        rec_path = d / "run.cintrec"
        t0 = time.perf_counter()
        with cint.Recorder(rec_path) as rec:
            ctx = mod.context(record=rec)
            for k in range(ns.n):
                ctx.bump(k % 7)
        t_rec = time.perf_counter() - t0
        print("recorded %d entries in %.3f s (%.0f entries/s, %d bytes)" % (
            ns.n, t_rec, ns.n / t_rec, rec_path.stat().st_size))
        plain = mod.context()
        t0 = time.perf_counter()
        for k in range(ns.n):
            plain.bump(k % 7)
        t_plain = time.perf_counter() - t0
        print("the same calls unrecorded: %.3f s (%.0f entries/s)" % (t_plain, ns.n / t_plain))
        print("| backend | entries | median s | entries/s |")
        print("| --- | ---: | ---: | ---: |")
        for backend in ("ref", "cpu"):
            times = []
            for _ in range(ns.repeat):
                t0 = time.perf_counter()
                r = cint.replay(mod, rec_path, backend=backend)
                times.append(time.perf_counter() - t0)
                assert r.status == "ok" and r.boundaries == ns.n, r
            m = statistics.median(times)
            print("| %s | %d | %.3f | %.0f |" % (backend, ns.n, m, ns.n / m))
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
