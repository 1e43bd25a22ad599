"""The semantic recording fuzzer (SPEC-03P.1 9.3, H-14, H-17): valid recordings made through the cint
package on cpu-c17, mutated inside the fields of their events (and their code, header and event
order), re-chained as anyone can (cint_replay.format.encode: the chain of digests has no key), then
replayed on backend "ref" and backend "cpu".  Both must give the same verdict (ok, RecordingError with
its rule, ReplayDivergence with its index and field, Unreplayable with its index), raise nothing else,
and write no file: the sources replay compiles go to a private temporary folder that is removed.

Used by test_recording_fuzz.py with a fixed seed and a small count; a long run:

    .venv/bin/python tests-conformance/recording_fuzz.py --seconds 600 [--seed N]

prints the verdicts it saw and exits 1 at the first disagreement or crash, with the mutant saved.
"""
from __future__ import annotations

import copy
import os
import random
import tempfile
from pathlib import Path

import cint
from cint_abi.encoding import revision_identity
from cint_replay import format as F

UTIL = """// util.ci: an imported module
export I64 twice(I64 x) { return x * 2; }
"""

ACCT = """// acct.ci: module state, an error set, Bool arguments, an array of structs and an imported module
import lib.util;

error AcctError { negative, too_big }
struct Entry { I64 amount; Bool loud; }
Entry[4] log;
I64 total = 0;
I64 n = 0;

export AcctError!I64 add(I64 x, Bool loud) {
    if (x < 0) { return AcctError.negative; }
    if (x > 1000000) { return AcctError.too_big; }
    total += util.twice(x);
    log[n % 4].amount = x;
    log[n % 4].loud = loud;
    n += 1;
    if (loud) { "total {total}\\n"; }
    return total;
}

export I64 grow(I64 x) {
    total = total * x;
    return total;
}

export Bool even() { return total % 2 == 0; }

export I64 spin(I64 k) {
    I64 s = 0;
    for i in 0..k { s += i; }
    n += 1;
    return s;
}
"""

COUNTER = """// counter.ci: a library with module state, for checkpoints and recordings.
I64 tally = 0;

export I64 bump(I64 amount) {
    tally += amount;
    "tally is {tally}\\n";
    return tally;
}
"""

I64 = ("int", True, 64)
BOOL = ("bool",)


def build(folder: Path):
    """{"acct": Module, "counter": Module} built from the sources above, in ``folder``."""
    (folder / "lib").mkdir(parents=True, exist_ok=True)
    (folder / "lib" / "util.ci").write_text(UTIL)
    (folder / "acct.ci").write_text(ACCT)
    (folder / "counter.ci").write_text(COUNTER)
    return {"acct": cint.load(folder / "acct.ci"), "counter": cint.load(folder / "counter.ci")}


def _acct_session(ctx):
    inputs = []

    def add(x, loud):
        inputs.append([(I64, x), (BOOL, loud)])
        try:
            return ctx.add(x, loud)
        except cint.ErrorResult:
            return None
    add(5, True)
    add(7, False)
    inputs.append([])
    ctx.even()
    add(-1, True)
    saved = ctx.checkpoint()
    inputs.append([(I64, 3)])
    ctx.grow(3)
    ctx.restore(saved)
    try:
        inputs.append([(I64, 2 ** 62)])
        ctx.grow(2 ** 62)
        inputs.append([(I64, 2 ** 62)])
        ctx.grow(2 ** 62)
    except cint.Fault:
        pass
    inputs.append([(I64, 1)])
    try:
        ctx.grow(1)                       # CINT_FAULTED: the context holds the fault
    except cint.Faulted:
        pass
    ctx.clear_fault()
    ctx.clear_fault()                     # nothing held: a clear_fault event without a record
    add(1, True)
    return inputs


def _counter_session(ctx):
    inputs = []
    for k in (2, 40):
        inputs.append([(I64, k)])
        ctx.bump(k)
    saved = ctx.checkpoint()
    inputs.append([(I64, 1)])
    ctx.bump(1)
    ctx.restore(saved)
    inputs.append([(I64, 10)])
    ctx.bump(10)
    try:
        inputs.append([(I64, 2 ** 62)])
        ctx.bump(2 ** 62)
        inputs.append([(I64, 2 ** 62)])
        ctx.bump(2 ** 62)
    except cint.OverflowFault:
        pass
    ctx.clear_fault()
    return inputs


