"""The recording format (SPEC-03P.1 9.3 H-14, H-18): bytes, writer and strict reader.

All integers little-endian; ``text`` is a U32 length then UTF-8; ``blob`` is a U64 length then the
bytes.  A recording is, in this order (docs/encodings.md, "Recordings"):

    frame("cint-core-1/recording/v1")
    header        profile text, fuel model text, runtime contract text, revision (32 bytes),
                  mode U8 (0 full, 1 digest)
    code          U32 count of revisions (1 in cint 0.2.0), then per revision: revision (32 bytes),
                  U32 module count, then per module (the root module first, then the others by
                  ascending path bytes): path text, SIR blob, source blob
    initial       the checkpoint of the context when recording began: blob (always whole)
    events        each: kind U8, U64 payload length, payload; the end event is the last

The chain of digests: d0 = SHA-256(frame("cint-core-1/recording-chain/v1") || every byte before the
first event); d(k) = SHA-256(d(k-1) || the bytes of event k).  The end event holds d(n) over the n
events before it and n.  A recording without its end event, with a wrong chain head or count, or
with any byte after the end event is refused whole (nothing of it is used).  The chain has no key, so
read() then checks what an edited, re-chained file could break (docs/encodings.md, "Validation"):
module paths are module names (LS-225), events come in the order entry, effects, outcome; entries are
numbered 1, 2, 3, ...; every status, presence, form and range is one the format allows.
RecordingError (a subclass of Unreplayable) names the offset and the rule.

Event payloads (``digest`` mode replaces input contents by their SHA-256, H-18):

    1 entry        sequence U64 (from 1), export name text, form U8 (0 args blob with the IM-158
                   canonical arguments, 1 their SHA-256), fuel budget I64 (-1: none), depth limit
                   U32, frame-arena capacity U64 (elements)
    2 effect       form U8 (0 bytes blob, 1 SHA-256 and U64 length), status I32 (the host's return)
    3 outcome      status I32, fault presence U8 (+ blob of IM-149 bytes), fuel consumed I64, result
                   presence U8 (+ blob of the tagged value, IM-146), error presence U8 (+ set text,
                   value name text, tag U64), state hash (32 bytes)
    4 checkpoint   state hash (32 bytes) of the state taken, form U8 (0 blob of the checkpoint,
                   1 its SHA-256)
    5 restore      state hash before (32), state hash of the restored state (32), form U8 (0 blob
                   of the checkpoint, 1 its SHA-256), state hash after (32)
    6 clear_fault  fault presence U8 (+ blob of the cleared record), state hash after (32)
    7 end          chain head (32 bytes), event count U64
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from cint_abi.encoding import DecodeError, Reader, frame, i64, u8, u32, u64

from .errors import Unreplayable

DOMAIN_RECORDING_V1 = "cint-core-1/recording/v1"
DOMAIN_CHAIN_V1 = "cint-core-1/recording-chain/v1"
MODES = {"full": 0, "digest": 1}
MODE_NAMES = {v: k for k, v in MODES.items()}

ENTRY, EFFECT, OUTCOME, CHECKPOINT, RESTORE, CLEAR_FAULT, END = range(1, 8)
EVENT_NAMES = {ENTRY: "entry", EFFECT: "effect", OUTCOME: "outcome", CHECKPOINT: "checkpoint",
               RESTORE: "restore", CLEAR_FAULT: "clear_fault", END: "end"}

MAX_EVENTS = 1 << 32          # implementation bound on the events of one recording
MAX_TEXT = 1 << 16            # names, paths, error sets
MAX_FRAME_ARENA = ((1 << 63) - 1) // 8     # elements: 8 * capacity is a byte size that fits an I64
CINT_STATUS_MAX = 7           # cint_status values are 0 (CINT_OK) .. 7 (CINT_UNREPLAYABLE)
# the statuses an entry's outcome can have: CINT_OK, CINT_FAULT, CINT_FAULTED, CINT_RESOURCE.  A refused
# or busy call is not an entry (7.1), and CINT_DIVERGED / CINT_UNREPLAYABLE are replay's own.
OUTCOME_STATUSES = (0, 1, 4, 5)
_FAULT, _FAULTED, _OK = 1, 4, 0

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Windows device names (SPEC-09 CINTC-12): no module path segment is one, in any case
_DEVICE_NAMES = frozenset(["CON", "PRN", "AUX", "NUL"] + ["COM%d" % i for i in range(10)]
                          + ["LPT%d" % i for i in range(10)])


class RecordingError(Unreplayable):
    """A recording that cannot be used (CINT_UNREPLAYABLE before any event is applied, ``index`` -1):
    ``offset`` is the byte where the offending field starts, ``rule`` the rule it breaks, ``detail`` what
    was found.  Raised by the whole-file check, before anything of the recording is used (H-17)."""

    def __init__(self, offset: int, rule: str, detail: str = ""):
        self.offset = offset
        self.rule = rule
        self.detail = detail
        self.index = -1
        self.reason = rule + (": " + detail if detail else "")
        self.result = None
        Exception.__init__(self, "recording byte %d: %s" % (offset, self.reason))


def module_path_problem(path: str):
    """None if ``path`` is a module path of SPEC-04P.1 LS-225 (segments that are identifiers, separated by
    ``/``, the last ending in ``.ci``; no Windows device name, SPEC-09 CINTC-12), else what is wrong.
    Such a path is relative, holds no ``..``, ``.``, NUL, backslash or empty segment, and names a file
    inside the folder it is joined to."""
    if not path.endswith(".ci"):
        return "it does not end in .ci"
    for seg in path[:-3].split("/"):
        if not _IDENT.match(seg):
            return "segment %r is not an identifier ([A-Za-z_][A-Za-z0-9_]*) (spec: LS-225)" % seg
        if seg.upper() in _DEVICE_NAMES:
            return "segment %r is a Windows device name (CINTC-12)" % seg
    return None


def text(s: str) -> bytes:
    b = s.encode("utf-8")
    return u32(len(b)) + b


def blob(b: bytes) -> bytes:
    return u64(len(b)) + bytes(b)


def sha(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


@dataclass
class Module:
    path: str
    sir: bytes
    source: bytes


@dataclass
class Header:
    profile: str
    fuel_model: str
    contract: str
    revision: bytes
    mode: str


@dataclass
class Event:
    kind: int
    index: int                 # 0-based position among the events
    offset: int                # byte offset of the event in the file
    fields: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return EVENT_NAMES.get(self.kind, "kind %d" % self.kind)


@dataclass
class Recording:
    header: Header
    revisions: List[Tuple[bytes, List[Module]]]
    initial: bytes
    events: List[Event]        # every event before the end event
    chain_head: bytes


# --------------------------------------------------------------------------------- writing

def preamble(header: Header, revisions, initial: bytes) -> bytes:
    out = [frame(DOMAIN_RECORDING_V1), text(header.profile), text(header.fuel_model), text(header.contract),
           bytes(header.revision), u8(MODES[header.mode]), u32(len(revisions))]
    for rev, modules in revisions:
        out.append(bytes(rev))
        out.append(u32(len(modules)))
        for m in modules[:1] + sorted(modules[1:], key=lambda m: m.path.encode("utf-8")):
            out += [text(m.path), blob(m.sir), blob(m.source)]
    out.append(blob(initial))
    return b"".join(out)


def chain_start(pre: bytes) -> bytes:
    return sha(frame(DOMAIN_CHAIN_V1) + pre)


def event_bytes(kind: int, payload: bytes) -> bytes:
    return u8(kind) + u64(len(payload)) + payload


def _opt_blob(b: Optional[bytes]) -> bytes:
    return u8(0) if b is None else u8(1) + blob(b)


def entry_payload(seq: int, name: str, args_bytes: bytes, digest: bool, fuel: int, depth: int, frame_arena: int):
    body = u8(1) + sha(args_bytes) if digest else u8(0) + blob(args_bytes)
    return u64(seq) + text(name) + body + i64(fuel) + u32(depth) + u64(frame_arena)


def effect_payload(data: bytes, status: int, digest: bool) -> bytes:
    body = u8(1) + sha(data) + u64(len(data)) if digest else u8(0) + blob(data)
    return body + i64(status)[:4]


def outcome_payload(status: int, fault: Optional[bytes], fuel: int, result: Optional[bytes],
                    error: Optional[Tuple[str, str, int]], state_hash: bytes) -> bytes:
    out = [i64(status)[:4], _opt_blob(fault), i64(fuel), _opt_blob(result)]
    if error is None:
        out.append(u8(0))
    else:
        out.append(u8(1) + text(error[0]) + text(error[1]) + u64(error[2]))
    out.append(bytes(state_hash))
    return b"".join(out)


def checkpoint_payload(state_hash: bytes, data: bytes, digest: bool) -> bytes:
    return bytes(state_hash) + (u8(1) + sha(data) if digest else u8(0) + blob(data))


def restore_payload(before: bytes, restored: bytes, data: bytes, digest: bool, after: bytes) -> bytes:
    return bytes(before) + bytes(restored) + (u8(1) + sha(data) if digest else u8(0) + blob(data)) + bytes(after)


def clear_fault_payload(fault: Optional[bytes], after: bytes) -> bytes:
    return _opt_blob(fault) + bytes(after)


def end_payload(head: bytes, count: int) -> bytes:
    return bytes(head) + u64(count)


def event_payload(ev: Event, digest: bool) -> bytes:
    """The payload of ``ev`` from its fields (as read() gives them), in the form of the recording's mode."""
    f = ev.fields
    k = ev.kind
    if k == ENTRY:
        args = u8(1) + bytes(f["args"]) if digest else u8(0) + blob(f["args"])
        return u64(f["seq"]) + text(f["name"]) + args + i64(f["fuel"]) + u32(f["depth"]) + u64(f["frame_arena"])
    if k == EFFECT:
        body = u8(1) + bytes(f["digest"]) + u64(f["length"]) if digest else u8(0) + blob(f["data"])
        return body + int(f["status"]).to_bytes(4, "little", signed=True)
    if k == OUTCOME:
        return outcome_payload(f["status"], f["fault"], f["fuel"], f["result"], f["error"], f["state_hash"])
    if k == CHECKPOINT:
        return bytes(f["state_hash"]) + (u8(1) + bytes(f["digest"]) if digest else u8(0) + blob(f["data"]))
    if k == RESTORE:
        body = u8(1) + bytes(f["digest"]) if digest else u8(0) + blob(f["data"])
        return bytes(f["before"]) + bytes(f["restored"]) + body + bytes(f["after"])
    if k == CLEAR_FAULT:
        return clear_fault_payload(f["fault"], f["after"])
    raise ValueError("event kind %d has no payload writer" % k)


