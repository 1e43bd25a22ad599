"""`format(buf, "...")`, `utf8(bytes)` and `swap(a, b)` (SPEC-04P.1 LS-216, LS-217, LS-106, LS-145, LS-253;
docs/language.md decision 26) on both executors with identical outcomes, and their compile errors."""
import pytest

from compiler_testkit import both, compile_error, run, where


def stdout(src, entry="run"):
    o = run(src, entry)
    assert o.kind == "value", (o.kind, o.record)
    return o.stdout


# ----------------------------------------------------------------------------- format (LS-216, LS-217)

FORMAT = """
FormatError!Str label(inout U8[_] b, I64 id) {
    Str s = try format(b, "body {id:04}");
    return s;
}
export I64 run() {
    U8[12] buf;
    fill(buf, 7);
    Str a = label(buf, 42) catch "none";
    "{a} {len(a)} {a[5]} {buf}\\n";
    U8[6] tiny;
    Str b = label(tiny, 42) catch (e) { "{e} {tiny}\\n"; return 1; };
    "{b}\\n";
    return 0;
}
"""


@pytest.mark.clause("SPEC-04 LS-216")
def test_format_fits_and_capacity(tmp_path):
    both(tmp_path, FORMAT)
    assert stdout(FORMAT) == (b"body 0042 9 48 [98, 111, 100, 121, 32, 48, 48, 52, 50, 7, 7, 7]\n"
                              b"FormatError.capacity [98, 111, 100, 121, 32, 48]\n")


UTF8_EDGE = """
export I64 run() {
    U8[5] small;
    fill(small, 7);
    Str t = format(small, "ab\\u{e9}\\u{e9}") catch (e) { "{e} {small}\\n"; return 1; };
    "{t}\\n";
    return 0;
}
"""


@pytest.mark.clause("SPEC-04 LS-216")
def test_format_does_not_split_a_utf8_sequence(tmp_path):
    # "ab" + U+00E9 + U+00E9 is 6 bytes; 5 fit, but the fifth starts a sequence: 4 are written, byte 5 stays 7
    both(tmp_path, UTF8_EDGE)
    assert stdout(UTF8_EDGE) == b"FormatError.capacity [97, 98, 195, 169, 7]\n"


SPEC_EXAMPLE = """
export I64 run() {
    U8[64] buf;
    I64 id = 7;
    Str label = format(buf, "body {id:04}") catch "body ????";
    "{label} {label:>11}|\\n";
    U8[3] b3;
    Str none = format(b3, "body {id:04}") catch "body ????";
    "{none}\\n";
    return len(label);
}
"""


@pytest.mark.clause("SPEC-04 LS-216")
def test_format_spec_example_and_print_of_the_str(tmp_path):
    both(tmp_path, SPEC_EXAMPLE)
    assert stdout(SPEC_EXAMPLE) == b"body 0007   body 0007|\nbody ????\n"


VIEWS = """
struct Rec {
    I64 id;
    U8[6] name;
}
Str into(inout U8[_] b, I64 v) {
    return format(b, "x{v}") catch "full";
}
export I64 run() {
    U8[10] buf;
    fill(buf, 46);
    I64 v = -5;
    Str s = format(buf[1.. by 2], "{v:+}|") catch "?";
    Str r = format(reverse(buf[6..], 0), "ab") catch "?";
    "{s} {buf} {r}\\n";
    buf[1] = 61;
    Str w = "=5|";
    Bool eq = s == w;
    "{s:>6} {eq} {s[0]}\\n";
    U8[3] inner;
    "{into(inner, v)} {inner}\\n";
    Rec rec;
    Str n = format(rec.name, "n{rec.id}") catch "?";
    U8[2, 4] m;
    Str t = format(m[1], "{n}{n}") catch "full";
    "{n} {t} {rec} {m}\\n";
    return 0;
}
"""


@pytest.mark.clause("SPEC-04 LS-216", "SPEC-04 LS-217")
def test_format_into_strided_views_fields_and_inside_a_print(tmp_path):
    # a store into the buffer shows through the Str (it is a view); a format inside a print hole
    both(tmp_path, VIEWS)
    assert stdout(VIEWS) == (b"-5| [46, 45, 46, 53, 46, 124, 46, 46, 98, 97] ab\n"
                             b"   =5| true 61\n"
                             b"x-5 [120, 45, 53]\n"
                             b"n0 n0n0 Rec(id=0, name=[110, 48, 0, 0, 0, 0]) [[0, 0, 0, 0], [110, 48, 110, 48]]\n")


