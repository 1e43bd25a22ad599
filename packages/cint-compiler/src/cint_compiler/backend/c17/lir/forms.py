"""cpu-c17 over the LIR: C17 for the functions and kernels that lower (docs/lir.md).

Each LIR function becomes C in one of four forms, all of one signature family with the tree-walking
emitter's (emit.py), so that code of either calls code of the other:

* `f_NAME(ctx, sizes.., params.., result)`: a function; checks inline (a test and an unlikely branch to a
  cold block that raises the canonical record), fuel counted in a register and written back at every call,
  fault and return, the innermost counted loop charged once when the budget covers it;
* `kg_NAME(ctx, wi, stepp, ...)`: the same function in a work item (steps counted on the caller's ordinal);
* `kb_NAME(ctx, A, S, scalars.., wi, over..)`: one work item of a kernel in exact mode (step ordinals);
* `kf_NAME(...)`: a block of work items in fast mode, which gives up (returns 1, no record) at the first
  sign of a fault or of fuel running out, and `ki_NAME(ctx, A, S, scalars..)`, the item loop: blocks on the
  fast path, and the block that gave up run again item by item in exact mode, which reports the fault of
  the lowest work item byte for byte (staging: nothing of a faulting dispatch is published).

A function with arrays has two bodies: one for the common case (every lower bound 0, unit stride in the
last dimension), where index checks the bounds pass proved are left out and addresses are plain, and the
general one, with every check.  Which is run is decided once per call.
"""
from __future__ import annotations

import os
from typing import Optional

from cint_compiler.backend.c17.lir.common import _fast_reduce_ok, _trip, ctype, i64
from cint_compiler.backend.c17.lir.writer import FnWriter
from cint_compiler.lower import lir as L


def fits(em, fn: L.Function) -> bool:
    """Whether em can place everything fn names: its module variables are laid out in this program's
    storage (one of another module's is not, and stays with the tree-walking emitter)."""
    return all(g.sym in em.globals_layout and (not isinstance(g, L.Arr) or g.sym in em.__dict__.get("gdata", {}))
               for g in fn.globals)


def enabled() -> bool:
    """CINT_LIR=0 turns the LIR back end off (every function then takes the tree-walking emitter)."""
    return os.environ.get("CINT_LIR", "1") != "0"


# ---------------------------------------------------------------------------------------------- entry points

def _signature(em, fn: L.Function, mode: str, name: str) -> str:
    info = fn.info
    params = ["cint_ctx *ctx"]
    if mode == "kvar":
        params += ["int64_t wi", "int64_t *stepp"]
    for s in info.size_params:
        params.append("int64_t z_%s" % s.name)
    for p in fn.params:
        if isinstance(p, L.Arr):
            params.append("cint_gen_array *p_%s" % p.name)
        else:
            params.append("%s p_%s" % (ctype(p.ty), p.name))
    if fn.result is not None:
        params.append("%s *result" % ctype(fn.result))
    return "CINTG_UNUSED static int %s(%s)" % (name, ", ".join(params))


def _spec_test(fn: L.Function, arr_c) -> str:
    """The C test that every array parameter has lower bounds 0 and a unit stride in its last dimension."""
    conds = []
    for p in fn.params:
        if isinstance(p, L.Arr):
            a = arr_c(p)
            conds += ["%s->lower[%d] == 0" % (a, k) for k in range(p.rank)]
            conds.append("%s->stride[%d] == 1" % (a, p.rank - 1))
    return " && ".join(conds)


