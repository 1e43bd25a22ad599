"""The operators of cint-core-1: one table, read by the lexer, the parser, the checker, the reference
interpreter and the C back end (SPEC-04P.1 LS-12, LS-149 to LS-158; SPEC-01P.1 IM-60 to IM-75).

Each binary operator is a row: its token, its binding power (LS-149: larger binds tighter), its family,
the integer-machine operation it performs and that operation's form (``checked``, ``wrap`` or ``sat``;
the operation identifier of a fault is ``<operation>.<form>.<type>``, semantics/intmachine.py), and
whether evaluating it counts a step (IM step ordinals: the arithmetic and shift operators do; comparisons,
bitwise and logical operators do not).  Adding an operator is adding a row here (docs/architecture.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Tuple


@dataclass(frozen=True)
class BinaryOperator:
    token: str
    bp: int                   # binding power (LS-149)
    family: str               # "arith", "shift", "bit", "cmp" or "logic"
    operation: Optional[str]  # the integer-machine operation: add, sub, mul, div, rem, shl, shr
    form: Optional[str]       # checked, wrap or sat
    counts_step: bool
    compound: bool            # `x op= v` exists (LS-171)


def _row(token, bp, family, operation=None, form=None):
    counts = family in ("arith", "shift")
    return BinaryOperator(token, bp, family, operation, form, counts, family in ("arith", "shift", "bit"))


BINARY: Tuple[BinaryOperator, ...] = (
    _row("*", 9, "arith", "mul", "checked"), _row("/", 9, "arith", "div", "checked"),
    _row("%", 9, "arith", "rem", "checked"), _row("*%", 9, "arith", "mul", "wrap"),
    _row("*|", 9, "arith", "mul", "sat"),
    _row("+", 8, "arith", "add", "checked"), _row("-", 8, "arith", "sub", "checked"),
    _row("+%", 8, "arith", "add", "wrap"), _row("-%", 8, "arith", "sub", "wrap"),
    _row("+|", 8, "arith", "add", "sat"), _row("-|", 8, "arith", "sub", "sat"),
    _row("<<", 7, "shift", "shl", "checked"), _row(">>", 7, "shift", "shr", "checked"),
    _row("<<%", 7, "shift", "shl", "wrap"),
    _row("&", 6, "bit"), _row("^", 5, "bit"), _row("|", 4, "bit"),
    _row("==", 3, "cmp"), _row("!=", 3, "cmp"), _row("<", 3, "cmp"), _row("<=", 3, "cmp"),
    _row(">", 3, "cmp"), _row(">=", 3, "cmp"),
    _row("&&", 2, "logic"), _row("||", 1, "logic"),
)
BY_TOKEN: Dict[str, BinaryOperator] = {r.token: r for r in BINARY}

BINARY_BP: Dict[str, int] = {r.token: r.bp for r in BINARY}
# token -> (operation, form), for the operators that run an integer-machine operation
ARITH_OPS: Dict[str, Tuple[str, str]] = {r.token: (r.operation, r.form) for r in BINARY if r.family == "arith"}
SHIFT_OPS: Dict[str, Tuple[str, str]] = {r.token: (r.operation, r.form) for r in BINARY if r.family == "shift"}
BIT_OPS: FrozenSet[str] = frozenset(r.token for r in BINARY if r.family == "bit")
CMP_OPS: FrozenSet[str] = frozenset(r.token for r in BINARY if r.family == "cmp")
LOGIC_OPS: FrozenSet[str] = frozenset(r.token for r in BINARY if r.family == "logic")
COMPOUND_ASSIGN: FrozenSet[str] = frozenset(r.token + "=" for r in BINARY if r.compound)

UNARY_OPS = ("-", "-%", "~", "!")            # LS-150
CONV_OPS = ("as", "as%", "as|", "as?")      # LS-129: checked, wrapping, saturating, fallible
# the punctuation that is not an operator of the table (LS-12)
PUNCTUATION = ("~", "!", "++", "--", "..", "..=", "?", ":", "=", "(", ")", "[", "]", "{", "}", ",", ";", ".", "@")
# every operator and punctuation token, longest first (maximal munch, LS-12)
TOKENS = tuple(sorted(set(BY_TOKEN) | COMPOUND_ASSIGN | set(PUNCTUATION), key=lambda t: (-len(t), t)))
