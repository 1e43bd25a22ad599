"""Loops of the LIR back end: range loops (their trip count known when they start: charged at once when the
budget covers it, unrolled in flag blocks) and general loops, with their fuel charges and jumps."""
from __future__ import annotations

from cint_compiler.backend.c17.lir.common import _trip, i64, lit
from cint_compiler.semantics.types import BOOL
from cint_compiler.lower import lir as L


class LoopMixin:
    def jump_labels(self, op):
        entry = {"next": self.label("Ln"), "end": self.label("Le"), "used_next": False, "used_end": False}
        self.loop_stack.append((op, entry))
        return entry

    def o_Break(self, op: L.Break):
        for lop, entry in reversed(self.loop_stack):
            if lop is op.target:
                entry["used_end"] = True
                if self.refund and self.leaves_refund_loop(op.target):
                    # leaving a loop charged whole: its iterations not begun go back
                    self.w("fu = %s;" % self.refund)
                self.w("goto %s;" % entry["end"])
                return
        raise AssertionError("break outside its loop")

    def o_Continue(self, op: L.Continue):
        for lop, entry in reversed(self.loop_stack):
            if lop is op.target:
                entry["used_next"] = True
                if self.refund and self.leaves_refund_loop(op.target, strictly=True):
                    # to a loop around the one charged whole: that one's iterations not begun go back
                    self.w("fu = %s;" % self.refund)
                self.w("goto %s;" % entry["next"])
                return
        raise AssertionError("continue outside its loop")

    def leaves_refund_loop(self, target, strictly=False) -> bool:
        """A jump to target leaves the loop charged whole: a break to that loop or one around it, a continue
        (strictly) to a loop around it."""
        ops = [lop for lop, _ in self.loop_stack]
        if self.refund_loop not in ops:
            return False
        t, r = ops.index(target), ops.index(self.refund_loop)
        return t < r if strictly else t <= r

    def frame_open(self, op):
        """Before a loop: the frame-arena mark its iterations go back to (their storage) and the charge they
        give back (their local arrays), as the tree-walking emitter's loops do."""
        fm = fl = None
        if op.frame_reset:
            fm = self.label("fm")
            self.w("const size_t %s = cint_gen_frame_mark(ctx);" % fm)
        if op.frame_charged and not self.stepped:
            fl = self.label("fl")
            self.w("const int64_t %s = cint_gen_frame_charged(ctx);" % fl)
        return fm, fl

    def frame_close(self, fr):
        fm, fl = fr
        if fl:
            self.w("cint_gen_frame_release(ctx, %s);" % fl)
        if fm:
            self.w("cint_gen_frame_reset(ctx, %s);" % fm)

    def o_ForRange(self, op: L.ForRange):
        w = self.w
        st = op.stride
        lo, hi = self.val(op.lo), self.val(op.hi)
        n = self.label("r")
        w.open("{")
        w("const int64_t %s_lo = %s, %s_hi = %s;" % (n, lo, n, hi))
        fr = self.frame_open(op)
        # the range: empty, or tm1 + 1 iterations (tm1 = (last - lo) / |stride|, exactly, in 64-bit unsigned)
        if st > 0:
            last = "%s_hi" % n if op.inclusive else "(%s_hi - 1)" % n
            empty = "%s_hi < %s_lo" % (n, n) if op.inclusive else "%s_hi == INT64_MIN || %s_hi - 1 < %s_lo" % (n, n, n)
            span = "(uint64_t)%s - (uint64_t)%s_lo" % (last, n)
        else:
            last = "%s_hi" % n if op.inclusive else "(%s_hi + 1)" % n
            empty = "%s_hi > %s_lo" % (n, n) if op.inclusive else "%s_hi == INT64_MAX || %s_hi + 1 > %s_lo" % (n, n, n)
            span = "(uint64_t)%s_lo - (uint64_t)%s" % (n, last)
        w("if (!(%s)) {" % empty)
        w.ind += "    "
        w("const uint64_t %s_tm1 CINTG_UNUSED = (%s) / UINT64_C(%d);" % (n, span, abs(st)))
        ivn = self.vname(op.iv)
        step_expr = "(int64_t)((uint64_t)%s_lo %s it_%s * UINT64_C(%d))" % (n, "+" if st > 0 else "-", n, abs(st))
        trip = None
        klo, khi = self.const_of(op.lo), self.const_of(op.hi)
        if klo is not None and khi is not None:
            trip = _trip(klo, khi, st, op.inclusive)
        if self.mode == "fast":
            if self.flag:       # charged by the block: a constant trip, unrolled (no jump, no frame use)
                for it in range(trip):
                    w.open("{")
                    w("const int64_t %s CINTG_UNUSED = %s;" % (ivn, i64(klo + it * st)))
                    self.known[id(op.iv)] = klo + it * st
                    self.jump_labels(op)
                    self.block(op.body)
                    self.loop_stack.pop()
                    w.close("}")
                self.known.pop(id(op.iv), None)
            else:
                w("if ((uint64_t)(fl - fu) <= %s_tm1) return 1;" % n)
                w("const int64_t %s_fb = fu;" % n)
                w("fu += (int64_t)%s_tm1 + 1;" % n)
                w.open("for (uint64_t it_%s = 0; it_%s <= %s_tm1; it_%s++) {" % (n, n, n, n))
                saved = self.refund, self.refund_loop
                self.refund, self.refund_loop = "%s_fb + (int64_t)it_%s + 1" % (n, n), op
                entry = self.range_body(op, ivn, step_expr, fr)
                self.refund, self.refund_loop = saved
                w.close("}")
                self.end_label(entry)
        elif getattr(op, "batch", False):
            w.open("if (%s_tm1 < (uint64_t)(fl - fu)) {" % n)
            w("const int64_t %s_fb = fu;" % n)
            w("fu += (int64_t)%s_tm1 + 1;" % n)
            w("const uint64_t %s_n = %s_tm1 + 1;" % (n, n))
            w.open("for (uint64_t it_%s = 0; it_%s < %s_n; it_%s++) {" % (n, n, n, n))
            # the iterations that had not begun are given back when the loop is left early (a fault, a
            # break, a return): the consumed count is then the one of a charge per iteration
            saved = self.refund, self.refund_loop
            self.refund, self.refund_loop = "%s_fb + (int64_t)it_%s + 1" % (n, n), op
            entry = self.range_body(op, ivn, step_expr, fr)
            self.refund, self.refund_loop = saved
            w.close("}")
            self.end_label(entry)
            w.close("} else {")
            w.ind += "    "
            self.range_loop(op, n, ivn, step_expr, fr)
            w.close("}")
        else:
            self.range_loop(op, n, ivn, step_expr, fr)
        w.close("}")
        self.frame_close(fr)
        w.close("}")

    def o_Switch(self, op: L.Switch):
        """The case number from the value (a C switch over the single keys, then the ranges, then the
        default), then the bodies as a C switch whose cases leave unless they fall through."""
        w = self.w
        n = self.label("W")
        v = self.val(op.value)
        t = op.value.ty
        w("int %s_k = -1;" % n)
        if op.table:
            w.open("switch (%s) {" % v)
            for key, idx in op.table:
                w("case %s: %s_k = %d; break;" % (lit(t, key), n, idx))
            w("default: break;")
            w.close("}")
        for lo, hi, idx in op.ranges:
            conds = ["%s_k < 0" % n]
            if t == BOOL or lo > t.min:
                conds.append("%s >= %s" % (v, lit(t, lo)))
            if t == BOOL or hi < t.max:
                conds.append("%s <= %s" % (v, lit(t, hi)))
            w("if (%s) %s_k = %d;" % (" && ".join(conds), n, idx))
        if op.default is not None:
            w("if (%s_k < 0) %s_k = %d;" % (n, n, op.default))
        fs = None
        if op.frame_charged and not self.stepped:
            fs = self.label("fs")
            w("const int64_t %s = cint_gen_frame_charged(ctx);" % fs)
        entry = self.jump_labels(op)
        entry["used_end"] = True
        w.open("switch (%s_k) {" % n)
        for idx, body in enumerate(op.bodies):
            w.open("case %d: {" % idx)
            self.block(body)
            w.close("}")
            if op.falls[idx]:
                w("/* fallthrough */")
            else:
                w("goto %s;" % entry["end"])
        w("default: break;")
        w.close("}")
        self.loop_stack.pop()
        w("%s:;" % entry["end"])
        if fs:
            w("cint_gen_frame_release(ctx, %s);" % fs)

    def end_label(self, entry):
        if entry["used_end"]:
            self.w("%s:;" % entry["end"])

    def range_loop(self, op, n, ivn, step_expr, fr):
        w = self.w
        w.open("for (uint64_t it_%s = 0;; it_%s++) {" % (n, n))
        self.charge(op.site)
        entry = self.range_body(op, ivn, step_expr, fr, last_test="if (it_%s == %s_tm1) break;" % (n, n))
        w.close("}")
        self.end_label(entry)

    def range_body(self, op, ivn, step_expr, fr, last_test=None):
        w = self.w
        if fr[0]:
            w("cint_gen_frame_reset(ctx, %s);" % fr[0])
        w("const int64_t %s = %s;" % (ivn, step_expr))
        entry = self.jump_labels(op)
        w.open("{")
        self.block(op.body)
        w.close("}")
        self.loop_stack.pop()
        if entry["used_next"]:
            w("%s:;" % entry["next"])
        if fr[1]:
            w("cint_gen_frame_release(ctx, %s);" % fr[1])
        if last_test:
            w(last_test)
        return entry

    def o_Loop(self, op: L.Loop):
        w = self.w
        fr = self.frame_open(op)
        entry = self.jump_labels(op)
        w.open("for (;;) {")
        if not op.cond_after:
            w.open("{")
            self.block(op.head)
            if op.cond is not None:
                w("if (!%s) break;" % self.val(op.cond))
            w.close("}")
            # the condition's temporaries stay inside their block: the test above read them
        self.charge(op.site)
        if fr[0]:
            w("cint_gen_frame_reset(ctx, %s);" % fr[0])
        w.open("{")
        self.block(op.body)
        w.close("}")
        if entry["used_next"]:
            w("%s:;" % entry["next"])
        if fr[1]:
            w("cint_gen_frame_release(ctx, %s);" % fr[1])
        self.block(op.latch)
        if op.cond_after:
            w.open("{")
            self.block(op.head)
            if op.cond is not None:
                w("if (!%s) break;" % self.val(op.cond))
            w.close("}")
        w.close("}")
        self.loop_stack.pop()
        self.end_label(entry)
        self.frame_close(fr)