def encode(rec: Recording) -> bytes:
    """The bytes of a Recording: its preamble, its events and an end event over them (a fresh chain of
    digests).  read(encode(read(b))) == read(b) for every recording ``b`` that read() accepts; with
    edited fields it writes what a re-chaining writer would (the chain has no key, H-17)."""
    pre = preamble(rec.header, rec.revisions, rec.initial)
    head = chain_start(pre)
    out = [pre]
    digest = rec.header.mode == "digest"
    for ev in rec.events:
        b = event_bytes(ev.kind, event_payload(ev, digest))
        head = sha(head + b)
        out.append(b)
    out.append(event_bytes(END, end_payload(head, len(rec.events))))
    return b"".join(out)


# --------------------------------------------------------------------------------- reading

def _wrap(fn):
    try:
        return fn()
    except RecordingError:
        raise
    except DecodeError as ex:
        raise RecordingError(getattr(ex, "offset", 0), getattr(ex, "rule", "malformed"),
                             getattr(ex, "detail", str(ex))) from None


def _text(r: Reader, what: str) -> str:
    return r.utf8(what, limit=MAX_TEXT, rule="text longer than %d bytes" % MAX_TEXT)


def _blob(r: Reader, what: str) -> bytes:
    at = r.pos
    n = r.u64("the length of " + what)
    if n > r.remaining:
        raise RecordingError(at, "length larger than the bytes remaining",
                             "%s announces %d bytes, %d remain" % (what, n, r.remaining))
    return r.take(n, what)


