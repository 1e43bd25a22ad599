"""The lowered IR and cpu-c17 over it (docs/lir.md): lowering, the verifier, the bounds and fuel passes, and
outcomes identical to the reference executor where the fast paths could go wrong: faults at every place of a
block and at its edges, fuel that runs out inside loops and dispatches, strided views beside contiguous ones,
kernels that read what they write, every element type."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from compiler_testkit import both
from cint_compiler.driver import compile_file, compile_source
from cint_compiler.lower import NotLowered, format_function, lower, lower_checked
from cint_compiler.lower import lir as L
from cint_compiler.lower.verify import VerifyError, verify

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "tests-conformance"))
from spec_paths import EXAMPLES, SHARED  # noqa: E402


def info_of(src, name):
    c = compile_source(src.encode("utf-8"), "t.ci")
    return c.program.functions.get(name) or c.program.kernels[name]


def lowered(src, name, kvariant=False):
    return lower_checked(info_of(src, name), kvariant=kvariant, verify=True)


def ops(fn, kind):
    return [op for op in L.walk(L.body_of(fn)) if isinstance(op, kind)]


KERNELS = """
const I32[5] TAPS = [1, 4, 6, 4, 1];

kernel fir5[m](in I32[m + 4] x, out I32[m] y) over [i: m] {
    I32 acc = 0;
    for k in 0..5 {
        acc += TAPS[k] * x[i + k];
    }
    y[i] = acc;
}

kernel stencil[h, w](in I32[h + 2, w + 2] u, out I32[h, w] v) over [i: h, j: w] {
    v[i, j] = u[i + 1, j + 1] * 4 - u[i, j + 1] - u[i + 2, j + 1] - u[i + 1, j] - u[i + 1, j + 2];
}

kernel shifted[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i + 1];
}

void histogram[h, w](in U8[h, w] img, inout I64[256] hist) {
    for r in 0..h {
        for c in 0..w {
            hist[img[r, c] as I64] += 1;
        }
    }
}

