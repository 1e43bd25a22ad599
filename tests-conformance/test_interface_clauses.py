"""Clauses of the C interface checked from Python: A-3 (what generated code imports), A-26 (the
interface version and the runtime contract in the revision identity) and H-19b (the package offers
no change of revision)."""
from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from spec_paths import EXAMPLES

import cint_runtime

# C library functions a translation unit may reach without an operating-system, input or output,
# time, environment or thread function: the compiler emits calls to these for plain copies.
_MEMORY = {"memcpy", "memmove", "memset", "memcmp"}


def _build(tmp_path, name: str) -> Path:
    done = subprocess.run([sys.executable, "-m", "cint_compiler.cli", "build", "--lib", "--out", str(tmp_path / "out"),
                           str(EXAMPLES / name)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return tmp_path / "out" / ("lib%s.so" % name[:-3])


@pytest.mark.clause("A-3")
@pytest.mark.parametrize("name", ["tour.ci", "advance.ci"])
def test_generated_code_reaches_only_the_runtime(tmp_path, name):
    if shutil.which("nm") is None:
        pytest.skip("no nm")
    _build(tmp_path, name)
    # the generated C the build compiled, in its cache entry (the test suite's private cache)
    src = max(cint_runtime.cache_dir().glob("lib-*/%s.c" % name[:-3]), key=lambda p: p.stat().st_mtime)
    obj = tmp_path / "gen.o"
    subprocess.run([cint_runtime.compiler()] + cint_runtime.CFLAGS + ["-I", str(cint_runtime.include_dir()), "-c",
                                                                      str(src), "-o", str(obj)], check=True)
    undefined = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True).stdout.split()
    names = {u for u in undefined if u not in ("U", "w")}
    others = sorted(n for n in names if not n.startswith("cint_") and n not in _MEMORY)
    assert others == [], "generated code of %s calls %s of its own" % (name, others)
    assert any(n.startswith("cint_gen_") for n in names)        # its effects go through the runtime


@pytest.mark.clause("A-26")
def test_interface_version_3_and_the_runtime_contract_in_the_revision(tmp_path):
    from cint_abi.codes import PROFILE, RUNTIME_CONTRACT
    from cint_abi.encoding import revision_identity
    from cint_compiler.driver import compile_file
    from cint_compiler.sir import encode_module
    assert RUNTIME_CONTRACT == "cint-rt-3"
    lib = ctypes.CDLL(str(_build(tmp_path, "tour.ci")))
    lib.cint_abi_version.restype = ctypes.c_uint32
    assert lib.cint_abi_version() >> 16 == 3                     # interface version 3
    c = compile_file(EXAMPLES / "tour.ci")
    rev = c.revision
    pairs = [(m.path, encode_module(m)) for m in c.modules]
    assert rev == revision_identity(PROFILE, "cint-rt-3", pairs)
    assert rev != revision_identity(PROFILE, "cint-rt-2", pairs)  # the contract is part of the identity


@pytest.mark.clause("H-19b")
def test_the_package_offers_no_change_of_revision(tmp_path):
    import cint
    a = tmp_path / "a.ci"
    b = tmp_path / "b.ci"
    a.write_text("I64 n = 0;\nexport I64 bump() { n = n + 1; return n; }\n")
    b.write_text("I64 n = 0;\nexport I64 bump() { n = n + 2; return n; }\n")
    ca, cb = cint.load(a).context(), cint.load(b).context()
    ca.bump()
    cb.bump()
    before = cb.state_hash()
    with pytest.raises(cint.Refused, match="revision"):
        cb.restore(ca.checkpoint())          # a checkpoint of another revision does not move cb there
    assert cb.state_hash() == before and cb.bump() == 4
    # and no method of a context or a module moves state to another revision
    for obj in (ca, cint.load(a)):
        movers = [n for n in dir(obj) if not n.startswith("_") and callable(getattr(obj, n, None))
                  and any(w in n for w in ("revision", "migrate", "upgrade", "reload", "move"))]
        assert movers == []
