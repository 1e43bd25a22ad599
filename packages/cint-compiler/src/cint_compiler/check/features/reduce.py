"""`reduce` statements and element-form kernels (SPEC-04P.1 LS-245, LS-247, LS-249; docs/language.md
decision 23).

The checker calls `element_form` for a kernel declared without `over`: the body, whole-array assignments of
elementwise expressions, is rewritten into the `over` form, one work-item per element (every array parameter
indexed by the work-item's index tuple), so both executors run it as any other kernel.  `check_reduce`
checks a `reduce` statement and annotates it for the executors; `finish_kernel` checks that every scalar
`out` parameter is the target of exactly one `reduce`; `out_arg` checks the argument of a scalar `out`
parameter at a dispatch (a variable, written only when the dispatch completes).

`Accumulator`, `contribute` and `epilogue` are the reference executor's semantics of a reduction: the
contributions, one per work-item that reaches the statement, are combined in ascending work-item order."""
from __future__ import annotations

from cint_compiler.semantics.reductions import REDUCTIONS, STATEMENT_KINDS
from cint_compiler.syntax import tree as A
from cint_compiler.semantics import intmachine as M
from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import BOOL, I64, ArrayType, IntType
from cint_compiler.check.symbols import _err
from cint_compiler.diagnostics import unsupported

FORMS = STATEMENT_KINDS     # the kinds a `reduce` statement takes (semantics/reductions.py)
EW_PREFIX = "__ew"          # the over variables of an element-form kernel (no user name starts with `__`)


def _errs():
    return _err, unsupported


# ----------------------------------------------------------------------------- element form (LS-247)

def element_form(d, info):
    """Rewrites the element-form kernel `d` (no `over` clause) into the `over` form over the common shape
    of its array parameters: `next = old + inc;` becomes `next[e0..] = old[e0..] + inc[e0..];`."""
    _err, unsupported = _errs()
    arrays = [p for p in info.params if isinstance(p.type, ArrayType)]
    written = [p for p in arrays if p.info in ("out", "inout")]
    if not written:
        raise _err("C5031", d.span, "a kernel in element form assigns a whole `out` or `inout` array "
                   "parameter (spec: LS-247)")
    shape = written[0].type.dims
    for p in arrays:
        if p.type.dims != shape:
            raise _err("C2012", p.type_span if hasattr(p, "type_span") else p.span,
                       "the arrays of an element-form kernel have one shape: `%s` is %s, `%s` is %s (spec: LS-247)"
                       % (p.name, p.type, written[0].name, written[0].type))
    for dd in shape:
        if not isinstance(dd, str):
            raise unsupported(written[0].span, "an element-form kernel whose extents are not size symbols")
    for p in info.params:
        if p.info == "out" and not isinstance(p.type, ArrayType):
            raise _err("C5031", p.span, "a kernel in element form has no `reduce` statement, so it has no "
                       "scalar `out` parameter (spec: LS-245, LS-247)")
    names = {p.name for p in arrays}
    outs = {p.name for p in written}
    span = d.span

    def idx(name_expr):
        return A.Index(name_expr, [A.Name("%s%d" % (EW_PREFIX, k), span=name_expr.span)
                                   for k in range(len(shape))], span=name_expr.span)

    def rw(e):
        if isinstance(e, A.Name):
            return idx(e) if e.ident in names else e
        if isinstance(e, (A.IntLit, A.FracLit, A.BoolLit, A.TypeMember, A.DotName)):
            return e
        if isinstance(e, A.Paren):
            e.inner = rw(e.inner)
            return e
        if isinstance(e, A.Unary):
            e.operand = rw(e.operand)
            return e
        if isinstance(e, A.Binary):
            e.left, e.right = rw(e.left), rw(e.right)
            return e
        if isinstance(e, A.Cond):
            e.cond, e.then, e.other = rw(e.cond), rw(e.then), rw(e.other)
            return e
        if isinstance(e, A.Convert):
            e.operand = rw(e.operand)
            return e
        if isinstance(e, A.Call) and isinstance(e.callee, (A.Name, A.Member, A.TypeMember)):
            for a in e.args:
                if isinstance(a.value, A.Expr):
                    a.value = rw(a.value)
            return e
        raise _err("C5031", A.first_span(e), "the body of an element-form kernel holds elementwise "
                   "expressions of whole arrays, scalars and constants only (spec: LS-247)")

    for st in d.body.stmts:
        if not (isinstance(st, A.Assign) and st.op == "=" and isinstance(st.place, A.Name)
                and st.place.ident in outs):
            raise _err("C5031", A.first_span(st) if isinstance(st, A.Expr) else st.span,
                       "the body of an element-form kernel holds only whole-array assignments `a = e;` to its "
                       "`out` and `inout` arrays (spec: LS-247)")
        st.place = idx(st.place)
        st.value = rw(st.value)
    d.over = [A.OverVar("%s%d" % (EW_PREFIX, k), A.Name(dd, span=span), span=span) for k, dd in enumerate(shape)]
    d.element_form = True


