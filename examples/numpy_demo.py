"""numpy_demo.py: calling a cint kernel from NumPy without copies, exactly, with checked arithmetic.

Run it with `.venv/bin/python examples/numpy_demo.py` (scripts/demo.sh does).
"""
from pathlib import Path

import numpy as np

import cint

here = Path(__file__).resolve().parent
mod = cint.load(str(here / "particles.ci"))      # builds once, then loads from the cache
ctx = mod.context()

n = 1_000_000
pos = np.arange(n, dtype=np.int64) * 1000        # micrometres
vel = np.full(n, 250, dtype=np.int64)            # micrometres per step
out = cint.empty((n,), "I64")                    # runtime-owned output, published on success

for _ in range(3):
    ctx.step(pos, vel, 4, next=out)              # pos and vel are borrowed, never copied
    pos = np.asarray(out).copy()
print("after 3 steps: first", pos[:3].tolist(), "last", int(pos[-1]))
print("exact and equal to NumPy:", bool((pos == np.arange(n, dtype=np.int64) * 1000 + 3 * 4 * 250).all()))
print("momentum:", ctx.momentum(vel, 3))

vel[n // 2] = 2**62                              # one particle far too fast: vel * dt overflows I64
try:
    ctx.step(pos, vel, 4, next=out)
except cint.OverflowFault as f:
    print("fault:", f.operation, "at work item", f.work_item, "operands", f.operands)
    print("the output still holds the last published step:", int(np.asarray(out)[0]) == int(pos[0]))
ctx.clear_fault()