HOLE_FAULT = """
export I64 run() {
    U8[8] buf;
    fill(buf, 1);
    I64[2] a;
    I64 i = 5;
    Str s = format(buf, "x{a[i]}") catch "?";
    "{s}\\n";
    return 0;
}
"""


@pytest.mark.clause("SPEC-04 LS-216")
def test_format_hole_fault(tmp_path):
    text = both(tmp_path, HOLE_FAULT)
    assert "fault.code E_BOUNDS" in text and "p.ci:7:29" in text


@pytest.mark.clause("SPEC-04 LS-106", "SPEC-04 LS-217")
def test_str_of_a_local_buffer_is_not_returned():
    err = compile_error('Str bad() {\n    U8[4] buf;\n    return format(buf, "abc") catch "";\n}\n'
                        'export I64 run() { return 0; }\n')
    assert err.code == "C2051" and where(err) == (3, 12)
    err = compile_error('Str bad() {\n    U8[4] buf;\n    Str s = format(buf, "abc") catch "";\n    return s;\n}\n'
                        'export I64 run() { return 0; }\n')
    assert err.code == "C2051" and where(err) == (4, 12)
    # through a call whose result may view its argument
    err = compile_error('Str id(Str s) { return s; }\nStr bad() {\n    U8[4] buf;\n'
                        '    return id(format(buf, "abc") catch "");\n}\nexport I64 run() { return 0; }\n')
    assert err.code == "C2051" and where(err) == (4, 12)
    # a Str kept past the block of its buffer
    err = compile_error('export I64 run() {\n    Str s = "";\n    {\n        U8[4] b;\n'
                        '        s = format(b, "x") catch "";\n    }\n    return 0;\n}\n')
    assert err.code == "C2051" and where(err) == (5, 13)


@pytest.mark.clause("SPEC-04 LS-216")
def test_format_argument_errors():
    err = compile_error('void f(in U8[_] b) {\n    _ = format(b, "x");\n}\nexport I64 run() { return 0; }\n')
    assert err.code == "C2067" and where(err) == (2, 16)
    err = compile_error('export I64 run() {\n    I64[4] b;\n    _ = format(b, "x");\n    return 0;\n}\n')
    assert err.code == "C2001" and where(err) == (3, 16)
    err = compile_error('export I64 run() {\n    U8[4] b;\n    Str f = "x";\n    _ = format(b, f);\n'
                        '    return 0;\n}\n')
    assert err.code == "C2001" and where(err) == (4, 19)
    err = compile_error('export I64 run() {\n    U8[4] b;\n    format(b, "x");\n    return 0;\n}\n')
    assert err.code == "C2040"


# ----------------------------------------------------------------------------- utf8 (section 6.8)

UTF8 = """
Utf8Error!Str check(in U8[_] bytes) {
    return try utf8(bytes);
}
void show(in U8[_] bytes) {
    Str s = check(bytes) catch (e) { "{e}\\n"; return; };
    "ok {len(s)} {s}\\n";
}
export I64 run() {
    U8[2] overlong = [0xC0, 0xAF];
    U8[3] surrogate = [0xED, 0xA0, 0x80];
    U8[2] truncated = [0xE2, 0x82];
    U8[4] big = [0xF4, 0x90, 0x80, 0x80];
    U8[4] smile = [0xF0, 0x9F, 0x98, 0x80];
    U8[3] nul = [0x61, 0x00, 0x62];
    U8[1] stray = [0x80];
    U8[3] zwsp = [0xE2, 0x80, 0x8B];
    show(overlong);
    show(surrogate);
    show(truncated);
    show(big);
    show(smile);
    show(nul);
    show(stray);
    show(zwsp);
    Str lit = utf8(b"caf\\xc3\\xa9") catch "bad";
    Str bad = utf8(b"caf\\xc3") catch "bad";
    "{lit} {bad} {len(lit)}\\n";
    Utf8Error e = Utf8Error.invalid;
    "{e}\\n";
    return 0;
}
"""


@pytest.mark.clause("SPEC-04 LS-145", "SPEC-04 LS-21")
def test_utf8_valid_and_invalid(tmp_path):
    both(tmp_path, UTF8)
    assert stdout(UTF8) == (b"Utf8Error.invalid\n" * 4 + "ok 4 \U0001F600\n".encode() + b"ok 3 a\x00b\n"
                            + b"Utf8Error.invalid\n" + "ok 3 \u200b\n".encode() + "café bad 5\n".encode()
                            + b"Utf8Error.invalid\n")


