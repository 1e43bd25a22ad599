"""The C runtime's own test suite (runtime-c/tests/run.sh): unit tests of the registry, leases,
publication, statuses and fault records, plain and under AddressSanitizer and
UndefinedBehaviorSanitizer (and the thread tests under ThreadSanitizer), with the spec's C examples
against the hand-written fixtures.

run.sh runs once per test session (xdist workers share its output through a file in the private
build cache); each test program has its own case here, tagged with the clauses it checks, and
passes when run.sh printed "run.sh: [MODE] PASS PROGRAM" for each mode."""
import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run_sh():
    """(exit status, stdout + stderr) of one run of run.sh, shared by every worker of the session."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc)")
    shared = Path(os.environ.get("CINT_CACHE") or os.path.expanduser("~/.cache/cint")) / "runtime-c-tests"
    shared.mkdir(parents=True, exist_ok=True)
    result = shared / "run.out"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not result.is_file():
            env = dict(os.environ, CINT_RT_TEST_BUILD=str(shared / "build"))
            done = subprocess.run(["bash", str(REPO / "runtime-c" / "tests" / "run.sh")], capture_output=True,
                                  text=True, timeout=1200, env=env)
            text = "rc=%d\n%s\n%s" % (done.returncode, done.stdout, done.stderr)
            shutil.rmtree(shared / "build", ignore_errors=True)
            tmp = result.with_suffix(".tmp%d" % os.getpid())
            tmp.write_text(text)
            os.replace(tmp, result)
    text = result.read_text()
    return int(text.split("\n", 1)[0][3:]), text


def passed(run_sh, program, modes=("plain", "san")):
    rc, text = run_sh
    missing = [m for m in modes if "run.sh: [%s] PASS %s\n" % (m, program) not in text]
    assert not missing, "%s did not pass in %s:\n%s" % (program, missing, text[-4000:])


def tsan_ran(run_sh) -> bool:
    return "SKIPPED [tsan]" not in run_sh[1]


@pytest.mark.clause("A-1", "A-2", "A-4", "A-6", "A-7", "A-7a", "A-8", "A-9", "A-10", "A-11", "A-17", "M-10", "M-11",
                    "H-11", "H-12", "RT-19", "M-30", "M-31")
def test_runtime_c_suite(run_sh):
    rc, text = run_sh
    assert rc == 0, text[-8000:]
    assert "run.sh: all passed" in text


# test_runtime.c: creation and its allocator (RT-4), the registry and native pointers (M-7), leases
# and an address that moves after an entry (M-9), staging, publication and the borrowed outputs
# that may not be written directly (M-30a), in-place inout of functions whatever the publish mode
# (M-30b), and the fault record written once and kept until the host clears it (RT-10).
@pytest.mark.clause("SPEC-09P.1 RT-4", "M-7", "M-9", "M-30", "M-30a", "M-30b", "RT-19", "SPEC-09P.1 RT-10",
                    "A-4", "A-7", "A-8", "A-9", "A-10", "A-17", "H-11", "H-12", "M-10")
def test_test_runtime(run_sh):
    passed(run_sh, "test_runtime", ("plain", "san") + (("tsan",) if tsan_ran(run_sh) else ()))


# test_threads.c: four threads with a context each (RT-15), a fault in one context leaves the others
# as they were (A-7b), and four threads on one context where every second caller is CINT_BUSY
# and disturbs nothing; plain, ASan/UBSan and ThreadSanitizer.
@pytest.mark.clause("A-11", "SPEC-09P.1 RT-15", "A-7b")
def test_test_threads(run_sh):
    passed(run_sh, "test_threads", ("plain", "san") + (("tsan",) if tsan_ran(run_sh) else ()))


# test_fuzz_regressions.c: what fuzz/c found (an empty view with huge extents overflowed a count).
@pytest.mark.clause("A-8")
def test_test_fuzz_regressions(run_sh):
    passed(run_sh, "test_fuzz_regressions")


def test_test_state(run_sh):
    passed(run_sh, "test_state")


def test_test_containers(run_sh):
    passed(run_sh, "test_containers")


def test_test_wide(run_sh):
    passed(run_sh, "test_wide")


# test_prelude.c: the helpers every generated translation unit uses (cint_rt_prelude.h, src/prelude.c),
# called directly: wrapping conversions of every type, the division family, muldiv and div_round with
# their exact 128-bit intermediates in every rounding mode, fixed point, roots, rotations, views and
# slices (IM-186), the relations of views (LS-70, LS-121), copies (IM-187), Str printing, kernel
# reductions (LS-245); its 34 fault records are compared byte for byte with cint_abi.faultrecord (IM-149).
@pytest.mark.clause("SPEC-01 IM-44", "SPEC-01 IM-49", "SPEC-01 IM-52", "SPEC-01 IM-53", "SPEC-01 IM-54",
                    "SPEC-01 IM-149", "SPEC-01 IM-186", "SPEC-01 IM-187", "SPEC-04 LS-65", "SPEC-04 LS-70",
                    "SPEC-04 LS-89", "SPEC-04 LS-121", "SPEC-04 LS-161", "SPEC-04 LS-245")
def test_test_prelude(run_sh):
    passed(run_sh, "test_prelude")


@pytest.mark.clause("A-12")
def test_exported_symbols(run_sh):
    passed(run_sh, "symbols", ("plain",))


@pytest.mark.clause("A-2")
def test_no_mutable_static_data(run_sh):
    passed(run_sh, "static_data", ("plain",))
