"""The two ways replay stops early (SPEC-03P.1 7.1 table, 9.3 H-17): CINT_DIVERGED and CINT_UNREPLAYABLE.

``cint`` re-exports both as cint.ReplayDivergence and cint.Unreplayable.
"""
from __future__ import annotations


class ReplayDivergence(Exception):
    """CINT_DIVERGED: the replayed run differs from the recording at event ``index``.

    ``what`` names the field that differed first (status, fault, fuel, result, error, state_hash,
    effect, effect count, ...), ``recorded`` and ``replayed`` are its two values and ``result``
    is the ReplayResult up to that event (its context is left as replay left it)."""

    status = 6

    def __init__(self, index, what, recorded, replayed, result=None):
        self.index = index
        self.what = what
        self.recorded = recorded
        self.replayed = replayed
        self.result = result
        super().__init__("replay diverged at event %d: %s differs (recorded %s, replayed %s)" % (
            index, what, _show(recorded), _show(replayed)))


class Unreplayable(Exception):
    """CINT_UNREPLAYABLE: replay reached event ``index``, which it cannot reproduce (``reason``)."""

    status = 7

    def __init__(self, index, reason, result=None):
        self.index = index
        self.reason = reason
        self.result = result
        super().__init__("replay cannot go on at event %d: %s" % (index, reason))


def _show(v):
    if isinstance(v, (bytes, bytearray)):
        return v.hex() if len(v) <= 16 else "%s... (%d bytes)" % (bytes(v[:16]).hex(), len(v))
    return repr(v)
