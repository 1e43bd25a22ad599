"""The reference executor cpu-sir-interp: it runs the checked program exactly as SPEC-01P.1 defines.

One :class:`Context` holds a program's state between entries (module
variables, the fault record, counters; SPEC-03P.1 5.1).  Each entry runs with
its own fuel allowance and depth limit (SPEC-01 IM-117); a fault ends the entry
and leaves the context faulted (IM-118).  Kernels run their work-items in
ascending order into staging storage and publish on success (SPEC-03 6.4).

The same expression evaluator serves compile-time evaluation
(:class:`ConstEvaluator`), so folding never changes a value or a fault
(SPEC-01 IM-103).
"""
from __future__ import annotations

from typing import Callable, List, Optional

from cint_compiler.semantics import opnames as O
from cint_compiler.semantics.operators import ARITH_OPS, CMP_OPS, SHIFT_OPS
from cint_compiler.syntax import tree as A
from cint_compiler.semantics import intmachine as M
from cint_compiler.semantics import reductions as RED
from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.check.symbols import Program
from cint_compiler.check.program import Checker as _Checker
from cint_compiler.check.symbols import bitfield_fault, where_failure
from cint_compiler.semantics.faults import EntryFault, FaultRecord, KernelAddress, MachineFault, Position
from cint_compiler.semantics.types import (BOOL, I64, VOID, ArrayType, EnumType, ErrorUnionType, FixedType, StructType)
from cint_compiler.semantics.values import ArrayValue, EnumValue, ErrorValue, Storage, StructValue, copy_value
from cint_compiler.semantics.values import LiveStr
from cint_compiler.interp.containers import Memory, MemoryExec
from cint_compiler.interp.values import (_field_storages, _from_cells, _overlap, assign_value, compare,
                                        zero_value)
from cint_compiler.interp import builtins as IB
from cint_compiler.interp.kernels import KernelExec
from cint_compiler.interp.stmts import StatementExec, _ErrorProp, _Return
from cint_compiler.semantics.types import SymExtent
from cint_compiler.check.features.proposed import subword_bits

I64_MAX = (1 << 63) - 1


# ----------------------------------------------------------------------------- control signals


