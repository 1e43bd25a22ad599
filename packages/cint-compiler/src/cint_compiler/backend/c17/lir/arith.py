"""The arithmetic of the LIR back end: checked, wrapping and saturating forms in exact mode (a test and a
cold block raising the record) and in fast mode (give up, or an overflow flag with no branch)."""
from __future__ import annotations

from cint_compiler.backend.c17.lir.common import _invariant, _mul_range, _wrap, ctype, lit, tag, utype
from cint_compiler.lower import lir as L


class ArithMixin:
    def o_Neg(self, op: L.Neg):
        t = op.ty
        a = self.val(op.a)
        self.declare(op.dst, "(%s)(0u - (%s)%s)" % (ctype(t), utype(t), a))
        if op.form == "checked" and not op.safe:
            if t.signed:
                self.fault("%s == %s" % (a, lit(t, t.min)), "cint_gen_arith_fault(ctx, %s, CINT_OP_NEG, %s, (uint64_t)%s, 0u)"
                           % (self.at(op.site), tag(t), a))
            else:
                self.fault("%s != 0" % a, "cint_gen_arith_fault(ctx, %s, CINT_OP_NEG, %s, (uint64_t)%s, 0u)"
                           % (self.at(op.site), tag(t), a))
        self.count(op)

    def o_Arith(self, op: L.Arith):
        getattr(self, "a_" + op.op)(op)
        self.count(op)

    def arith_fault(self, op, code, a, b):
        return "cint_gen_arith_fault(ctx, %s, %s, %s, (uint64_t)%s, (uint64_t)%s)" % (
            self.at(op.site), code, tag(op.ty), a, b)

    def _asm(self, op, name, code):
        t = op.ty
        ct, ut = ctype(t), utype(t)
        a, b = self.val(op.a), self.val(op.b)
        ka, kb = self.const_of(op.a), self.const_of(op.b)
        if op.form == "wrap" or op.safe:
            cop = {"add": "+", "sub": "-", "mul": "*"}[name]
            if ka is not None and kb is not None and self.mode == "fast":
                self.known[id(op.dst)] = _wrap(t, {"add": ka + kb, "sub": ka - kb, "mul": ka * kb}[name])
            if op.safe and self.is_exact(op.a) and self.is_exact(op.b):
                # proved in range: plain arithmetic (which the vectoriser reads as affine); a proof holds only
                # for operands that no flagged check produced (a flagged one may hold a wrapped value)
                self.declare(op.dst, "(%s)(%s %s %s)" % (ct, a, cop, b))
            else:
                self.declare(op.dst, "(%s)((%s)%s %s (%s)%s)" % (ct, ut, a, cop, ut, b))
            return
        if op.form == "sat":
            self.declare(op.dst, "cint_%s_sat_%s(%s, %s)" % (name, t.token, a, b))
            return
        if self.mode == "fast" and (self.flag or self.spec_flag is not None):
            self.flag_asm(op, name, a, b, ka, kb)
            return
        self.w("%s t%d;" % (ct, op.dst.n))
        self.fault("__builtin_%s_overflow(%s, %s, &t%d)" % (name, a, b, op.dst.n), self.arith_fault(op, code, a, b))

    def flag_asm(self, op, name, a, b, ka, kb):
        """Fast mode, flags: the wrapped result and an overflow bit, with no branch (vectorisable)."""
        F = self.spec_flag or "ovf"     # the flag the checks go to
        t = op.ty
        ct, ut = ctype(t), utype(t)
        r = "t%d" % op.dst.n
        w = t.bits
        if name == "mul":
            if ka is not None and kb is None:
                a, b, ka, kb = b, a, kb, ka
            if kb is not None:
                self.declare(op.dst, "(%s)((%s)%s * (%s)%s)" % (ct, ut, a, ut, b))
                lo, hi = _mul_range(t, kb)
                conds = []
                if lo > t.min:
                    conds.append("(%s < %s)" % (a, lit(t, lo)))
                if hi < t.max:
                    conds.append("(%s > %s)" % (a, lit(t, hi)))
                if lo > hi:
                    conds = ["1"]
                if conds:
                    self.w(F + " |= (uint32_t)(%s);" % " | ".join(conds))
                return
            inv = b if _invariant(op.b) else (a if _invariant(op.a) else None)
            if inv is not None and w == 64:
                # by a value fixed for the block: a range test of the other operand (bounds computed once)
                other = a if inv is b else b
                lo, hi = self.mul_range(t, inv)
                self.declare(op.dst, "(%s)((%s)%s * (%s)%s)" % (ct, ut, a, ut, b))
                self.w(F + " |= (uint32_t)((%s < %s) | (%s > %s));" % (other, lo, other, hi))
                return
            if w <= 32:
                wide = "int64_t" if t.signed else "uint64_t"
                self.w("const %s m%d = (%s)%s * (%s)%s;" % (wide, op.dst.n, wide, a, wide, b))
                self.declare(op.dst, "(%s)m%d" % (ct, op.dst.n))
                self.w(F + " |= (uint32_t)(m%d != (%s)%s);" % (op.dst.n, wide, r))
                return
            self.w("%s %s;" % (ct, r))
            self.w(F + " |= (uint32_t)__builtin_mul_overflow(%s, %s, &%s);" % (a, b, r))
            return
        cop = "+" if name == "add" else "-"
        self.declare(op.dst, "(%s)((%s)%s %s (%s)%s)" % (ct, ut, a, cop, ut, b))
        if t.signed:
            if name == "add":
                self.w(F + " |= (uint32_t)((%s)((%s ^ %s) & (%s ^ %s)) >> %d);" % (ut, a, r, b, r, w - 1))
            else:
                self.w(F + " |= (uint32_t)((%s)((%s ^ %s) & (%s ^ %s)) >> %d);" % (ut, a, b, a, r, w - 1))
        elif name == "add":
            self.w(F + " |= (uint32_t)(%s < %s);" % (r, a))
        else:
            self.w(F + " |= (uint32_t)(%s < %s);" % (a, b))

    def mul_range(self, t, c):
        """The names of the bounds (lo, hi) of the operands whose product with c fits t, declared once at the
        top of the fast block (self.prologue_at)."""
        key = (t.token, c)
        got = self.mul_ranges.get(key)
        if got is None:
            n = len(self.mul_ranges)
            got = ("mlo%d" % n, "mhi%d" % n)
            self.mul_ranges[key] = got
            self.w.out.insert(self.prologue_at, "    %s %s, %s; cint_mul_range_%s(%s, &%s, &%s);" % (
                ctype(t), got[0], got[1], "i64" if t.signed else "u64", c, got[0], got[1]))
        return got

    def a_add(self, op):
        self._asm(op, "add", "CINT_OP_ADD")

    def a_sub(self, op):
        self._asm(op, "sub", "CINT_OP_SUB")

    def a_mul(self, op):
        self._asm(op, "mul", "CINT_OP_MUL")

    def _divrem(self, op, quotient):
        """Floor division and remainder (IM-35): E_DIV_ZERO for a zero divisor, and for a quotient
        E_OVERFLOW for MIN / -1 (whose remainder is 0)."""
        t = op.ty
        ct = ctype(t)
        a, b = self.val(op.a), self.val(op.b)
        kb = self.const_of(op.b)
        code = "CINT_OP_DIV" if quotient else "CINT_OP_REM"
        if not op.safe:
            conds = []
            if kb is None or kb == 0:
                conds.append("%s == 0" % b)
            if quotient and t.signed and (kb is None or kb == -1):
                conds.append("(%s == %s && %s == %s)" % (a, lit(t, t.min), b, lit(t, -1)))
            if conds:
                self.fault(" || ".join(conds), self.arith_fault(op, code, a, b))
        r = "t%d" % op.dst.n
        if not t.signed:
            self.declare(op.dst, "(%s)(%s %s %s)" % (ct, a, "/" if quotient else "%", b))
            return
        if kb is not None and kb > 0 and kb & (kb - 1) == 0:
            # by 2^k: floor division is the arithmetic shift, the floor remainder the low k bits
            k = kb.bit_length() - 1
            if quotient:
                self.declare(op.dst, "(%s < 0) ? (%s)~((%s)~%s >> %d) : (%s)(%s >> %d)" % (a, ct, ct, a, k, ct, a, k))
            else:
                self.declare(op.dst, "(%s)((%s)%s & (%s)%d)" % (ct, utype(t), a, utype(t), kb - 1))
            return
        if kb is not None and kb > 0:
            q = "(%s)(%s / %s)" % (ct, a, b)
            m = "(%s)(%s %% %s)" % (ct, a, b)
        else:   # b == -1: the quotient is -a (a != MIN here), the remainder 0; C's MIN % -1 is undefined
            q = "(%s)(%s == -1 ? (%s)(0u - (%s)%s) : %s / %s)" % (ct, b, ct, utype(t), a, a, b)
            m = "(%s)(%s == -1 ? 0 : %s %% %s)" % (ct, b, a, b)
        if quotient:
            self.w("%s %s = %s;" % (ct, r, q))
            self.w("if (%s != 0 && ((%s < 0) != (%s < 0))) %s = (%s)(%s - 1);" % (m, m, b, r, ct, r))
        else:
            self.w("%s %s = %s;" % (ct, r, m))
            self.w("if (%s != 0 && ((%s < 0) != (%s < 0))) %s = (%s)(%s + %s);" % (r, r, b, r, ct, r, b))

    def a_div(self, op):
        self._divrem(op, True)

    def a_rem(self, op):
        self._divrem(op, False)

    def _shift(self, op):
        t = op.ty
        ct, ut = ctype(t), utype(t)
        a, k = self.val(op.a), self.val(op.b)
        kt = op.bty
        w = t.bits
        r = "t%d" % op.dst.n
        code = {"shl": "CINT_OP_SHL" if op.form == "checked" else "CINT_OP_SHL_WRAP", "shr": "CINT_OP_SHR"}[op.op]
        call = "cint_gen_shift_fault(ctx, %s, %s, %s, (uint64_t)%s, %s, (uint64_t)%s)" % (
            self.at(op.site), code, tag(t), a, tag(kt), k)
        kk = self.const_of(op.b)
        if kk is None:
            bad = "(%s > %s)" % (k, lit(kt, w - 1)) if kt.max > w - 1 else "0"
            if kt.signed:
                bad = "(%s < 0 || %s)" % (k, bad)
            if bad != "0":
                self.fault(bad, call)
        elif not 0 <= kk <= w - 1:
            self.fault("1", call)
        cnt = "(unsigned)%s" % k
        if op.op == "shr":
            if t.signed:
                self.declare(op.dst, "(%s < 0) ? (%s)~(%s)((%s)~%s >> %s) : (%s)(%s >> %s)" % (
                    a, ct, ct, ct, a, cnt, ct, a, cnt))
            else:
                self.declare(op.dst, "(%s)(%s >> %s)" % (ct, a, cnt))
            return
        self.w("%s %s = (%s)((%s)%s << %s);" % (ct, r, ct, ut, a, cnt))
        if op.form == "checked" and not op.safe:
            # in range exactly when shifting back gives a again (a's sign kept)
            if t.signed:
                self.fault("(%s)(%s >> %s) != %s" % (ct, r, cnt, a) if w >= 32 else
                           "(%s)((int32_t)%s >> %s) != %s" % (ct, r, cnt, a), call)
            else:
                self.fault("(%s)(%s >> %s) != %s" % (ct, r, cnt, a), call)

    def a_shl(self, op):
        self._shift(op)

    def a_shr(self, op):
        self._shift(op)
