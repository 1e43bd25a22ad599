"""switch, fallthrough, labelled jumps, defer/errdefer and tuples in the checker and the reference interpreter."""
import pytest

from cint_compiler.driver import compile_source
from compiler_testkit import compile_error, run, value, where


def fault(src, entry="run", args=(), **kw):
    o = run(src, entry, args, **kw)
    assert o.kind == "fault", o.kind
    return o.record, o


# ----------------------------------------------------------------------------- switch

KIND = """
I64 kind(I64 code) {
    switch (code) {
        case 0:
            return 0;
        case 1..=4, 9:
            return 1;
        case 5..=8:
            return 2;
        default:
            return 9;
    }
}
"""


@pytest.mark.clause("SPEC-04 LS-177", "SPEC-04 LS-178")
def test_switch_values_ranges_and_default():
    src = KIND + "export I64 run(I64 x) { return kind(x); }"
    got = [value(src, args=[x]) for x in (-1, 0, 1, 4, 5, 8, 9, 10)]
    assert got == [9, 0, 1, 1, 2, 2, 1, 9]


@pytest.mark.clause("SPEC-01 IM-139", "SPEC-04 LS-177")
def test_switch_charges_no_fuel_of_its_own():
    src = KIND + "export I64 run() { I64 s = 0; for i in 0..10 { s = s + kind(i); } return s; }"
    o = run(src)
    # the entry, 10 iterations and 10 calls; the switch itself charges nothing
    assert o.value == 13 and o.fuel == 21


@pytest.mark.clause("SPEC-04 LS-177", "SPEC-04 LS-56")
def test_switch_on_characters_types_items_by_the_scrutinee():
    src = """
I64 cls(U8 c) {
    switch (c) {
        case 'a'..='z', 'A'..='Z', '_':
            return 1;
        case '0'..='9':
            return 2;
        default:
            return 0;
    }
}
export I64 run(U8 c) { return cls(c); }
"""
    assert [value(src, args=[ord(ch)]) for ch in "az_Z09 {"] == [1, 1, 1, 1, 2, 2, 0, 0]


@pytest.mark.clause("SPEC-04 LS-177", "SPEC-01 IM-139")
def test_switch_with_1000_arms_dispatches_and_counts_fuel():
    arms = "".join("        case %d:\n            r = %d;\n" % (k, 3 * k) for k in range(1000))
    src = ("I64 pick(I64 x) {\n    I64 r = -1;\n    switch (x) {\n" + arms +
           "        case 1000..=I64.max:\n            r = -2;\n        default:\n            r = -3;\n"
           "    }\n    return r;\n}\n"
           "export I64 run() { I64 s = 0; for i in -1..1002 { s = s + pick(i); } return s; }")
    o = run(src)
    assert o.value == 3 * sum(range(1000)) - 3 - 2 * 2
    assert o.fuel == 1 + 1003 * 2


@pytest.mark.clause("SPEC-04 LS-178")
def test_fallthrough_continues_into_the_next_body_only():
    src = """
export I64 run(I64 code) {
    I64 r = 0;
    switch (code) {
        case 5..=8:
            r = r + 1;
            fallthrough;
        case 10:
            r = r + 10;
        case 11:
            r = r + 1000;
            fallthrough;
        default:
            r = r + 100;
    }
    return r;
}
"""
    assert [value(src, args=[x]) for x in (6, 10, 11, 0)] == [11, 10, 1100, 100]


@pytest.mark.clause("SPEC-04 LS-180", "SPEC-04 LS-184")
def test_break_exits_the_switch_and_continue_the_loop():
    src = """
export I64 run() {
    I64 s = 0;
    for i in 0..6 {
        switch (i % 3) {
            case 0:
                continue;
            case 1:
                if (i > 3) {
                    break;
                }
                s += 1000;
            default:
                s += 10;
        }
        s += 1;
    }
    return s;
}
"""
    o = run(src)
    # i = 1: 1000 then 1; i = 2: 10 then 1; i = 4: break then 1; i = 5: 10 then 1
    assert o.value == 1024 and o.fuel == 7