class Evaluator:
    """Evaluates checked expressions.  Subclasses say how a fault is positioned."""

    def __init__(self):
        self.step = 0

    # hooks
    def fault(self, mf: MachineFault, span, step=None):
        raise NotImplementedError

    def literal(self, e):
        pass

    # -------------------------------------------------------------- expressions

    def eval(self, e, env=None):
        cv = e.cval
        if cv is not NOTCONST and not e.skip_fold:
            self.step += e.csteps
            return cv
        return getattr(self, "x_" + type(e).__name__)(e, env)

    def x_IntLit(self, e, env):
        self.literal(e)
        if isinstance(e.ty, FixedType):
            return e.raw
        return e.value

    def x_FracLit(self, e, env):
        self.literal(e)
        return e.raw

    def x_BoolLit(self, e, env):
        return e.value

    def x_StrLit(self, e, env):
        data = b"".join(p.encode("utf-8") if isinstance(p, str) else p for p in e.parts)
        if e.as_view:
            # a string literal bound to an `in U8[...]` parameter: a read-only view of its bytes
            return ArrayValue(e.ty.elem, Storage(list(data)), 0, (len(data),), (1,), writable=False)
        return data

    def x_Paren(self, e, env):
        return self.eval(e.inner, env)

    def x_DotName(self, e, env):
        return e.cval

    def x_TypeMember(self, e, env):
        return e.cval

    def x_Name(self, e, env):
        sym = e.ref
        if sym.kind == "const":
            return sym.value
        return self.read(sym, env)

    def read(self, sym, env):
        return env[sym]

    def counted(self):
        s = self.step
        self.step = s + 1
        return s

    def x_Unary(self, e, env):
        v = self.eval(e.operand, env)
        t = e.ty
        if e.op == "!":
            return not v
        if e.op == "~":
            return M.bitnot(t, v)
        st = self.counted()
        try:
            return M.neg("checked" if e.op == "-" else "wrap", t, v)
        except MachineFault as mf:
            self.fault(mf, e.span, st)

    def x_Binary(self, e, env):
        op = e.op
        if op == "&&":
            return self.eval(e.left, env) and self.eval(e.right, env)
        if op == "||":
            return self.eval(e.left, env) or self.eval(e.right, env)
        a = self.eval(e.left, env)
        b = self.eval(e.right, env)
        if op in CMP_OPS:
            return compare(op, e.left.ty, a, b)
        t = e.ty
        if op == "&":
            return M.bitand(t, a, b)
        if op == "|":
            return M.bitor(t, a, b)
        if op == "^":
            return M.bitxor(t, a, b)
        st = self.counted()
        try:
            if op in SHIFT_OPS:
                name, form = SHIFT_OPS[op]
                if name == "shr":
                    return M.shr(t, a, b, e.right.ty)
                return M.shl(form, t, a, b, e.right.ty)
            name, form = ARITH_OPS[op]
            if name == "div":
                return M.div(t, a, b)
            if name == "rem":
                return M.rem(t, a, b)
            return M.arith(name, form, t, a, b)
        except MachineFault as mf:
            self.fault(mf, e.span, st)

    def x_Cond(self, e, env):
        if self.eval(e.cond, env):
            return self.eval(e.then, env)
        return self.eval(e.other, env)

    def x_Convert(self, e, env):
        if e.literal:
            if e.cval is not NOTCONST:
                return e.cval
        v = self.eval(e.operand, env)
        st = self.counted()
        src = e.src
        if isinstance(src, EnumType):
            v = v.value
            src = src.underlying
        if src == BOOL:
            v = 1 if v else 0
        form = {"as": "checked", "as%": "wrap", "as?": "checked", "as|": "sat"}[e.op]
        dst = e.ty.value if isinstance(e.ty, ErrorUnionType) else e.ty
        if isinstance(dst, EnumType):
            # integer to enum (LS-89)
            try:
                r = M.convert_enum(src, dst, v, literal=e.literal)
            except MachineFault as mf:
                if e.op == "as?":
                    return ("err", ErrorValue("ArithError", "narrow"))
                self.fault(mf, e.span, st)
            r = EnumValue(dst.qname, [n for n, x in dst.members.items() if x == r][0], r)
            return ("ok", r) if e.op == "as?" else r
        try:
            r = M.convert(form, src if src != BOOL else BOOL, dst, v, e.mode, literal=e.literal)
        except MachineFault as mf:
            if e.op == "as?" and mf.code == "E_NARROW":
                return ("err", ErrorValue("ArithError", "narrow"))
            self.fault(mf, e.span, st)
        if e.op == "as?":
            return ("ok", r)
        return r

    def x_Member(self, e, env):
        kind = e.mkind
        if kind == "const":
            return e.cval
        if kind == "qname":
            # a module variable (or an array constant) of an imported module, read like a name
            sym = e.ref
            return sym.value if sym.kind == "const" else self.read(sym, env)
        v = self.eval(e.base, env)
        if kind == "raw":
            return v
        return v.fields[e.name]

    def x_TupleExpr(self, e, env):
        # a tuple value is a Python list, never a tuple: error unions use ("ok", v) / ("err", e)
        return [copy_value(self.eval(x, env)) for x in e.items]

    def x_ArrayLit(self, e, env):
        vals = [self.eval(x, env) for x in e.items]
        t = e.ty
        if t.rank == 1:
            return ArrayValue(t.elem, Storage([copy_value(v) for v in vals]), 0, (len(vals),), (1,))
        # nested: flatten row-major
        inner_shape = vals[0].shape if vals else tuple(0 for _ in t.dims[1:])
        for item, v in zip(e.items, vals):
            if v.shape != inner_shape:       # a row of another length: a fault of the row, with a record
                self.fault(MachineFault("E_SHAPE", O.COPY_SHAPE, [(I64, 1), (I64, v.shape[0])], None,
                                        (I64, inner_shape[0])), item.span)
        cells = []
        for v in vals:
            cells.extend(copy_value(x) for x in v.elements())
        return ArrayValue.new(t.elem, (len(vals),) + tuple(inner_shape), lambda: None) if not cells else \
            _from_cells(t.elem, (len(vals),) + tuple(inner_shape), cells)

    def x_Index(self, e, env):
        if e.subword is not None:      # `x.byte[k]` (LS-85, Proposed): no step of its own
            return subword_bits(self.eval(e.subword_x, env), e.subword[0], e.subword[1])
        if e.ckind is not None:
            return self.mem_index(e, env)
        if e.view:
            return self.form_view(e, env)
        base = self.eval(e.base, env)
        idx = [self.eval(i, env) for i in e.items]
        st = self.counted()
        if isinstance(base, (bytes, LiveStr)):
            i = idx[0]
            if not 0 <= i < len(base):
                self.fault(MachineFault("E_BOUNDS", O.index("u8"), [(I64, i)], None, (I64, len(base))), e.span,
                           st)
            return base[i]
        off = self.index_offset(base, idx, e, st)
        return base.storage.cells[off]

    def form_view(self, e, env):
        """A slice or a partial index (SPEC-04 LS-65, LS-161): the base, then every index and bound left to right,
        one counted step (SPEC-01 IM-113), then the dimensions are checked in order (IM-186)."""
        base = self.eval(e.base, env)
        vals = []
        for it in e.items:
            if isinstance(it, A.SliceItem):
                lo = None if it.lo is None else self.eval(it.lo, env)
                hi = None if it.hi is None else self.eval(it.hi, env)
                vals.append((lo, hi))
            else:
                vals.append(self.eval(it, env))
        st = self.counted()
        return self.view_of(base, e, vals, st)

    def view_of(self, arr: ArrayValue, e, vals, st):
        elem = arr.elem
        origin = arr.origin
        shape, strides, lower = [], [], []
        for d, (ext, lo, stride) in enumerate(zip(arr.shape, arr.lower, arr.strides)):
            if d >= len(e.items):
                shape.append(ext)
                strides.append(stride)
                lower.append(lo)
                continue
            it = e.items[d]
            v = vals[d]
            if not isinstance(it, A.SliceItem):
                k = v - lo
                if not 0 <= k < ext:
                    ops = [(I64, v)] if arr.rank == 1 else [(I64, d), (I64, v)]
                    self.fault(MachineFault("E_BOUNDS", O.index(elem), ops, None, (I64, ext)), e.span, st)
                origin += k * stride
                continue
            step = it.step.cval if it.step is not None else 1
            f, g, ok, n = _Checker.slice_fill(v[0], v[1], it.inclusive, step, lo, ext)
            if not ok:
                ops = [(I64, f), (I64, g)] if arr.rank == 1 else [(I64, d), (I64, f), (I64, g)]
                self.fault(MachineFault("E_BOUNDS", O.slice_(elem), ops, None, (I64, ext)), e.span, st)
            if n:
                origin += (f - lo) * stride
            shape.append(n)
            strides.append(stride * step)
            lower.append(lo)        # a slice keeps the parent's lower bound (LS-72)
        return ArrayValue(elem, arr.storage, origin, tuple(shape), tuple(strides), tuple(lower), arr.writable)

    def copy_elements(self, dst: ArrayValue, src: ArrayValue):
        """Copy ``src`` into ``dst`` in row-major logical order: copy.shape, then copy.alias (LS-70, IM-187)."""
        if tuple(dst.shape) != tuple(src.shape):
            k = next(i for i, (x, y) in enumerate(zip(dst.shape, src.shape)) if x != y)
            raise MachineFault("E_SHAPE", O.COPY_SHAPE, [(I64, k), (I64, src.shape[k])], None, (I64, dst.shape[k]))
        if dst.storage is src.storage:
            rel = _Checker.view_relation((dst.origin, dst.shape, dst.strides), (src.origin, src.shape, src.strides))
            if rel == "identical":
                return                          # T3: the same view, no effect
            if rel == "overlap":
                raise MachineFault("E_ALIAS", O.COPY_ALIAS, [])
        for i, j in zip(dst.indices(), src.indices()):
            dst.set(i, assign_value(dst.get(i), src.get(j)))

    def index_offset(self, arr: ArrayValue, idx, e, st):
        if getattr(arr, "guard", None) is not None:
            self.mem_guard(arr, e.span)
        elem = arr.elem
        off = arr.origin
        for d, (i, ext, lo, stride) in enumerate(zip(idx, arr.shape, arr.lower, arr.strides)):
            k = i - lo
            if not 0 <= k < ext:
                ops = [(I64, i)] if arr.rank == 1 else [(I64, d), (I64, i)]
                self.fault(MachineFault("E_BOUNDS", O.index(elem), ops, None, (I64, ext)), e.span, st)
            off += k * stride
        return off

    def x_Call(self, e, env):
        kind = e.kind
        if kind == "raw":
            return self.eval(e.args[0].value, env)
        if kind == "builtin":
            return self.builtin(e, env)
        if kind == "mem":
            return self.mem_call(e, env)
        if kind == "struct":
            vals = self.eval_args(e, env)
            fields = {}
            for (n, ft, _), v, a in zip(e.stype.fields, vals, e.argv):
                if isinstance(ft, ArrayType):
                    if tuple(v.shape) != tuple(d for d in ft.dims):
                        d = next(k for k, (x, y) in enumerate(zip(v.shape, ft.dims)) if x != y)
                        self.fault(MachineFault("E_SHAPE", O.COPY_SHAPE, [(I64, d), (I64, v.shape[d])], None,
                                                (I64, ft.dims[d])), e.span)
            for (n, ft, w), v in zip(e.stype.fields, vals):
                if w is not None:
                    self.bitfield_check((ft, w), v, e.span)
            for (n, ft, _), v in zip(e.stype.fields, vals):
                fields[n] = copy_value(v)
            return StructValue(e.stype, fields)
        return self.call(e, env)

    def bitfield_check(self, bf, v, span):
        """A store into a bit field counts one step and faults E_NARROW when the value does not fit (LS-82)."""
        st = self.counted()
        mf = bitfield_fault(bf, v)
        if mf is not None:
            self.fault(mf, span, st)

    def eval_args(self, e, env):
        """Arguments in the order written (LS-137), returned in parameter order."""
        vals = [None] * len(e.argv)
        for i in e.order:
            vals[i] = self.eval(e.argv[i], env)
        return vals

    def call(self, e, env):
        raise MachineFault("E_UNSUPPORTED", O.DISPATCH_ADMIT)

    def builtin(self, e, env):
        """A built-in call: its row's handler (interp/builtins.py)."""
        return IB.run(self, e, env)

    def reduction(self, e, name, vals, st):
        raise MachineFault("E_UNSUPPORTED", O.DISPATCH_ADMIT)