def _form(r: Reader, what: str) -> int:
    at = r.pos
    f = r.u8("the form of " + what)
    if f > 1:
        raise RecordingError(at, "unknown form", "%s has form %d (0 whole, 1 digest)" % (what, f))
    return f


def _presence(r: Reader, what: str) -> bool:
    at = r.pos
    b = r.u8("the presence byte of " + what)
    if b > 1:
        raise RecordingError(at, "presence byte not 00 or 01", "%s has %#04x" % (what, b))
    return b == 1


def _status(r: Reader) -> int:
    at = r.pos
    s = r.sint(4, "a status")
    if not 0 <= s <= CINT_STATUS_MAX:
        raise RecordingError(at, "unknown status", "status %d is not 0..7" % s)
    if s not in OUTCOME_STATUSES:
        raise RecordingError(at, "an outcome status that no entry ends with",
                             "status %d; an entry ends CINT_OK, CINT_FAULT, CINT_FAULTED or CINT_RESOURCE (a refused "
                             "or busy call is not an entry)" % s)
    return s


def _check_outcome(f: dict, offset: int) -> None:
    """The fields of one outcome agree with each other: a fault record exactly when the status is
    CINT_FAULT, a result or an error result (never both) only when it is CINT_OK, fuel consumed >= 0."""
    st = f["status"]
    if (f["fault"] is not None) != (st == _FAULT):
        raise RecordingError(offset, "an outcome's fault record and status disagree",
                             "status %d %s a fault record" % (st, "with" if f["fault"] is not None else "without"))
    if f["fault"] is not None and not f["fault"]:
        raise RecordingError(offset, "an empty fault record")
    if st != _OK and (f["result"] is not None or f["error"] is not None):
        raise RecordingError(offset, "a result or error result in an outcome that is not CINT_OK", "status %d" % st)
    if f["result"] is not None and f["error"] is not None:
        raise RecordingError(offset, "an outcome with both a result and an error result")
    if f["result"] is not None and not f["result"]:
        raise RecordingError(offset, "an empty result value")
    if f["error"] is not None:
        es, ev, tag = f["error"]
        if not es or not ev or tag == 0:
            raise RecordingError(offset, "an error result without its set, value name or tag (tags count from 1)")
    if f["fuel"] < 0:
        raise RecordingError(offset, "fuel consumed below 0", str(f["fuel"]))