UTF8_LIVE = """
Str text(in U8[_] b) {
    return utf8(b) catch "bad";
}
export I64 run() {
    U8[3] b = [0x61, 0x62, 0x63];
    Str s = text(b);
    b[1] = 0x7A;
    "{s} {s[1]} {len(s)}\\n";
    return 0;
}
"""


@pytest.mark.clause("SPEC-04 LS-106")
def test_utf8_str_views_its_bytes_and_is_returned_from_a_parameter(tmp_path):
    both(tmp_path, UTF8_LIVE)
    assert stdout(UTF8_LIVE) == b"azc 122 3\n"


def test_utf8_argument_errors():
    err = compile_error('I64[3] mk() { I64[3] r; return r; }\nexport I64 run() {\n    _ = utf8(mk());\n'
                        '    return 0;\n}\n')
    assert err.code == "C2001" and where(err) == (3, 14)
    err = compile_error('U8[3] mk() { U8[3] r; return r; }\nexport I64 run() {\n    _ = utf8(mk());\n'
                        '    return 0;\n}\n')
    assert err.code == "C2051" and where(err) == (3, 14)


# ----------------------------------------------------------------------------- swap (LS-145, LS-253)

SWAP = """
I64[2, 3] gm = [[1, 2, 3], [4, 5, 6]];
I64[2, 3] gn = [[7, 8, 9], [10, 11, 12]];
struct P {
    I64 x;
    Bool b;
}
export I64 run() {
    I64[4] x = [1, 2, 3, 4];
    I64[4] y = [5, 6, 7, 8];
    swap(x, y);
    swap(gm, gn);
    I64[2, 3] lm;
    swap(lm, gm);
    swap(x, x);
    P[2] p = [P(1, true), P(2, false)];
    P[2] q;
    swap(p, q);
    U8[4] buf;
    U8[4] other;
    Str s = format(buf, "ab") catch "";
    "{s}\\n";
    swap(buf, other);
    "{x} {y} {gm} {gn} {lm} {p} {q} {buf} {other}\\n";
    return x[0];
}
"""


@pytest.mark.clause("SPEC-04 LS-145")
def test_swap_local_module_and_2d_arrays(tmp_path):
    both(tmp_path, SWAP)
    assert stdout(SWAP) == (b"ab\n[5, 6, 7, 8] [1, 2, 3, 4] [[0, 0, 0], [0, 0, 0]] [[1, 2, 3], [4, 5, 6]] "
                            b"[[7, 8, 9], [10, 11, 12]] [P(x=0, b=false), P(x=0, b=false)] "
                            b"[P(x=1, b=true), P(x=2, b=false)] [0, 0, 0, 0] [97, 98, 0, 0]\n")


@pytest.mark.clause("SPEC-04 LS-145")
@pytest.mark.parametrize("decls, call, code, pos", [
    ("I64[4] a;\n    I32[4] b;", "swap(a, b);", "C2001", (4, 13)),
    ("I64[4] a;\n    I64[5] b;", "swap(a, b);", "C2012", (4, 13)),
    ("I64[2, 2] a;\n    I64[4] b;", "swap(a, b);", "C2001", (4, 13)),
    ("I64[4] a;\n    I64[8] b;", "swap(a, b[0..4]);", "C2058", (4, 13)),
    ("I64[4] a;\n    inout I64[_] b = a[..];", "swap(a, b);", "C2058", (4, 13)),
    ("I64[4] a;\n    I64 b = 0;", "swap(a, b);", "C2058", (4, 13)),
    ("I64[4] a;\n    I64[4] b;", "swap(a);", "C2022", (4, 5)),
])
def test_swap_errors(decls, call, code, pos):
    err = compile_error("export I64 run() {\n    %s\n    %s\n    return 0;\n}\n" % (decls, call))
    assert err.code == code and where(err) == pos, str(err)


def test_swap_of_a_parameter_is_refused():
    err = compile_error("void f(inout I64[_] p) {\n    I64[4] a;\n    swap(a, p);\n}\nexport I64 run() { return 0; }\n")
    assert err.code == "C2060" and where(err) == (3, 13)