class ConstEvaluator(Evaluator):
    """Compile-time evaluation of a maximal constant expression (SPEC-01 IM-23, IM-103)."""

    def __init__(self):
        super().__init__()
        self.last_span = None
        self.checked_literals = []

    def fault(self, mf, span, step=None):
        self.last_span = span
        raise mf

    def literal(self, e):
        err = e.lit_error
        if err is not None:
            self.checked_literals.append(err)
            raise err

    def eval(self, e, env=None):
        # a constant name or a folded sub-expression still evaluates (for literal order), but names use values
        return getattr(self, "x_" + type(e).__name__)(e, env)

    def x_Name(self, e, env):
        return e.ref.value

    def x_Convert(self, e, env):
        if e.literal:
            self.step += 1
            return e.cval
        return super().x_Convert(e, env)

    def x_Member(self, e, env):
        if e.mkind == "const":
            return e.cval
        return super().x_Member(e, env)

    user_call = None    # the checker's runner of compile-time calls (LS-264..LS-268)

    def call(self, e, env):
        if e.kind == "func" and e.const_call and e.cval is not NOTCONST:
            self.eval_args(e, env)
            self.step += 1
            return e.cval       # already folded (an element of a constant array)
        if e.kind == "func" and e.const_call and self.user_call is not None:
            args = self.eval_args(e, env)
            self.step += 1
            return self.user_call(e, args)
        return super().call(e, env)