def _check_stream(events: List[Event]) -> None:
    """The order of the events (docs/encodings.md): each entry is followed by its effects and then its
    outcome, and effects and outcomes occur nowhere else; entries are numbered 1, 2, 3, ... in order; every
    entry has the one depth limit and frame-arena capacity of the recorded context; a CINT_FAULTED
    entry ran nothing, so it has no effect."""
    seq = 0
    config = None
    k = 0
    n = len(events)
    while k < n:
        ev = events[k]
        if ev.kind in (EFFECT, OUTCOME):
            raise RecordingError(ev.offset, "an %s event outside an entry" % ev.name, "event %d" % k)
        if ev.kind != ENTRY:
            k += 1
            continue
        f = ev.fields
        seq += 1
        if f["seq"] != seq:
            raise RecordingError(ev.offset, "entry sequence numbers are 1, 2, 3, ... in order",
                                 "event %d is entry %d and holds sequence number %d" % (k, seq, f["seq"]))
        if config is None:
            config = (f["depth"], f["frame_arena"])
        elif (f["depth"], f["frame_arena"]) != config:
            raise RecordingError(ev.offset, "an entry with another depth limit or frame-arena capacity",
                                 "event %d has %d / %d, the recording's first entry %d / %d" % (
                                     (k, f["depth"], f["frame_arena"]) + config))
        j = k + 1
        while j < n and events[j].kind == EFFECT:
            j += 1
        if j >= n or events[j].kind != OUTCOME:
            raise RecordingError(ev.offset, "an entry event without its outcome", "event %d" % k)
        if events[j].fields["status"] == _FAULTED and j > k + 1:
            raise RecordingError(events[k + 1].offset, "an effect of an entry that ended CINT_FAULTED (it ran "
                                 "nothing)", "event %d" % (k + 1))
        k = j + 1


