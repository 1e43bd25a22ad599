"""Syntax highlighting: the Pygments lexer (cint.highlight, entry point pygments.lexers:cint) and the
TextMate grammar editors/cint.tmLanguage.json, on the spec's examples, the upstream cases, the ```cint
blocks of the documentation site and a sample of the rarer forms: no error tokens, no character left
unmatched, and every token class and scope in use."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

pygments = pytest.importorskip("pygments", reason="pygments is installed by scripts/setup.sh")
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Whitespace  # noqa

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tests-conformance"))
from spec_paths import SHARED  # noqa: E402

GRAMMAR = REPO / "editors" / "cint.tmLanguage.json"

# the rarer forms, none of which the examples happen to use
SAMPLE = r'''/* a block comment /* nested */ still a comment */
@packed
struct Flags { U8 a : 3; Bool b : 1; }
const I64 T = 0tP0N + 0o755 + 0b1010_0101 + 0xDEAD_beef;
Q16.16 h = 0x1.8;
Q16.16 t = 0.1 round half_even;
I32 w = t as I32 round floor;
I8 n = 300 as% I8;
I8 r = n as? I8 catch 0;
U8 c = '\n';
in U8[_] bytes = b"\x00\xff{{";
"{w=} {c:#x} {{literal}} \u{1F600}\n";
test "t" expect_fault E_OVERFLOW { _ = div_round(7, 2, half_even); }
'''


def corpus() -> dict:
    texts = {"sample": SAMPLE}
    for f in sorted((SHARED / "spec" / "examples").glob("*.ci")):
        texts[f.name] = f.read_text(encoding="utf-8")
    for f in sorted((SHARED / "upstream-conformance").rglob("*.ci")):
        texts[str(f.relative_to(SHARED))] = f.read_text(encoding="utf-8")
    for page in sorted((REPO / "docs" / "guide").glob("*.md")):
        for k, block in enumerate(re.findall(r"^```cint\n(.*?)^```$", page.read_text(encoding="utf-8"), re.S | re.M)):
            texts["%s#%d" % (page.name, k)] = block
    if len(texts) < 10:
        pytest.skip("the spec's examples are not at %s" % SHARED)
    return texts


@pytest.mark.clause("SPEC-04 LS-18")
def test_entry_point_finds_the_lexer():
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from cint.highlight import CintLexer
    assert isinstance(get_lexer_by_name("cint"), CintLexer)
    assert isinstance(get_lexer_for_filename("advance.ci"), CintLexer)


@pytest.mark.clause("SPEC-04 LS-18")
def test_keyword_lists_match_the_compiler():
    from cint.highlight import DECLARATIONS, KEYWORDS, TYPES
    from cint_compiler.syntax.lexer import BUILTIN_TYPE_NAMES, KEYWORDS as COMPILER
    assert set(KEYWORDS) | set(DECLARATIONS) | {"true", "false", "as"} == set(COMPILER)
    assert set(BUILTIN_TYPE_NAMES) <= set(TYPES)


PYGMENTS_CLASSES = {Comment.Single, Comment.Multiline, Keyword, Keyword.Constant, Keyword.Declaration, Keyword.Type,
                    Name, Name.Builtin, Name.Class, Name.Constant, Name.Decorator, Name.Exception, Name.Function,
                    Name.Variable, Number.Bin, Number.Float, Number.Hex, Number.Integer, Number.Oct, Operator,
                    Punctuation, String, String.Char, String.Escape, String.Interpol, Whitespace}


@pytest.mark.clause("SPEC-04 LS-18")
def test_pygments_lexer_on_the_corpus():
    from cint.highlight import CintLexer
    lexer = CintLexer()
    seen = set()
    for name, text in corpus().items():
        toks = list(lexer.get_tokens(text))
        bad = [v for t, v in toks if t in Error]
        assert not bad, "%s: error tokens %r" % (name, bad[:5])
        assert "".join(v for _, v in toks).rstrip("\n") == text.rstrip("\n")
        seen |= {t for t, _ in toks}
    assert PYGMENTS_CLASSES <= seen, PYGMENTS_CLASSES - seen


class TextMate:
    """Enough of a TextMate tokenizer for this grammar: match, begin/end (nesting, across lines), captures
    and includes, first match wins, an end pattern before the inner patterns at the same position; text
    inside a named begin/end region has that region's scope."""

    def __init__(self, grammar: dict):
        self.g = grammar
        self.scopes: set = set()

    def expand(self, patterns):
        for p in patterns:
            if "include" in p:
                yield from self.expand([self.g["repository"][p["include"][1:]]])
            elif "patterns" in p and "match" not in p and "begin" not in p:
                yield from self.expand(p["patterns"])
            else:
                yield p

    def _use(self, p, m):
        if "name" in p:
            self.scopes.add(p["name"])
        for k, cap in {**p.get("captures", {}), **p.get("beginCaptures", {})}.items():
            if m.group(int(k)) is not None:
                self.scopes.add(cap["name"])

    def unmatched(self, text: str) -> list:
        stack = []                                      # (end regex, rule)
        left = []
        for line in text.split("\n"):
            pos = 0
            while pos < len(line):
                rules = list(self.expand(stack[-1][1].get("patterns", []) if stack else self.g["patterns"]))
                best = None
                if stack:
                    m = re.compile(stack[-1][0]).search(line, pos)
                    if m:
                        best = (m.start(), 0, m, None)
                for k, p in enumerate(rules):
                    m = re.compile(p.get("match") or p["begin"]).search(line, pos)
                    if m and (best is None or m.start() < best[0]):
                        best = (m.start(), k + 1, m, p)
                covered = bool(stack) and "name" in stack[-1][1]   # a region's text takes the region's scope
                if best is None:
                    left.append("" if covered else line[pos:])
                    break
                start, _, m, p = best
                left.append("" if covered else line[pos:start])
                if p is None:
                    if "endCaptures" in stack[-1][1]:
                        self.scopes.add(stack[-1][1]["endCaptures"]["0"]["name"])
                    stack.pop()
                else:
                    self._use(p, m)
                    if "begin" in p:
                        stack.append((p["end"], p))
                pos = max(m.end(), pos + (m.end() == start))
        return [t for t in left if t.strip()]


def _names(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "name" and isinstance(v, str) and v != "cint":
                out.add(v)
            else:
                _names(v, out)
    elif isinstance(node, list):
        for v in node:
            _names(v, out)
    return out


@pytest.mark.clause("SPEC-04 LS-18")
def test_textmate_grammar_on_the_corpus():
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    assert grammar["scopeName"] == "source.cint" and grammar["fileTypes"] == ["ci"]
    tm = TextMate(grammar)
    for name, text in corpus().items():
        rest = tm.unmatched(text)
        assert not rest, "%s: no scope for %r" % (name, rest[:5])
    assert not [s for s in tm.scopes if s.startswith("invalid")]
    assert _names(grammar, set()) <= tm.scopes, _names(grammar, set()) - tm.scopes


@pytest.mark.clause("SPEC-04 LS-18")
def test_textmate_grammar_agrees_with_the_lexer_lists():
    from cint.highlight import BUILTINS, KEYWORDS, MODES, TYPES
    text = GRAMMAR.read_text(encoding="utf-8")
    for word in KEYWORDS + TYPES + BUILTINS + MODES:
        assert word in text, word