def function_c(em, fn: L.Function, mode: str):
    """The C of a function (mode func: f_NAME) or of its work-item form (mode kvar: kg_NAME): (protos, bodies).

    A function with array parameters and a loop or a reduction has two bodies: `_s`, run when every array
    parameter has lower bounds 0 and a unit stride in its last dimension (proved checks left out, plain
    addresses, loops the compiler can vectorise), and `_g`, the general one.  Another function has one body,
    where the checks the bounds pass proved run only when a lower bound is not 0 (`lz_`, tested once per call).
    """
    name = em.kuse(fn.info) if mode == "kvar" else em.fname(fn.info)
    sig = _signature(em, fn, mode, name)
    arrays = any(isinstance(p, L.Arr) for p in fn.params)
    hot = arrays and any(isinstance(op, (L.ForRange, L.Loop, L.Reduce)) for op in L.walk(fn.body))
    if not hot:
        return [sig + ";"], [_function_body(em, fn, mode, sig, False)]
    protos, bodies = [sig + ";"], []
    for sfx, spec in (("s", True), ("g", False)):
        vsig = _signature(em, fn, mode, "%s_%s" % (name, sfx))
        protos.append(vsig + ";")
        bodies.append(_function_body(em, fn, mode, vsig, spec))
    args = ["ctx"] + (["wi", "stepp"] if mode == "kvar" else []) + ["z_%s" % x.name for x in fn.info.size_params]
    args += ["p_%s" % p.name for p in fn.params] + (["result"] if fn.result is not None else [])
    test = _spec_test(fn, lambda p: "p_%s" % p.name)
    bodies.append("%s\n{\n    if (%s) return %s_s(%s);\n    return %s_g(%s);\n}\n" % (
        sig, test, name, ", ".join(args), name, ", ".join(args)))
    return protos, bodies


def _function_body(em, fn: L.Function, mode: str, sig: str, spec: bool) -> str:
    fw = FnWriter(em, fn, mode, spec)
    fw.start()
    w = fw.w
    if mode == "kvar":
        w("int64_t step = *stepp;")
    w("cint_gen_fuel *const F = cint_gen_fuel_of(ctx);")
    w("int64_t fu = F->used;")
    w("const int64_t fl CINTG_UNUSED = F->limit;")
    fw.array_prologue()
    lz = _lower_test(fn, lambda p: "p_%s" % p.name)
    if lz and not spec:
        w("const int lz_ CINTG_UNUSED = %s;" % lz)
        fw.lz = "lz_"
    if fn.frame_charged and mode == "func":
        w("const int64_t fe_fn = cint_gen_frame_charged(ctx);")
    fw.locals_decl(fn.body)
    fw.block(fn.body)
    w("F->used = fu;")
    if fn.frame_charged and mode == "func":
        w("cint_gen_frame_release(ctx, fe_fn);")
    if mode == "kvar":
        w("*stepp = step;")
    w("return 0;")
    w.out.append("fail:")
    w("return 1;")
    return "%s\n{\n%s\n}\n" % (sig, "\n".join(w.out))


def _lower_test(fn: L.Function, arr_c) -> str:
    """The C test that every array parameter has lower bounds 0 (its proved indices are then in range)."""
    return " && ".join("%s->lower[%d] == 0" % (arr_c(p), k) for p in fn.params if isinstance(p, L.Arr)
                       for k in range(p.rank))


# ---------------------------------------------------------------------------------------------- kernels

BLOCK = 1024    # work items of one fast block (the last dimension of the over clause)


def _kscalars(fn: L.Function):
    return [p for p in fn.params if not isinstance(p, L.Arr)]