def sessions(mods, folder: Path):
    """[(name, Module, recording bytes, inputs or None)]: the sessions the fuzzer mutates."""
    out = []
    for name, mod, run, mode in (("acct-full", mods["acct"], _acct_session, "full"),
                                 ("counter-full", mods["counter"], _counter_session, "full"),
                                 ("acct-digest", mods["acct"], _acct_session, "digest")):
        p = folder / (name + ".cintrec")
        with cint.Recorder(p, mode=mode) as rec:
            inputs = run(mod.context(record=rec))
        out.append((name, mod, p.read_bytes(), inputs if mode == "digest" else None))
    return out


# ----------------------------------------------------------------------------------------- verdicts

def verdict(module, path, backend, inputs=None):
    """What replay says, as a comparable tuple; any exception but those of 9.3 propagates (a crash)."""
    try:
        r = cint.replay(module, path, backend=backend, inputs=inputs)
    except cint.RecordingError as e:
        return ("RecordingError", e.rule)
    except cint.ReplayDivergence as e:
        return ("ReplayDivergence", e.index, e.what)
    except cint.Unreplayable as e:
        return ("Unreplayable", e.index)
    return ("ok", r.boundaries, r.final_state_hash.hex())


def both(module, path, inputs=None):
    """(ref verdict, cpu verdict)."""
    return verdict(module, path, "ref", inputs), verdict(module, path, "cpu", inputs)


# ----------------------------------------------------------------------------------------- forging

def reforge(rec: F.Recording, *, checkpoints=True) -> None:
    """Gives ``rec`` the revision identity of its (edited) code, as an attacker would; with checkpoints,
    the revision inside every checkpoint too (the state hashes of the events then no longer match)."""
    h = rec.header
    old = h.revision
    mods = rec.revisions[0][1]
    new = revision_identity(h.profile, h.contract, [(m.path, m.sir) for m in mods])
    h.revision = new
    rec.revisions[0] = (new, mods)
    if checkpoints:
        rec.initial = rec.initial.replace(old, new)
        for ev in rec.events:
            if ev.fields.get("data") is not None and ev.kind in (F.CHECKPOINT, F.RESTORE):
                ev.fields["data"] = ev.fields["data"].replace(old, new)


def regroup(rec: F.Recording) -> None:
    """Numbers the entries 1, 2, 3, ... again (after events were dropped or duplicated)."""
    seq = 0
    for k, ev in enumerate(rec.events):
        ev.index = k
        if ev.kind == F.ENTRY:
            seq += 1
            ev.fields["seq"] = seq


def groups(rec: F.Recording):
    """[(first, last)] event index ranges: an entry with its effects and outcome, or one other event."""
    out = []
    k = 0
    evs = rec.events
    while k < len(evs):
        j = k
        if evs[k].kind == F.ENTRY:
            while j + 1 < len(evs) and evs[j + 1].kind != F.OUTCOME and evs[j + 1].kind == F.EFFECT:
                j += 1
            if j + 1 < len(evs) and evs[j + 1].kind == F.OUTCOME:
                j += 1
        out.append((k, j))
        k = j + 1
    return out


_WIDTH = {"seq": (False, 64), "fuel": (True, 64), "depth": (False, 32), "frame_arena": (False, 64),
          "status": (True, 32), "length": (False, 64)}


def _int_values(v, signed, bits, rng):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    c = [0, 1, 2, 3, 4, 5, 7, -1, v + 1, v - 1, v * 2, hi, lo, hi - 1, rng.randrange(lo, hi + 1)]
    return [x for x in c if lo <= x <= hi and x != v]


def _bytes_values(b, rng, pool):
    out = [bytes(len(b)), bytes(b[:-1]), bytes(b) + b"\x00"]
    if b:
        m = bytearray(b)
        m[rng.randrange(len(m))] ^= 1 << rng.randrange(8)
        out.append(bytes(m))
    out += [x for x in pool if x != b and (len(x) == len(b) or len(b) != 32)]
    return out


