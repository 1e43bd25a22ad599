"""The fuel pass: which loops charge their whole trip once (IM-142).

A `for` over a range whose body charges nothing (no loop, call or reduction inside) knows its trip count
when it starts: when the budget covers it, the back end charges it at once and runs the iterations with no
test; a fault inside gives back the charges of the iterations that had not started, so the consumed count at
the fault is the one of the charge-per-iteration order.  Otherwise it charges each iteration."""
from __future__ import annotations

from cint_compiler.lower import lir as L


def charges(b: L.Block) -> bool:
    return any(isinstance(op, (L.ForRange, L.Loop, L.Call, L.Reduce, L.Charge)) for op in L.walk(b))


def run(fn: L.Function) -> L.Function:
    for op in L.walk(L.body_of(fn)):
        if isinstance(op, L.ForRange):
            op.batch = not charges(op.body)
    return fn