kernel matvec[r, c](in I32[r, c] a, in I32[c] x, out I64[r] y) over [i: r] {
    y[i] = dot(I64, a[i], x);
}
"""


# ------------------------------------------------------------------------------------------ the bounds pass

def test_the_bounds_pass_proves_the_indices_loop_ranges_and_extents_bound():
    fir = lowered(KERNELS, "fir5")
    elems = ops(fir, L.Elem)
    assert [e.proven for e in elems] == [[True], [True], [True]]      # TAPS[k], x[i + k], y[i]
    adds = [op for op in ops(fir, L.Arith) if op.ty.bits == 64]
    assert len(adds) == 1 and adds[0].safe                            # i + k cannot overflow
    assert not any(op.safe for op in ops(fir, L.Arith) if op.ty.bits == 32)   # the data's products can
    st = lowered(KERNELS, "stencil")
    assert all(all(e.proven) for e in ops(st, L.Elem))
    hist = lowered(KERNELS, "histogram")
    assert all(all(e.proven) for e in ops(hist, L.Elem))              # a U8 value indexes 256 buckets
    assert all(c.safe for c in ops(hist, L.Conv))


def test_the_bounds_pass_proves_nothing_it_cannot():
    sh = lowered(KERNELS, "shifted")
    y, x = ops(sh, L.Elem)            # the place first (IM-98)
    assert x.proven == [False] and y.proven == [True]                 # x[i + 1] reaches n
    mv = lowered(KERNELS, "matvec")
    (red,) = ops(mv, L.Reduce)
    assert red.row_proven and red.same_extent


def test_a_counted_loop_whose_body_charges_nothing_is_charged_once():
    hist = lowered(KERNELS, "histogram")
    outer, inner = ops(hist, L.ForRange)
    assert inner.batch and not outer.batch


# ------------------------------------------------------------------------------------------ the verifier

def test_the_verifier_names_the_pass_that_broke_a_rule():
    fn = lower(info_of(KERNELS, "fir5"))
    verify(fn, "lowering")
    loop = ops(fn, L.ForRange)[0]
    loop.body.ops.insert(0, loop.body.ops.pop())        # the accumulator's update before what it reads
    with pytest.raises(VerifyError, match="after ranges: .*read before it is defined"):
        verify(fn, "ranges")
    fn = lower(info_of(KERNELS, "fir5"))
    elem = ops(fn, L.Elem)[1]
    elem.idx.append(elem.idx[0])
    with pytest.raises(VerifyError, match="after fuel: Elem: 2 indices for rank 1"):
        verify(fn, "fuel")
    fn = lower(info_of(KERNELS, "fir5"))
    fn.items.body.ops.append(L.Let(fn.items.over[0], L.Imm(0, fn.items.over[0].ty)))
    with pytest.raises(VerifyError, match="read-only"):
        verify(fn, "lowering")


def _programs():
    from cint_compiler.conformance.expect import find_cases
    out = []
    if EXAMPLES.is_dir():
        out += [(p, p.parent) for p in sorted(EXAMPLES.glob("*.ci"))]
    up = SHARED / "upstream-conformance"
    if up.is_dir():
        out += [(p, up) for p in find_cases(up)]
    return out


def test_every_function_of_the_spec_examples_and_the_public_cases_lowers_and_verifies_or_says_why():
    from cint_compiler.diagnostics import CompileError
    progs = _programs()
    if not progs:
        pytest.skip("../shared is absent")
    lowered_n = refused = 0
    for path, root in progs:
        try:
            c = compile_file(path, root)
        except CompileError:
            continue
        for info in list(c.program.functions.values()) + list(c.program.kernels.values()):
            for kv in ((False, True) if not info.is_kernel else (False,)):
                try:
                    fn = lower_checked(info, kvariant=kv, verify=True)
                except NotLowered as ex:
                    assert ex.what, "a refusal names its construct"
                    refused += 1
                    continue
                assert format_function(fn)
                lowered_n += 1
    # the share of the public programs' functions that the LIR covers (it only grows)
    assert lowered_n >= 234, (lowered_n, refused)


def test_cint_lower_prints_the_lir_and_what_stays_with_the_tree_walker(tmp_path):
    src = tmp_path / "k.ci"
    src.write_text(KERNELS + "\nstruct P {\n    I64 a;\n}\nI64 twice(I64 x) { P p = P(x); return p.a; }\n",
                   encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "cint_compiler", "lower", str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "&2 = index.checked.i32 @x[%3] !" in r.stdout
    assert "add.checked.i64 $i, $k.2  @7:30 step proved" in r.stdout
    assert "function twice: not lowered (a declaration of P at 35:22)" in r.stdout
    r = subprocess.run([sys.executable, "-m", "cint_compiler", "lower", str(src), "--function", "nope"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no function or kernel named nope" in r.stderr


# ------------------------------------------------------------------------------------------ same outcomes

ELEMENTWISE = """
kernel scale[n](in T[n] x, out T[n] y) over [i: n] {
    y[i] = x[i] * 3 + 1;
}

void run() {
    T[N] x;
    for i in 0..N {
        x[i] = (i % 50) as T;
    }
    x[POS] = BIG;
    T[N] y;
    scale(x, y);
    "{y[0]} {y[N - 1]}\\n";
}
"""


@pytest.mark.parametrize("pos", [0, 1, 1023, 1024, 1025, 2047, 2999])
def test_a_fault_anywhere_in_a_block_or_at_its_edges_is_the_lowest_work_item(tmp_path, pos):
    src = ELEMENTWISE.replace("T", "I32").replace("N", "3000").replace("POS", str(pos)).replace("BIG",
                                                                                                "800000000")
    text = both(tmp_path, src)
    assert "fault.address 0 %d 2\n" % pos in text      # dispatch 0, the work item, step 2 (the `*`)


@pytest.mark.parametrize("t,big", [("I8", "50"), ("I16", "11000"), ("I64", "4000000000000000000"), ("U8", "90"),
                                   ("U16", "22000"), ("U32", "1500000000"), ("U64", "7000000000000000000")])
def test_every_element_type_faults_as_the_reference_does(tmp_path, t, big):
    src = ELEMENTWISE.replace("T", t).replace("N", "2100").replace("POS", "1500").replace("BIG", big)
    both(tmp_path, src, name="e_" + t.lower())


FIR = """
const I32[5] TAPS = [1, 4, 6, 4, 1];