@pytest.mark.clause("SPEC-04 LS-184")
def test_labelled_jumps_pass_through_switches():
    src = """
export I64 run() {
    I64 t = 0;
    outer: for i in 0..4 {
        for j in 0..4 {
            switch (j) {
                case 1:
                    continue outer;
                case 2:
                    break outer;
                default:
                    switch (i) {
                        case 3:
                            break outer;
                        default:
                            t += 10 * i + j + 1;
                    }
            }
        }
    }
    return t;
}
"""
    # each i in 0..2 adds 10 * i + 1 at j = 0, then continues outer at j = 1; i = 3 breaks outer
    assert value(src) == 1 + 11 + 21


@pytest.mark.clause("SPEC-04 LS-183")
def test_nested_switch_break_is_innermost_and_case_bodies_are_scopes():
    src = """
export I64 run() {
    I64 r = 0;
    for i in 0..4 {
        switch (i) {
            case 0..=1:
                I64 k = 1;
                switch (i) {
                    case 0:
                        r += k;
                        break;
                    default:
                        r += 10;
                }
                r += 100;
            default:
                I64 k = 1000;
                r += k;
        }
    }
    return r;
}
"""
    assert value(src) == 2211


@pytest.mark.clause("SPEC-04 LS-177", "SPEC-04 LS-182", "SPEC-04 LS-314")
def test_enum_bool_and_error_scrutinees_exhaustive_without_default():
    src = """
enum Mode : U8 { idle, burn = 5, coast }
error E { a, b, c }
error F { d }
error G = E | F;
I64 m(Mode x) { switch (x) { case .idle: return 1; case Mode.burn, .coast: return 2; } }
I64 b(Bool x) { switch (x) { case true: return 3; case false: return 4; } }
I64 g(G x) { switch (x) { case .a, .b: return 5; case E.c: return 6; case F.d: return 7; } }
export I64 run() {
    G d = F.d;
    G c = E.c;
    return m(Mode.coast) * 10000 + m(.idle) * 1000 + b(false) * 100 + g(d) * 10 + g(c);
}
"""
    assert value(src) == 21476


@pytest.mark.clause("SPEC-04 LS-182")
def test_integer_coverage_is_exact_for_wide_types():
    src = """
I64 f(U64 x) {
    switch (x) {
        case 0:
            return 0;
        case 1..=9223372036854775807:
            return 1;
        case 9223372036854775808..=18446744073709551614:
            return 2;
        case 18446744073709551615:
            return 3;
    }
}
I64 g(I64 x) {
    switch (x) {
        case I64.min..=-1:
            return -1;
        case 0..=I64.max:
            return 1;
    }
}
export I64 run() {
    return f(18446744073709551615) * 1000 + f(9223372036854775808) * 100 + f(5) * 10 + g(-3);
}
"""
    assert value(src) == 3209


@pytest.mark.clause("SPEC-04 LS-182", "SPEC-04 17.2")
@pytest.mark.parametrize("body, decl", [
    ("U64 x = 1;\n    switch (x) {\n        case 0..=9223372036854775807: return 1;\n"
     "        case 9223372036854775809..=18446744073709551615: return 2;\n    }", ""),
    ("I8 x = 1;\n    switch (x) {\n        case -128..=126: return 1;\n    }", ""),
    ("Bool x = true;\n    switch (x) {\n        case true: return 1;\n    }", ""),
    ("Mode x = Mode.idle;\n    switch (x) {\n        case .idle, .coast: return 1;\n    }",
     "enum Mode : U8 { idle, burn = 5, coast }\n"),
    ("E x = E.a;\n    switch (x) {\n        case .a, .c: return 1;\n    }", "error E { a, b, c }\n"),
])
def test_non_exhaustive_switch_is_c4020_at_the_switch_keyword(body, decl):
    src = decl + "export I64 run() {\n    " + body + "\n    return 0;\n}"
    err = compile_error(src)
    line = decl.count("\n") + 3
    assert err.code == "C4020" and where(err) == (line, 5)