# ----------------------------------------------------------------------------- the checker

def check_reduce(ck, s):
    """`reduce target = op(...);` (LS-249): in a kernel body, not inside a loop; `target` a scalar `out`
    parameter, reduced once (LS-245)."""
    _err, unsupported = _errs()
    fn = ck.fn
    if fn is None or fn.kind != "kernel":
        raise _err("C4012", s.span, "a `reduce` statement stands only in a kernel body (spec: LS-167, LS-249)")
    if fn.loops:
        raise _err("C5031", s.span, "a `reduce` statement may not appear inside a loop (spec: LS-249)")
    sym = ck.scope.lookup(s.target)
    if sym is None:
        raise _err("C3005", s.span, "undefined name `%s`" % s.target)
    if not (sym.kind == "param" and sym.info == "out" and not isinstance(sym.type, ArrayType)):
        raise _err("C5031", s.span, "the target of `reduce` is a scalar `out` parameter of the kernel; `%s` "
                   "is not (spec: LS-249)" % s.target)
    seen = fn.reduces
    if any(r.sym is sym for r in seen):
        raise _err("C5031", s.span, "the scalar `out` parameter `%s` is the target of exactly one `reduce` "
                   "statement (spec: LS-245)" % s.target)
    call = s.call
    c = call.callee
    if not (isinstance(c, A.Name) and c.ident in FORMS):
        raise _err("C2001", A.first_span(call), "`reduce` takes one of sum(e), fold_checked(add, init, e), "
                   "sum_wrap(e), sum_sat(e), min(e), max(e) or count(c) (spec: LS-249)")
    form = c.ident
    args = []
    for a in call.args:
        if a.name is not None:
            raise _err("C2063", a.span or call.span, "`%s` takes no named arguments" % form)
        if not isinstance(a.value, A.Expr):
            raise _err("C2001", a.span or call.span, "a type is not a value")
        args.append(a.value)
    want = 3 if form == "fold_checked" else 1
    if len(args) != want:
        raise _err("C2022", c.span, "`%s` in a `reduce` statement takes %d argument%s (spec: LS-249)"
                   % (form, want, "s" if want > 1 else ""))
    T = sym.type
    if not isinstance(T, IntType):
        raise unsupported(s.span, "a `reduce` of a fixed-point target")
    init = None
    x = args[-1]
    if form == "count":
        ck.expr(x, BOOL)
        if x.ty != BOOL:
            raise _err("C2002", A.first_span(x), "`count` counts Bool contributions, not %s" % x.ty)
        if T != I64:
            raise _err("C2001", s.span, "`count` gives an I64; `%s` is %s" % (s.target, T))
    else:
        if form == "fold_checked":
            op = args[0]
            if not (isinstance(op, A.Name) and op.ident == "add"):
                raise _err("C2001", A.first_span(op), "`fold_checked` in a `reduce` statement takes `add` "
                           "(spec: LS-249)")
            iv = args[1]
            ck.expr(iv, T)
            ck.assignable(T, iv, iv.span)
            ck.fold(iv)
            if iv.cval is NOTCONST:
                raise _err("C6004", A.first_span(iv), "the `init` of a reduction in a kernel is a constant "
                           "expression (docs/language.md decision 23)")
            init = iv.cval
        ck.expr(x, T)
        if not isinstance(x.ty, IntType):
            raise _err("C2001", A.first_span(x), "a contribution to `%s` is an integer, not %s" % (form, x.ty))
        if form != "sum" and x.ty != T:
            raise _err("C2001", A.first_span(x), "a contribution to `%s` into `%s` is %s, not %s"
                       % (form, s.target, T, x.ty))
    ck.fold(x)
    s.sym = sym
    s.form = form
    s.T = T
    s.elem = x.ty if form != "count" else BOOL
    s.arg = x
    s.init = init if init is not None else 0
    s.callee_span = c.span
    seen.append(s)


