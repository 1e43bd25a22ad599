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

import bisect
from typing import Callable, List, Optional

from cint_compiler.semantics import opnames as O
from cint_compiler.semantics.operators import ARITH_OPS, CMP_OPS, SHIFT_OPS
from cint_compiler.syntax import tree as A
from cint_compiler.semantics import intmachine as M
from cint_compiler.semantics import reductions as RED
from cint_compiler.check.features import reduce as KR
from cint_compiler.syntax.tree import NOTCONST
from cint_compiler.check.symbols import Program
from cint_compiler.check.program import Checker as _Checker
from cint_compiler.check.symbols import bitfield_fault, bitfield_of, where_failure
from cint_compiler.semantics.faults import EntryFault, FaultRecord, KernelAddress, MachineFault, Position
from cint_compiler.semantics.types import (BOOL, I64, VOID, ArrayType, EnumType, ErrorUnionType, FixedType, IntType,
                    StructType)
from cint_compiler.semantics.values import ArrayValue, EnumValue, ErrorValue, Storage, StructValue, copy_value
from cint_compiler.semantics.values import LiveStr
from cint_compiler.interp.containers import Memory, MemoryExec
from cint_compiler.interp.values import (_field_storages, _from_cells, _iter_space, _overlap, assign_value, compare,
                                        zero_value)
from cint_compiler.interp import builtins as IB
from cint_compiler.semantics.types import SymExtent
from cint_compiler.check.features.proposed import subword_bits, subword_store
from cint_compiler.semantics import fmt

I64_MAX = (1 << 63) - 1


# ----------------------------------------------------------------------------- control signals

class _Break(Exception):
    def __init__(self, label):
        self.label = label


class _Continue(Exception):
    def __init__(self, label):
        self.label = label


class _Return(Exception):
    def __init__(self, value, is_err=False):
        self.value = value
        self.is_err = is_err      # `return .name;`: an error exit, which runs `errdefer` (LS-189)


class _ErrorProp(Exception):
    """An error leaving a function (or a test block) by `try` propagation."""

    def __init__(self, err: ErrorValue, errset=None):
        self.err = err
        self.errset = errset      # the static error set of the operand of `try`


class _Fallthrough(Exception):
    """`fallthrough;` at the end of a case body (LS-178)."""


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


