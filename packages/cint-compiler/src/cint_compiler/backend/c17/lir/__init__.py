"""cpu-c17 over the LIR (docs/lir.md): `function_c` and `kernel_c` give the C of a lowered function or
kernel in the calling convention of the tree-walking emitter (backend/c17/emit.py), which asks for them."""
from cint_compiler.backend.c17.lir.forms import enabled, fits, function_c, kernel_c

__all__ = ["enabled", "fits", "function_c", "kernel_c"]
