"""Kernel dispatch on the reference executor cpu-sir-interp (SPEC-03P.1 6.4; SPEC-04P.1 section 13): admission,
the dispatch charge, work-items in ascending order into staging, publication, and the `reduce` statements:
a mixin of :class:`cint_compiler.interp.context.Context`."""
from __future__ import annotations


from cint_compiler.semantics import opnames as O
from cint_compiler.check.features import reduce as KR
from cint_compiler.semantics.faults import EntryFault, FaultRecord, KernelAddress, MachineFault
from cint_compiler.semantics.types import (I64)
from cint_compiler.semantics.values import ArrayValue, copy_value
from cint_compiler.interp.values import (_iter_space, zero_value)

I64_MAX = (1 << 63) - 1


# ----------------------------------------------------------------------------- control signals
from cint_compiler.interp.stmts import _Return


class KernelExec:
    # -------------------------------------------------------------- kernels

    def dispatch(self, e, env):
        info = e.info
        args = self.eval_args(e, env)
        number = self.dispatches
        self.dispatches += 1
        qn = info.qname
        span = e.callee.span
        self.counted()
        try:
            bound = self.bind_sizes(info, args, {}, span, kernel=True)
            self.check_where(info, bound, span)
            self.check_alias(info, args, span, e.argv, kernel=True)
        except EntryFault as ef:
            ef.record.address = KernelAddress(qn, number, 0)
            raise
        extents = [bound.get(ov.decl.extent.ident, 0) for ov in info.over]
        total = 1
        for x in extents:
            total *= x
        if total > I64_MAX:
            rec_mf = MachineFault("E_SHAPE", O.DISPATCH_ADMIT, [(I64, x) for x in extents], total, None)
            rec = FaultRecord.from_machine(rec_mf, self.pos(span), revision=self.revision,
                                           address=KernelAddress(qn, number, 0), stack=list(self.stack))
            raise EntryFault(rec)
        try:
            self.charge(total, span)
        except EntryFault as ef:
            ef.record.address = KernelAddress(qn, number, 0)
            raise
        # staging: out zero-filled, inout copied in (SPEC-03 RT-19)
        staged = []
        kargs = []
        for p, v in zip(info.params, args):
            if isinstance(v, ArrayValue) and p.info in ("out", "inout"):
                s = ArrayValue.new(v.elem, v.shape, lambda: zero_value(v.elem))
                if p.info == "inout":
                    for idx in v.indices():
                        s.set(idx, copy_value(v.get(idx)))
                staged.append((v, s))
                kargs.append(s)
            else:
                kargs.append(v)
        saved = (self.kernel, self.step, self.stack)
        body = info.decl.body
        env0 = {}
        for s in info.size_params:
            env0[s] = bound.get(s.name, 0)
        for p, v in zip(info.params, kargs):
            env0[p] = v
        # a dispatch from cint code is on the stack of its work-item and epilogue faults, innermost, after
        # the call sites of the enclosing calls (decision 3); it is no call for the depth (E_DEPTH)
        self.stack = list(self.stack) + [self.pos(span)]
        reduces = info.decl.reduces or []
        saved_racc = getattr(self, "racc", None)
        self.racc = {r: KR.Accumulator(r) for r in reduces}
        wi = 0
        for idx in _iter_space(extents):
            self.kernel = (qn, number, wi)
            self.step = 0
            wenv = dict(env0)
            for ov, i in zip(info.over, idx):
                wenv[ov] = i
            try:
                self.block(body, wenv)
            except _Return:
                pass
            wi += 1
        scalars = self.reduce_epilogue(e, reduces, qn, number)
        self.racc = saved_racc
        self.kernel, self.step, self.stack = saved
        for dst, src in staged:
            for i in dst.indices():
                dst.set(i, src.get(i))
        for a, v in scalars:
            self.place_ref(a, env)[0](v)
        return None

    def reduce_epilogue(self, e, reduces, qn, number):
        """The epilogue of a dispatch (decision 23): each reduction's check, in source order, phase epilogue at
        the reduction's name with the dispatch site on the stack; the values to publish into the scalar `out`
        arguments once the dispatch completes."""
        out = []
        for r in reduces:
            try:
                v = KR.epilogue(r, self.racc[r])
            except MachineFault as mf:
                rec = FaultRecord.from_machine(mf, self.pos(r.callee_span), revision=self.revision,
                                               address=KernelAddress(qn, number, 2), stack=list(self.stack))
                raise EntryFault(rec)
            out.append((e.argv[e.info.params.index(r.sym)], v))
        return out

    def s_Reduce(self, s, env):
        """One contribution of this work-item; the statement counts one step, after its operand's."""
        x = self.eval(s.arg, env)
        st = self.counted()
        try:
            KR.contribute(s, self.racc[s], x)
        except MachineFault as mf:
            self.fault(mf, s.callee_span, st)