@pytest.mark.clause("SPEC-04 LS-181", "SPEC-04 17.2")
def test_overlapping_items_are_c4021_at_the_later_item():
    def sw(cases):
        return "export I64 run() {\n    I64 x = 3;\n    switch (x) {\n" + cases + \
               "        default: return 0;\n    }\n}"
    err = compile_error(sw("        case 1..=5: return 1;\n        case 4: return 2;\n"))
    assert err.code == "C4021" and where(err) == (5, 14)
    err = compile_error(sw("        case 7, 1..=3: return 1;\n        case 9, -2..=1: return 2;\n"))
    assert err.code == "C4021" and where(err) == (5, 17)
    err = compile_error(sw("        case 1, 2, 1: return 1;\n"))
    assert err.code == "C4021" and where(err) == (4, 20)
    err = compile_error("enum M : U8 { a, b }\nI64 f(M m) {\n    switch (m) {\n        case .a: return 1;\n"
                        "        case .b, M.a: return 2;\n    }\n}\nexport I64 run() { return f(M.a); }")
    assert err.code == "C4021" and where(err) == (5, 18)


@pytest.mark.clause("SPEC-04 LS-177", "SPEC-04 17.2")
def test_case_item_errors():
    def sw(pre, cases, scrut="x"):
        return "export I64 run() {\n    %s\n    switch (%s) {\n%s        default: return 0;\n    }\n}" % (
            pre, scrut, cases)
    err = compile_error(sw("I64 x = 1;", "        case 5..=3: return 1;\n"))
    assert err.code == "C4024" and where(err) == (4, 14)
    err = compile_error(sw("I64 x = 1; I64 y = 2;", "        case y: return 1;\n"))
    assert err.code == "C6004" and where(err) == (4, 14)
    err = compile_error(sw("I8 x = 1;", "        case 200: return 1;\n"))
    assert err.code == "C2003" and where(err) == (4, 14)
    err = compile_error(sw("I8 x = 1; const I64 K = 2;", "        case K: return 1;\n"))
    assert err.code == "C2001" and where(err) == (4, 14)
    err = compile_error(sw("Q16.16 x = 1.0;", "", scrut="x"))
    assert err.code == "C4026" and where(err) == (3, 13)
    err = compile_error(sw("Bool x = true;", "        case false..=true: return 1;\n"))
    assert err.code == "C2103"


@pytest.mark.clause("SPEC-04 LS-178", "SPEC-04 17.2")
@pytest.mark.parametrize("src, pos", [
    ("export I64 run() {\n    I64 x = 1;\n    switch (x) {\n        case 1:\n            fallthrough;\n"
     "    }\n    return 0;\n}", (5, 13)),
    ("export I64 run() {\n    I64 x = 1;\n    switch (x) {\n        case 1:\n            fallthrough;\n"
     "            x = 2;\n        default:\n            return 0;\n    }\n}", (5, 13)),
    ("export I64 run() {\n    I64 x = 1;\n    switch (x) {\n        case 1:\n            if (x > 0) {\n"
     "                fallthrough;\n            }\n        default:\n            return 0;\n    }\n}", (6, 17)),
    ("export I64 run() {\n    fallthrough;\n    return 0;\n}", (2, 5)),
])
def test_misplaced_fallthrough_is_c4014(src, pos):
    err = compile_error(src)
    assert err.code == "C4014" and where(err) == pos


@pytest.mark.clause("SPEC-04 LS-183")
def test_case_bodies_do_not_share_names():
    err = compile_error("export I64 run() {\n    I64 x = 1;\n    switch (x) {\n        case 1:\n"
                        "            I64 y = 1;\n        default:\n            x = y;\n    }\n    return x;\n}")
    assert err.code == "C3005" and where(err) == (7, 17)