def _check_modules(mods: List[Module], offsets: List[int]) -> None:
    """Module paths are module names (LS-225), distinct also under ASCII case folding of their leading
    segments (CINTC-12), so each names one file under any folder on any host."""
    seen = {}
    for m, at in zip(mods, offsets):
        why = module_path_problem(m.path)
        if why is not None:
            raise RecordingError(at, "a module path that is not a module name", "%r: %s" % (m.path[:200], why))
        segs = m.path.split("/")
        for k in range(1, len(segs) + 1):
            key = "/".join(segs[:k]).lower()
            other = seen.setdefault(key, "/".join(segs[:k]))
            if other != "/".join(segs[:k]):
                raise RecordingError(at, "module paths that differ only in case",
                                     "%r and %r name one file on a host that folds case" % (other, m.path))


def _event(r: Reader, kind: int, index: int, offset: int, digest: bool) -> Event:
    ev = Event(kind, index, offset)
    f = ev.fields
    if kind == ENTRY:
        f["seq"] = r.u64("the entry's sequence number")
        at = r.pos
        f["name"] = _text(r, "the export name")
        if not _IDENT.match(f["name"]):
            raise RecordingError(at, "an export name that is not an identifier", repr(f["name"][:80]))
        form = _form(r, "the arguments")
        if form != digest:
            raise RecordingError(r.pos - 1, "form does not match the recording's mode", "arguments")
        f["args"] = r.take(32, "the arguments' digest") if form else _blob(r, "the arguments")
        f["fuel"] = r.i64("the fuel budget")
        if f["fuel"] < -1:
            raise RecordingError(r.pos - 8, "fuel budget below -1", str(f["fuel"]))
        f["depth"] = r.u32("the depth limit")
        if f["depth"] == 0:
            raise RecordingError(r.pos - 4, "depth limit 0", "a recording holds the limit its context ran with (>= 1)")
        f["frame_arena"] = r.u64("the frame-arena capacity")
        if not 1 <= f["frame_arena"] <= MAX_FRAME_ARENA:
            raise RecordingError(r.pos - 8, "frame-arena capacity out of range",
                                 "%d elements; 1 to %d (8 * capacity fits an I64)" % (f["frame_arena"],
                                                                                         MAX_FRAME_ARENA))
    elif kind == EFFECT:
        form = _form(r, "the effect's bytes")
        if form != digest:
            raise RecordingError(r.pos - 1, "form does not match the recording's mode", "effect")
        if form:
            f["digest"] = r.take(32, "the effect's digest")
            f["length"] = r.u64("the effect's length")
            f["data"] = None
        else:
            f["data"] = _blob(r, "the effect's bytes")
        at = r.pos
        f["status"] = r.sint(4, "the host's status")
        if not 0 <= f["status"] <= CINT_STATUS_MAX:
            raise RecordingError(at, "an effect status that is no cint_status",
                                 "%d is not 0..%d" % (f["status"], CINT_STATUS_MAX))
    elif kind == OUTCOME:
        f["status"] = _status(r)
        f["fault"] = _blob(r, "the fault record") if _presence(r, "the fault record") else None
        f["fuel"] = r.i64("the fuel consumed")
        f["result"] = _blob(r, "the result") if _presence(r, "the result") else None
        if _presence(r, "the error result"):
            f["error"] = (_text(r, "the error set"), _text(r, "the error value"), r.u64("the error tag"))
        else:
            f["error"] = None
        f["state_hash"] = r.take(32, "the state hash")
        _check_outcome(f, offset)
    elif kind == CHECKPOINT:
        f["state_hash"] = r.take(32, "the state hash")
        form = _form(r, "the checkpoint")
        if form != digest:
            raise RecordingError(r.pos - 1, "form does not match the recording's mode", "checkpoint")
        f["data"] = None if form else _blob(r, "the checkpoint")
        if form:
            f["digest"] = r.take(32, "the checkpoint's digest")
    elif kind == RESTORE:
        f["before"] = r.take(32, "the state hash before")
        f["restored"] = r.take(32, "the restored state's hash")
        form = _form(r, "the checkpoint")
        if form != digest:
            raise RecordingError(r.pos - 1, "form does not match the recording's mode", "restore")
        f["data"] = None if form else _blob(r, "the checkpoint")
        if form:
            f["digest"] = r.take(32, "the checkpoint's digest")
        f["after"] = r.take(32, "the state hash after")
    elif kind == CLEAR_FAULT:
        f["fault"] = _blob(r, "the cleared fault record") if _presence(r, "the cleared fault record") else None
        f["after"] = r.take(32, "the state hash after")
    else:
        raise RecordingError(offset, "unknown event kind", "kind %d" % kind)
    return ev