kernel fir5[m](in I32[m + 4] x, out I32[m] y) over [i: m] {
    I32 acc = 0;
    for k in 0..5 {
        acc += TAPS[k] * x[i + k];
    }
    y[i] = acc;
}

void run() {
    I32[2504] x;
    for i in 0..2504 {
        x[i] = (i % 7) as I32 - 3;
    }
    x[POS] = BIG;
    I32[2500] y;
    fir5(x, y);
    "{y[0]} {y[2499]} {sum(y)}\\n";
}
"""


@pytest.mark.parametrize("pos,big", [(1200, "400000000"), (2503, "300000000"), (0, "3")])
def test_a_fir_filter_faults_at_the_tap_the_reference_names(tmp_path, pos, big):
    both(tmp_path, FIR.replace("POS", str(pos)).replace("BIG", big))


@pytest.mark.parametrize("fuel", [2505, 2506, 2507, 2600, 7000, 12000, 14999, 15005, 15007, 20000])
def test_fuel_that_runs_out_inside_a_dispatch_or_a_loop_stops_where_the_reference_stops(tmp_path, fuel):
    both(tmp_path, FIR.replace("POS", "5").replace("BIG", "2"), fuel=fuel, name="f%d" % fuel)


SCAN = """
void prefix[n](in I64[n] x, inout I64[n] s) {
    I64 acc = 0;
    for i in 0..n {
        acc += x[i];
        s[i] = acc;
    }
}

I64[40] xs;
I64[40] res;

void run() {
    for i in 0..40 {
        xs[i] = i as I64;
    }
    xs[POS] = 9223372036854775000;
    prefix(xs, res);
    "{res}\\n";
}
"""


@pytest.mark.parametrize("pos,fuel", [(30, None), (0, None), (39, None), (30, 60), (30, 70), (30, 82), (30, 83)])
def test_a_function_stops_with_the_stores_and_fuel_of_the_exact_order(tmp_path, pos, fuel):
    # the loop's trip is charged at once when the budget covers it; a fault in it gives back the rest
    both(tmp_path, SCAN.replace("POS", str(pos)), fuel=fuel, name="s%d_%s" % (pos, fuel))


STRIDED = """
kernel dbl[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i] * 2;
}

I64 total[n](in I64[n] x) {
    I64 s = 0;
    for v in x {
        s += v;
    }
    return s;
}

void run() {
    I64[2, 1500] m;
    for i in 0..1500 {
        m[0, i] = i as I64;
        m[1, i] = (i * 3) as I64;
    }
    I64[1500] y;
    dbl(m[1], y);
    I64[750] z;
    in I64[_] r0 = m[0];
    dbl(r0[0.. by 2], z);
    "{y[1499]} {z[749]} {total(m[.., 7])} {total(r0[1.. by 2])}\\n";
    m[1, POS] = 5000000000000000000;
    I64[2] c;
    dbl(m[.., POS], c);
}
"""


@pytest.mark.parametrize("pos", [3, 1100])
def test_strided_and_contiguous_views_of_one_array_give_the_same_outcomes(tmp_path, pos):
    both(tmp_path, STRIDED.replace("POS", str(pos)), name="v%d" % pos)


READWRITE = """
kernel bump[n](inout I64[n] a) over [i: n] {
    a[i] = a[i] + 1;
}

kernel first[n](in I64[n] x, out I64[n] y) over [i: n] {
    y[i] = x[i];
    y[i] = y[i] * 3;
}

void run() {
    I64[2000] a;
    for i in 0..2000 {
        a[i] = i as I64;
    }
    a[POS] = 9223372036854775807;
    bump(a);
    "{a[0]} {a[1999]}\\n";
}

void run2() {
    I64[2000] x;
    for i in 0..2000 {
        x[i] = i as I64;
    }
    x[POS] = 4000000000000000000;
    I64[2000] y;
    first(x, y);
    "{y[3]}\\n";
}
"""


@pytest.mark.parametrize("pos", [1500, 1999])
def test_a_kernel_that_reads_what_it_writes_counts_each_item_once(tmp_path, pos):
    src = READWRITE.replace("POS", str(pos))
    both(tmp_path, src, name="rw%d" % pos)
    both(tmp_path, src, name="rx%d" % pos, entry="run2")


MATVEC = """
kernel matvec[r, c](in I32[r, c] a, in I32[c] x, out I64[r] y) over [i: r] {
    y[i] = dot(I64, a[i], x);
}

