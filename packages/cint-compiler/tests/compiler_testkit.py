"""Helpers shared by the compiler's tests: compile a source text and run one entry on the reference executor."""
import pytest

from cint_compiler.diagnostics import CompileError
from cint_compiler.driver import compile_source
from cint_compiler.interp.context import Context
from cint_compiler.conformance.outcome import choose_entry


def run_entry(src, entry="run", args=(), fuel=None, depth=256):
    """(outcome, context) of one entry of the module `src` (module path t.ci)."""
    c = compile_source(src.encode("utf-8"), "t.ci")
    ctx = Context(c.program, c.revision)
    kind, target = choose_entry(c, entry)
    return ctx.run_entry(kind, target, list(args), fuel=fuel, depth=depth), ctx


def run(src, entry="run", args=(), fuel=None):
    return run_entry(src, entry, args, fuel)[0]


def value(src, entry="run", args=()):
    o = run(src, entry, args)
    assert o.kind == "value", (o.kind, o.record)
    return o.value


def compile_error(src):
    with pytest.raises(CompileError) as ei:
        compile_source(src.encode("utf-8"), "t.ci")
    return ei.value


def where(err_or_rec):
    """(line, column) of a compile error or a fault record."""
    p = err_or_rec.span if isinstance(err_or_rec, CompileError) else err_or_rec.position
    return (p.line, p.column)


def both(tmp_path, src, name="p", *, fuel=None, entry="run", args=(), depth=None, files=None,
         allow_compile_error=False, refused_ok=False):
    """The outcome text of `src` on cpu-sir-interp, after checking that cpu-c17 gives the same text.

    The texts (status, fault record with position, stack and kernel address, fuel, stdout, result,
    module variables) must be equal; cpu-c17 must not refuse (unless `refused_ok`, which returns its
    text) and the reference executor must not give a compile error (unless `allow_compile_error`:
    then both must give the same one). `files` writes imported modules next to the program."""
    from cint_compiler.conformance.outcome import expect_text
    for rel, text in (files or {}).items():
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    path = tmp_path / (name + ".ci")
    path.write_text(src, encoding="utf-8")
    out = [expect_text(path, tmp_path, case_id=name, clause=None, entry=entry, args=list(args), fuel=fuel,
                       depth=depth, fmt=2, executor=ex) for ex in ("ref", "cpu")]
    if not allow_compile_error:
        assert "outcome compile-error" not in out[0], out[0]
    if refused_ok and "outcome refused" in out[1]:
        return out[1]
    assert "outcome refused" not in out[1], out[1]
    assert out[0] == out[1], "ref:\n%s\ncpu:\n%s" % tuple(out)
    return out[0]


def cpu_and_ref(tmp_path, monkeypatch, src, name, entry="put"):
    """The two executors of one program, for comparing canonical states: ``mod``, a cint Module of
    `src` (module `name`, built by cint.load, so its library has the state functions), ``ref``, the
    interpreter's context of the same program, ``fn``, the interpreter's function `entry`;
    ``state(ctx)``, the runtime's canonical state bytes of a cpu-c17 context, and
    ``restore(ctx, data)``, the runtime's restore of raw state bytes (its status: 0 when it restored)."""
    import ctypes
    from types import SimpleNamespace
    cint = pytest.importorskip("cint")
    monkeypatch.setenv("CINT_PY_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CINT_EXE", raising=False)
    path = tmp_path / (name + ".ci")
    path.write_text(src, encoding="utf-8")
    c = compile_source(src.encode("utf-8"), name + ".ci")

    def state(cx):
        return cx._state_bytes("state")

    def restore(cx, data):
        _, res = cx._state_fns("restore()")
        detail = (ctypes.c_uint64 * 2)()
        return res(cx._h, bytes(data), len(data), detail)
    return SimpleNamespace(mod=cint.load(path), ref=Context(c.program, c.revision),
                           fn=c.program.functions[entry], state=state, restore=restore)