@pytest.mark.clause("SPEC-04 LS-182", "SPEC-04 17.2")
def test_a_switch_that_returns_in_every_arm_ends_a_function():
    ok = ["I64 f(U8 x) { switch (x) { case 0..=127: return 1; case 128..=255: return 2; } }",
          "I64 f(U8 x) { U8 y = x; switch (y) { case 0: y = 1; fallthrough; default: return 2; } }",
          "I64 f(U8 x) { switch (x) { case 0: for i in 0..2 { break; } return 1; default: return 2; } }"]
    for f in ok:
        compile_source((f + "\nexport I64 run() { return f(1); }").encode(), "t.ci")
    bad = ["I64 f(U8 x) { switch (x) { case 0: return 1; default: break; } }",
           "I64 f(U8 x) { switch (x) { case 0: if (x == 0) { break; } return 1; default: return 2; } }",
           "I64 f(U8 x) { switch (x) { case 0..=254: return 1; } }"]
    codes = [compile_error(f + "\nexport I64 run() { return f(1); }").code for f in bad]
    assert codes == ["C4001", "C4001", "C4020"]


@pytest.mark.clause("SPEC-04 LS-177", "SPEC-01 IM-106")
def test_faults_in_the_scrutinee_and_in_a_case_body():
    rec, o = fault("export I64 run() {\n    I8 x = 127;\n    switch (x + 1) {\n        case -128..=127:\n"
                   "            return 1;\n    }\n}")
    assert rec.code == "E_OVERFLOW" and where(rec) == (3, 15) and o.fuel == 1
    src = """I64 g() { return 1; }
export I64 run() {
    I8 x = 110;
    I64 s = 0;
    for i in 0..3 {
        switch (i) {
            case 0: s += g();
            case 1: s += g(); fallthrough;
            default:
                x = x + 10;
        }
    }
    return s;
}"""
    rec, o = fault(src)
    assert rec.code == "E_OVERFLOW" and rec.operation == "add.checked.i8" and where(rec) == (10, 23)
    assert [v for _, v in rec.operands] == [120, 10]
    assert o.fuel == 1 + 3 + 2


# ----------------------------------------------------------------------------- defer and errdefer

@pytest.mark.clause("SPEC-04 LS-185", "SPEC-04 LS-186")
def test_defers_run_in_reverse_order_and_read_variables_when_they_run():
    src = """export I64 run() {
    I64 x = 1;
    {
        defer { "a{x}\\n"; }
        defer { x = x * 10; "b{x}\\n"; }
        x = 2;
    }
    return x;
}"""
    o = run(src)
    assert o.value == 20 and o.stdout == b"b20\na20\n" and o.fuel == 1


@pytest.mark.clause("SPEC-04 LS-316")
def test_return_evaluates_its_value_before_the_defers():
    src = """I64 g = 0;
I64 f() {
    I64 x = 5;
    defer g = x;
    x = 7;
    return x + 1;
}
export I64 run() { I64 r = f(); return r * 100 + g; }"""
    o = run(src)
    assert o.value == 807 and o.fuel == 2


@pytest.mark.clause("SPEC-04 LS-318", "SPEC-04 LS-185")
def test_defer_in_a_loop_runs_per_iteration_also_on_break_and_continue():
    src = """export I64 run() {
    I64 s = 0;
    for i in 0..5 {
        defer s = s * 2;
        if (i == 1) {
            continue;
        }
        if (i == 3) {
            break;
        }
        s += 1;
    }
    return s;
}"""
    o = run(src)
    assert o.value == 20 and o.fuel == 5