def kernel_c(em, fn: L.Function):
    """kb_NAME (one work item, exact), kf_NAME (a block, fast; when the body allows) and ki_NAME (the item
    loop): (protos, bodies)."""
    K = em.use(fn.info)
    items = fn.items
    scal = ["%s p_%s" % (ctype(p.ty), p.name) for p in _kscalars(fn)]
    scal_args = ["p_%s" % p.name for p in _kscalars(fn)]
    over = ["int64_t o_%s" % v.name for v in items.over]
    protos, bodies = [], []

    # one work item, exact
    sig = "CINTG_UNUSED static int kb_%s(%s)" % (K, ", ".join(["cint_ctx *ctx", "cint_gen_array *A", "const int64_t *S"]
                                                               + scal + ["int64_t wi"] + over))
    protos.append(sig + ";")
    fw = FnWriter(em, fn, "item", False)
    fw.start()
    w = fw.w
    w("(void)A; (void)S; (void)wi;")
    w("int64_t step = 0;")
    w("cint_gen_fuel *const F = cint_gen_fuel_of(ctx);")
    w("int64_t fu = F->used;")
    w("const int64_t fl CINTG_UNUSED = F->limit;")
    fw.array_prologue()
    fw.locals_decl(items.body)
    fw.block(items.body)
    w("F->used = fu;")
    w("return 0;")
    w.out.append("fail:")
    w("(void)step;")
    w("return 1;")
    bodies.append("%s\n{\n%s\n}\n" % (sig, "\n".join(w.out)))

    # a block of work items, fast
    mode = fast_mode(fn)
    last = items.over[-1]
    outer = items.over[:-1]
    if mode is not None:
        flag, static = mode
        kparams = ", ".join(["cint_ctx *ctx", "cint_gen_array *A", "const int64_t *S"] + scal +
                            ["int64_t o_%s" % v.name for v in outer] +
                            ["int64_t jb", "int64_t je", "int64_t *fup", "int64_t fl"])
        ksig = "static int kf_%s(%s)" % (K, kparams)
        protos.append("CINTG_UNUSED " + ksig + ";")
        fw = FnWriter(em, fn, "fast", True)
        fw.start()
        fw.flag = flag
        w = fw.w
        w("(void)ctx; (void)A; (void)S;")
        fw.array_prologue()
        w("int64_t fu = *fup;")
        if flag:   # the fuel of the whole block, charged at its end when no item gave up
            w("const int64_t ch_ = %s;" % static)
            w("if (ch_ > 0 && (uint64_t)(fl - fu) / (uint64_t)(je - jb) < (uint64_t)ch_) return 1;")
            w("uint32_t ovf = 0;")
        fw.prologue_at = len(w.out)
        fw.item_end = fw.label("Li")
        fw.item_end_used = False
        w.open("for (int64_t o_%s = jb; o_%s < je; o_%s++) {" % (last.name, last.name, last.name))
        fw.locals_decl(items.body)
        fw.block(items.body)
        if fw.item_end_used:
            w("%s:;" % fw.item_end)
        w.close("}")
        if flag:
            w("if (ovf) return 1;")
            w("fu += ch_ * (je - jb);")
        w("*fup = fu;")
        w("return 0;")
        text = "\n{\n%s\n}\n" % "\n".join(w.out)
        if flag:    # vectorisable: a second copy for AVX2, which ki_ calls on a CPU that has it
            bodies.append("#if CINT_GEN_HAS_AVX2\nCINT_GEN_VECTOR_AVX2 static int kf_%s_avx2(%s)%s#endif\n" % (
                K, kparams, text))
            bodies.append("CINT_GEN_VECTOR %s%s" % (ksig, text))
        else:
            bodies.append(ksig + text)

    # the item loop
    isig = "CINTG_UNUSED static int ki_%s(%s)" % (K, ", ".join(["cint_ctx *ctx", "cint_gen_array *A", "const int64_t *S"]
                                                              + scal))
    protos.append(isig + ";")
    ext = ["S[%d]" % fn.sizes.index(e) for e in items.extents]
    lin = "0"
    for v, e in zip(items.over, ext):
        lin = "o_%s" % v.name if lin == "0" else "(%s) * %s + o_%s" % (lin, e, v.name)
    kb_args = ", ".join(["ctx", "A", "S"] + scal_args + ["wi_"] + ["o_%s" % v.name for v in items.over])
    out = ["(void)S;"]
    if mode is not None:
        test = _spec_test(fn, lambda p: "(&A[%d])" % p.index) or "1"
        out.append("if (%s) {" % test)
        out.append("    cint_gen_fuel *const F = cint_gen_fuel_of(ctx);")
        if mode[0]:
            out.append("    const int avx2_ CINTG_UNUSED = (cint_gen_isa(ctx) & CINT_GEN_ISA_AVX2) != 0;")
        ind = "    "
        for v, e in zip(outer, ext):
            out.append("%sfor (int64_t o_%s = 0; o_%s < %s; o_%s++) {" % (ind, v.name, v.name, e, v.name))
            ind += "    "
        je = ext[-1]
        out.append("%sfor (int64_t jb_ = 0; jb_ < %s; jb_ += %d) {" % (ind, je, BLOCK))
        out.append("%s    const int64_t je_ = %s - jb_ < %d ? %s : jb_ + %d;" % (ind, je, BLOCK, je, BLOCK))
        out.append("%s    int64_t fu_ = F->used;" % ind)
        kf_args = ", ".join(["ctx", "A", "S"] + scal_args + ["o_%s" % v.name for v in outer] +
                            ["jb_", "je_", "&fu_", "F->limit"])
        if mode[0]:
            out += ["#if CINT_GEN_HAS_AVX2",
                    "%s    if ((avx2_ ? kf_%s_avx2(%s) : kf_%s(%s)) == 0) { F->used = fu_; continue; }" % (
                        ind, K, kf_args, K, kf_args),
                    "#else",
                    "%s    if (kf_%s(%s) == 0) { F->used = fu_; continue; }" % (ind, K, kf_args),
                    "#endif"]
        else:
            out.append("%s    if (kf_%s(%s) == 0) { F->used = fu_; continue; }" % (ind, K, kf_args))
        out.append("%s    for (int64_t o_%s = jb_; o_%s < je_; o_%s++) {" % (ind, last.name, last.name, last.name))
        out.append("%s        const int64_t wi_ = %s;" % (ind, lin))
        out.append("%s        if (kb_%s(%s)) return 1;" % (ind, K, kb_args))
        out.append("%s    }" % ind)
        out.append("%s}" % ind)
        for _ in outer:
            ind = ind[:-4]
            out.append("%s}" % ind)
        out.append("    return 0;")
        out.append("}")
    out.append("{")
    out.append("    int64_t wi_ = 0;")
    if items.frame_reset:   # the frame-arena storage an item took (its private arrays, its callees') goes back
        out.append("    const size_t fmk_ = cint_gen_frame_mark(ctx);")
    ind = "    "
    for v, e in zip(items.over, ext):
        out.append("%sfor (int64_t o_%s = 0; o_%s < %s; o_%s++) {" % (ind, v.name, v.name, e, v.name))
        ind += "    "
    out.append("%sif (kb_%s(%s)) return 1;" % (ind, K, kb_args))
    if items.frame_reset:
        out.append("%scint_gen_frame_reset(ctx, fmk_);" % ind)
    out.append("%swi_++;" % ind)
    for _ in items.over:
        ind = ind[:-4]
        out.append("%s}" % ind)
    out.append("}")
    out.append("return 0;")
    bodies.append("%s\n{\n%s\n}\n" % (isig, "\n".join("    " + x for x in out)))
    return protos, bodies