# ----------------------------------------------------------------------------- the run-time executor

class Outcome:
    """What one entry produced (SPEC-01 IM-159): kind value|fault|error, value, fault record, fuel, stdout."""

    def __init__(self, kind, value=None, record=None, fuel=0, stdout=b"", error=None, rtype=None):
        self.kind = kind
        self.value = value
        self.record: Optional[FaultRecord] = record
        self.fuel = fuel
        self.stdout = stdout
        self.error = error
        self.rtype = rtype


class Context(StatementExec, KernelExec, Evaluator, MemoryExec):
    """A context of the reference executor: module state, fault record and counters (SPEC-03P.1 5.1)."""

    FRAME_LIMIT = 4096   # call-depth bound accepted as a semantic input (SPEC-04 LS-311)
    FRAME_ARENA = 2_097_152   # default frame-arena capacity in elements (SPEC-04 LS-110, section 20)

    def __init__(self, program: Program, revision: bytes, output: Optional[Callable[[bytes], None]] = None):
        super().__init__()
        self.p = program
        self.path = program.module.path
        self.modname = program.module.name
        self.revision = revision
        self.output = output
        self.globals = {}
        for g in program.globals:
            self.globals[g] = copy_value(g.value) if g.value is not NOTCONST else zero_value(g.type)
        self.fault_record: Optional[FaultRecord] = None
        self.mem = Memory.create(program)   # arenas and pools, created with the context (SPEC-03P.1 A-10)
        self.entries = 0
        self.effects = 0          # print statements completed: the effect-log position (M-3)
        # per-entry
        self.budget = None
        self.fuel = 0
        self.depth_limit = 256
        self.depth = 0
        self.stack: List[Position] = []
        self.dispatches = 0
        self.kernel = None        # (qname, dispatch, work item) while a work-item runs
        self.frame_cap = self.FRAME_ARENA   # the frame arena (LS-110): capacity and charge in elements
        self.frame_used = 0

    # -------------------------------------------------------------- faults, fuel, depth

    def pos(self, span) -> Position:
        return Position(span.path, span.line, span.column)

    def fault(self, mf: MachineFault, span, step=None):
        addr = None
        if self.kernel is not None:
            qn, disp, wi = self.kernel
            addr = KernelAddress(qn, disp, 1, wi, step if step is not None else self.step)
        rec = FaultRecord.from_machine(mf, self.pos(span), revision=self.revision, address=addr,
                                       stack=list(self.stack))
        raise EntryFault(rec)

    def charge(self, n, span):
        if n == 0:
            return
        if self.budget is not None and self.fuel + n > self.budget:
            self.fault(MachineFault("E_FUEL", O.FUEL_CHARGE, [], None, (I64, self.budget)), span)
        if self.fuel + n > I64_MAX:
            self.fault(MachineFault("E_FUEL", O.FUEL_CHARGE, [], None, (I64, I64_MAX)), span)
        self.fuel += n

    def emit(self, data: bytes):
        self.effects += 1
        self.out_buf.append(data)
        if self.output is not None:
            self.output(data)

    # -------------------------------------------------------------- entries

    def begin(self, fuel, depth, frame_arena=FRAME_ARENA):
        self.frame_cap = frame_arena or self.FRAME_ARENA
        self.frame_used = 0
        self.budget = fuel
        self.fuel = 0
        self.depth_limit = depth
        self.depth = 0
        self.stack = []
        self.dispatches = 0
        self.kernel = None
        self.step = 0
        self.out_buf = []

    def clear_fault(self):
        """Clears the held fault and nothing else (SPEC-03P.1 A-7a)."""
        self.fault_record = None

    def run_entry(self, kind, target, args=(), fuel=None, depth=256, frame_arena=FRAME_ARENA) -> Outcome:
        """Run one entry: kind 'func' (target FuncInfo), 'test' (TestDecl) or 'script'. ``frame_arena``
        is the frame-arena capacity in elements (0 selects the default, 2,097,152; LS-110)."""
        if self.fault_record is not None:
            raise RuntimeError("the context holds a fault; clear it first (CINT_FAULTED)")
        self.begin(fuel, depth, frame_arena)
        self.entries += 1
        rtype = VOID
        try:
            if depth > self.FRAME_LIMIT:
                self.fault(MachineFault("E_UNSUPPORTED", O.CALL_ENTER, [(I64, depth)], None,
                                        (I64, self.FRAME_LIMIT)), self._entry_span(kind, target))
            if kind == "func":
                rtype = target.result
                value = self.enter_function(target, list(args), target.decl.span, entry=True)
            elif kind == "test":
                value = self.enter_body(target.body, target.span)
                if isinstance(value, _ErrorProp):
                    # an error left the test block by `try` (LS-315)
                    return Outcome("error", error=(value.errset, value.err), fuel=self.fuel,
                                   stdout=b"".join(self.out_buf))
            else:
                value = self.enter_body(A.Block(self.p.script), self.p.script_span)
        except EntryFault as ef:
            self.fault_record = ef.record
            return Outcome("fault", record=ef.record, fuel=self.fuel, stdout=b"".join(self.out_buf))
        if isinstance(rtype, ErrorUnionType) and isinstance(value, tuple) and value[0] == "err":
            return Outcome("error", error=(rtype.errset, value[1]), fuel=self.fuel,
                           stdout=b"".join(self.out_buf), rtype=rtype)
        if isinstance(rtype, ErrorUnionType) and isinstance(value, tuple):
            value = value[1]
            rtype = rtype.value
        return Outcome("value", value=value, fuel=self.fuel, stdout=b"".join(self.out_buf), rtype=rtype)

    def _entry_span(self, kind, target):
        if kind == "func":
            return target.decl.span
        if kind == "test":
            return target.span
        return self.p.script_span

    def enter_body(self, body: A.Block, span):
        self.depth = 1
        self.charge(1, span)
        env = {}
        try:
            self.block(body, env)
        except _Return:
            pass
        except _ErrorProp as ep:
            return ep
        return None

    def enter_function(self, info, args, call_span, entry=False, site=None, resume=None):
        """Depth check, fuel charge, bind parameters, run the body (IM-119, IM-139). In a work-item,
        ``resume`` is the step ordinal the body continues from (the entry checks carry the call's own)."""
        env = {}
        for p, v in zip(info.params, args):
            env[p] = v
        # the entry checks (size parameters bound from argument shapes) precede depth and fuel (LS-141)
        bound = self.bind_sizes(info, args, env, call_span, host=entry)
        if entry:
            self.check_where(info, bound, call_span)
        if not entry:
            if self.depth + 1 > self.depth_limit:
                self.fault(MachineFault("E_DEPTH", O.CALL_ENTER, [], None, (I64, self.depth_limit)), call_span)
        self.depth += 1
        self.charge(1, call_span)
        if resume is not None:
            self.step = resume
        if site is not None:
            # the call is entered once its charge succeeded: only then is it an active call (IM-107, IM-141)
            self.stack.append(site)
        try:
            self.block(info.decl.body, env)
            result = None
        except _Return as r:
            result = r.value
        except _ErrorProp as ep:
            result = ("err", ep.err)
        self.depth -= 1
        if isinstance(info.result, ErrorUnionType) and not (isinstance(result, tuple)):
            result = ("ok", result)
        return result

    def check_where(self, info, bound, span):
        """A `where` clause (LS-118, LS-244): after bind.shape, before bind.alias; a false constraint is E_SHAPE
        `bind.where` with the operands of checker.where_failure (decision 18), at the callee name or the
        dispatch site; no step."""
        w = getattr(info.decl, "where", None)
        if not w:
            return
        ops = where_failure(w, {s.name: bound.get(s.name, 0) for s in info.size_params})
        if ops is not None:
            self.fault(MachineFault("E_SHAPE", O.BIND_WHERE, ops), span)

    def bind_sizes(self, info, args, env, span, kernel=False, host=False):
        bound = {}
        for idx, (p, v) in enumerate(zip(info.params, args)):
            if isinstance(p.type, ArrayType):
                if host:    # a host's argument (SPEC-03P.1 7.1 paragraph 11 check 3): element type, then rank
                    if v.elem != p.type.elem:
                        self.fault(MachineFault("E_UNSUPPORTED", O.BIND_TYPE, [(I64, idx)]), span)
                    if len(v.shape) != len(p.type.dims):
                        self.fault(MachineFault("E_SHAPE", O.BIND_TYPE, [(I64, idx), (I64, len(v.shape))], None,
                                                (I64, len(p.type.dims))), span)
                for d, spec in enumerate(p.type.dims):
                    ext = v.shape[d]
                    if isinstance(spec, str):
                        if spec in bound and bound[spec] != ext:
                            self.fault(MachineFault("E_SHAPE", O.BIND_SHAPE, [(I64, idx), (I64, d), (I64, ext)], None,
                                                    (I64, bound[spec])), span)
                        bound[spec] = ext
                    elif isinstance(spec, int) and spec != ext:
                        self.fault(MachineFault("E_SHAPE", O.BIND_SHAPE, [(I64, idx), (I64, d), (I64, ext)], None,
                                                (I64, spec)), span)
        # the second pass (SPEC-02 K-6): each computed extent `n + c` against the bound n; a value beyond
        # I64 cannot equal an extent, so it is a mismatch whose expected value (the limit) is I64's maximum
        for idx, (p, v) in enumerate(zip(info.params, args)):
            if isinstance(p.type, ArrayType):
                for d, spec in enumerate(p.type.dims):
                    if isinstance(spec, SymExtent):
                        want = bound.get(spec.sym, 0) + spec.off
                        ext = v.shape[d]
                        if want != ext:
                            self.fault(MachineFault("E_SHAPE", O.BIND_SHAPE, [(I64, idx), (I64, d), (I64, ext)],
                                                    None, (I64, min(want, I64_MAX))), span)
        for s in info.size_params:
            env[s] = bound.get(s.name, 0)
        return bound

    def call(self, e, env):
        if e.kind == "dispatch":
            return self.dispatch(e, env)
        info = e.info
        args = self.eval_args(e, env)
        for k, p in enumerate(info.params):
            if isinstance(p.type, StructType) and p.info != "inout":
                args[k] = copy_value(args[k])
        st = self.counted()
        resume = None
        if self.kernel is not None:
            # in a work-item the call's entry checks, depth and fuel faults carry the call's ordinal (IM-113)
            resume, self.step = self.step, st
        bound = self.bind_sizes(info, args, {}, e.callee.span)
        self.check_where(info, bound, e.callee.span)
        self.check_alias(info, args, e.callee.span, e.argv)
        if self.depth + 1 > self.depth_limit:
            self.fault(MachineFault("E_DEPTH", O.CALL_ENTER, [], None, (I64, self.depth_limit)), e.callee.span)
        r = self.enter_function(info, args, e.callee.span, site=self.pos(e.callee.span), resume=resume)
        self.stack.pop()
        return r

    def check_alias(self, info, args, span, argv, kernel=False):
        """E_ALIAS bind.alias: a written array overlapping another array argument (SPEC-04 LS-121)."""
        arrays = [(i, p, v) for i, (p, v) in enumerate(zip(info.params, args)) if isinstance(v, ArrayValue)]
        for i, p, v in arrays:
            if p.info not in ("inout", "out"):
                continue
            for j, q, w in arrays:
                if j == i:
                    continue
                if v.storage is w.storage and _overlap(v, w):
                    a, b = (i, j) if (q.info not in ("inout", "out") or i < j) else (j, i)
                    self.fault(MachineFault("E_ALIAS", O.BIND_ALIAS, [(I64, a), (I64, b)]), span)
        # a view of an array field of a struct that is also an argument (an `inout` struct, or a written view)
        for i, (p, v) in enumerate(zip(info.params, args)):
            for j, (q, w) in enumerate(zip(info.params, args)):
                if j == i or not (isinstance(v, StructValue) and isinstance(w, ArrayValue)) or w.size == 0:
                    continue
                if (p.info == "inout" or q.info in ("inout", "out")) and w.storage in _field_storages(v):
                    written = [k for k, r in ((i, p), (j, q)) if r.info in ("inout", "out")]
                    a = min(written)
                    b = j if a == i else i
                    self.fault(MachineFault("E_ALIAS", O.BIND_ALIAS, [(I64, a), (I64, b)]), span)

    # -------------------------------------------------------------- reductions

    def reduction(self, e, name, vals, st):
        """A reduction call (semantics/reductions.py): its shapes, the charge ceil(n / 64) at the callee name
        before any element is read (IM-139), then its value."""
        red = RED.BY_CALL[name]
        arrays = [v for v in vals if isinstance(v, ArrayValue)]
        scalars = [v for v in vals if not isinstance(v, ArrayValue)]
        ys = None
        if red.arrays == 2:
            a, b = arrays
            if a.shape[0] != b.shape[0]:
                raise MachineFault("E_SHAPE", red.opid(e.elem, e.R), [(I64, 0), (I64, b.shape[0])], None,
                                   (I64, a.shape[0]))
            ys = b.elements()
        xs = arrays[0].elements()
        self.charge(RED.fuel(len(xs)), e.callee.span)
        return RED.EVALUATE[name](e.elem, e.R, xs, scalars[0] if scalars else None, ys,
                                  e.fold_op or "add")


class CompileTimeBudgetExceeded(Exception):
    """Raised by a CompileTimeContext whose work budget is spent (the checker reports C6002)."""

    def __init__(self, budget):
        super().__init__(budget)
        self.budget = budget


class CompileTimeContext(Context):
    """The context that runs compile-time calls (LS-264..LS-268), with this implementation's work budget
    besides LS-267's fuel: fuel counts calls and loop iterations only, so one iteration of a long body
    would cost one unit however much it runs.  Work counts one unit per expression evaluated and per
    statement of each block run (docs/language.md decision 32); it is shared by every compile-time call
    of the module, so the time `cint check` spends evaluating is bounded whatever the source."""

    def __init__(self, program, revision, work_budget):
        super().__init__(program, revision)
        self.work = 0
        self.work_budget = work_budget

    def eval(self, e, env=None):
        w = self.work + 1
        if w > self.work_budget:
            raise CompileTimeBudgetExceeded(self.work_budget)
        self.work = w
        return Context.eval(self, e, env)

    def _block(self, b, env):
        w = self.work + len(b.stmts) + 1
        if w > self.work_budget:
            raise CompileTimeBudgetExceeded(self.work_budget)
        self.work = w
        return Context._block(self, b, env)