def read(data: bytes) -> Recording:
    """Checks a recording whole (H-17 para 4) and returns it; RecordingError names the first problem."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("a recording is bytes, not %s" % type(data).__name__)
    return _wrap(lambda: _read(bytes(data)))


def _preamble(data: bytes):
    """(Header, revisions, initial checkpoint, Reader at the first event): everything before the events."""
    r = Reader(data)
    want = frame(DOMAIN_RECORDING_V1)
    if r.take(min(len(want), r.remaining), "the format frame") != want:
        raise RecordingError(0, "not a cint recording", "the file does not start with %s" % DOMAIN_RECORDING_V1)
    profile = _text(r, "the profile")
    fuel_model = _text(r, "the fuel model")
    contract = _text(r, "the runtime contract")
    revision = r.take(32, "the revision identity")
    at = r.pos
    mode = r.u8("the mode")
    if mode not in MODE_NAMES:
        raise RecordingError(at, "unknown mode", "mode %d (0 full, 1 digest)" % mode)
    header = Header(profile, fuel_model, contract, revision, MODE_NAMES[mode])
    at = r.pos
    nrev = r.u32("the number of revisions")
    if nrev != 1:
        raise RecordingError(at, "a cint 0.2.0 recording holds exactly one revision", "%d" % nrev)
    revisions = []
    for _ in range(nrev):
        rev = r.take(32, "a revision identity")
        at = r.pos
        nmod = r.u32("the number of modules")
        if nmod == 0 or nmod > r.remaining:
            raise RecordingError(at, "module count out of range", "%d" % nmod)
        mods = []
        offsets = []
        for _ in range(nmod):
            at = r.pos
            offsets.append(at)
            path = _text(r, "a module path")
            if len(mods) > 1 and path.encode("utf-8") <= mods[-1].path.encode("utf-8") or \
                    any(m.path == path for m in mods):
                raise RecordingError(at, "module paths after the root's not in ascending order, or repeated", path)
            mods.append(Module(path, _blob(r, "the SIR of " + path), _blob(r, "the source of " + path)))
        _check_modules(mods, offsets)
        revisions.append((rev, mods))
    if revisions[0][0] != revision:
        raise RecordingError(r.pos, "the code's revision is not the header's")
    initial = _blob(r, "the initial checkpoint")
    return header, revisions, initial, r


def rechain(data: bytes) -> bytes:
    """``data`` with its events (up to an end event, or to the first event whose length runs past the
    end) followed by a new end event over them: what anyone can compute, since the chain has no key.
    For tests and fuzzing, to reach the checks of each event's fields; RecordingError if the parts
    before the events do not read."""
    data = bytes(data)
    r = _wrap(lambda: _preamble(data))[3]
    head = chain_start(data[:r.pos])
    pos, count = r.pos, 0
    while len(data) - pos >= 9:
        kind = data[pos]
        n = int.from_bytes(data[pos + 1:pos + 9], "little")
        if kind == END or n > len(data) - pos - 9:
            break
        head = sha(head + data[pos:pos + 9 + n])
        pos += 9 + n
        count += 1
    return data[:pos] + event_bytes(END, end_payload(head, count))


def _read(data: bytes) -> Recording:
    header, revisions, initial, r = _preamble(data)
    digest = header.mode == "digest"
    head = chain_start(data[:r.pos])
    # first the framing of every event and the chain of digests, then each event's fields: a file changed
    # by accident is refused for its chain, and one re-chained on purpose for the first field it breaks
    spans = []                                     # (kind, start, payload start, payload end)
    while True:
        if r.remaining == 0:
            raise RecordingError(r.pos, "incomplete recording", "no end event after %d events" % len(spans))
        start = r.pos
        kind = r.u8("an event kind")
        n = r.u64("an event's length")
        if n > r.remaining:
            raise RecordingError(start, "length larger than the bytes remaining",
                                 "event %d announces %d bytes, %d remain" % (len(spans), n, r.remaining))
        if kind == END:
            body = Reader(data, r.pos)
            body.end = r.pos + n
            got = body.take(32, "the chain head")
            count = body.u64("the event count")
            body.finish()
            r.pos += n
            if count != len(spans):
                raise RecordingError(start, "event count differs", "end says %d, the file holds %d" % (
                    count, len(spans)))
            if got != head:
                raise RecordingError(start, "chain of digests broken", "the end event's head does not match")
            r.finish()
            break
        if len(spans) >= MAX_EVENTS:
            raise RecordingError(start, "too many events")
        spans.append((kind, start, r.pos, r.pos + n))
        r.pos += n
        head = sha(head + data[start:r.pos])
    events: List[Event] = []
    for kind, start, at, end in spans:
        body = Reader(data, at)
        body.end = end                             # the event's payload only (no copy of the file)
        ev = _event(body, kind, len(events), start, digest)
        body.finish()
        events.append(ev)
    _check_stream(events)
    return Recording(header, revisions, initial, events, head)


def decode_args(data: bytes, name: str):
    """The (descriptor, value) pairs of IM-158 canonical arguments recorded for export ``name``."""
    from cint_abi.codes import DOMAIN_ARGS_V1
    from cint_abi.encoding import read_tagged

    def go():
        r = Reader(data)
        if r.take(len(frame(DOMAIN_ARGS_V1)), "the arguments' frame") != frame(DOMAIN_ARGS_V1):
            raise RecordingError(0, "not canonical arguments (spec: IM-158)")
        got = r.utf8("the entry identifier", limit=MAX_TEXT)
        if got != name:
            raise RecordingError(0, "the arguments name another entry", "%r, not %r" % (got, name))
        n = r.u32("the argument count")
        if n > r.remaining:
            raise RecordingError(r.pos - 4, "argument count larger than the bytes remaining", str(n))
        out = [read_tagged(r) for _ in range(n)]
        r.finish()
        return out
    return _wrap(go)