def fast_mode(fn: L.Function):
    """Whether the work items of kernel fn have a fast block, and its kind: (flag, charge) with flag True when
    every check can accumulate into a flag with no branch (and then `charge`, a C expression, is the fuel of
    one item, the same for every item), or None when every item needs the exact path (a call)."""
    body = fn.items.body
    loaded, stored = set(), set()
    for op in L.walk(body):
        if isinstance(op, (L.Call, L.Charge, L.LocalArray, L.View)):
            return None
        if isinstance(op, L.Reduce):
            if not _fast_reduce_ok(op):
                return None
            loaded |= {id(op.arr), id(op.arr2)}
        if isinstance(op, L.Load):
            loaded.add(id(op.ref.arr))
        if isinstance(op, L.Store):
            stored.add(id(op.ref.arr))
    if loaded & stored:
        # an item that reads an array it writes would read its own fast-path store when its block is re-run
        return None
    charge = _static_charge(fn, body)
    if charge is not None and _flaggable(fn, body):
        return True, charge
    return False, None


def _shape_c(a: L.Arr, k: int) -> str:
    if a.kind == "const":
        return i64(list(a.value.shape)[k])
    if a.kind == "global":
        return i64(a.ty.dims[k])
    return "(&A[%d])->shape[%d]" % (a.index, k)


