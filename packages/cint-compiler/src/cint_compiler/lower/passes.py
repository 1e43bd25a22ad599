"""The passes over LIR, composed in one place (docs/lir.md).  Each takes a Function and returns it with new
facts (proved checks, fuel plans); the verifier runs after each when asked, naming the pass that broke it."""
from __future__ import annotations

from cint_compiler.lower import fuel, ranges
from cint_compiler.lower.verify import verify as verify_fn

PASSES = (("ranges", ranges.run), ("fuel", fuel.run))


def run_passes(fn, verify: bool = False):
    if verify:
        verify_fn(fn, "lowering")
    for name, run in PASSES:
        fn = run(fn)
        if verify:
            verify_fn(fn, name)
    return fn