def finish_kernel(ck, info):
    """After a kernel body: every scalar `out` parameter is the target of one `reduce` (LS-245); the kernel
    keeps its reductions in source order (the order of their epilogue checks)."""
    _err, _ = _errs()
    seen = ck.fn.reduces
    for p in info.params:
        if p.info == "out" and not isinstance(p.type, ArrayType) and not any(r.sym is p for r in seen):
            raise _err("C5031", p.span, "the scalar `out` parameter `%s` is the target of exactly one `reduce` "
                       "statement (spec: LS-245)" % p.name)
    info.decl.reduces = list(seen)


def read_out_scalar(sym, span):
    """A scalar `out` parameter is written by its `reduce` only, never read or assigned (LS-245)."""
    _err, _ = _errs()
    raise _err("C5031", span, "the scalar `out` parameter `%s` is written only by its `reduce` statement and "
               "is never read or assigned (spec: LS-245)" % sym.name)


def out_arg(ck, p, a):
    """The argument of a scalar `out` parameter at a dispatch: a variable of the caller, local or of the
    module, of exactly the parameter's type; it is written when the dispatch completes."""
    _err, unsupported = _errs()
    if not isinstance(a, A.Name):
        raise unsupported(A.first_span(a), "a scalar `out` argument that is not a variable")
    ck.expr(a, None)
    sym = a.ref
    if sym.kind not in ("local", "global") or not sym.mutable:
        raise _err("C2058", a.span, "the argument of the scalar `out` parameter `%s` is a variable it can "
                   "write" % p.name)
    if sym.kind == "local" and sym.info == "loopvar":
        raise _err("C2052", a.span, "the loop variable `%s` is read-only" % a.ident)
    if ck.foreign(a):
        raise _err("C2058", a.span, "a module variable of an imported module cannot be assigned (spec: LS-227)")
    if a.ty != p.type:
        raise _err("C2001", a.span, "expected %s for the scalar `out` parameter `%s`, found %s"
                   % (p.type, p.name, a.ty))
    ck.note_gwrite(a)


# ----------------------------------------------------------------------------- the reference executor

class Accumulator:
    __slots__ = ("n", "v")

    def __init__(self, s):
        self.n = 0                  # contributions so far
        self.v = s.init if s.form == "fold_checked" else 0


def contribute(s, acc, x):
    """One contribution `x` (the statement's step is already counted); raises the MachineFault of
    `fold_checked` (IM-83: operands I64 j, accumulator, contribution)."""
    T = s.T
    f = s.form
    if f == "fold_checked":
        v = acc.v + x
        if not M.fits(T, v):
            raise MachineFault("E_OVERFLOW", REDUCTIONS["fold_checked"].opid(T), [(I64, acc.n), (T, acc.v), (T, x)],
                               exact=v, limit=M._bound(T, v))
        acc.v = v
    elif f == "sum":
        acc.v += x
    elif f == "sum_wrap":
        acc.v = M.wrap(T, acc.v + x)
    elif f == "sum_sat":
        acc.v = M.sat(T, acc.v + x)
    elif f == "min":
        acc.v = x if acc.n == 0 else min(acc.v, x)
    elif f == "max":
        acc.v = x if acc.n == 0 else max(acc.v, x)
    elif f == "count":
        acc.v += 1 if x else 0
    acc.n += 1


def epilogue(s, acc):
    """The published value of reduction `s`, or the MachineFault of its epilogue check."""
    T = s.T
    if s.form == "sum":
        if not M.fits(T, acc.v):
            raise MachineFault("E_OVERFLOW", REDUCTIONS["sum"].opid(s.elem, T), [(I64, acc.n)],
                               exact=acc.v, limit=M._bound(T, acc.v))
    elif s.form in ("min", "max") and acc.n == 0:
        raise MachineFault("E_SHAPE", REDUCTIONS[s.form].opid(T), [(I64, 0)])
    return acc.v
