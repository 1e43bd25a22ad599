"""The `cint` command on good and bad input: exit statuses, output, and never a traceback."""
import random
import subprocess
import sys

import pytest

CINT = [sys.executable, "-m", "cint_compiler"]


def cint(*args, cwd=None):
    return subprocess.run(CINT + list(args), capture_output=True, cwd=cwd, timeout=120)


def no_traceback(done):
    err = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "internal error" not in err, err


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return p


@pytest.mark.clause("SPEC-04 LS-218")
def test_run_script_prints_and_exits_zero(tmp_path):
    p = write(tmp_path, "hello.ci", 'I64 x = 6;\n"x * 7 = {x * 7}\\n";\n')
    done = cint("run", str(p))
    assert done.returncode == 0 and done.stdout == b"x * 7 = 42\n"


@pytest.mark.clause("SPEC-04 LS-284", "IM-106")
def test_run_fault_report_and_status(tmp_path):
    p = write(tmp_path, "ov.ci", 'I64 big = 9223372036854775807;\n"before\\n";\nI64 next = big + 1;\n')
    done = cint("run", str(p))
    assert done.returncode == 1 and done.stdout == b"before\n"
    err = done.stderr.decode()
    assert err.startswith("fault[E_OVERFLOW]: the exact result is outside the type's range\n  --> ov.ci:3:16\n")
    assert "   = operation: add.checked.i64\n" in err and "   = exact:   9223372036854775808\n" in err
    assert "   = fuel-consumed: 1 (not part of the fault record)\n" in err
    no_traceback(done)


@pytest.mark.clause("SPEC-04 LS-232", "SPEC-04 LS-236")
def test_test_command_counts(tmp_path):
    p = write(tmp_path, "t.ci", 'test "a" { assert(1 + 1 == 2); }\n'
                                'test "b" { I64 x = 3; assert(x == 4); }\n'
                                'test "c" expect_fault E_OVERFLOW { I8 a = 127; a += 1; }\n'
                                '"top level does not run under cint test\\n";\n')
    done = cint("test", str(p))
    out = done.stdout.decode()
    assert out.endswith("2 of 3 tests passed\n") and done.returncode == 1
    assert "FAILED b: assertion failed at t.ci:2:30" in out and "= left:  3" in out
    assert "top level" not in out


@pytest.mark.parametrize("name,data,code", [
    ("utf8.ci", b"\xff\xfe bad", "C1002"),
    ("bom.ci", b"\xef\xbb\xbfI64 x = 1;", "C1002"),
    ("nul.ci", b"I64 x = 1;\x00", "C1002"),
    ("bidi.ci", "I64 x = 1; // \u202e\n".encode(), "C1003"),
    ("syntax.ci", b"I64 x = ;\n", "C1050"),
    ("deep.ci", ("export I64 run() { return " + "(" * 5000 + "1" + ")" * 5000 + "; }").encode(), "C9004"),
    ("blocks.ci", ("void main() " + "{" * 3000 + "}" * 3000).encode(), "C9004"),
    ("legacy.cint", b"I64 x = 1;", "C1001"),
])
def test_bad_source_gets_a_coded_diagnostic(tmp_path, name, data, code):
    p = write(tmp_path, name, data)
    done = cint("run", str(p))
    assert done.returncode == 2
    assert ("error[%s]" % code).encode() in done.stderr
    no_traceback(done)


def test_unknown_file(tmp_path):
    done = cint("run", str(tmp_path / "missing.ci"))
    assert done.returncode == 2 and b"error[C3009]" in done.stderr
    no_traceback(done)


def test_random_bytes_never_crash(tmp_path):
    rnd = random.Random(20261129)
    seeds = [b"export I64 run() { I64 a = 3; return a * 2 + 1; }\n", b'"x {1 + 2}\\n";\n',
             b"struct P { I64 x; }\nvoid main() { P p = P(1); p.x += 2; }\n"]
    for k in range(24):
        base = bytearray(rnd.choice(seeds))
        for _ in range(rnd.randint(1, 6)):
            i = rnd.randrange(len(base))
            op = rnd.randrange(3)
            if op == 0:
                base[i] = rnd.randrange(256)
            elif op == 1:
                del base[i]
            else:
                base.insert(i, rnd.choice(b"(){}[];\"'-+*/%<>=!&|^~.,:0123456789abcxyzIUQ_ \n\t"))
        p = write(tmp_path, "f%d.ci" % k, bytes(base))
        done = cint("run", str(p))
        assert done.returncode in (0, 1, 2, 6), done
        no_traceback(done)


def test_outcome_of_a_case_in_expect_text(tmp_path):
    p = write(tmp_path, "case.ci", "// entry: run; args: I64 0\nexport I64 run(I64 z) {\n    return 1 / z;\n}\n")
    done = cint("outcome", "--root", str(tmp_path), str(p))
    assert done.returncode == 0
    text = done.stdout.decode()
    assert text.startswith("case case\nsource reference\noutcome fault\nstdout-bytes 0\nfuel-consumed 1\n")
    assert "fault.position case.ci:3:14\n" in text


@pytest.mark.clause("SPEC-03P.1 4")
def test_run_on_both_executors_agrees(tmp_path):
    p = write(tmp_path, "h.ci", 'I64 big = 9223372036854775807;\n"hi {big}\\n";\nI64 z = big + 1;\n')
    ref = cint("run", "--executor", "ref", str(p))
    cpu = cint("run", "--executor", "cpu", str(p))
    assert ref.returncode == cpu.returncode == 1
    assert ref.stdout == cpu.stdout == b"hi 9223372036854775807\n"
    assert ref.stderr == cpu.stderr
    no_traceback(cpu)


def test_help_and_usage_errors_exit_with_argparse_status():
    """`cint --help` exits 0 and a usage error 2, with argparse's text (not the internal-error status 70)."""
    done = cint("--help")
    assert done.returncode == 0 and done.stdout.startswith(b"usage: cint")
    done = cint("frobnicate")
    assert done.returncode == 2 and b"invalid choice" in done.stderr
    no_traceback(done)