def _pool(rec, key):
    """Every value of field ``key`` in the recording (hashes of other states, other blobs)."""
    vals = []
    for ev in rec.events:
        v = ev.fields.get(key)
        if isinstance(v, (bytes, bytearray)):
            vals.append(bytes(v))
    if key == "data":
        vals.append(rec.initial)
    return vals


HASH_KEYS = ("state_hash", "before", "restored", "after", "digest")
PATHS = ["{abs}", "../" * 12 + "{abs_rel}", "lib/../x.ci", "a\x00b.ci", "lib\\util.ci", "Lib/util.ci",
         "con.ci", "lib/util", "", "lib//util.ci", "./acct.ci", "lib/util.ci/"]


def mutate(rec: F.Recording, rng: random.Random, sentinel: Path) -> str:
    """Edits ``rec`` in place with one mutation; returns what it did."""
    what = rng.random()
    evs = rec.events
    if what < 0.55 and evs:                          # one field of one event
        ev = rng.choice(evs)
        keys = [k for k in ev.fields if k != "decoded"]
        key = rng.choice(keys)
        v = ev.fields[key]
        if isinstance(v, bool) or v is None:
            if key in ("fault", "result"):
                ev.fields[key] = rng.choice(_pool(rec, key) + [b"\x01", bytes(12)])
            elif key == "error":
                ev.fields[key] = rng.choice([("acct.AcctError", "AcctError.negative", 1),
                                             ("acct.AcctError", "AcctError.too_big", 2), ("x", "y", 9)])
            else:
                return "no-op"
        elif isinstance(v, int):
            signed, bits = _WIDTH.get(key, (False, 64))
            ev.fields[key] = rng.choice(_int_values(v, signed, bits, rng))
            if key == "frame_arena" and ev.fields[key] > (1 << 24):
                ev.fields[key] = rng.choice([1, 2, 9, 2_097_151])   # larger ones depend on the machine's memory
        elif isinstance(v, str):
            ev.fields[key] = rng.choice(["add", "grow", "even", "bump", "twice", "nope", "", "a\x00b", "../x"])
        elif isinstance(v, tuple):                   # the error result
            es, name, tag = v
            ev.fields[key] = rng.choice([(es, name, tag + 1), (es, "AcctError.too_big", tag), (es + "x", name, tag),
                                         None])
        else:
            if key in HASH_KEYS:
                ev.fields[key] = rng.choice(_bytes_values(v, rng, _pool(rec, key))[:1] +
                                            [x for x in _pool(rec, key) if x != v] or [bytes(32)])
                if len(ev.fields[key]) != 32:
                    ev.fields[key] = bytes(32)
            else:
                ev.fields[key] = rng.choice(_bytes_values(v, rng, _pool(rec, key)))
                if key == "args" and rec.header.mode == "digest":
                    ev.fields[key] = (ev.fields[key] + bytes(32))[:32]
        return "field %s of event %d (%s)" % (key, ev.index, ev.name)
    if what < 0.8 and evs:                           # the order of the events
        gs = groups(rec)
        op = rng.choice(["drop", "dup", "drop-group", "dup-group", "swap-groups", "move", "zero-seq"])
        k = rng.randrange(len(evs))
        if op == "drop":
            del evs[k]
        elif op == "dup":
            evs.insert(k, copy.deepcopy(evs[k]))
        elif op in ("drop-group", "dup-group"):
            a, b = rng.choice(gs)
            if op == "drop-group":
                del evs[a:b + 1]
            else:
                evs[b + 1:b + 1] = copy.deepcopy(evs[a:b + 1])
            if rng.random() < 0.7:
                regroup(rec)
        elif op == "swap-groups" and len(gs) > 1:
            i = rng.randrange(len(gs) - 1)
            (a, b), (c, d) = gs[i], gs[i + 1]
            evs[a:d + 1] = evs[c:d + 1] + evs[a:b + 1]
            if rng.random() < 0.7:
                regroup(rec)
        elif op == "move":
            ev = evs.pop(k)
            evs.insert(rng.randrange(len(evs) + 1), ev)
        elif op == "zero-seq":
            for ev in evs:
                if ev.kind == F.ENTRY:
                    ev.fields["seq"] = 0
        for i, ev in enumerate(evs):
            ev.index = i
        return "order: " + op
    mods = rec.revisions[0][1]
    op = rng.choice(["path", "source-control", "source-change", "sir", "contract", "initial"])
    if op == "path":
        m = rng.choice(mods)
        m.path = rng.choice(PATHS).format(abs=str(sentinel), abs_rel=str(sentinel).lstrip("/"))
        reforge(rec)
        return "module path %r" % m.path
    if op == "source-control":                   # a control character in a comment: the SIR is unchanged
        m = rng.choice(mods)
        m.source = m.source.replace(b"// ", b"// \x01", 1)
        return "control character in %s" % m.path
    if op == "source-change":                    # other code under the recorded SIR
        m = rng.choice(mods)
        m.source = m.source.replace(b"x * 2", b"x * 3").replace(b"tally += amount", b"tally -= amount")
        return "source of %s changed" % m.path
    if op == "sir":
        m = rng.choice(mods)
        b = bytearray(m.sir)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        m.sir = bytes(b)
        reforge(rec, checkpoints=rng.random() < 0.5)
        return "SIR of %s" % m.path
    if op == "contract":
        rec.header.contract = rng.choice(["cint-rt-2", "cint-rt-4", ""])
        reforge(rec)
        return "contract"
    b = bytearray(rec.initial)
    b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    rec.initial = bytes(b)
    return "initial checkpoint"