@pytest.mark.clause("SPEC-04 LS-185", "SPEC-04 LS-178")
def test_defer_in_a_case_body_runs_when_the_body_exits():
    src = """export I64 run(I64 x) {
    I64 s = 0;
    defer { "end {s}\\n"; }
    switch (x) {
        case 0:
            defer { s = s * 10; "c0 {s}\\n"; }
            s += 1;
            fallthrough;
        case 1:
            defer { "c1 {s}\\n"; }
            s += 2;
            break;
        default:
            s = 9;
    }
    return s;
}"""
    o = run(src, args=[0])
    assert o.value == 12 and o.stdout == b"c0 10\nc1 12\nend 12\n"


@pytest.mark.clause("SPEC-04 LS-189", "SPEC-04 LS-129")
def test_errdefer_runs_only_when_an_error_leaves():
    src = """error E { bad }
I64 log = 0;
E!I64 f(I64 x) {
    errdefer log = log * 10 + 1;
    defer log = log * 10 + 2;
    if (x == 0) {
        return .bad;
    }
    return x;
}
E!I64 g(I64 x) {
    errdefer log = log * 10 + 3;
    I64 v = try f(x);
    return v + 1;
}
export I64 run() {
    I64 a = g(5) catch 0;
    I64 b = g(0) catch -1;
    return log * 1000 + a * 10 + b;
}"""
    o = run(src)
    assert o.value == 2213059 and o.fuel == 5


@pytest.mark.clause("SPEC-04 LS-322", "SPEC-04 LS-315")
def test_errdefer_in_a_test_block_runs_when_try_propagates():
    src = """error E { bad }
E!I64 f() { return .bad; }
test "t" {
    errdefer { "ed\\n"; }
    defer { "d\\n"; }
    I64 v = try f();
    "after\\n";
}"""
    o = run(src, entry=None)
    assert o.kind == "error" and o.error[1].name == "bad" and o.stdout == b"d\ned\n" and o.fuel == 2


@pytest.mark.clause("SPEC-04 LS-321")
def test_script_defer_runs_at_the_end():
    o = run('I64 x = 1;\ndefer { "end {x}\\n"; }\nx = 2;\n"mid\\n";\n', entry=None)
    assert o.kind == "value" and o.stdout == b"mid\nend 2\n"


@pytest.mark.clause("SPEC-04 LS-317", "SPEC-01 IM-139")
def test_deferred_calls_charge_fuel_as_anywhere_else():
    src = """I64 one() { return 1; }
export I64 run() {
    I64 s = 0;
    defer { s = one(); for i in 0..3 { s += i; } }
    return 0;
}"""
    o = run(src)
    assert o.value == 0 and o.fuel == 1 + 1 + 3
    rec, o = fault(src, fuel=3)
    assert rec.code == "E_FUEL" and where(rec) == (4, 24)


@pytest.mark.clause("SPEC-04 LS-188", "SPEC-04 LS-317")
def test_a_fault_in_a_deferred_statement_has_its_own_position_and_stops_the_rest():
    src = """I64 f() {
    I64 x = 9223372036854775807;
    defer { "never\\n"; }
    {
        defer x = x + 1;
        "in\\n";
    }
    return 0;
}
export I64 run() { return f(); }"""
    rec, o = fault(src)
    assert rec.code == "E_OVERFLOW" and where(rec) == (5, 21)
    assert len(rec.stack) == 1 and (rec.stack[0].line, rec.stack[0].column) == (10, 27)
    assert o.stdout == b"in\n" and o.fuel == 2


@pytest.mark.clause("SPEC-04 LS-188")
def test_defers_do_not_run_after_a_fault():
    src = """export I64 run() {
    I64[2] a = [1, 2];
    defer { "outer\\n"; }
    {
        defer { "inner\\n"; }
        I64 i = 2;
        a[i] = 0;
    }
    return 0;
}"""
    rec, o = fault(src)
    assert rec.code == "E_BOUNDS" and where(rec) == (7, 10) and o.stdout == b""


