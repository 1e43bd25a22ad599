"""Program cases of the conformance suite: case headers and `.expect` texts.

A program case is a `.ci` file whose leading comment block names the case
(`// case:`, `// clause:`, `// subset:`, `// entry: ...; args: ...`) and one
frozen `.expect` file per entry: ASCII, LF, one `<key> <value>` field per
line (the CONF-01 canonical text that the upstream suite's README describes).
Everything here is a pure function of its arguments except `case_variants`
and `find_cases`, which read the case files.

A case with one entry (or none named) is `<folder>/<name>` and its file is
`<name>.expect`; a case that names several entries gives one variant per
entry, `<folder>/<name>.<entry>`, frozen in `<name>.<entry>.expect`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence, Union

__all__ = [
    "CaseHeader",
    "Variant",
    "parse_header",
    "parse_expect",
    "expect_format",
    "compare_expect",
    "case_variants",
    "find_cases",
    "IGNORED_KEYS",
]

#: Fields that no comparison reads: `clause` is free text, and `source` says
#: where the frozen expectation came from, which an implementation cannot know.
IGNORED_KEYS = frozenset({"clause", "source"})

_KNOWN_FORMATS = (2, 3, 4)
_KEY = re.compile(r"[a-z][a-z0-9._-]*\Z")
_HEADER_LINE = re.compile(r"(case|clause|subset|entry|args|fuel|depth|spec outcome|seed outcome)\s*:\s*(.*)\Z")
_FOLDED = re.compile(r"//\s*conformance/(?P<path>\S+)\.ci\s*\((?P<body>.*)\)\s*\Z")
_SEGMENT = re.compile(r"(case|clause|subset|entry|args|fuel|depth)\b\s*:?\s*(.*)\Z", re.S)


@dataclass(frozen=True)
class CaseHeader:
    """The normative keys of a case header.

    `entries` is `[None]` when the header names no entry: the case then runs
    the script, else `main`, else its only test.  `args` holds typed argument
    texts such as `"I64 0"`; `fuel` and `depth` are the budgets a case sets.
    """

    case: str | None = None
    clause: str | None = None
    entries: list = field(default_factory=lambda: [None])
    args: list = field(default_factory=list)
    fuel: int | None = None
    depth: int | None = None
    subset: str | None = None


@dataclass(frozen=True)
class Variant:
    """One entry of one case, compared against one `.expect` file."""

    case_id: str
    entry: str | None
    expect_path: Path
    header: CaseHeader
    ci_path: Path

    @property
    def folder(self) -> str:
        return self.case_id.split("/", 1)[0]


def _split_top_level(text: str, sep: str) -> list[str]:
    """Split on `sep` outside brackets and parentheses."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _budget(key: str, value: str) -> int:
    value = value.strip().replace("_", "")
    if not re.fullmatch(r"[0-9]+", value):
        raise ValueError(f"case header: {key} must be a non-negative integer, got {value!r}")
    return int(value)


def _parse_args(value: str) -> list[str]:
    value = value.strip()
    if value in ("", "none"):
        return []
    args = [a.strip() for a in _split_top_level(value, ",")]
    if any(not a for a in args):
        raise ValueError(f"case header: empty argument in {value!r}")
    return args


def _parse_entries(value: str) -> list[str]:
    entries = [e.strip() for e in value.split(",")]
    for e in entries:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", e):
            raise ValueError(f"case header: bad entry name {e!r}")
    if len(set(entries)) != len(entries):
        raise ValueError(f"case header: an entry is named twice in {value!r}")
    return entries


def parse_header(ci_text: str) -> CaseHeader:
    """Read the leading `//` comment block of a case.

    Two forms exist: one key per line (`// clause: ...`), and the CONF-01
    example whose header is folded into its first line,
    `// conformance/<case>.ci (...; clause ...; subset ...; ...)`, so that its
    program keeps the line numbers of the specification's listing.  The entry
    line also carries `args`, `fuel` and `depth`, separated by `;`.  A file
    without header keys (a helper module) gives `case` None.
    """
    values: dict[str, str] = {}

    def put(key: str, value: str) -> None:
        if key in values:
            raise ValueError(f"case header: `{key}` given twice")
        values[key] = value.strip()

    def put_entry_line(value: str) -> None:
        segments = _split_top_level(value, ";")
        put("entry", segments[0])
        for seg in segments[1:]:
            m = _SEGMENT.match(seg.strip())
            if not m or m.group(1) not in ("args", "fuel", "depth"):
                raise ValueError(f"case header: cannot read {seg.strip()!r} on the entry line")
            put(m.group(1), m.group(2))

    lines = ci_text.split("\n")
    for index, raw in enumerate(lines):
        line = raw.rstrip("\r")
        if not line.startswith("//"):
            break
        if index == 0:
            folded = _FOLDED.match(line)
            if folded:
                put("case", folded.group("path"))
                for seg in _split_top_level(folded.group("body"), ";"):
                    m = _SEGMENT.match(seg.strip())
                    if m and m.group(1) != "case":
                        put(m.group(1), m.group(2))
                continue
        m = _HEADER_LINE.match(line[2:].strip())
        if not m:
            continue  # free text, e.g. the continuation of `spec outcome`
        key, value = m.group(1), m.group(2)
        if key in ("spec outcome", "seed outcome"):
            continue
        if key == "entry":
            put_entry_line(value)
        else:
            put(key, value)

    entries: list = [None]
    if "entry" in values and values["entry"] not in ("", "none"):
        entries = _parse_entries(values["entry"])
    return CaseHeader(
        case=values.get("case") or None,
        clause=values.get("clause") or None,
        entries=entries,
        args=_parse_args(values.get("args", "")),
        fuel=_budget("fuel", values["fuel"]) if "fuel" in values else None,
        depth=_budget("depth", values["depth"]) if "depth" in values else None,
        subset=values.get("subset") or None,
    )