void run() {
    I32[3, 1300] a;
    I32[1300] x;
    for j in 0..1300 {
        x[j] = 2147483647;
        for i in 0..3 {
            a[i, j] = (j % 5) as I32 - 2;
        }
    }
    a[ROW, 7] = -2147483648;
    x[7] = -2147483648;
    a[ROW, 8] = -2147483648;
    x[8] = -2147483648;
    a[ROW, 9] = -2147483648;
    I64[3] y;
    matvec(a, x, y);
    "{y}\\n";
}
"""


@pytest.mark.parametrize("row", [0, 2])
def test_a_dot_of_rows_is_exact_through_partial_sums_that_leave_64_bits(tmp_path, row):
    both(tmp_path, MATVEC.replace("ROW", str(row)), name="mv%d" % row)


STATE = """
I64 total = 0;
I32[64] hist;
U8 last = 0;

void add[n](in I64[n] xs) {
    for x in xs {
        total += x;
        hist[x % 64] += 1;
        last = (x % 256) as U8;
    }
}

I64 peek(I64 k) {
    return hist[k] as I64 + total;
}

void run() {
    I64[100] xs;
    for i in 0..100 {
        xs[i] = (i * 37) as I64;
    }
    add(xs);
    "{total} {last} {peek(5)}\\n";
    xs[STOP] = 9223372036854775000;
    add(xs);
}
"""


@pytest.mark.parametrize("stop,fuel", [(50, None), (0, None), (99, None), (50, 250), (50, 330)])
def test_module_variables_hold_the_stores_of_completed_statements_at_a_fault(tmp_path, stop, fuel):
    c = compile_source(STATE.replace("STOP", str(stop)).encode("utf-8"), "t.ci")
    assert lower_checked(c.program.functions["add"], verify=True).globals      # the module variables lower
    text = both(tmp_path, STATE.replace("STOP", str(stop)), fuel=fuel, name="g%d_%s" % (stop, fuel))
    assert "\nstate.global g%d_%s total I64 " % (stop, fuel) in text      # the state at the fault, compared


COLLATZ = """
kernel collatz[n](in I64[n] x, out I64[n] steps) over [i: n] {
    I64 v = x[i];
    I64 s = 0;
    while (v != 1) {
        if (v % 2 == 0) {
            v = v / 2;
        } else {
            v = 3 * v + 1;
        }
        s += 1;
    }
    steps[i] = s;
}

void run() {
    I64[1500] x;
    for i in 0..1500 {
        x[i] = i as I64 + 1;
    }
    x[POS] = BIG;
    I64[1500] s;
    collatz(x, s);
    "{s[26]} {s[1499]}\\n";
}
"""


@pytest.mark.parametrize("pos,big,fuel", [(1100, "6148914691236517205", None), (3, "3074457345618258603", None),
                                          (1100, "27", 40000), (1100, "27", 90000), (700, "27", 50000)])
def test_branches_run_both_ways_in_fast_blocks_and_fault_as_the_taken_one(tmp_path, pos, big, fuel):
    # the `if` of the loop is if-converted in the fast block: both arms run, the condition picks values and flags
    c = compile_source(COLLATZ.replace("POS", "0").replace("BIG", "1").encode("utf-8"), "t.ci")
    from cint_compiler.backend.c17.lir.writer import _speculable
    (br,) = ops(lower_checked(c.program.kernels["collatz"]), L.If)
    assert _speculable(br.then) and _speculable(br.other)
    both(tmp_path, COLLATZ.replace("POS", str(pos)).replace("BIG", big), fuel=fuel, name="cz%d_%s" % (pos, fuel))


CALLS = """
I64 dotp[n](in I64[n] a, in I64[n] b) {
    I64 s = 0;
    for i in 0..n {
        s += a[i] * b[i];
    }
    return s;
}

void axpy[n](I64 k, in I64[n] x, inout I64[n] y) where n >= 2 {
    for i in 0..n {
        y[i] += k * x[i];
    }
}

