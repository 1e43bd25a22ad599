"""bench/kernels.py, the benchmark of issue 13, cannot rot: a smoke run at --scale 0.001 builds bench/kernels.ci
and the checked C twins, checks every row against the exact result and every fault input against the twin's
index, and prints its tables; a wrong reference stops it.  Numba is optional: without it the rows are skipped
and the run says how to install it.

The clauses are those the benchmark's checks exercise on each kernel: a faulting dispatch publishes nothing
(M-30), a function's inout array keeps the stores before its fault (M-30b), fuel is counted with an unbounded
budget and a budget of exactly the fuel consumed suffices while one less is E_FUEL (H-11), and bare NumPy
arrays are borrowed for `in` parameters (P-20a).  The other two tests check the harness itself (a wrong
reference stops the run; bad options are refused) and carry no clause.
"""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
NAMES = ("prefix_sum", "fir5", "histogram", "stencil", "collatz", "matvec", "advance", "sum", "dot")


@pytest.mark.clause("M-30", "M-30b", "H-11", "P-20a")
def test_kernels_smoke_run(tmp_path):
    md = tmp_path / "kernels.md"
    done = subprocess.run([sys.executable, str(BENCH / "kernels.py"), "--scale", "0.001", "--repeat", "1",
                           "--markdown", str(md)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    out = done.stdout
    for name in NAMES:
        assert "\n%s: " % name in out, "no table for %s" % name
        assert "### %s: " % name in md.read_text()
    assert "checked C twin" in out and "STREAM triad" in out and "NumPy numpy.sum(x)" in out
    assert "every fault input faulted where the twin says" in out
    assert "load average at start" in out and "load average at end" in out
    for target in ("within 1.25x its checked-C twin", "within 1.10x the STREAM triad", "within 1.10x numpy.sum"):
        assert target in out and target in md.read_text()
    if importlib.util.find_spec("numba") is None:
        assert "pip install numba" in out and "Numba @njit" not in out
    else:
        assert "Numba @njit, unchecked" in out and "Numba @njit, checked" in out


def _load_bench():
    spec = importlib.util.spec_from_file_location("cint_bench_kernels", BENCH / "kernels.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_kernels_wrong_reference_stops_the_run(monkeypatch, capsys, tmp_path):
    bench = _load_bench()
    monkeypatch.setattr(bench, "TAPS", (1, 4, 6, 4, 2))        # the reference no longer matches kernels.ci
    assert bench.main(["--scale", "0.0001", "--repeat", "1", "--only", "fir5", "--no-numba"]) == 2
    err = capsys.readouterr().err
    assert "bench: error: verification failed: fir5: cint (Buffer out) differs from the exact result" in err


def test_kernels_rejects_bad_options(capsys):
    bench = _load_bench()
    assert bench.main(["--scale", "0", "--only", "sum"]) == 2
    assert "--scale must be in (0, 4]" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main(["--only", "nosuch"])
    assert "invalid choice: 'nosuch'" in capsys.readouterr().err