def parse_expect(text: Union[str, bytes]) -> list[tuple[str, str]]:
    """Parse a `.expect` text into its `(key, value)` fields, in order.

    Raises ValueError for anything that is not ASCII, LF-terminated
    `<key> <value>` lines with a lowercase key and a non-empty value.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("ascii")
        except UnicodeDecodeError as exc:
            raise ValueError(f".expect text is not ASCII (byte offset {exc.start})") from None
    if not text.isascii():
        offset = next(i for i, ch in enumerate(text) if not ch.isascii())
        raise ValueError(f".expect text is not ASCII (offset {offset})")
    if "\r" in text:
        raise ValueError(".expect text has a CR; lines end with LF alone")
    if not text:
        raise ValueError(".expect text is empty")
    if not text.endswith("\n"):
        raise ValueError(".expect text does not end with LF")
    fields = []
    for number, line in enumerate(text[:-1].split("\n"), start=1):
        key, sep, value = line.partition(" ")
        if not sep or not value:
            raise ValueError(f"line {number}: expected `<key> <value>`, got {line!r}")
        if not _KEY.match(key):
            raise ValueError(f"line {number}: bad key {key!r}")
        if value != value.strip(" ") or "\t" in line:
            raise ValueError(f"line {number}: stray blank around the value in {line!r}")
        fields.append((key, value))
    return fields


def expect_format(lines: Sequence) -> int:
    """The encoding version of a parsed `.expect`: N when line 3 is `format N`, else 1.

    Accepts the pairs of `parse_expect` or raw text lines.
    """
    if len(lines) < 3:
        return 1
    third = lines[2]
    key, value = (third.split(" ", 1) + [""])[:2] if isinstance(third, str) else third
    if key != "format":
        return 1
    if not value.isdigit() or int(value) not in _KNOWN_FORMATS:
        raise ValueError(f"unknown .expect format {value!r}")
    return int(value)


def _compared(fields: Iterable[tuple[str, str]]) -> list[tuple[int, str, str]]:
    return [(n, k, v) for n, (k, v) in enumerate(fields, start=1) if k not in IGNORED_KEYS]


def compare_expect(expected_text: Union[str, bytes], actual_text: Union[str, bytes]) -> str | None:
    """None when the two texts agree field by field, ignoring `clause` and `source`.

    Otherwise a one-line description of the first difference, naming the
    line of each text.  A malformed expected text raises ValueError; a
    malformed actual text is itself the difference.
    """
    expected = _compared(parse_expect(expected_text))
    try:
        actual = _compared(parse_expect(actual_text))
    except ValueError as exc:
        return f"the produced text is not a valid .expect text: {exc}"
    for (en, ek, ev), (an, ak, av) in zip(expected, actual):
        if (ek, ev) != (ak, av):
            return f"expected line {en} `{ek} {ev}`, produced line {an} `{ak} {av}`"
    if len(expected) > len(actual):
        en, ek, ev = expected[len(actual)]
        return f"expected line {en} `{ek} {ev}`, produced text ended"
    if len(actual) > len(expected):
        an, ak, av = actual[len(expected)]
        return f"produced line {an} `{ak} {av}` is extra, expected text ended"
    return None


def _module_relative(ci_path: Path, root: Path) -> str:
    rel = Path(ci_path).resolve().relative_to(Path(root).resolve()).as_posix()
    if not rel.endswith(".ci"):
        raise ValueError(f"not a .ci file: {rel}")
    return rel[: -len(".ci")]


def case_variants(ci_path: Union[str, Path], root: Union[str, Path]) -> list[Variant]:
    """The variants of the case in `ci_path`, whose id is its path relative to `root`.

    The id comes from the path, which the `.expect` files' `case` lines
    follow.  A single-entry case prefers `<name>.cintc.expect`, the
    expectation of a full `cint-core-1` compiler, to the seed's `<name>.expect`
    where both exist.  A variant's `expect_path` may not exist (a held case).
    """
    ci_path = Path(ci_path)
    base = _module_relative(ci_path, Path(root))
    header = parse_header(_header_text(ci_path))
    stem = ci_path.name[: -len(".ci")]
    if len(header.entries) == 1:
        expect = ci_path.with_name(stem + ".cintc.expect")
        if not expect.exists():
            expect = ci_path.with_name(stem + ".expect")
        return [Variant(base, header.entries[0], expect, header, ci_path)]
    return [
        Variant(f"{base}.{entry}", entry, ci_path.with_name(f"{stem}.{entry}.expect"), header, ci_path)
        for entry in header.entries
    ]


def _header_text(path: Path) -> str:
    """The text of a case file for reading its header: a leading byte-order mark is dropped and bytes that
    are not UTF-8 are replaced, since a diagnostic case may hold exactly such bytes (C1002, LS-4); the
    compiler itself reads the raw bytes."""
    return Path(path).read_bytes().decode("utf-8-sig", errors="replace")


def find_cases(root: Union[str, Path]) -> list[Path]:
    """Every `.ci` file under `root` whose header names a case, in path order.

    Helper modules (`module/lib/...`) have no case header and are left out.
    """
    root = Path(root)
    found = []
    for path in sorted(root.rglob("*.ci"), key=lambda p: p.relative_to(root).as_posix()):
        if parse_header(_header_text(path)).case is not None:
            found.append(path)
    return found