@pytest.mark.clause("SPEC-04 LS-187", "SPEC-04 17.2")
@pytest.mark.parametrize("src, pos", [
    ("I64 f() {\n    defer {\n        return;\n    }\n    return 1;\n}", (3, 9)),
    ("I64 f() {\n    for i in 0..3 {\n        defer {\n            break;\n        }\n    }\n    return 1;\n}", (4, 13)),
    ("I64 f() {\n    rows: for i in 0..3 {\n        defer {\n            for j in 0..2 {\n"
     "                continue rows;\n            }\n        }\n    }\n    return 1;\n}", (5, 17)),
    ("error E { bad }\nE!I64 g() { return .bad; }\nE!I64 f() {\n    defer {\n        I64 v = try g();\n"
     "    }\n    return 1;\n}", (5, 17)),
])
def test_a_deferred_statement_that_would_leave_is_c4030(src, pos):
    err = compile_error(src + "\nexport I64 run() { return 0; }")
    assert err.code == "C4030" and where(err) == pos


@pytest.mark.clause("SPEC-04 LS-187", "SPEC-04 LS-320")
def test_a_deferred_statement_may_loop_and_consume_errors():
    src = """error E { bad }
E!I64 g() { return .bad; }
export I64 run() {
    I64 s = 0;
    {
        defer {
            for i in 0..10 {
                if (i == 3) {
                    break;
                }
                s += g() catch 5;
            }
        }
    }
    return s;
}"""
    assert value(src) == 15


@pytest.mark.clause("SPEC-04 LS-322", "SPEC-04 17.2")
@pytest.mark.parametrize("src, pos", [
    ('I64 f() {\n    errdefer { "x\\n"; }\n    return 1;\n}', (2, 5)),
    ('void f() {\n    errdefer { "x\\n"; }\n}', (2, 5)),
    ('error E { bad }\nE!I64 f() {\n    defer {\n        errdefer { "x\\n"; }\n    }\n    return 1;\n}', (4, 9)),
])
def test_errdefer_where_no_error_can_leave_is_c4031(src, pos):
    err = compile_error(src + "\nexport I64 run() { return 0; }")
    assert err.code == "C4031" and where(err) == pos
    err = compile_error('I64 x = 1;\nerrdefer { "x\\n"; }\n')
    assert err.code == "C4031" and where(err) == (2, 1)


# ----------------------------------------------------------------------------- tuples

DM = "(I64, I64) dm(I64 a, I64 b) {\n    return (a / b, a % b);\n}\n"


@pytest.mark.clause("SPEC-04 LS-98", "SPEC-04 LS-127")
def test_tuple_results_declare_assign_and_discard():
    src = DM + """export I64 run() {
    (I64 q, I64 r) = dm(-7, 2);
    I64 s = q * 10 + r;
    (q, r) = dm(9, 4);
    (I64 h, _) = dm(9, 4);
    (_, h) = dm(h, 1);
    _ = dm(1, 1);
    return s * 1000 + q * 100 + r * 10 + h;
}"""
    o = run(src)
    assert o.value == -39 * 1000 + 210 and o.fuel == 6


@pytest.mark.clause("SPEC-01 IM-36", "SPEC-04 LS-98")
def test_divmod_builtin():
    src = """export I64 run(I64 a, I64 b) {
    (I64 q, I64 r) = divmod(a, b);
    return q * 100 + r;
}"""
    assert value(src, args=[-7, 2]) == -400 + 1
    assert value(src, args=[7, -2]) == -400 - 1
    rec, _ = fault(src, args=[7, 0])
    assert rec.code == "E_DIV_ZERO" and rec.operation == "divmod.checked.i64" and where(rec) == (2, 22)
    rec, _ = fault("export I64 run() {\n    I8 a = -128;\n    I8 b = -1;\n    (I8 q, I8 r) = divmod(a, b);\n"
                   "    return 0;\n}")
    assert rec.code == "E_OVERFLOW" and rec.operation == "divmod.checked.i8" and rec.exact == 128
    assert value("const I64 Q = 17;\nexport I64 run() { (I64 q, I64 r) = divmod(Q, 5); return q * 10 + r; }") == 32
    err = compile_error("export I64 run() {\n    (I64 q, I64 r) = divmod(7, 0);\n    return 0;\n}")
    assert err.code == "C6001" and err.fault.code == "E_DIV_ZERO"


