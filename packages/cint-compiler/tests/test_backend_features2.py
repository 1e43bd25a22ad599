"""The executor cpu-c17 against the reference executor on the features of issues 3 and 6: private arrays and
reductions inside kernels, module-level and constant arrays, Str values, `try` in a test block.

Each program runs on both executors through `outcome.expect_text`; the texts (status, fault record with
position, stack and kernel address, fuel, stdout, result, module variables) must be equal and not a refusal,
and the reference executor must not give a compile error.
"""
import shutil

import pytest

from compiler_testkit import both


pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


# ----------------------------------------------------------------------------- kernels: private arrays, sum

KERNELS = {
    "private_and_sum": """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[3] t;
    t[0] = a[i];
    t[1] = a[i] * 2;
    b[i] = sum(t) + sum(a);
}
export I64 run() {
    I64[5] a = [1, 2, 3, 4, 5];
    I64[5] b;
    k(a, b);
    "{b[0]} {b[1]} {b[2]} {b[3]} {b[4]}\\n";
    return b[4];
}""",
    "private_sized_by_n": """kernel k[n](in I32[n] a, inout I32[n] b) over [i: n] {
    I32[4] t = a;
    for j in 0..4 {
        t[j] = t[j] * (i as I32 + 1);
    }
    b[i] = b[i] + sum(t) as I32;
}
export I64 run() {
    I32[4] a = [1, -2, 3, 4];
    I32[4] b = [10, 20, 30, 40];
    k(a, b);
    "{b[0]} {b[1]} {b[2]} {b[3]}\\n";
    return b[3] as I64;
}""",
    "private_rank2_literal": """kernel k[n, m](in I16[n, m] a, out I64[n, m] b) over [i: n, j: m] {
    I16[2, 2] t;
    t[0, 1] = a[i, j];
    t[1, 0] = 3;
    I16[3] u = [a[i, j], 1, 2];
    b[i, j] = sum(t) as I64 + sum(u) as I64 + i * 10 + j;
}
export I64 run() {
    I16[2, 3] a;
    for i in 0..2 { for j in 0..3 { a[i, j] = (i * 3 + j) as I16; } }
    I64[2, 3] b;
    k(a, b);
    "{b[0, 0]} {b[0, 2]} {b[1, 0]} {b[1, 2]}\\n";
    return b[1, 2];
}""",
    "bounds_fault_work_item": """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[3] t;
    I64 x = a[i] + 1;
    t[a[i]] = x;
    b[i] = t[0];
}
export I64 run() {
    I64[6] a = [0, 1, 2, 2, 3, 7];
    I64[6] b = [9, 9, 9, 9, 9, 9];
    k(a, b);
    return b[0];
}""",
    "sum_overflow_step": """kernel k[n](in I8[n] a, out I8[n] b) over [i: n] {
    I8 x = a[i] +% 1;
    b[i] = sum(a) +% x;
}
kernel k2[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[2] t;
    t[0] = a[i];
    t[1] = a[i];
    b[i] = sum(t);
}
export I64 run() {
    I8[3] a = [1, 2, 3];
    I8[3] b;
    k(a, b);
    "{b[0]} {b[1]} {b[2]}\\n";
    I64[3] c = [1, 4611686018427387904, 3];
    I64[3] d;
    k2(c, d);
    return 0;
}""",
    "sum_result_overflow_i8": """kernel k[n](in I8[n] a, out I8[n] b) over [i: n] {
    b[i] = sum(a) as I8;
}
export I64 run() {
    I8[4] a = [100, 20, 7, 1];
    I8[4] b;
    k(a, b);
    return 0;
}""",
    "shape_fault_private": """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[3] t = a;
    b[i] = t[0];
}
export I64 run() {
    I64[4] a = [1, 2, 3, 4];
    I64[4] b;
    k(a, b);
    return 0;
}""",
    "many_items_frame": """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64[64] t;
    t[i % 64] = a[i];
    for j in 0..2 {
        I64[8] u;
        u[j] = t[i % 64];
        t[j] = sum(u);
    }
    b[i] = sum(t);
}
export I64 run() {
    I64[20000] a;
    for i in 0..20000 { a[i] = i; }
    I64[20000] b;
    k(a, b);
    return sum(b);
}""",
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernels_private_arrays_and_sum(tmp_path, name):
    both(tmp_path, KERNELS[name])


@pytest.mark.parametrize("fuel", [3, 9, 12, 14, 17, 30])
def test_kernel_sum_fuel(tmp_path, fuel):
    # the reduction's charge comes after its counted step: E_FUEL positions at the next step ordinal
    both(tmp_path, KERNELS["private_and_sum"], fuel=fuel)
    both(tmp_path, KERNELS["private_sized_by_n"], name="q", fuel=fuel * 2)


# ----------------------------------------------------------------------------- module-level arrays

GLOBALS = {
    "arrays": """I64[4] tab;
I16[2, 3] grid;
Bool[2] flags;
I64 total = 0;
void bump(inout I64[_] a) { a[0] += 100; }
I64 peek(I64 i) { return tab[i]; }
export I64 run() {
    tab[1] = tab[1] + 9;
    flags[1] = true;
    grid[1, 2] = -5;
    bump(tab);
    bump(tab[1..]);
    total = sum(tab) + sum(grid) as I64;
    "{tab[0]} {tab[1]} {flags[1]} {flags[0]} {grid[1, 2]} {len(tab)} {sum(grid[1])}\\n";
    for x in tab { total += x; }
    I64[4] copy_ = tab;
    copy_[0] = 1;
    return total + peek(3) + copy_[0] + tab[0];
}""",
    "bounds_fault": """U8[3] bytes_;
I64 peek(I64 i) { return bytes_[i] as I64; }
export I64 run() {
    bytes_[2] = 200;
    return peek(2) + peek(3);
}""",
    "enum_and_kernel": """enum Color : U8 { red = 0, green = 1, blue = 2 }
Color[3] cs;
I32[5] acc;
kernel twice[n](in I32[n] a, out I32[n] b) over [i: n] { b[i] = a[i] * 2; }
export I64 run() {
    cs[2] = Color.blue;
    for i in 0..5 { acc[i] = i as I32; }
    I32[5] out_;
    twice(acc, out_);
    copy(acc, out_);
    "{cs[2]} {cs[0]} {acc[4]}\\n";
    return sum(acc) as I64;
}""",
}


@pytest.mark.parametrize("name", sorted(GLOBALS))
def test_module_level_arrays(tmp_path, name):
    both(tmp_path, GLOBALS[name])


def test_module_level_array_in_a_test_block(tmp_path):
    src = GLOBALS["arrays"] + """
test "t" {
    tab[2] = 3;
    assert(sum(tab) == 3);
    assert(tab[2] == 4);
}"""
    both(tmp_path, src, entry=None)


STATE_SRC = """I64[3] tab;
Bool[2] flags;
U8[2, 2] m;
U8 n = 1;
export I64 put(I64 i, I64 v) {
    tab[i] = v;
    flags[i % 2] = true;
    m[i % 2, 1] = m[i % 2, 1] +% 7;
    n += 1;
    return sum(tab);
}
"""


def test_module_level_arrays_in_the_canonical_state(tmp_path, monkeypatch):
    """The C runtime's state bytes (state.c: the array's header in the globals gives its descriptor) equal
    cint_compiler.canonical.canonical_state of the interpreter, and a restore of them round-trips."""
    cint = pytest.importorskip("cint")
    from cint_abi.checkpoint import decode_checkpoint, encode_checkpoint
    from cint_compiler.interp.canonical import canonical_state
    from cint_compiler.driver import compile_source
    from cint_compiler.interp.context import Context as RefContext
    monkeypatch.setenv("CINT_PY_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CINT_EXE", raising=False)
    path = tmp_path / "garr.ci"
    path.write_text(STATE_SRC, encoding="utf-8")
    mod = cint.load(path)
    ctx = mod.context()
    c = compile_source(STATE_SRC.encode(), "garr.ci")
    ref = RefContext(c.program, c.revision)
    put = c.program.functions["put"]

    def c_state():
        return decode_checkpoint(ctx.checkpoint()).state_bytes

    assert c_state() == canonical_state(ref)
    for i, v in ((0, 5), (1, -3), (2, 9), (1, 4)):
        assert ctx.put(i, v) == ref.run_entry("func", put, [i, v]).value
        assert c_state() == canonical_state(ref)
    saved = ctx.checkpoint()
    ctx.put(0, 100)
    ctx.restore(saved)
    assert c_state() == canonical_state(ref)
    # a state the interpreter reached restores into a fresh cpu-c17 context
    ref.run_entry("func", put, [2, 11])
    fresh = mod.context()
    fresh.restore(encode_checkpoint(canonical_state(ref), contract="cint-rt-3", digests={}))
    assert decode_checkpoint(fresh.checkpoint()).state_bytes == canonical_state(ref)
    assert fresh.put(0, 0) == 15


# ----------------------------------------------------------------------------- Str values

STRS = {
    "basics": """Bool same(Str a, Str b) { return a == b; }
Str pick(I64 k) {
    if (k > 0) {
        return "yes";
    }
    return "no";
}
export I64 run() {
    Str s = "h\\u{e9}llo";
    Str t = s;
    Str c = "abc";
    Str z = "";
    "{s} {len(s)} {s[1]} {t == s} {same(s, c)} {pick(1)} {pick(0)} {c} [{z}] {len(z)} {s != c}\\n";
    "[{s:>8}] [{c:*^8}] [{s:<7}] [{s=}] [{c:>2}]\\n";
    I64 n = 0;
    for i in 0..len(s) {
        n += s[i] as I64;
    }
    t = c;
    assert(t == "abc");
    return n * 10 + len(t);
}""",
    "index_fault": """U8 at(Str s, I64 i) { return s[i]; }
export I64 run() {
    Str s = "abc";
    "{at(s, 2)}\\n";
    return at(s, 3) as I64;
}""",
    "assert_fault": """export I64 run() {
    Str a = "x";
    Str b = "y";
    assert(a == b);
    return 0;
}""",
    "error_union_and_tuple": """error E { empty }
E!Str first(Str s) {
    if (len(s) == 0) {
        return .empty;
    }
    return s;
}
(Str, I64) both_(Str s) { return (s, len(s)); }
export I64 run() {
    Str a = first("hi") catch "none";
    Str b = first("") catch "none";
    (Str c, I64 n) = both_("four");
    "{a} {b} {c} {n}\\n";
    return n;
}""",
}


@pytest.mark.parametrize("name", sorted(STRS))
def test_str_values(tmp_path, name):
    both(tmp_path, STRS[name])


# ----------------------------------------------------------------------------- `try` in a test block

TESTS = {
    "error_leaves": """error ParseError { empty, bad_digit }
error Other { nope }
ParseError!I64 parse(I64 x) {
    if (x < 0) {
        return .bad_digit;
    }
    return x * 2;
}
Other!I64 other(I64 x) {
    if (x == 0) {
        return .nope;
    }
    return x;
}
test "parse" {
    defer { "deferred\\n"; }
    errdefer { "errdefer\\n"; }
    I64 a = try other(3);
    I64 v = try parse(a);
    "v={v}\\n";
    for i in 0..4 {
        I64 w = try parse(2 - i);
        "w={w}\\n";
    }
    "never\\n";
}""",
    "no_error": """error E { x }
E!I64 f(I64 v) { return v; }
test "ok" {
    I64 a = try f(4);
    assert(a == 4);
    "done {a}\\n";
}""",
    "fault_first": """error E { x }
E!I64 f(I64 v) {
    if (v > 1) {
        return .x;
    }
    return v;
}
test "fault" {
    I64 a = try f(1);
    I64[2] t = [1, 2];
    "{t[a + 1]}\\n";
    I64 b = try f(2);
}""",
}


@pytest.mark.parametrize("name", sorted(TESTS))
def test_try_in_a_test_block(tmp_path, name):
    out = both(tmp_path, TESTS[name], entry=None)
    if name == "error_leaves":
        # the value's bare name: no other set in ParseError declares it (format 3, LS-97)
        assert "outcome error" in out and "\nerror.value bad_digit\n" in out, out
