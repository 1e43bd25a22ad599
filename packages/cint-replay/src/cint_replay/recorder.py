"""Recorder: writes a recording while a host calls a context (SPEC-03P.1 9.3 H-14, H-14b, H-18).

The recorder does not call anything itself: the host package attaches a context to it (through an
executor adapter with ``checkpoint()``, ``state_hash()``) and reports each entry, checkpoint,
restore and cleared fault.  Events reach the file as they happen; closing the recorder writes the
end event, without which the file is never replayed (an interrupted run leaves an incomplete
recording, refused whole).
"""
from __future__ import annotations

import os
import threading
from typing import List, Optional

from cint_abi.codes import FUEL_MODEL, PROFILE, RUNTIME_CONTRACT
from cint_abi.encoding import encode_args

from . import format as F


class RecorderError(RuntimeError):
    """A recorder used out of order: closed, attached twice, or given a call it cannot record."""


class Recorder:
    """cint.Recorder(path, mode="full"|"digest"); pass it to Module.context(record=...)."""

    def __init__(self, path, *, mode="full"):
        if mode not in F.MODES:
            raise ValueError("mode is 'full' or 'digest', not %r" % (mode,))
        self.path = os.fspath(path)
        self.mode = mode
        self._file = None
        self._head = None
        self._count = 0
        self._seq = 0
        self._closed = False
        self._attached = False
        # one operation's events are written together, and close() waits for the operation that runs;
        # the host package holds it across a recorded call and its events (cint._record)
        self.lock = threading.RLock()

    # -- lifecycle -------------------------------------------------------------------------
    def attach(self, *, revision: bytes, modules: List[F.Module], initial_checkpoint: bytes):
        """Begins the recording: header, code and the initial checkpoint (9.3 paragraph 1)."""
        with self.lock:
            if self._closed:
                raise RecorderError("this Recorder is closed; make a new one")
            if self._attached:
                raise RecorderError("a Recorder records one context; this one already records a context")
            header = F.Header(PROFILE, FUEL_MODEL, RUNTIME_CONTRACT, bytes(revision), self.mode)
            pre = F.preamble(header, [(bytes(revision), modules)], initial_checkpoint)
            self._file = open(self.path, "wb")
            self._file.write(pre)
            self._file.flush()
            self._head = F.chain_start(pre)
            self._attached = True

    @property
    def recording(self) -> bool:
        return self._attached and not self._closed

    def _event(self, kind: int, payload: bytes):
        with self.lock:
            if not self.recording:
                raise RecorderError("this Recorder is not recording (closed, or no context attached)")
            self._write(F.event_bytes(kind, payload))

    def _write(self, ev: bytes):
        self._file.write(ev)
        self._file.flush()
        self._head = F.sha(self._head + ev)
        self._count += 1

    def close(self):
        """Ends the recording: writes the end event with the chain head and the event count."""
        with self.lock:
            if self._closed:
                return
            if self._attached:
                ev = F.event_bytes(F.END, F.end_payload(self._head, self._count))
                self._file.write(ev)
                self._file.close()
                self._file = None
            self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # -- events ----------------------------------------------------------------------------
    @property
    def digest(self) -> bool:
        return self.mode == "digest"

    def entry(self, name: str, args, *, fuel: Optional[int], depth: int, frame_arena: int, outcome):
        """One entry: its arguments ((descriptor, value) pairs), its effects and its outcome."""
        with self.lock:
            if not self.recording:
                raise RecorderError("this Recorder is not recording (closed, or no context attached)")
            abytes = encode_args(name, list(args))
            events = [F.event_bytes(F.ENTRY, F.entry_payload(self._seq + 1, name, abytes, self.digest,
                                                             -1 if fuel is None else fuel, depth, frame_arena))]
            events += [F.event_bytes(F.EFFECT, F.effect_payload(data, 0, self.digest)) for data in outcome.effects]
            events.append(F.event_bytes(F.OUTCOME, F.outcome_payload(outcome.status, outcome.fault, outcome.fuel,
                                                                     outcome.result, outcome.error,
                                                                     outcome.state_hash)))
            self._seq += 1               # every event of the entry is formed before any is written
            for ev in events:
                self._write(ev)

    def checkpoint(self, state_hash: bytes, data: bytes):
        self._event(F.CHECKPOINT, F.checkpoint_payload(state_hash, data, self.digest))

    def restore(self, before: bytes, restored: bytes, data: bytes, after: bytes):
        self._event(F.RESTORE, F.restore_payload(before, restored, data, self.digest, after))

    def clear_fault(self, fault: Optional[bytes], after: bytes):
        self._event(F.CLEAR_FAULT, F.clear_fault_payload(fault, after))