def run(mods_sessions, count, seed, folder: Path, log=None):
    """Replays ``count`` mutants on both backends; returns {verdict kind: count}.  Raises AssertionError at
    the first disagreement, exception outside 9.3, file written or temporary folder left behind."""
    rng = random.Random(seed)
    sentinel = folder / "must-not-exist" / "written.ci"
    private = folder / "tmp"
    private.mkdir(exist_ok=True)
    seen = {}
    old_tempdir = tempfile.tempdir
    tempfile.tempdir = str(private)            # replay's temporary folders go here, and must be gone after
    try:
        for n in range(count):
            name, module, data, inputs = mods_sessions[n % len(mods_sessions)]
            rec = F.read(data)
            what = mutate(rec, rng, sentinel)
            try:
                mutant = F.encode(rec)
            except (ValueError, OverflowError, UnicodeEncodeError, KeyError, TypeError):
                continue                       # a field value this writer cannot express
            path = folder / "mutant.cintrec"
            path.write_bytes(mutant)
            try:
                ref, cpu = both(module, path, inputs)
            except BaseException:
                (folder / ("crash-%d.cintrec" % n)).write_bytes(mutant)
                if log:
                    log("crash on mutant %d (%s, %s)" % (n, name, what))
                raise
            if ref != cpu:
                (folder / ("disagree-%d.cintrec" % n)).write_bytes(mutant)
            assert ref == cpu, "mutant %d of %s (%s): ref says %r, cpu says %r" % (n, name, what, ref, cpu)
            assert not sentinel.exists() and not sentinel.parent.exists(), "replay wrote %s" % sentinel
            assert not os.listdir(private), "replay left %s" % os.listdir(private)
            seen[ref[0]] = seen.get(ref[0], 0) + 1
            if log:
                log("%5d %-13s %-40s %s" % (n, name, what[:40], ref[:2] if ref[0] != "ok" else ref[:2]))
    finally:
        tempfile.tempdir = old_tempdir
    return seen


def main(argv=None):
    import argparse
    import time
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--count", type=int, default=1000, help="mutants per round")
    ap.add_argument("--seconds", type=float, default=0, help="go on with new seeds until this many seconds")
    ap.add_argument("--folder", default=None, help="where mutants that fail are kept (default: a new temp folder)")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args(argv)
    folder = Path(a.folder or tempfile.mkdtemp(prefix="cint-recfuzz-"))
    folder.mkdir(parents=True, exist_ok=True)
    mods = build(folder / "src")
    ss = sessions(mods, folder)
    t0 = time.time()
    seed, total, seen = a.seed, 0, {}
    while True:
        got = run(ss, a.count, seed, folder, log=print if a.v else None)
        for k, v in got.items():
            seen[k] = seen.get(k, 0) + v
        total += a.count
        print("seed %d: %d mutants, verdicts %s" % (seed, a.count, got), flush=True)
        if time.time() - t0 >= a.seconds:
            break
        seed += 1
    print("%d mutants in %.0f s, both backends agreed on each: %s" % (total, time.time() - t0, seen))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
