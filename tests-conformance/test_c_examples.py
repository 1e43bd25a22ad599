"""The C examples of SPEC-03P.1 (host.c 7.3, reflect.c 7.4, tour.c 10.1) against libraries that
`cint build --lib` writes, built with the spec's exact command lines, with no warnings, printing
exactly the spec's output; and the exported symbols of a library are exactly A-12's."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = Path(os.environ.get("CINT_SPEC_EXAMPLES", REPO.parent / "shared" / "spec" / "examples"))
CINT_RT = REPO / "runtime-c" / "include"

if not EXAMPLES.is_dir():
    pytest.skip("spec examples not found at %s" % EXAMPLES, allow_module_level=True)
if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc)", allow_module_level=True)


def build_lib(tmp, name):
    shutil.copyfile(EXAMPLES / (name + ".ci"), tmp / (name + ".ci"))
    done = subprocess.run([sys.executable, "-m", "cint_compiler", "build", "--lib", "--out", "out", name + ".ci"],
                          cwd=tmp, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == "built: out/lib%s.so\n" % name
    return tmp / "out" / ("lib%s.so" % name)


def build_and_run(tmp, program, lib):
    shutil.copyfile(EXAMPLES / (program + ".c"), tmp / (program + ".c"))
    cmd = "cc -std=c17 -Wall -Wextra -Wpedantic -I \"$CINT_RT\" %s.c -L out -l%s -Wl,-rpath,'$ORIGIN/out' -o %s" % (
        program, lib, program)
    done = subprocess.run(["bash", "-c", cmd], cwd=tmp, capture_output=True, env=dict(os.environ, CINT_RT=str(CINT_RT)))
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()   # no warnings
    run = subprocess.run(["./" + program], cwd=tmp, capture_output=True)
    assert run.returncode == 0, run.stderr.decode()
    return run.stdout.decode()


@pytest.mark.clause("A-12", "A-13", "A-17", "A-7", "A-7a", "7.3")
def test_host_c(tmp_path):
    build_lib(tmp_path, "advance")
    assert build_and_run(tmp_path, "host", "advance") == (EXAMPLES / "host.out").read_text()


@pytest.mark.clause("A-14", "A-19", "H-2", "A-20", "A-21", "A-22", "7.4")
def test_reflect_c(tmp_path):
    build_lib(tmp_path, "tour")
    assert build_and_run(tmp_path, "reflect", "tour") == (EXAMPLES / "reflect.out").read_text()


@pytest.mark.clause("A-9", "A-18", "H-11", "H-12", "M-10", "M-11", "10.1")
def test_tour_c(tmp_path):
    build_lib(tmp_path, "tour")
    assert build_and_run(tmp_path, "tour", "tour") == (EXAMPLES / "tour.out").read_text()


@pytest.mark.clause("A-12", "A-2")
def test_library_exports_exactly_a12(tmp_path):
    lib = build_lib(tmp_path, "tour")
    nm = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True).stdout.split()
    names = {w for w in nm if w.startswith(("cint_", "cx_", "cm_"))}
    host = {"cint_abi_version", "cint_ctx_create", "cint_ctx_destroy", "cint_buffer_register", "cint_buffer_create",
            "cint_buffer_release", "cint_buffer_lease", "cint_lease_end", "cint_buffer_read", "cint_ctx_fault",
            "cint_fault_get", "cint_ctx_refusal", "cint_ctx_error", "cint_fuel_consumed", "cint_ctx_clear_fault",
            "cint_buffer_register_bytes", "cint_buffer_register_elements", "cint_fault_encode",
            "cint_ctx_fault_descriptors"}
    expected = host | {"cx_4_tour_10_parse_x5Fu", "cx_4_tour_5_scale", "cx_4_tour_5_greet", "cm_4_tour",
                       "cint_library_desc", "cint_program_abi", "cint_observer_desc"}
    assert names == expected
    every = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True).stdout
    others = [l.split()[-1] for l in every.splitlines() if l.split() and not l.split()[-1].startswith(("cint_", "cx_",
                                                                                                        "cm_"))]
    assert others == [], others
    # no mutable static data in the library: no symbol of ours in .data or .bss (constant
    # tables with pointers live in .data.rel.ro, read-only after relocation)
    sysv = subprocess.run(["nm", "-f", "sysv", str(lib)], capture_output=True, text=True).stdout
    mutable = []
    for line in sysv.splitlines():
        cols = [c.strip() for c in line.split("|")]
        if len(cols) >= 7 and cols[6] in (".data", ".bss") and not cols[0].startswith(("_", "completed.")):
            mutable.append(cols[0])
    assert mutable == [], mutable


@pytest.mark.clause("A-19", "A-20", "A-24", "H-2")
def test_reflection_table_read_with_cint_abi_alone(tmp_path):
    from cint_abi.reflect import read_library
    from cint_abi.typesig import format_c_prototype
    lib = read_library(build_lib(tmp_path, "tour"))
    assert lib.abi == (3, 2)
    rows = [(e.name, e.kind, e.effect, e.size_names, e.parameters, len(e.signature_bytes)) for e in lib.exports]
    assert rows == [("parse_u", "function", "pure", [], ["s"], 117), ("scale", "kernel", "pure", ["n"], ["x", "k", "y"], 82),
                    ("greet", "function", "observe", [], ["times"], 48)]
    assert all(e.address != 0 and e.signature is not None for e in lib.exports)
    assert "cint_status parse_u(cint_ctx *ctx, int64_t fuel, cint_view s" in format_c_prototype(
        "parse_u", lib.exports[0].signature, param_names=["s"])
