"""A generator of small well-typed cint programs, for differential testing of the executors.

Generators, oracles and targets are kept apart (STYLE.md): this module only writes programs and
their inputs.  A program is one module with an exported entry ``run()`` that returns an ``I64``
digest of what it computed, a few helper functions, loops, arrays and (optionally) a kernel
dispatch, over every integer width and every operator form.  Generated programs stay inside what
must be deterministic; they may fault (overflow, division by zero, shifts, bounds, fuel): a fault
is an outcome to compare like any other.

``program(rnd)`` returns ``(source, fuel)`` from a ``random.Random``; hypothesis drives it through
``programs()``.
"""
from __future__ import annotations

import random

INT_TYPES = ["I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "I128", "I256", "I512", "I1024"]
WIDTH = {"I8": 8, "I16": 16, "I32": 32, "I64": 64, "U8": 8, "U16": 16, "U32": 32, "U64": 64,
         "I128": 128, "I256": 256, "I512": 512, "I1024": 1024}
ARITH = ["+", "-", "*", "/", "%", "+%", "-%", "*%", "+|", "-|", "*|"]
BITS = ["&", "|", "^"]
SHIFTS = ["<<", "<<%", ">>"]
CMPS = ["==", "!=", "<", "<=", ">", ">="]


def bounds(t):
    w = WIDTH[t]
    if t.startswith("I"):
        return -(1 << (w - 1)), (1 << (w - 1)) - 1
    return 0, (1 << w) - 1


def literal(rnd, t):
    lo, hi = bounds(t)
    pick = rnd.random()
    if pick < 0.15:
        v = rnd.choice([lo, hi, 0, 1, lo + 1, hi - 1])
    elif pick < 0.85:
        v = rnd.randint(max(lo, -20), min(hi, 20))
    else:
        v = rnd.randint(lo, hi)
    return str(v)


class Gen:
    def __init__(self, rnd: random.Random, wide=True):
        self.rnd = rnd
        self.n = 0
        self.types = INT_TYPES if wide else [t for t in INT_TYPES if WIDTH[t] <= 64]
        self.loops = []      # labels of the enclosing loops (None for an unlabelled one)

    def fresh(self, stem="v"):
        self.n += 1
        return "%s%d" % (stem, self.n)

    def expr(self, t, names, depth=0):
        """An expression of type ``t`` over the typed variables ``names`` ({name: type})."""
        r = self.rnd
        same = [n for n, nt in names.items() if nt == t]
        if depth > 2 or r.random() < 0.3:
            if same and r.random() < 0.85:
                return r.choice(same)
            if names and (not same or r.random() < 0.7):
                return "(%s as%% %s)" % (r.choice(list(names)), t)
            return literal(r, t)
        k = r.random()
        if k < 0.45:
            op = r.choice(ARITH)
            return "(%s %s %s)" % (self.expr(t, names, depth + 1), op, self.expr(t, names, depth + 1))
        if k < 0.55:
            op = r.choice(BITS)
            return "(%s %s %s)" % (self.expr(t, names, depth + 1), op, self.expr(t, names, depth + 1))
        if k < 0.65:
            op = r.choice(SHIFTS)
            count = str(r.choice([0, 1, 3, WIDTH[t] - 1, WIDTH[t], -1, r.randint(0, WIDTH[t] - 1)]))
            return "(%s %s %s)" % (self.expr(t, names, depth + 1), op, count)
        if k < 0.75:
            src = r.choice(self.types)
            form = r.choice(["as", "as%"])
            return "(%s %s %s)" % (self.expr(src, names, depth + 1), form, t)
        if k < 0.82:
            c = self.cond(names, depth + 1)
            return "(%s ? %s : %s)" % (c, self.expr(t, names, depth + 1), self.expr(t, names, depth + 1))
        if k < 0.9 and t.startswith("I"):
            f = r.choice(["abs", "min", "max", "div_trunc", "rem_euclid", "div_euclid"])
            if WIDTH[t] > 64 and r.random() < 0.4:
                # the named operations with wide intermediates, on the wide types only
                f = r.choice(["isqrt", "div_round", "muldiv", "clamp", "mul_full", "shift"])
                a, b = self.expr(t, names, depth + 1), self.expr(t, names, depth + 1)
                if f == "isqrt":
                    return "isqrt(%s)" % a
                if f == "div_round":
                    return "div_round(%s, %s, %s)" % (a, b, r.choice(["floor", "ceil", "half_even", "half_away"]))
                if f == "muldiv":
                    return "muldiv(%s, %s, %s, %s, trunc)" % (t, a, b, self.expr(t, names, depth + 1))
                if f == "clamp":
                    return "clamp(%s, %s, %s)" % (a, b, self.expr(t, names, depth + 1))
                if f == "mul_full" and WIDTH[t] < 1024:
                    return "(mul_full(%s, %s) as%% %s)" % (a, b, t)
                # a count of a wide type
                return "(%s %s (%s as %s))" % (a, r.choice(SHIFTS), r.choice([0, 1, WIDTH[t] - 1, WIDTH[t], -1]),
                                              r.choice(["I128", "I1024"]))
            if f == "abs":
                return "abs(%s)" % self.expr(t, names, depth + 1)
            return "%s(%s, %s)" % (f, self.expr(t, names, depth + 1), self.expr(t, names, depth + 1))
        same = [n for n, nt in names.items() if nt == t]
        if same and t.startswith("I") and k < 0.95:
            return "(-%s)" % r.choice(same)
        if same:
            return "(0 -%% %s)" % r.choice(same)
        return literal(r, t)

    def atom_i64(self, names):
        """An I64 expression that never faults: a variable converted with as%, or a literal."""
        if names:
            return "(%s as%% I64)" % self.rnd.choice(list(names))
        return str(self.rnd.randint(-20, 20))

    def cond(self, names, depth=0):
        t = self.rnd.choice(self.types)
        return "(%s %s %s)" % (self.expr(t, names, depth + 1), self.rnd.choice(CMPS), self.expr(t, names, depth + 1))

    def digest(self, names):
        """An I64 expression that mixes every variable with wrapping arithmetic (never faults)."""
        parts = ["0"]
        for n, t in names.items():
            parts.append("(%s as%% I64)" % n)
        acc = parts[0]
        for p in parts[1:]:
            acc = "((%s *%% 31) +%% %s)" % (acc, p)
        return acc

    def block(self, names, depth, lines, indent, fixed=()):
        """Statements; ``fixed`` are names that cannot be assigned (loop variables)."""
        r = self.rnd
        pad = "    " * indent
        for _ in range(r.randint(1, 4)):
            if names and r.random() < 0.12 and self.extra(names, depth, lines, pad, indent, fixed):
                continue
            k = r.random()
            if k < 0.4 or not names:
                t = r.choice(self.types)
                n = self.fresh()
                lines.append("%s%s %s = %s;" % (pad, t, n, self.expr(t, names)))
                names[n] = t
            elif k < 0.6 and [m for m in names if m not in fixed]:
                n = r.choice([m for m in names if m not in fixed])
                op = r.choice(["=", "+=", "-=", "*=", "+%=", "-|=", "^="])
                lines.append("%s%s %s %s;" % (pad, n, op, self.expr(names[n], names)))
            elif k < 0.75 and depth < 2:
                lines.append("%sif %s {" % (pad, self.cond(names)))
                self.block(dict(names), depth + 1, lines, indent + 1, fixed)
                lines.append("%s} else {" % pad)
                self.block(dict(names), depth + 1, lines, indent + 1, fixed)
                lines.append("%s}" % pad)
            elif k < 0.82 and depth < 2:
                i = self.fresh("i")
                label = self.fresh("outer") if r.random() < 0.3 else None
                self.loops.append(label)
                lines.append("%s%sfor %s in 0..%d {" % (pad, label + ": " if label else "", i, r.randint(0, 6)))
                inner = dict(names)
                inner[i] = "I64"
                self.block(inner, depth + 1, lines, indent + 1, tuple(fixed) + (i,))
                lines.append("%s}" % pad)
                self.loops.pop()
            elif k < 0.87 and depth < 2:
                # a while loop with a counter, so it always ends (or runs out of fuel)
                c = self.fresh("w")
                lines.append("%sI64 %s = 0;" % (pad, c))
                lines.append("%swhile (%s < %d) {" % (pad, c, r.randint(1, 5)))
                lines.append("%s    %s += 1;" % (pad, c))
                self.loops.append(None)
                self.block(dict(names), depth + 1, lines, indent + 1, tuple(fixed) + (c,))
                self.loops.pop()
                lines.append("%s}" % pad)
            elif k < 0.92 and depth < 2:
                # a switch over a value in -3..3 (enough to hit several arms, ranges and the default)
                sv = self.fresh("sw")
                st = r.choice(["I64", "I128", "I1024"]) if "I128" in self.types else "I64"
                lines.append("%s%s %s = (%s %% 7 - 3) as %s;" % (pad, st, sv, self.atom_i64(names), st))
                lines.append("%sswitch (%s) {" % (pad, sv))
                arms = r.sample([-3, -2, -1, 0, 1, 2, 3], r.randint(1, 4))
                for a in sorted(arms):
                    lines.append("%s    case %d:" % (pad, a))
                    self.block(dict(names), depth + 1, lines, indent + 2, fixed)
                    if r.random() < 0.3 and a != sorted(arms)[-1]:
                        lines.append("%s        fallthrough;" % pad)
                lines.append("%s    default:" % pad)
                self.block(dict(names), depth + 1, lines, indent + 2, fixed)
                lines.append("%s}" % pad)
            elif k < 0.95 and self.loops:
                target = r.choice(self.loops)
                jump = r.choice(["break", "continue"])
                lines.append("%sif %s {" % (pad, self.cond(names)))
                lines.append("%s    %s%s;" % (pad, jump, " " + target if target else ""))
                lines.append("%s}" % pad)
            else:
                lines.append('%s"%s\\n";' % (pad, " ".join("{%s}" % n for n in list(names)[:3])))

    # ---- defer, error unions, as?, divmod and format specifications (issues 3 and 6)

    def narrow(self, names):
        return [n for n, t in names.items() if WIDTH[t] <= 64]

    def extra(self, names, depth, lines, pad, indent, fixed):
        """One statement of the later features; False when none fits here."""
        r = self.rnd
        k = r.random()
        small = self.narrow(names)
        if k < 0.3 and depth < 2 and not getattr(self, "in_defer", False):
            # a deferred block: runs at every exit of this block (not after a fault); no jump leaves it
            saved, self.loops, self.in_defer = self.loops, [], True
            lines.append("%sdefer {" % pad)
            self.block(dict(names), depth + 1, lines, indent + 1, fixed)
            lines.append("%s}" % pad)
            self.loops, self.in_defer = saved, False
            return True
        if k < 0.55:
            t = r.choice(["I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64"])
            n = self.fresh()
            src = self.expr(r.choice(self.types), names)
            if r.random() < 0.5 or getattr(self, "in_defer", False):
                lines.append("%s%s %s = %s as? %s catch %s;" % (pad, t, n, src, t, literal(r, t)))
            else:
                lines.append("%s%s %s = %s as? %s catch (e) {" % (pad, t, n, src, t))
                lines.append('%s    "narrow {e}\\n";' % pad)
                lines.append("%s    %s;" % (pad, self.leave(names)))
                lines.append("%s};" % pad)
            names[n] = t
            return True
        if k < 0.8:
            arg = self.expr(self.eh_t, names)
            n = self.fresh()
            f = r.choice(["eh", "eh2"])
            rt = self.eh_t if f == "eh" else "I64"
            if r.random() < 0.5 or getattr(self, "in_defer", False):
                lines.append("%s%s %s = %s(%s) catch %s;" % (pad, rt, n, f, arg, literal(r, rt)))
            else:
                lines.append("%s%s %s = %s(%s) catch (e) {" % (pad, rt, n, f, arg))
                lines.append('%s    "caught {e}\\n";' % pad)
                lines.append("%s    %s;" % (pad, self.leave(names)))
                lines.append("%s};" % pad)
            names[n] = rt
            return True
        if k < 0.9 and small:
            t = names[r.choice(small)]
            q, m = self.fresh(), self.fresh()
            lines.append("%s(%s %s, %s %s) = divmod(%s, %s);" % (pad, t, q, t, m, self.expr(t, names),
                                                                 self.expr(t, names)))
            names[q] = t
            names[m] = t
            return True
        if names:
            # every name is an integer (I128..I1024 through runtime-c's cint_fmt_wide)
            specs = ["x", ">8", "+", "_", "#b", "08", "*^9", "t", "/100", "#X", "<6,", "+012", " >5o"]
            lines.append('%s"%s\\n";' % (pad, " ".join("{%s:%s}" % (n, r.choice(specs)) for n in list(names)[:4])))
            return True
        return False

    def leave(self, names):
        """A statement that leaves a catch block of run(): a jump of an enclosing loop, or a return."""
        if self.loops and self.rnd.random() < 0.6:
            target = self.rnd.choice(self.loops)
            return "%s%s" % (self.rnd.choice(["break", "continue"]), " " + target if target else "")
        return "return %s" % self.digest(names)

    def error_helpers(self):
        """eh: an error union whose errors depend on its argument, with defer/errdefer; eh2: try through
        a combined set, and an error of its own."""
        r = self.rnd
        t = self.eh_t
        pn = {"p": t}
        lines = ["error GE { neg, big }", "error GF { odd }", "error GEF = GF | GE;", "I64 glog = 0;",
                 "GE!%s eh(%s p) {" % (t, t)]
        lines.append("    errdefer glog = glog *% 3 +% 1;")
        lines.append("    defer glog = glog *% 5 +% (p as% I64);")
        lines.append("    if (%s) {" % self.cond(pn))
        lines.append("        return .neg;")
        lines.append("    }")
        lines.append("    %s x = %s;" % (t, self.expr(t, pn)))
        lines.append("    if (%s) {" % self.cond({"p": t, "x": t}))
        lines.append("        return GE.big;")
        lines.append("    }")
        lines.append("    return x;")
        lines.append("}")
        lines.append("GEF!I64 eh2(%s p) {" % t)
        lines.append('    errdefer { "eh2 err {glog}\\n"; }')
        lines.append("    %s v = try eh(p);" % t)
        lines.append("    if (%s) {" % self.cond({"p": t, "v": t}))
        lines.append("        return .odd;")
        lines.append("    }")
        lines.append("    return v as% I64;")
        lines.append("}")
        return lines + [""]

    def program(self):
        r = self.rnd
        lines = []
        self.eh_t = r.choice([t for t in self.types if WIDTH[t] <= 64])
        lines += self.error_helpers()
        use_kernel = r.random() < 0.3
        if use_kernel:
            # wide element types too when the program draws them (the general kernel path on limbs)
            t = r.choice(["I8", "I32", "I64", "U16"] + [x for x in ("I128", "I512") if x in self.types])
            body = self.expr(t, {"a": t, "b": t})
            # half of the kernels also keep a private array and sum it (and the whole input); the choice
            # comes from the body's text, so the draws of rnd (and every other program) stay as they were
            if random.Random(body).random() < 0.5:
                lines += ["kernel k[n](in %s[n] xs, in %s s, out %s[n] ys) over [j: n] {" % (t, t, t),
                          "    %s a = xs[j];" % t, "    %s b = s;" % t, "    %s[3] pa;" % t,
                          "    pa[j % 3] = a;", "    pa[2] = b;",
                          "    ys[j] = (%s) +%% sum(pa) +%% sum(xs);" % body, "}", ""]
            elif random.Random(body + "/call").random() < 0.5:
                # the body in a kernel-admissible helper called from the kernel (LS-250), arguments swapped
                lines += ["%s kh(%s a, %s b) {" % (t, t, t), "    return %s;" % body, "}",
                          "kernel k[n](in %s[n] xs, in %s s, out %s[n] ys) over [j: n] {" % (t, t, t),
                          "    %s a = xs[j];" % t, "    %s b = s;" % t, "    ys[j] = kh(b, a) +% kh(a, b);",
                          "}", ""]
            else:
                lines += ["kernel k[n](in %s[n] xs, in %s s, out %s[n] ys) over [j: n] {" % (t, t, t),
                          "    %s a = xs[j];" % t, "    %s b = s;" % t, "    ys[j] = %s;" % body, "}", ""]
            # half of the kernels of I8..U64 come with a second one that reduces the body's values (decision
            # 23: sum, sum_sat, max under `if`, count); drawn from the body's text, as above
            use_reduce = WIDTH[t] <= 64 and random.Random(body + "/reduce").random() < 0.5
            if use_reduce:
                lines += ["kernel kr[n](in %s[n] xs, in %s s, out I64 c, out %s w, out %s m, out I64 u) "
                          "over [j: n] {" % (t, t, t, t),
                          "    %s a = xs[j];" % t, "    %s b = s;" % t, "    %s v = %s;" % (t, body),
                          "    reduce c = count(a < b);", "    reduce w = sum_sat(v);",
                          "    if (v != b) {", "        reduce m = max(v);", "    }",
                          "    reduce u = sum(v);", "}", ""]
        helper_t = r.choice(self.types)
        hn = {"p": helper_t, "q": helper_t}  # the helper's body uses only its parameters
        lines += ["%s h(%s p, %s q) {" % (helper_t, helper_t, helper_t), "    return %s;" % self.expr(helper_t, hn),
                  "}", ""]
        run_at = len(lines)
        lines.append("export I64 run() {")
        names = {}
        for t0 in r.sample(self.types, 3):
            n0 = self.fresh()
            lines.append("    %s %s = %s;" % (t0, n0, literal(r, t0)))
            names[n0] = t0
        body_at, first = len(lines), dict(names)
        self.block(names, 0, lines, 1)
        x, y = self.fresh(), self.fresh()
        lines.append("    %s %s = h(%s, %s);" % (helper_t, x, self.expr(helper_t, names), self.expr(helper_t, names)))
        names[x] = helper_t
        if use_kernel:
            n = r.randint(1, 5)
            lines.append("    %s[%d] %s = [%s];" % (t, n, y, ", ".join(literal(r, t) for _ in range(n))))
            z = self.fresh()
            lines.append("    %s[%d] %s;" % (t, n, z))
            lines.append("    k(%s, %s, %s);" % (y, literal(r, t), z))
            lines.append("    %s = %s +%% (%s[%d] as%% %s);" % (x, x, z, r.randrange(n), helper_t))
            if use_reduce:
                rs = [self.fresh() for _ in range(4)]
                lines += ["    I64 %s = 0;" % rs[0], "    %s %s = 0;" % (t, rs[1]), "    %s %s = 0;" % (t, rs[2]),
                          "    I64 %s = 0;" % rs[3]]
                lines.append("    kr(%s, %s, %s);" % (z, literal(random.Random(body + "/lit"), t), ", ".join(rs)))
                for v in rs:
                    lines.append("    %s = %s +%% (%s as%% %s);" % (x, x, v, helper_t))
        if use_kernel and WIDTH[t] <= 64:
            self.big_dispatch(t, body, lines, x, helper_t)
        if any(WIDTH[t] > 64 for t in self.types) and r.random() < 0.3:
            # a wide array, its sum and an element
            t = r.choice([t for t in self.types if WIDTH[t] > 64])
            n, a = r.randint(1, 4), self.fresh("wa")
            lines.append("    %s[%d] %s = [%s];" % (t, n, a, ", ".join(literal(r, t) for _ in range(n))))
            s = self.fresh()
            lines.append("    %s %s = %s;" % (t, s, r.choice(["sum(%s)" % a, "(sum(I1024, %s) as%% %s)" % (a, t)])))
            names[s] = t
            lines.append('    "{%s[%d]} {%s}\\n";' % (a, r.randrange(n), s))
        self.later_features(lines, run_at, body_at, first, names)
        lines.append("    return %s;" % self.digest(names))
        lines.append("}")
        if self.tail:
            lines += [""] + list(self.tail)
        return "\n".join(lines) + "\n"

    # ---- dispatches of many work items (issue 13: the fast blocks of cpu-c17 and their edges)

    big_fuel = None
    has_big = False
    tail = ()

    def big_dispatch(self, t, body, lines, x, helper_t):
        """Half of the kernel programs of I8..U64 also dispatch a kernel `kb` over 1,023 to 2,600 items, with
        a constant inner loop (fuel per item) and a value that may make one item fault (at a block edge, the
        first or the last item, or inside a block), over a contiguous or a strided input, and then a fuel
        allowance that runs out inside the dispatch or not.  Draws come from a generator seeded with the
        kernel's body, so rnd (and every other program) stays as it was."""
        side = random.Random(body + "/big")
        if side.random() >= 0.5:
            return
        self.has_big = True
        saved, self.rnd = self.rnd, side
        t = side.choice(["I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64"])
        try:
            reps = side.choice([0, 1, 3])
            step = self.expr(t, {"acc": t, "a": t, "b": t})
            kern = ["kernel kb[n](in %s[n] xs, in %s s, out %s[n] ys) over [j: n] {" % (t, t, t),
                    "    %s a = xs[j];" % t, "    %s b = s;" % t, "    %s acc = a;" % t]
            if reps:
                kern += ["    for q in 0..%d {" % reps, "        acc = %s;" % step, "    }"]
            else:
                kern += ["    acc = %s;" % step]
            kern += ["    ys[j] = acc;", "}", ""]
            self.tail = kern      # declared after run(): later_features counts lines before it
            n = side.choice([1023, 1024, 1025, 2047, 2600])
            big, res, iv = self.fresh("ba"), self.fresh("bo"), self.fresh("i")
            lines += ["    %s[%d] %s;" % (t, n, big), "    for %s in 0..%d {" % (iv, n),
                      "        %s[%s] = ((%s %% 61) - 30) as%% %s;" % (big, iv, iv, t), "    }"]
            if side.random() < 0.7:
                pos = side.choice([0, 1, 1023, 1024, n // 2, n - 1, side.randrange(n)])
                lines.append("    %s[%d] = %s;" % (big, pos, side.choice(bounds(t))))
            stride = side.choice([1, 1, 2, 3])
            m = len(range(0, n, stride))
            lines.append("    %s[%d] %s;" % (t, m, res))
            view = big if stride == 1 else "%s[0.. by %d]" % (big, stride)
            lines.append("    kb(%s, %s, %s);" % (view, literal(side, t), res))
            lines.append("    %s = %s +%% (%s[%d] as%% %s);" % (x, x, res, side.randrange(m), helper_t))
            # the fill loop (n), the dispatch (m), then reps per item: an allowance around those
            self.big_fuel = side.choice([None, n + m + side.randint(0, (reps + 1) * m), side.randint(n, n + m)])
        finally:
            self.rnd = saved

    # ---- bit fields and `where` clauses (issue 6)

    def later_features(self, lines, run_at, body_at, first, names):
        """Structs with bit fields and functions with `where` clauses.  Their draws come from a generator
        seeded with the program written so far, so rnd (and every program without them) stays as it was;
        declarations go before run(), statements after run()'s first three variables (``first``), and the
        variables they set join the digest."""
        side = random.Random("\n".join(lines) + "/bits+where")
        saved, self.rnd = self.rnd, side
        decls, body, new = [], [], dict(first)
        try:
            if side.random() < 0.4:
                self.bit_fields(decls, body, new)
            if side.random() < 0.4:
                self.where_calls(decls, body, new)
            if side.random() < 0.4:
                self.reductions(body, new)
        finally:
            self.rnd = saved
        lines[body_at:body_at] = body
        lines[run_at:run_at] = decls
        names.update((n, t) for n, t in new.items() if n not in first)

    def reductions(self, body, names):
        """The array reductions (SPEC-01P.1 IM-77 to IM-87) over a literal array and views of it (reversed,
        strided, empty, transposed): sum_wrap, sum_sat, fold_checked, dot, min/max and count; they may fault
        (fold_checked, dot, min of an empty view)."""
        r = self.rnd
        t = r.choice(self.types)
        n = r.randint(1, 6)
        a = self.fresh("ra")
        body.append("    %s[%d] %s = [%s];" % (t, n, a, ", ".join(literal(r, t) for _ in range(n))))
        views = [a, "%s[.. by -1]" % a, "%s[1..%d by 2]" % (a, n), "%s[0..0]" % a, "%s[%d..%d]" % (a, n // 2, n)]
        if n % 2 == 0 and n >= 2:
            m = self.fresh("rm")
            body.append("    %s[2, %d] %s = [%s, %s];" % (
                t, n // 2, m, "[%s]" % ", ".join(literal(r, t) for _ in range(n // 2)),
                "[%s]" % ", ".join(literal(r, t) for _ in range(n // 2))))
            views += ["transpose(%s)" % m, m]
        for _ in range(r.randint(1, 3)):
            v, k = self.fresh(), r.random()
            view = r.choice(views)
            rt = t
            if k < 0.15:
                e = "sum_wrap(%s)" % view
            elif k < 0.3:
                e = "sum_sat(%s)" % view
            elif k < 0.5:
                e = "fold_checked(%s, %s, %s)" % (r.choice(["add", "mul"]), literal(r, t), view)
            elif k < 0.65:
                rt = r.choice([x for x in self.types if WIDTH[x] >= WIDTH[t]])
                e = "dot(%s, %s, %s)" % (rt, a, r.choice([a, "%s[.. by -1]" % a]))
            elif k < 0.85:
                e = r.choice(["min(%s)" % view, "max(%s)" % view, "min(%s, %s)" % (literal(r, t), view),
                              "max(%s, %s)" % (literal(r, t), view)])
            else:
                bits = ", ".join(r.choice(["true", "false"]) for _ in range(n))
                b = self.fresh("rb")
                body.append("    Bool[%d] %s = [%s];" % (n, b, bits))
                e, rt = "count(%s)" % r.choice([b, "%s[.. by -1]" % b, "%s[1..%d by 2]" % (b, n)]), "I64"
            body.append("    %s %s = %s;" % (rt, v, e))
            names[v] = rt

    def field_value(self, t, w, names):
        """A value for a field of type ``t`` and width ``w`` (None: a whole field): in range mostly, sometimes
        just outside it (bitfield.checked.T), sometimes any expression of ``t``."""
        r = self.rnd
        if t == "Bool":
            return r.choice(["true", "false", self.cond(names, 2) if names else "true"])
        lo, hi = bounds(t)
        if w is not None:
            lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t.startswith("I") else (0, (1 << w) - 1)
        k = r.random()
        if k < 0.75:
            return str(r.randint(max(lo, -40), min(hi, 40)) if r.random() < 0.7 else r.choice([lo, hi]))
        if k < 0.83:
            v = r.choice([lo - 1, hi + 1])
            tl, th = bounds(t)
            return str(v if tl <= v <= th else hi)
        if k < 0.93 and names:
            return "(%s as%% %s)" % (r.choice(list(names)), t)
        return self.expr(t, names, 2)

    def bit_fields(self, decls, body, names):
        r = self.rnd
        narrow = ["I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64"]
        sn = self.fresh("Bf")
        fields = []
        fdecl = []
        for k in range(r.randint(2, 6)):
            fn = "f%d" % k
            p = r.random()
            if p < 0.15:
                fields.append((fn, "Bool", 1))
            elif p < 0.3:
                fields.append((fn, r.choice(narrow), None))
            else:
                t = r.choice(narrow)
                fields.append((fn, t, r.choice([1, 2, 3, 5, r.randint(1, WIDTH[t]), WIDTH[t]])))
            fn, t, w = fields[-1]
            if w is None:
                fdecl.append("    %s %s;" % (t, fn))
            elif r.random() < 0.2:
                # a named constant as the width, declared before or after the struct
                cn = self.fresh("BW")
                (decls if r.random() < 0.5 else body).append("const I64 %s = %d;" % (cn, w))
                fdecl.append("    %s %s : %s;" % (t, fn, cn))
            else:
                fdecl.append("    %s %s : %d;" % (t, fn, w))
        after = [l for l in body if l.startswith("const")]
        del body[:]
        decls.append("%sstruct %s {" % ("@packed " if r.random() < 0.2 else "", sn))
        decls += fdecl
        decls += ["}"] + after + [""]
        small = {n: t for n, t in names.items() if WIDTH[t] <= 64}
        s = self.fresh("bs")
        if r.random() < 0.5:
            args = ", ".join(self.field_value(t, w, small) for _, t, w in fields)
        else:
            order = list(fields)
            r.shuffle(order)
            args = ", ".join("%s = %s" % (fn, self.field_value(t, w, small)) for fn, t, w in order)
        body.append("    %s %s = %s(%s);" % (sn, s, sn, args))
        places = [s]
        for _ in range(r.randint(2, 7)):
            fn, t, w = r.choice(fields)
            place = "%s.%s" % (r.choice(places), fn)
            k = r.random()
            if k < 0.3 or t == "Bool":
                body.append("    %s = %s;" % (place, self.field_value(t, w, small)))
            elif k < 0.55:
                op = r.choice(["+=", "-=", "*=", "&=", "|=", "^="])
                v = str(r.randint(0, 3)) if r.random() < 0.7 else self.field_value(t, w, small)
                body.append("    %s %s %s;" % (place, op, v))
            elif k < 0.7:
                body.append("    %s%s;" % (place, r.choice(["++", "--"])))
            elif k < 0.8:
                c = self.fresh("bs")
                body.append("    %s %s = %s;" % (sn, c, r.choice(places)))
                places.append(c)
            elif k < 0.88:
                a = self.fresh("ba")
                body.append("    %s[2] %s;" % (sn, a))
                body.append("    %s[1] = %s;" % (a, r.choice(places)))
                places.append("%s[1]" % a)
            else:
                body.append('    "%s\\n";' % " ".join("{%s.%s}" % (r.choice(places), f[0]) for f in fields[:3]))
        for p in places[:3]:
            v = self.fresh()
            parts = ["((%s.%s) ? 1 : 0)" % (p, fn) if t == "Bool" else "(%s.%s as%% I64)" % (p, fn)
                     for fn, t, _ in fields]
            acc = parts[0]
            for q in parts[1:]:
                acc = "((%s *%% 7) +%% %s)" % (acc, q)
            body.append("    I64 %s = %s;" % (v, acc))
            names[v] = "I64"

    def where_clause(self, sizes, depth=0):
        r = self.rnd
        k = r.random()
        if depth < 2 and k < 0.25:
            return "(%s %s %s)" % (self.where_clause(sizes, depth + 1), r.choice(["&&", "||"]),
                                   self.where_clause(sizes, depth + 1))
        if depth < 2 and k < 0.35:
            return "!(%s)" % self.where_clause(sizes, depth + 1)
        a = r.choice(sizes)
        b = r.choice(sizes) if r.random() < 0.4 else str(r.randint(0, 4))
        return "%s %s %s" % (a, r.choice(CMPS), b)

    def where_calls(self, decls, body, names):
        r = self.rnd
        fn = self.fresh("wf")
        t = r.choice(["I64", "I32", "U16", "I8"])
        clause = self.where_clause(["n", "m"])
        res = r.choice(["(sum(a) as% I64) +% (n *% 7) -% m",
                        "(a[0] as% I64) +% (b[m - 1] as% I64) +% n",
                        "(sum(b) as% I64) -% (m *% 3)"])
        decls += ["I64 %s[n, m](in %s[n] a, in %s[m] b) where %s {" % (fn, t, t, clause),
                  "    return %s;" % res, "}"]
        if r.random() < 0.4:
            # a call from a function: the fault's stack holds its call site
            g = self.fresh("wg")
            decls += ["I64 %s[z](in %s[z] xs) {" % (g, t),
                      "    return %s(xs, xs[%s..]);" % (fn, r.choice(["0", "1", "z", "z / 2"])), "}"]
        else:
            g = None
        decls.append("")
        n = r.randint(0, 6)
        wa = self.fresh("wa")
        if n:
            body.append("    %s[%d] %s = [%s];" % (t, n, wa, ", ".join(literal(r, t) for _ in range(n))))
        else:
            body.append("    %s[0] %s;" % (t, wa))

        def part():
            if r.random() < 0.2:
                return wa
            lo = r.randint(0, n)
            return "%s[%d..%d]" % (wa, lo, r.randint(lo, n))
        for _ in range(r.randint(1, 3)):
            v = self.fresh()
            if g is not None and r.random() < 0.5:
                body.append("    I64 %s = %s(%s);" % (v, g, part()))
            else:
                body.append("    I64 %s = %s(%s, %s);" % (v, fn, part(), part()))
            names[v] = "I64"


def program(rnd: random.Random, wide=True):
    """(source, fuel): a generated program and a fuel allowance (None for unbounded, sometimes small).

    ``wide=False`` keeps to I8..U64 (what every executor implements today)."""
    gen = Gen(rnd, wide)
    src = gen.program()
    fuel = rnd.choice([None, None, None, rnd.randint(0, 30)])
    if gen.has_big:     # past what run() charges before the big dispatch, give or take
        fuel = None if gen.big_fuel is None else gen.big_fuel + 40
    return src, fuel
