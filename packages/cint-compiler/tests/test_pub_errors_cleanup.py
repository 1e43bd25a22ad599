"""Error sets, error unions and their diagnostics: the behaviours that the public suite's errors/ and cleanup/
folders check, each in a program of its own (SPEC-04 LS-91, LS-97, LS-129, LS-131, LS-221, LS-278)."""
import pytest

from compiler_testkit import both, compile_error, where

PLANT = """error Tank { leak, empty }
error Pipe { clog, leak }
error Plant = Tank | Pipe;
error Door : U8 { stuck, locked, gone }

export Plant!I64 clogged() {
    return .clog;
}

export Plant!I64 pipe_leak() {
    return Pipe.leak;
}

export Door!I64 locked() {
    return .locked;
}

Tank!I64 drain(I64 level) {
    if (level < 0) {
        return .empty;
    }
    return level;
}

export Plant!I64 through() {
    I64 v = try drain(-5);
    return v;
}
"""


def _error_lines(text):
    return [line for line in text.splitlines() if line.startswith("error.")]


@pytest.mark.clause("SPEC-04 LS-97", "SPEC-04 LS-93")
@pytest.mark.parametrize("entry,lines", [
    ("clogged", ["error.set p.Plant", "error.value clog", "error.tag U16 3"]),
    ("pipe_leak", ["error.set p.Plant", "error.value Pipe.leak", "error.tag U16 4"]),
    ("locked", ["error.set p.Door", "error.value locked", "error.tag U8 2"]),
    ("through", ["error.set p.Plant", "error.value empty", "error.tag U16 2"]),
])
def test_error_value_is_its_name_and_qualified_only_when_shared(tmp_path, entry, lines):
    # both executors; a combined set in an export's result has a type signature (SPEC-03P.1 7.5, form 01)
    out = both(tmp_path, PLANT, entry=entry)
    assert "outcome error" in out and _error_lines(out) == lines, out


@pytest.mark.clause("SPEC-04 LS-129", "SPEC-04 LS-149", "SPEC-01 IM-188")
def test_try_takes_a_parenthesised_as_question(tmp_path):
    # not `export`: the built-in ArithError has no qualified name for a type signature (C5050, A-21)
    src = """ArithError!I64 shrink(I64 v) {
    I16 s = try (v as? I16);
    I8 t = (v as? I8) catch 7;
    return (s as I64) * 10 + (t as I64);
}
"""
    ok = both(tmp_path, src, entry="shrink", args=["I64 12"])
    assert "return I64 132" in ok, ok
    bad = both(tmp_path, src, entry="shrink", args=["I64 70000"])
    assert _error_lines(bad) == ["error.set ArithError", "error.value narrow", "error.tag U16 4"], bad


@pytest.mark.clause("SPEC-04 LS-221")
def test_main_returning_an_error_keeps_its_output_on_both_executors(tmp_path):
    src = """error Sensor { offline, noisy }

Sensor!void main() {
    "reading\\n";
    return .noisy;
}
"""
    out = both(tmp_path, src, entry=None)
    assert "outcome error" in out and "stdout-bytes 8" in out, out
    assert _error_lines(out) == ["error.set p.Sensor", "error.value noisy", "error.tag U16 2"], out


@pytest.mark.clause("SPEC-04 LS-97")
def test_returning_a_wider_set_value_is_c2042_and_initializing_one_is_c2001():
    head = "error Tank { leak, empty }\nerror Pipe { clog }\nerror Plant = Tank | Pipe;\n"
    err = compile_error(head + "export Tank!I64 run() {\n    Plant p = Tank.leak;\n    return   p;\n}\n")
    assert err.code == "C2042" and where(err) == (6, 14)
    err = compile_error(head + "export I64 run() {\n    Plant p = Pipe.clog;\n    Tank t = p;\n    return 0;\n}\n")
    assert err.code == "C2001" and where(err) == (6, 14)


@pytest.mark.clause("SPEC-04 LS-91", "SPEC-04 LS-278")
def test_zero_filled_error_value_is_reported_at_the_declaration():
    head = "error Tank { leak, empty }\nstruct Log { I64 n; Tank last; }\n"
    err = compile_error(head + "export I64 run() {\n    I64 a = 1;\n      Tank[4] seen;\n    return a;\n}\n")
    assert err.code == "C2054" and where(err) == (5, 7)
    err = compile_error(head + "Log g;\nexport I64 run() { return 0; }\n")
    assert err.code == "C2054" and where(err) == (3, 1)


@pytest.mark.clause("SPEC-04 LS-131", "SPEC-04 LS-278")
def test_catch_block_that_completes_is_reported_at_its_brace():
    src = """error Tank { leak, empty }
Tank!I64 level() { return .leak; }
export I64 run() {
    I64 seen = 0;
    I64 v = level() catch (why) { seen = 2; };
    return v + seen;
}
"""
    err = compile_error(src)
    assert err.code == "C4002" and where(err) == (5, 33)
