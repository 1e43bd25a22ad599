"""`switch` (LS-177 to LS-184), `defer`/`errdefer` (LS-185 to LS-189) and tuples (LS-98 to LS-101).

A part of the checker: a mixin class of :class:`cint_compiler.check.program.Checker`."""
from __future__ import annotations

import bisect

from cint_compiler.diagnostics import unsupported
from cint_compiler.syntax import tree as A
from cint_compiler.semantics.types import (BoolType, EnumType,
                    ErrorSetType, ErrorUnionType, IntType, TupleType)

from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.syntax.tree import first_span as start_span
from cint_compiler.check.symbols import (
    Symbol,
    _err,
)
from cint_compiler.check.features import proposed as proposed_check
from cint_compiler.check.features.reduce import check_reduce


class FlowChecks:
    # -------------------------------------------------------------- switch (LS-177 to LS-184)

    def s_Switch(self, s: A.Switch):
        e = s.scrutinee
        t = self.expr(e, None)
        if isinstance(t, IntType):
            s.key_kind = "int"
        elif isinstance(t, EnumType):
            s.key_kind = "enum"
        elif isinstance(t, BoolType):
            s.key_kind = "bool"
        elif isinstance(t, ErrorSetType):
            s.key_kind = "error"
        else:
            raise _err("C4026", start_span(e), "a switch tests an integer, an enum, a Bool or an error value, not %s"
                       % t)
        self.fold(e)
        self.flush_pending()
        table = {}                 # key of one value -> index of its body
        ranges = []                # (lo, hi, index) of the integer ranges, sorted and disjoint
        taken = []                 # sorted, disjoint (lo, hi) of every integer item so far
        n = len(s.cases)
        bodies = [A.Block(c.body, span=c.span) for c in s.cases]
        if s.default is not None:
            bodies.append(A.Block(s.default, span=s.default_span))
        for k, c in enumerate(s.cases):
            for it in c.items:
                if isinstance(it, tuple):
                    lo_e, hi_e = it
                    if s.key_kind != "int":
                        raise _err("C2103", start_span(lo_e), "a case range needs an integer scrutinee, not %s" % t)
                    lo = self.case_const(lo_e, t)
                    hi = self.case_const(hi_e, t)
                    if lo > hi:
                        raise _err("C4024", start_span(lo_e), "the case range %d..=%d is empty" % (lo, hi))
                    span = start_span(lo_e)
                else:
                    v = self.case_const(it, t)
                    span = start_span(it)
                    if s.key_kind == "int":
                        lo = hi = v
                    else:
                        key = self.case_key(s.key_kind, v, t, span)
                        if key in table:
                            raise _err("C4021", span, "this case item repeats an earlier one (spec: LS-181)")
                        table[key] = k
                        continue
                # integer items: reject any overlap with the items before
                i = bisect.bisect_left(taken, (lo, lo))
                if (i < len(taken) and taken[i][0] <= hi) or (i > 0 and taken[i - 1][1] >= lo):
                    raise _err("C4021", span, "this case item overlaps an earlier one (spec: LS-181)")
                taken.insert(i, (lo, hi))
                if lo == hi:
                    table[lo] = k
                else:
                    ranges.append((lo, hi, k))
            self.case_body(bodies[k], k + 1 < len(bodies))
        if s.default is not None:
            self.case_body(bodies[n], False)
        # LS-182: exhaustive by `default`, or by covering every value of the type
        exhaustive = s.default is not None
        if not exhaustive:
            if s.key_kind == "int":
                exhaustive = self._covers(taken, t.min, t.max)
            elif s.key_kind == "enum":
                exhaustive = all(v in table for v in t.members.values())
            elif s.key_kind == "bool":
                exhaustive = True in table and False in table
            else:
                exhaustive = all(v in table for v in t.values)
        if not exhaustive:
            raise _err("C4020", s.span, "this switch does not cover every value of %s and has no `default` (spec: LS-182)"
                       % t, help="add the missing cases or a `default:` clause")
        ranges.sort()
        s.exhaustive = True
        s.table = table
        s.ranges = ranges
        s.range_los = [r[0] for r in ranges]
        s.bodies = bodies
        s.default_index = n if s.default is not None else None

    @staticmethod
    def _covers(intervals, lo, hi):
        """Whether sorted, disjoint integer intervals cover every integer of ``lo..=hi``."""
        nxt = lo
        for a, b in intervals:
            if a > nxt:
                return False
            if b >= nxt:
                nxt = b + 1
            if nxt > hi:
                return True
        return nxt > hi

    def case_const(self, e, t):
        """A case item: a constant expression typed by the scrutinee's type (LS-56 rule 6, LS-177)."""
        self.in_case_item = True
        try:
            self.expr(e, t)
        finally:
            self.in_case_item = False
        if e.ty != t and not (isinstance(t, ErrorSetType) and isinstance(e.ty, ErrorSetType)):
            raise _err("C2001", start_span(e), "a case item has the scrutinee's type %s, not %s" % (t, e.ty))
        self.fold(e)
        self.flush_pending()
        if e.cval is NOTCONST:
            raise _err("C6004", start_span(e), "a case item is a constant expression (spec: LS-177)")
        return e.cval

    def case_key(self, kind, v, t, span):
        if kind == "enum":
            return v.value
        if kind == "bool":
            return bool(v)
        key = (v.set, v.name)
        if t.tag_of(key) is None:
            raise _err("C2001", span, "%s.%s is not a value of %s" % (v.set.rsplit(".", 1)[-1], v.name, t))
        return key

    def case_body(self, body: A.Block, has_next):
        """Each case body is its own scope (LS-183); `fallthrough;` may end it when a body follows (LS-178)."""
        fn = self.fn
        saved_ft = fn.ft_ok
        last = body.stmts[-1] if body.stmts else None
        fn.ft_ok = last if has_next and isinstance(last, A.Fallthrough) else None
        fn.in_switch += 1
        try:
            self.block(body, new_scope=True)
        finally:
            fn.in_switch -= 1
            fn.ft_ok = saved_ft

    def s_Fallthrough(self, s):
        if self.fn.ft_ok is s:
            return
        raise _err("C4014", s.span, "`fallthrough;` is the last statement of a case body that another body follows "
                   "(spec: LS-178)")

    # -------------------------------------------------------------- defer and errdefer (LS-185 to LS-189)

    def s_Defer(self, s: A.Defer):
        fn = self.fn
        if fn.kind == "kernel" and not s.is_err:
            raise _err("C5021", s.span, "a kernel cannot use `defer` (spec: LS-250)")
        self.knote("C5021", s.span, "uses `defer`")
        if s.is_err:
            ok = fn.in_defer == 0 and (fn.kind == "test" or (fn.kind == "func" and isinstance(fn.result,
                                                                                             ErrorUnionType)))
            if not ok:
                where = ("inside a deferred statement" if fn.in_defer else
                         "in a %s whose result is not an error union" % ("script" if fn.kind == "script" else
                                                                         fn.kind if fn.kind == "kernel"
                                                                         else "function"))
                raise _err("C4031", s.span, "no error can leave here (%s), so this `errdefer` could never run "
                           "(spec: LS-322)" % where)
        saved = (fn.loops, fn.in_switch, fn.ft_ok)
        fn.loops, fn.in_switch, fn.ft_ok = [], 0, None
        fn.in_defer += 1
        try:
            self.stmt(s.stmt)
        finally:
            fn.in_defer -= 1
            fn.loops, fn.in_switch, fn.ft_ok = saved

    # -------------------------------------------------------------- tuples (LS-98 to LS-101)

    def s_Destructure(self, s: A.Destructure):
        if s.declare:
            typed = [b for b in s.binds if b.type is not None]
            if not typed:
                return proposed_check.var_destructure(self, s)     # `var (a, b) = ...` (LS-98, Proposed)
            for b in s.binds:
                if b.type is None and b.name is not None:
                    raise unsupported(b.span, "a destructuring that mixes declared and existing names")
        places = []
        if not s.declare:
            for b in s.binds:
                places.append(self.place(b.place) if b.place is not None else None)
        v = s.value
        t = self.expr(v, None, allow_tuple=True)
        if not isinstance(t, TupleType):
            raise _err("C2001", start_span(v), "a destructuring takes a tuple result, not %s (spec: LS-98)" % t)
        if len(t.items) != len(s.binds):
            raise _err("C2001", start_span(v), "%s has %d elements; the destructuring names %d"
                       % (t, len(t.items), len(s.binds)))
        self.fold(v)
        if s.declare:
            for b, et in zip(s.binds, t.items):
                b.sym = None
                if b.name is None:
                    continue
                bt = self.resolve_type(b.type)
                if bt != et:
                    raise _err("C2001", b.type.span or b.span, "expected %s, found %s: a destructuring declares "
                               "each element's type exactly (spec: LS-99)" % (et, bt))
                sym = Symbol("local", b.name, bt, decl=b, mutable=True, span=b.span)
                self.declare(self.scope, b.name, sym, b.span)
                b.sym = sym
        else:
            for b, pt, et in zip(s.binds, places, t.items):
                if pt is None:
                    continue
                probe = A.Name("_", ty=et, span=b.span)
                self.assignable(pt, probe, start_span(b.place))

    def s_Reduce(self, s):
        check_reduce(self, s)
