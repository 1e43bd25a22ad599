"""Writes the seed corpora of fuzz/corpus/<target>/ with the project's own encoders.

    .venv/bin/python fuzz/make_seeds.py

Type signatures from cint_abi.typesig.build_signature; fault records and canonical states from the
C runtime's own test programs (runtime-c/tests/test_runtime.c and test_state.c, built with cc), whose
bytes cint_abi decodes; checkpoints from cint.load contexts; `.expect` texts from the upstream
conformance suite beside the repository.  Each seed is named by its SHA-256 prefix, so running
this again adds only seeds whose bytes differ (checkpoints hold the digests of a temporary
module's path, so they may)."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "fuzz" / "corpus"
RT = REPO / "runtime-c"
SHARED = REPO.parent / "shared"


def put(target: str, data: bytes) -> None:
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha256(data).hexdigest()[:16]).write_bytes(data)


def signatures():
    from cint_abi.typesig import (
        Any, Array, Bool, Bound, CombinedErrorSetDef, ErrorSetDef, ErrorSetRef, ErrorUnion, Extent, Fixed, I64,
        I256, Param, Range, StructDef, StructRef, U8, U16, build_signature, encode_signature)
    parse = ErrorSetDef("tour.ParseError", U16, ["empty", "bad_digit", "too_large"])
    io = ErrorSetDef("m.Io", U8, ["closed", "full"])
    both = CombinedErrorSetDef("m.Both", U16, [io, parse])
    inner = StructDef("m.Inner", 1, [("flag", 1, Bool()), ("mode", 3, U16), ("q", 0, Fixed(32, 16))])
    outer = StructDef("m.Outer", 0, [("i", 0, StructRef(defn=inner)), ("big", 0, I256),
                                      ("grid", 0, Array(I64, [Extent(Bound(None, 2)), Extent(Bound(None, 3))]))])
    n = Extent(Bound(0, 0))
    sigs = [
        build_signature([Param("in", Array(U8, [Any()]))], ErrorUnion(value=I64, defn=parse), 0),
        build_signature([Param("in", Array(I64, [n])), Param("in", I64), Param("out", Array(I64, [n]))], None, 1),
        build_signature([Param("in", I64)], I64, 0),
        build_signature([Param("inout", StructRef(defn=outer)),
                         Param("in", Array(Fixed(64, 10), [Any(), Extent(Bound(1, -1)), Range(1, Bound(0, 4))]))],
                        ErrorUnion(value=StructRef(defn=inner), defn=both), 2),
        build_signature([Param("in", ErrorSetRef(defn=both))], ErrorUnion(value=None, defn=io), 0),
    ]
    for s in sigs:
        put("typesig", encode_signature(s))


def c_outputs(tmp: Path):
    """The "name hex" lines of test_runtime (fault records) and test_state (states)."""
    cc = os.environ.get("CC", "cc")
    inc = ["-I", str(RT / "include")]
    srcs = [str(p) for p in sorted((RT / "src").glob("*.c"))]
    fx = [str(RT / "tests" / "fixtures" / "advance_mod.c"), str(RT / "tests" / "fixtures" / "tour_mod.c")]
    subprocess.run([cc, "-std=c17", "-O1"] + inc + ["-DCINT_GEN_NO_LIBRARY_SYMBOLS"] + srcs + fx +
                   [str(RT / "tests" / "test_runtime.c"), "-o", str(tmp / "test_runtime")], check=True)
    subprocess.run([cc, "-std=c17", "-O1"] + inc + ["-DCINT_GEN_NO_LIBRARY_SYMBOLS"] + srcs +
                   [str(RT / "tests" / "test_state.c"), "-o", str(tmp / "test_state")], check=True)
    subprocess.run([str(tmp / "test_runtime"), str(tmp / "records.txt")], check=True, capture_output=True)
    subprocess.run([str(tmp / "test_state"), str(tmp / "states.txt")], check=True, capture_output=True)
    records = [bytes.fromhex(l.split()[1]) for l in (tmp / "records.txt").read_text().splitlines() if l.strip()]
    states = [bytes.fromhex(l.split()[1]) for l in (tmp / "states.txt").read_text().splitlines() if l.strip()]
    return records, states


def checkpoints(tmp: Path):
    import cint
    src = tmp / "seed.ci"
    src.write_text("I64 n = 0;\nU16 k = 7;\nBool on = true;\n"
                   "export I64 bump(I64 d) { n = n + d; k = k + 1; on = !on; return n; }\n"
                   "export kernel dbl[m](in I64[m] x, out I64[m] y) over [i: m] { y[i] = x[i] * 2; }\n")
    mod = cint.load(src)
    ctx = mod.context()
    put("checkpoint", ctx.checkpoint())
    ctx.bump(5)
    put("checkpoint", ctx.checkpoint())
    ctx.bump(-2)
    put("checkpoint", ctx.checkpoint())


def expects():
    folder = SHARED / "upstream-conformance"
    files = sorted(folder.rglob("*.expect"))[:: max(1, len(sorted(folder.rglob("*.expect"))) // 24)]
    for f in files:
        put("expect", f.read_bytes())
    for f in sorted(folder.rglob("*.ci"))[:6]:
        put("expect", f.read_bytes()[:2048])        # case headers


def main() -> int:
    sys.setrecursionlimit(10000)
    signatures()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        records, states = c_outputs(tmp)
        for r in records:
            put("faultrecord", r)
        for s in states:
            put("state", s)
            put("state_restore", s)
        try:
            checkpoints(tmp)
        except Exception as ex:          # the package's build needs a C compiler too
            print("make_seeds: no checkpoint seeds: %s" % ex, file=sys.stderr)
    expects()
    for d in sorted(CORPUS.iterdir()):
        print("%-14s %3d seeds" % (d.name, len(list(d.iterdir()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
