"""Clause tags: what a `clause` line cites, and which tags a `--clause ID` selects.

A tag is a clause identifier or a section number, either of them optionally
qualified by its document: `A-9`, `IM-30`, `SPEC-04 LS-284`, `SPEC-02 A-5`,
`10.3`, `SPEC-04 8.5`.  An unqualified tag or selector belongs to SPEC-03P.1,
the contract.

- An identifier with a prefix of two letters or more (IM, LS, RT, CONF, ...)
  names one clause in every document and edition, so `--clause LS-284`
  selects `SPEC-04 LS-284`, and `--clause SPEC-04 LS-284` selects `LS-284`.
- An identifier with a one-letter prefix (A, H, M, P, V, ...) is local to its
  document: `--clause A-5` selects SPEC-03P.1's A-5, never `SPEC-02 A-5`.
- A bare section number also selects that number in any document; a
  qualified one selects only itself.
"""
from __future__ import annotations

import re

_ID = re.compile(r"(?<![\w.-])([A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*)*-[0-9]+[a-z]?)(?![\w-])")
_DOC = re.compile(r"\s*(SPEC-[0-9]{2}(?:P\.[0-9]+)?)\b")
_SECTION = re.compile(r"(?<![\w.-])([0-9]+(?:\.[0-9]+)+)(?![\w-]|\.[0-9])")


def _document(token: str) -> str:
    """`SPEC-03P.1` -> `SPEC-03`: identifiers do not change between editions."""
    m = re.fullmatch(r"(SPEC-[0-9]{2})(?:P\.[0-9]+)?", token.upper())
    return m.group(1) if m else token.upper()


def _is_document(token: str) -> bool:
    return re.fullmatch(r"SPEC-[0-9]{2}(?:P\.[0-9]+)?", token.upper()) is not None


def _is_clause_id(token: str) -> bool:
    # Not a document (SPEC-01), a decision patch (D-9) or an open question (OQ-133, REF-OQ-12).
    parts = token.split("-")
    return not _is_document(token) and "OQ" not in parts[:-1] and parts[0] != "D"


def clause_tags(clause_line: str | None) -> list[str]:
    """The tags of a case: its clause identifiers, then its document-qualified sections.

    `SPEC-01 IM-23; SPEC-04 LS-264 (decision 2026-10-03, patch D-9)` gives
    `["IM-23", "LS-264"]`; `SPEC-04 8.5; SPEC-09 5.2, 5.4` gives
    `["SPEC-04 8.5", "SPEC-09 5.2", "SPEC-09 5.4"]`; `SPEC-02 A-5 T1` gives
    `["SPEC-02 A-5"]`.
    """
    if not clause_line:
        return []
    ids: list[str] = []
    sections: list[str] = []
    for segment in clause_line.split(";"):
        doc_match = _DOC.match(segment)
        doc = doc_match.group(1) if doc_match else None
        for token in _ID.findall(segment):
            if not _is_clause_id(token):
                continue
            if len(token.split("-")[0]) == 1:
                if doc is None:
                    continue  # a document-local identifier of an unnamed document
                token = f"{doc} {token}"
            if token not in ids:
                ids.append(token)
        if doc_match:
            # Sections are read outside parentheses only: inside them is commentary.
            body = re.sub(r"\([^()]*\)", " ", segment[doc_match.end():])
            for number in _SECTION.findall(body):
                tag = f"{doc} {number}"
                if tag not in sections:
                    sections.append(tag)
    return ids + sections


def _key(text: str) -> tuple:
    tokens = text.upper().split()
    if not tokens:
        return ("empty",)
    last = tokens[-1]
    document = _document(tokens[0]) if len(tokens) > 1 else "SPEC-03"
    if re.fullmatch(r"[A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*)*-[0-9]+[A-Z]?", last):
        local = len(last.split("-")[0]) == 1
        return ("id", document if local else "", last)
    return ("section", document, last)


def clause_matches(tag: str, wanted: str) -> bool:
    """Whether a test tagged `tag` is selected by `--clause wanted`."""
    t, w = _key(tag), _key(wanted)
    if t[0] == "empty" or w[0] == "empty":
        return False
    if t == w:
        return True
    bare_section = w[0] == "section" and len(wanted.split()) == 1
    return bare_section and t[0] == "section" and t[2] == w[2]