I64[8] g = [1, 2, 3, 4, 5, 6, 7, 8];
const I64[8] C = [8, 7, 6, 5, 4, 3, 2, 1];
I64[1] one;
I64[1] two;

I64 run2[n, m](in I64[n] x, inout I64[m] y) {
    axpy(2, x, y);
    axpy(K, C, g);
    if (y[0] == 77) {
        axpy(1, one, two);
    }
    return dotp(x, y) + dotp(g, C);
}

void run() {
    I64[8] x = [1, 1, 2, 3, 5, 8, 13, 21];
    I64[M] y;
    y[0] = Y0;
    "{run2(x, y)} {y} {g}\\n";
}
"""


@pytest.mark.parametrize("m,k,y0", [(8, "3", 0), (7, "3", 0), (8, "1152921504606846976", 0), (8, "3", 75)])
def test_calls_with_arrays_bind_and_check_shapes_as_the_reference(tmp_path, m, k, y0):
    src = CALLS.replace("M", str(m)).replace("K", k).replace("Y0", str(y0))
    c = compile_source(src.encode("utf-8"), "t.ci")
    for name in ("dotp", "axpy", "run2"):
        lower_checked(c.program.functions[name], verify=True)
    both(tmp_path, src, name="c%d_%d_%d" % (m, len(k), y0))


JUMPS = """
I64 find[n](in I64[n] xs, I64 want) {
    I64 at = -1;
    for i in 0..n {
        if (xs[i] == want) {
            at = i;
            break;
        }
    }
    return at;
}

I64 first_big[n](in I64[n] xs) {
    for i in 0..n {
        if (xs[i] > 1000) {
            return i;
        }
    }
    return -1;
}

void run() {
    I64[50] xs;
    for i in 0..50 {
        xs[i] = i as I64 * 37;
    }
    I64 a = find(xs, 37 * 7);
    I64 b = first_big(xs);
    I64 c = find(xs, 5);
    "{a} {b} {c}\\n";
    I64 d = find(xs, 37 * 40);
}
"""


@pytest.mark.parametrize("fuel", [None, 60, 70, 90, 120, 160, 170, 175])
def test_leaving_a_loop_charged_whole_gives_back_what_it_did_not_run(tmp_path, fuel):
    fn = lowered(JUMPS, "find")
    assert ops(fn, L.ForRange)[0].batch
    both(tmp_path, JUMPS, fuel=fuel, name="j%s" % fuel)


LOCALS = """
I64 work[n](in I64[n] xs, I64 k) {
    I64 total = 0;
    for r in 0..4 {
        I64[n] tmp;
        const I64[3] w = [1, 2, 3];
        for i in 0..n {
            tmp[i] = xs[i] * w[r % 3];
        }
        {
            I64[k + K] big;
            big[0] = r as I64;
            total += big[0] + sum(tmp);
        }
    }
    return total;
}

I64 small(I64 v) {
    I64[2] t2;
    t2[1] = v;
    return t2[1] + 1;
}

kernel smooth[n](in I64[n] x, out I64[n] y) over [i: n] {
    I64[3] t;
    t[0] = x[i];
    t[1] = x[i] * 2;
    y[i] = t[0] + t[1] + small(x[i]);
}

void run() {
    I64[5] xs = [1, 2, 3, 4, BIG];
    "{work(xs, 2)}\\n";
    I64[5] ys;
    smooth(xs, ys);
    "{ys}\\n";
}
"""


@pytest.mark.parametrize("k,big,fuel", [(4, "5", None), (-5, "5", None), (3000000, "5", None),
                                        (4, "3074457345618258603", None), (4, "5", 30), (4, "5", 45)])
def test_local_arrays_charge_and_give_back_the_frame_arena_as_the_reference(tmp_path, k, big, fuel):
    src = LOCALS.replace("K", str(k)).replace("BIG", big)
    c = compile_source(src.encode("utf-8"), "t.ci")
    assert ops(lower_checked(c.program.functions["work"], verify=True), L.LocalArray)
    assert ops(lower_checked(c.program.kernels["smooth"], verify=True), L.LocalArray)
    both(tmp_path, src, fuel=fuel, name="l%d_%d_%s" % (abs(k), len(big), fuel))


SWITCH = """
I64 classify[n](in I64[n] xs) {
    I64 score = 0;
    for x in xs {
        switch (x) {
            case 0:
                continue;
            case 1, 2:
                score += 10;
                fallthrough;
            case 3..=9:
                score += x;
            case 10:
                break;
            case 11..=20:
                I64[2] t;
                t[1] = x;
                score *= t[1];
            default:
                score -= 1;
        }
        score += 1000;
    }
    return score;
}