def _static_charge(fn, b: L.Block) -> Optional[str]:
    """The fuel one run of block b charges as a C expression over the kernel's arrays, when it is the same for
    every item (loops of constant trip, reductions over whole extents), else None."""
    parts = []
    for op in b.ops:
        if isinstance(op, L.ForRange):
            lo, hi = op.lo, op.hi
            if not (isinstance(lo, L.Imm) and isinstance(hi, L.Imm)):
                return None
            inner = _static_charge(fn, op.body)
            if inner is None:
                return None
            trip = _trip(int(lo.value), int(hi.value), op.stride, op.inclusive)
            parts.append("INT64_C(%d) * (1 + %s)" % (trip, inner))
        elif isinstance(op, L.Loop):
            return None
        elif isinstance(op, L.If):
            a, b2 = _static_charge(fn, op.then), _static_charge(fn, op.other)
            if a is None or b2 is None or a != b2:
                return None
            parts.append(a)
        elif isinstance(op, L.Reduce):
            parts.append("((%s + 63) / 64)" % _shape_c(op.arr, op.arr.rank - 1))
    return "(%s)" % " + ".join(parts) if parts else "0"


UNROLL = 16


def _flaggable(fn, body) -> bool:
    """Every check of body can set a flag and let the item run on (no branch): no loop but short constant
    ranges (unrolled), no jump, every index proved in range from values that are exact whatever the flags."""
    exact = set()
    for op in L.walk(body):
        if isinstance(op, (L.Loop, L.Break, L.Continue, L.Return, L.Call, L.Switch, L.Assert)):
            return False
        if isinstance(op, L.ForRange):
            if not (isinstance(op.lo, L.Imm) and isinstance(op.hi, L.Imm)):
                return False
            if _trip(int(op.lo.value), int(op.hi.value), op.stride, op.inclusive) > UNROLL:
                return False
        if isinstance(op, L.Arith):
            if op.op in ("div", "rem") and not (isinstance(op.b, L.Imm) and op.b.value != 0):
                return False
            if op.op in ("shl", "shr") and not (isinstance(op.b, L.Imm) and 0 <= op.b.value < op.ty.bits):
                return False
        if isinstance(op, L.Elem) and not op.rel:
            if not all(op.proven) or not all(_exact(i, exact) for i in op.idx):
                return False
        if isinstance(op, L.Reduce) and op.row is not None and not _exact(op.row, exact):
            return False
        # the values that are exact whatever the flags: no unproved check on their way
        dst = getattr(op, "dst", None)
        if isinstance(dst, L.Temp):
            srcs = [x for x in (getattr(op, "a", None), getattr(op, "b", None), getattr(op, "src", None))
                    if x is not None]
            ok = all(_exact(x, exact) for x in srcs)
            if isinstance(op, (L.Arith, L.Neg)) and op.may_fault and not op.safe:
                ok = False
            if isinstance(op, L.Conv) and op.may_fault and not op.safe:
                ok = False
            if isinstance(op, (L.Load, L.Extent)):
                ok = True
            if isinstance(op, L.Reduce):
                ok = False
            if ok:
                exact.add(id(dst))
    return True


def _exact(x, exact) -> bool:
    if isinstance(x, L.Imm):
        return True
    if isinstance(x, L.Var):
        return x.kind in ("size", "over", "iv", "param")
    return id(x) in exact