@pytest.mark.clause("SPEC-04 LS-100", "SPEC-04 LS-140")
def test_destructuring_assignment_evaluates_places_before_the_value():
    src = """I64 calls = 0;
(I64, I64) dm(I64 a, I64 b) {
    calls += 1;
    return (a / b, a % b);
}
export I64 run() {
    I64[2] a = [0, 0];
    I64 i = 5;
    (a[0], a[i]) = dm(7, 2);
    return calls;
}"""
    rec, o = fault(src)
    assert rec.code == "E_BOUNDS" and where(rec) == (9, 13) and o.fuel == 1
    src = """I64 n = 0;
(I64, I64) f() { n += 1; return (n, 2); }
export I64 run() {
    I64[3] a = [0, 0, 0];
    I64 i = 0;
    (a[i], i) = f();
    return a[0] * 100 + a[1] * 10 + i;
}"""
    assert value(src) == 102


@pytest.mark.clause("SPEC-04 LS-94", "SPEC-04 LS-127")
def test_error_union_of_a_tuple():
    src = """error E { bad }
E!(I64, I64) f(I64 x) {
    if (x == 0) {
        return .bad;
    }
    return (x, x + 1);
}
E!I64 g(I64 x) {
    (I64 a, I64 b) = try f(x);
    return a + b;
}
export I64 run() {
    (I64 a, I64 b) = f(0) catch (7, 8);
    return (g(3) catch 0) * 100 + a * 10 + b;
}"""
    assert value(src) == 778


@pytest.mark.clause("SPEC-04 LS-99", "SPEC-04 LS-101", "SPEC-04 17.2")
@pytest.mark.parametrize("body, code, pos", [
    ("(I32 q, I64 r) = dm(7, 2);", "C2001", (5, 6)),
    ("(I64 q, I64 r, I64 z) = dm(7, 2);", "C2001", (5, 29)),
    ("I32 q = 0;\n    I64 r = 0;\n    (q, r) = dm(7, 2);", "C2001", (7, 6)),
    ("I64 t = dm(7, 2);", "C2041", (5, 13)),
    ("I64 t = dm(7, 2) + 1;", "C2041", (5, 13)),
    ("I64 t = (1, 2);", "C2041", (5, 13)),
    ('"{dm(1, 2)}\\n";', "C2041", (5, 7)),
    ("dm(7, 2);", "C4011", (5, 5)),
    ("(I64 q, I64 q) = dm(7, 2);", "C3001", (5, 17)),
])
def test_tuple_errors_in_a_body(body, code, pos):
    err = compile_error(DM + "export I64 run() {\n    " + body + "\n    return 0;\n}")
    assert err.code == code and where(err) == pos


@pytest.mark.clause("SPEC-04 LS-101")
@pytest.mark.parametrize("src, code", [
    ("I64 g((I64, I64) t) { return 0; }", "C2041"),
    ("struct S { (I64, I64) t; }", "C2041"),
    ("((I64, I64), I64) g() { return 0; }", "C2041"),
    ("(I64, I64) g() { return (1, 2, 3); }", "C2001"),
    ("(I8, I64) g() { return (300, 2); }", "C2003"),
    ("(I64, I64) g() { return (1 / 0, 2); }", "C6001"),
    ("(I64, I64) g() { return 1; }", "C2001"),
])
def test_tuple_errors_in_declarations(src, code):
    assert compile_error(src + "\nexport I64 run() { return 0; }").code == code