@pytest.mark.clause("SPEC-04 LS-253")
def test_views_across_a_swap_are_c5011():
    err = compile_error("export I64 run() {\n    I64[4] a;\n    I64[4] b;\n    in I64[_] v = a[1..];\n"
                        "    swap(a, b);\n    return v[0];\n}\n")
    assert err.code == "C5011" and where(err) == (5, 5) and "swap" in str(err)
    err = compile_error('export I64 run() {\n    U8[4] a;\n    U8[4] b;\n    Str s = format(a, "ab") catch "";\n'
                        '    swap(b, a);\n    return len(s);\n}\n')
    assert err.code == "C5011" and where(err) == (5, 5)
    err = compile_error('export I64 run() {\n    U8[4] a;\n    U8[4] b;\n    Str s = format(a, "ab") catch "";\n'
                        '    for i in 0..3 {\n        I64 n = len(s);\n        swap(b, a);\n    }\n    return 0;\n}\n')
    assert err.code == "C5011" and where(err) == (7, 9)


NOT_LIVE = """
export I64 run() {
    I64[4] a = [1, 2, 3, 4];
    I64[4] b;
    in I64[_] v = a[1..];
    I64 k = v[0];
    swap(a, b);
    U8[4] c;
    U8[4] d;
    Str s = format(c, "ab") catch "";
    swap(c, d);
    s = format(c, "z") catch "";
    "{k} {s} {b}\\n";
    return 0;
}
"""


@pytest.mark.clause("SPEC-04 LS-253")
def test_views_not_used_after_a_swap_are_fine(tmp_path):
    both(tmp_path, NOT_LIVE)
    assert stdout(NOT_LIVE) == b"2 z [1, 2, 3, 4]\n"


def test_format_utf8_swap_in_a_kernel_are_refused():
    err = compile_error("kernel k[m](in U8[m] a, out U8[m] o) over [j: m] {\n    o[j] = a[j];\n"
                        "    U8[2] b;\n    U8[2] c;\n    swap(b, c);\n}\nexport I64 run() { return 0; }\n")
    assert err.code == "C9102"


@pytest.mark.clause("SPEC-04 LS-253")
def test_str_live_across_a_dispatch_is_c5011(tmp_path):
    kernel = "kernel cp[n](in U8[n] u, out U8[n] o) over [i: n] { o[i] = u[i]; }\n"
    err = compile_error(kernel + 'export I64 run() {\n    U8[4] f;\n    U8[4] g;\n'
                        '    Str s = format(g, "ab") catch "";\n    cp(f, g);\n    return len(s);\n}\n')
    assert err.code == "C5011" and where(err) == (6, 5) and "dispatch" in str(err)
    ok = kernel + ('export I64 run() {\n    U8[4] f;\n    U8[4] g;\n    Str s = format(f, "ab") catch "";\n'
                   '    cp(f, g);\n    "{s} {g}\\n";\n    return len(s);\n}\n')
    both(tmp_path, ok)
    assert stdout(ok) == b"ab [97, 98, 0, 0]\n"


SIZED = """
void rot[n](inout I64[n] x) {
    I64[n] a;
    I64[n] b;
    copy(a, x);
    swap(a, b);
    copy(x, b);
    b[0] = 9;
    copy(a, b);
    swap(a, b);
    "{a} {b}\\n";
}
export I64 run() {
    I64[3] x = [1, 2, 3];
    rot(x);
    return x[2];
}
"""


@pytest.mark.clause("SPEC-04 LS-145")
def test_swap_of_arrays_sized_by_one_size_parameter(tmp_path):
    both(tmp_path, SIZED)
    assert stdout(SIZED) == b"[9, 2, 3] [9, 2, 3]\n"
    err = compile_error("export I64 run(I64 n) {\n    I64[n] a;\n    I64[n] b;\n    swap(a, b);\n    return 0;\n}\n")
    assert err.code == "C9102" and where(err) == (4, 13)
    err = compile_error("void f() {\n    I64[2] a;\n    I64[2] b;\n    swap(a, b);\n}\n"
                        "kernel k[m](in I64[m] u, out I64[m] o) over [j: m] {\n    f();\n    o[j] = u[j];\n}\n"
                        "export I64 run() { return 0; }\n")
    assert err.code == "C5024" and where(err) == (7, 5)


def test_byte_string_literal_binds_an_in_u8_parameter(tmp_path):
    # a b"..." argument is a read-only view of its bytes with its static extent, as a string literal is
    src = '''
I64 weigh(in U8[_] b) { return len(b) * 100 + (b[1] as I64); }
I64 tally[k](in U8[k] b) { return k; }
export I64 run() { return weigh(b"a\\x05c") + tally(b"xy"); }
'''
    assert "return I64 307" in both(tmp_path, src)
    err = compile_error('void poke(inout U8[_] b) { b[0] = 1; }\nexport I64 run() { poke(b"ab"); return 0; }\n')
    assert err.code == "C2067" and where(err) == (2, 25)