void run() {
    I64[9] xs = [0, 1, 5, 10, 12, -4, 2, 20, LAST];
    "{classify(xs)}\\n";
}
"""


@pytest.mark.parametrize("last", ["3", "700", "15"])
def test_switch_cases_ranges_fallthrough_and_jumps_as_the_reference(tmp_path, last):
    src = SWITCH.replace("LAST", last)
    assert ops(lowered(src, "classify"), L.Switch)
    both(tmp_path, src, name="sw%s" % last)


ASSERTS = """
I64 check[n](in I64[n] xs, I64 limit) {
    I64 s = 0;
    for x in xs {
        assert(x < limit, "each below the limit");
        s += x;
        assert(s != 77);
    }
    assert((s > 0) == true);
    return s;
}

void run() {
    I64[4] xs = [A, B, 3, 4];
    "{check(xs, 50)}\\n";
}
"""


@pytest.mark.parametrize("a,b", [("1", "2"), ("60", "2"), ("70", "4"), ("-9", "-9")])
def test_asserts_fault_with_the_compared_values_as_the_reference(tmp_path, a, b):
    src = ASSERTS.replace("A", a).replace("B", b)
    assert ops(lowered(src, "check"), L.Assert)
    both(tmp_path, src, name="as%s_%s" % (a.strip("-"), b.strip("-")))


FOLDED = """
kernel fold[n](in I64[n] x, out I64[n] y) over [i: n] {
    const I64[2] L = [2 * 3, -(1 + 1)];
    y[i] = x[i] * (4 * 5) + L[i % 2];
}

void run() {
    I64[1500] x;
    for i in 0..1500 {
        x[i] = i as I64;
    }
    x[POS] = 461168601842738791;
    I64[1500] y;
    fold(x, y);
    "{y[1499]}\\n";
}
"""


@pytest.mark.parametrize("pos", [7, 1030])
def test_the_steps_of_folded_constants_count_in_fast_and_exact_kernels(tmp_path, pos):
    fn = lowered(FOLDED.replace("POS", str(pos)), "fold")
    assert [op.n for op in ops(fn, L.Steps)] == [3, 1]     # 2 * 3, 1 + 1 and its -, then 4 * 5
    text = both(tmp_path, FOLDED.replace("POS", str(pos)), name="fd%d" % pos)
    assert "fault.address 0 %d 6\n" % pos in text


REDUCE_FN = """
I64 dots[n, m](in I32[n] a, in I32[m] b) {
    return dot(I64, a, b);
}

I64 total[n](in I64[n] x) {
    return sum(x);
}

void run() {
    I32[200] a;
    I32[M] b;
    for i in 0..200 {
        a[i] = -2147483648;
    }
    for i in 0..M {
        b[i] = B;
    }
    I64[3] x = [9223372036854775807, X, -5];
    "{total(x)}\\n";
    "{dots(a, b)}\\n";
}
"""


@pytest.mark.parametrize("m,b,x,fuel", [(200, "-1", "1", None), (200, "-2147483648", "1", None),
                                        (199, "1", "1", None), (200, "1", "-1", None), (200, "-1", "1", 404),
                                        (200, "-1", "1", 405), (200, "-1", "1", 407)])
def test_reductions_of_functions_run_inline_and_fault_as_the_runtime(tmp_path, m, b, x, fuel):
    # dots over 200 products of 2^62: the partial sums leave I64, the total may fit; sum over [MAX, x, -5]
    src = REDUCE_FN.replace("M", str(m)).replace("B", b).replace("X", x)
    both(tmp_path, src, fuel=fuel, name="rf%d_%d_%s_%s" % (m, len(b), x.strip("-"), fuel))