class Context(Evaluator, MemoryExec):
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

    # -------------------------------------------------------------- statements

    def read(self, sym, env):
        if sym.kind == "global":
            return self.globals[sym]
        if sym.kind == "container":
            return self.mem.container(sym)
        return env[sym]

    # the arena and pool identifier counters of the canonical state live in the Memory (containers.py)
    next_arena = property(lambda self: self.mem.next_arena, lambda self, v: setattr(self.mem, "next_arena", v))
    next_pool = property(lambda self: self.mem.next_pool, lambda self, v: setattr(self.mem, "next_pool", v))

    def block(self, b, env):
        # LS-110: the local arrays a block declares are released when it exits, however it exits
        charges = b.frame_decls
        if charges is None:
            charges = b.frame_decls = any(type(s) is A.VarDecl and s.mode is None and
                                          isinstance(s.resolved, ArrayType) for s in b.stmts)
        if charges:
            mark = self.frame_used
            try:
                self._block(b, env)
            finally:
                self.frame_used = mark
            return
        self._block(b, env)

    def _block(self, b, env):
        has_defer = b.has_defer
        if has_defer is None:
            has_defer = b.has_defer = any(type(s) is A.Defer for s in b.stmts)
        if not has_defer:
            for s in b.stmts:
                getattr(self, "s_" + type(s).__name__)(s, env)
            return
        # LS-185: deferred statements are scheduled as reached and run in reverse order at every exit of the
        # block except a fault (LS-188); `errdefer` only when an error leaves (LS-189).
        pending = []
        try:
            for s in b.stmts:
                if type(s) is A.Defer:
                    pending.append(s)
                else:
                    getattr(self, "s_" + type(s).__name__)(s, env)
        except _Return as r:
            self.run_deferred(pending, env, r.is_err)
            raise
        except _ErrorProp:
            self.run_deferred(pending, env, True)
            raise
        except (_Break, _Continue, _Fallthrough):
            self.run_deferred(pending, env, False)
            raise
        self.run_deferred(pending, env, False)

    def run_deferred(self, pending, env, error_exit):
        """Run the deferred statements of a block, latest first; no fuel of their own (LS-317)."""
        for d in reversed(pending):
            if d.is_err and not error_exit:
                continue
            st = d.stmt
            getattr(self, "s_" + type(st).__name__)(st, env)

    def s_Defer(self, s, env):
        raise AssertionError("a deferred statement is scheduled by its block")

    def s_Block(self, s, env):
        self.block(s, env)

    def s_VarDecl(self, d, env):
        t = d.resolved
        if d.mode is not None:
            env[d.sym] = self.eval(d.init, env)
            return
        if isinstance(t, ArrayType):
            shape = []
            for k, x in enumerate(t.dims):
                if isinstance(x, int):
                    shape.append(x)
                elif isinstance(x, str):
                    shape.append(env[next(s for s in env if getattr(s, "name", None) == x
                                          and s.kind == "sizeparam")])
                else:
                    shape.append(self.eval(x, env))
            for k, x in enumerate(shape):
                if x < 0:
                    self.fault(MachineFault("E_SHAPE", O.DECL_SHAPE, [(I64, k), (I64, x)], None, (I64, 0)), d.span)
            if self.kernel is None:
                self.frame_charge(shape, d.span)
            if d.init is None:
                env[d.sym] = ArrayValue.new(t.elem, shape, lambda: zero_value(t.elem))
                return
            v = self.eval(d.init, env)
            for k, (want, got) in enumerate(zip(shape, v.shape)):
                if want != got:
                    self.fault(MachineFault("E_SHAPE", O.COPY_SHAPE, [(I64, k), (I64, got)], None, (I64, want)),
                               d.eq_span or d.span)
            env[d.sym] = copy_value(v)
            return
        if d.init is None:
            env[d.sym] = zero_value(t)
            return
        v = self.eval(d.init, env)
        if isinstance(t, ArrayType):
            v = self.copy_checked(t, v, d.eq_span or d.span)
        else:
            v = copy_value(v)
        env[d.sym] = v

    def frame_charge(self, shape, span):
        """LS-110: charge a local array's element count (whatever its element type) to the frame arena,
        after its decl.shape check and before its initializer; E_BOUNDS arena.alloc when it does not fit."""
        n = 1
        for x in shape:
            n *= x
        n = min(n, I64_MAX)
        if n > self.frame_cap - self.frame_used:
            self.fault(MachineFault("E_BOUNDS", O.ARENA_ALLOC,
                                    [(I64, n), (I64, self.frame_used), (I64, self.frame_cap)], None, None), span)
        self.frame_used += n

    def copy_checked(self, t, v, span):
        dims = t.dims
        for k, (want, got) in enumerate(zip(dims, v.shape)):
            if isinstance(want, int) and want != got:
                self.fault(MachineFault("E_SHAPE", O.COPY_SHAPE, [(I64, k), (I64, got)], None, (I64, want)), span)
        return copy_value(v)

    def s_GlobalDecl(self, s, env):
        self.s_VarDecl(s.decl, env)

    def render_text(self, text, env) -> bytes:
        """The UTF-8 bytes of an interpolated text (print, format): its parts in order."""
        out = []
        for p in text.parts:
            if isinstance(p, A.Hole):
                v = self.eval(p.expr, env)
                try:
                    s = fmt.format_value(p.expr.ty, v, p.fspec)
                except MachineFault as mf:
                    self.fault(mf, p.expr.span)
                if p.eq:
                    out.append((p.source + "=").encode("utf-8"))
                out.append(s.encode("utf-8"))
            else:
                out.append(p.encode("utf-8") if isinstance(p, str) else p)
        return b"".join(out)

    def s_Print(self, s, env):
        self.emit(self.render_text(s.text, env))

    def place_ref(self, place, env):
        """Evaluate a place's subexpressions and checks; return (setter, getter) (IM-98)."""
        if isinstance(place, A.Paren):
            return self.place_ref(place.inner, env)
        if isinstance(place, A.Name):
            sym = place.ref
            if sym.kind == "global":
                return (lambda v: self.globals.__setitem__(sym, v)), (lambda: self.globals[sym])
            return (lambda v: env.__setitem__(sym, v)), (lambda: env[sym])
        if isinstance(place, A.Index):
            if place.ckind is not None:
                return self.mem_place(place, env)
            if place.view:
                view = self.form_view(place, env)
                return None, (lambda: view)
            base = self.eval(place.base, env)
            idx = [self.eval(i, env) for i in place.items]
            st = self.counted()
            off = self.index_offset(base, idx, place, st)
            cells = base.storage.cells
            return (lambda v: cells.__setitem__(off, v)), (lambda: cells[off])
        if isinstance(place, A.Member):
            sv = self.eval(place.base, env)
            return (lambda v: sv.fields.__setitem__(place.name, v)), (lambda: sv.fields[place.name])
        raise AssertionError("not a place")

    def s_Assign(self, s, env):
        if s.subword is not None:      # `x.byte[k] = v;` (LS-86, Proposed): cannot fault
            setter, getter = self.place_ref(s.place.subword_x, env)
            v = self.eval(s.value, env)
            setter(subword_store(getter(), v, *s.subword))
            return
        setter, getter = self.place_ref(s.place, env)
        if s.op == "=":
            v = self.eval(s.value, env)
            t = s.place.ty
            if isinstance(t, ArrayType):
                cur = getter()
                try:
                    self.copy_elements(cur, v)
                except MachineFault as mf:
                    self.fault(mf, s.span)
                return
            bf = bitfield_of(s.place)
            if bf is not None:
                self.bitfield_check(bf, v, s.span)
            setter(assign_value(getter(), v))
            return
        cur = getter()
        v = self.eval(s.value, env)
        op = s.op[:-1]
        t = s.place.ty
        st = self.counted()
        try:
            if op in SHIFT_OPS:
                name, form = SHIFT_OPS[op]
                r = M.shr(t, cur, v, s.value.ty) if name == "shr" else M.shl(form, t, cur, v, s.value.ty)
            elif op == "&":
                r = M.bitand(t, cur, v)
            elif op == "|":
                r = M.bitor(t, cur, v)
            elif op == "^":
                r = M.bitxor(t, cur, v)
            else:
                name, form = ARITH_OPS[op]
                if name == "div":
                    r = M.div(t, cur, v)
                elif name == "rem":
                    r = M.rem(t, cur, v)
                else:
                    r = M.arith(name, form, t, cur, v)
        except MachineFault as mf:
            self.fault(mf, s.span, st)
        bf = bitfield_of(s.place)
        if bf is not None:
            self.bitfield_check(bf, r, s.span)
        setter(r)

    def s_IncDec(self, s, env):
        setter, getter = self.place_ref(s.place, env)
        cur = getter()
        st = self.counted()
        try:
            r = M.arith("add" if s.op == "++" else "sub", "checked", s.place.ty, cur, 1)
        except MachineFault as mf:
            self.fault(mf, s.span, st)
        bf = bitfield_of(s.place)
        if bf is not None:
            self.bitfield_check(bf, r, s.span)
        setter(r)

    def s_ExprStmt(self, s, env):
        self.eval(s.expr, env)

    def s_Discard(self, s, env):
        self.eval(s.value, env)

    def s_If(self, s, env):
        if self.eval(s.cond, env):
            self.block(s.then, env)
        elif s.other is not None:
            if isinstance(s.other, A.If):
                self.s_If(s.other, env)
            else:
                self.block(s.other, env)

    def _loop_body(self, s, env):
        """Run a loop body; return 'break' / None; re-raise jumps for other loops."""
        try:
            self.block(s.body, env)
        except _Break as b:
            if b.label is None or b.label == s.label:
                return "break"
            raise
        except _Continue as c:
            if c.label is None or c.label == s.label:
                return None
            raise
        return None

    def s_While(self, s, env):
        while self.eval(s.cond, env):
            self.charge(1, s.span)
            if self._loop_body(s, env) == "break":
                return

    def s_DoWhile(self, s, env):
        while True:
            self.charge(1, s.span)
            if self._loop_body(s, env) == "break":
                return
            if not self.eval(s.cond, env):
                return

    def s_ForC(self, s, env):
        if s.init is not None:
            getattr(self, "s_" + type(s.init).__name__)(s.init, env)
        while self.eval(s.cond, env):
            self.charge(1, s.span)
            if self._loop_body(s, env) == "break":
                return
            if s.update is not None:
                getattr(self, "s_" + type(s.update).__name__)(s.update, env)

    def s_ForRange(self, s, env):
        lo = self.eval(s.lo, env)
        hi = self.eval(s.hi, env)
        step = s.step.cval if s.step is not None else 1
        if step > 0:
            last = hi if s.inclusive else hi - 1
            i = lo
            while i <= last:
                self.charge(1, s.span)
                env[s.sym] = i
                if self._loop_body(s, env) == "break":
                    return
                if last - i < step:
                    return
                i += step
        else:
            last = hi if s.inclusive else hi + 1
            i = lo
            while i >= last:
                self.charge(1, s.span)
                env[s.sym] = i
                if self._loop_body(s, env) == "break":
                    return
                if i - last < -step:
                    return
                i += step

    def s_ForEach(self, s, env):
        arr = self.eval(s.iterable, env)
        n = arr.shape[0]
        lo = arr.lower[0]
        for k in range(n):
            self.charge(1, s.span)
            env[s.isym] = lo + k
            env[s.xsym] = copy_value(arr.get((k,)))
            if self._loop_body(s, env) == "break":
                return

    def s_Break(self, s, env):
        raise _Break(s.label)

    def s_Continue(self, s, env):
        raise _Continue(s.label)

    def s_Return(self, s, env):
        if s.value is None:
            raise _Return(None)
        v = self.eval(s.value, env)
        if s.is_error:
            raise _Return(("err", v), True)
        raise _Return(copy_value(v))

    # -------------------------------------------------------------- switch (LS-177 to LS-184)

    def s_Switch(self, s, env):
        v = self.eval(s.scrutinee, env)
        kind = s.key_kind
        if kind == "int":
            key = v
        elif kind == "enum":
            key = v.value
        elif kind == "bool":
            key = bool(v)
        else:
            key = (v.set, v.name)
        k = s.table.get(key)
        if k is None:
            if s.ranges:
                i = bisect.bisect_right(s.range_los, key) - 1
                if i >= 0 and s.ranges[i][1] >= key:
                    k = s.ranges[i][2]
            if k is None:
                k = s.default_index
        bodies = s.bodies
        while True:
            try:
                self.block(bodies[k], env)
                return
            except _Fallthrough:
                k += 1
            except _Break as b:
                if b.label is None:
                    return
                raise

    def s_Fallthrough(self, s, env):
        raise _Fallthrough()

    # -------------------------------------------------------------- tuples (LS-98 to LS-101)

    def s_Destructure(self, s, env):
        if s.declare:
            vals = self.eval(s.value, env)
            for b, v in zip(s.binds, vals):
                if b.sym is not None:
                    env[b.sym] = copy_value(v)
            return
        # LS-100: the places are evaluated and checked left to right before the right-hand side
        refs = [self.place_ref(b.place, env) if b.place is not None else None for b in s.binds]
        vals = self.eval(s.value, env)
        for b, ref, v in zip(s.binds, refs, vals):
            if ref is None:
                continue
            setter, getter = ref
            if isinstance(b.place.ty, ArrayType):
                cur = getter()
                if tuple(cur.shape) != tuple(v.shape):
                    k = next(i for i, (x, y) in enumerate(zip(cur.shape, v.shape)) if x != y)
                    self.fault(MachineFault("E_SHAPE", O.COPY_SHAPE, [(I64, k), (I64, v.shape[k])], None,
                                            (I64, cur.shape[k])), s.span)
                for i, j in zip(cur.indices(), v.indices()):
                    cur.set(i, copy_value(v.get(j)))
            else:
                bf = bitfield_of(b.place)
                if bf is not None:
                    self.bitfield_check(bf, v, s.span)
                setter(copy_value(v))

    def s_Assert(self, s, env):
        c = s.cond
        if isinstance(c, A.Binary) and c.op in CMP_OPS:
            a = self.eval(c.left, env)
            b = self.eval(c.right, env)
            if compare(c.op, c.left.ty, a, b):
                return
            ops = []
            for x, v in ((c.left, a), (c.right, b)):
                if isinstance(x.ty, (IntType, FixedType)):
                    ops.append((x.ty, v))
                elif x.ty == BOOL:
                    ops.append((BOOL, 1 if v else 0))
            self.fault(MachineFault("E_ASSERT", O.ASSERT, ops), s.span)
        if not self.eval(c, env):
            self.fault(MachineFault("E_ASSERT", O.ASSERT, []), s.span)

    def s_StaticAssert(self, s, env):
        pass

    # -------------------------------------------------------------- error unions

    def x_Try(self, e, env):
        r = self.eval(e.operand, env)
        if r[0] == "err":
            raise _ErrorProp(r[1], e.operand.ty.errset)
        return r[1]

    def x_Catch(self, e, env):
        r = self.eval(e.operand, env)
        if r[0] == "ok":
            return r[1]
        if e.block is not None:
            env[e.sym] = r[1]
            self.block(e.block, env)
            raise AssertionError("a catch block leaves")
        return self.eval(e.value, env)


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
