"""cint.load_source (source text, cached like files), BuildError's diagnostics, and the %%cint magic."""
from __future__ import annotations


import pytest

import cint
from cint import _build

TWICE = "export I64 twice(I64 x) {\n    return 2 * x;\n}\n"
BAD = "export I64 f() {\n    I8 x = 300;\n    return 0;\n}\n"


@pytest.fixture()
def cache(source_env):
    """A fresh folder and build cache for each test (source_env's folder; the cache is its ``cache``)."""
    return source_env("magic")


@pytest.mark.clause("8.1")
def test_load_source_shares_the_cache_with_files(cache):
    before = _build.BUILDS[0]
    mod = cint.load_source(TWICE, name="tw")
    assert mod.context().twice(21) == 42
    assert _build.BUILDS[0] == before + 1
    assert cint.load_source(TWICE, name="tw").context().twice(1) == 2
    (cache / "tw.ci").write_text(TWICE)
    assert cint.load(cache / "tw.ci").context().twice(2) == 4
    assert _build.BUILDS[0] == before + 1            # the same text and name: one build for all three
    cint.load_source(TWICE, name="other")
    assert _build.BUILDS[0] == before + 2


@pytest.mark.clause("8.1")
def test_load_source_faults_name_the_module(cache):
    mod = cint.load_source("export I8 narrow(I64 x) {\n    return x as I8;\n}\n", name="nr")
    ctx = mod.context()
    with pytest.raises(cint.NarrowFault) as e:
        ctx.narrow(300)
    assert e.value.position == "nr.ci:2:14"


@pytest.mark.clause("8.1")
def test_build_error_carries_every_diagnostic_with_its_snippet(cache):
    with pytest.raises(cint.BuildError) as e:
        cint.load_source(BAD, name="bad")
    (d,) = e.value.diagnostics
    assert (d.code, d.path, d.line, d.column) == ("C2003", "bad.ci", 2, 12)
    assert str(e.value) == ("error[C2003]: constant 300 does not fit I8 (-128 ..= 127)\n  --> bad.ci:2:12\n  |\n"
                            "2 |     I8 x = 300;\n  |            ^\n  |")
    assert e.value._render_traceback_()[0].startswith("BuildError: error[C2003]")
    (cache / "bad.ci").write_text(BAD)
    with pytest.raises(cint.BuildError) as f:
        cint.load(cache / "bad.ci")
    assert str(f.value) == str(e.value)


@pytest.mark.clause("8.1")
@pytest.mark.parametrize("text, name, why", [(b"x", "m", "as a str"), ("x", "no-dash", "identifier"),
                                               ("x", "", "identifier"), ("x", "a/b", "identifier")])
def test_load_source_refuses_bad_arguments(cache, text, name, why):
    with pytest.raises(cint.BuildError, match=why):
        cint.load_source(text, name=name)
    assert not (cache / "cache" / "src").exists() or not any((cache / "cache" / "src").iterdir())


@pytest.fixture()
def shell(cache):
    pytest.importorskip("IPython", reason="ipython is installed by scripts/setup.sh")
    from IPython.testing.globalipapp import get_ipython
    ip = get_ipython()
    ip.run_line_magic("load_ext", "cint")
    yield ip
    for k in ("mod", "ctx", "scan", "scan_ctx"):
        ip.user_ns.pop(k, None)
    ip.run_line_magic("unload_ext", "cint")          # the shell is global: leave it as it was
    assert "cint" not in ip.magics_manager.magics["cell"]


@pytest.mark.clause("8.1")
def test_cell_magic_binds_module_and_context(shell, capsys):
    shell.run_cell_magic("cint", "", TWICE)
    assert shell.run_cell("ctx.twice(5)").result == 10
    assert isinstance(shell.user_ns["mod"], cint.Module)
    before = _build.BUILDS[0]
    shell.run_cell_magic("cint", "scan",
                         "export void scan[n](in I64[n] x, inout I64[n] s) {\n    I64 acc = 0;\n"
                         "    for i in 0..n {\n        acc += x[i];\n        s[i] = acc;\n    }\n}\n")
    assert _build.BUILDS[0] == before + 1
    r = shell.run_cell("import numpy as np, cint\nx = np.arange(4)\ns = np.zeros(4, dtype=np.int64)\n"
                       "scan_ctx.scan(x, s=cint.borrow(s, writable=True))\ns.tolist()")
    assert r.result == [0, 1, 3, 6]
    shell.run_cell_magic("cint", "", TWICE)            # the same cell again: cached
    assert _build.BUILDS[0] == before + 1


@pytest.mark.clause("8.1")
def test_cell_magic_prints_diagnostics_and_binds_nothing(shell, capsys):
    shell.user_ns.pop("mod", None)
    shell.run_cell_magic("cint", "", BAD)
    out = capsys.readouterr().out
    assert "error[C2003]" in out and "2 |     I8 x = 300;" in out and "^" in out
    assert "mod" not in shell.user_ns
    shell.run_cell_magic("cint", "two words", TWICE)
    assert "usage: %%cint [NAME]" in capsys.readouterr().out
