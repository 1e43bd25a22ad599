"""Operation identifiers in one table (issue 12; SPEC-01P.1 9.8): `cint_compiler.semantics.opnames` builds
every identifier the compiler writes, no other module spells one, and every identifier the C runtime writes
(runtime-c, and the C text the back end carries in Python strings) is one the same table reads."""
import ast
import re
from pathlib import Path

import pytest

from cint_compiler.semantics import intmachine as M
from cint_compiler.semantics import opnames as O
from cint_compiler.semantics.faults import MachineFault
from cint_compiler.semantics.types import I8, I64, U8, FixedType, StructType

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src" / "cint_compiler"
REPO = HERE.parents[2]

# Python string constants that are C text: checked as the runtime's C is, below
C_TEXT = {("backend/c17/emit.py", "PRELUDE"), ("backend/c17/reduce.py", "HELPERS")}

_NAMES = sorted(set(O.OPERATIONS) | {s.split(".")[0] for s in O.SYSTEM if "." in s} | {"bind", "host"},
                key=len, reverse=True)
_SECOND = sorted(set(O.FORMS) | {"char"} | {s.split(".")[1] for s in O.SYSTEM if "." in s} | set(O.BIND_CHECKS),
                 key=len, reverse=True)
# `add.checked`, `copy.shape`, `index.checked.%s`; `%s.checked.%s` (a name filled in); `unassigned`
_LITERAL = re.compile(r"(?<![\w%%])(?:%s)\.(?:%s)(?!\w)|%%s\.(?:checked|wrap|sat)\.|\Aunassigned\Z"
                      % ("|".join(_NAMES), "|".join(_SECOND)))


def _strings(tree):
    """Every str constant of a module that is not a docstring, with its line and the name it is assigned to
    at module level (for the C text constants)."""
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    owner = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            for sub in ast.walk(node.value):
                owner[id(sub)] = node.targets[0].id
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value, owner.get(id(node))


def test_no_module_spells_an_operation_identifier():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel == "semantics/opnames.py":
            continue
        for line, text, name in _strings(ast.parse(path.read_text(encoding="utf-8"))):
            if (rel, name) in C_TEXT:
                continue
            m = _LITERAL.search(text)
            if m:
                found.append("%s:%d: %r" % (rel, line, m.group(0)))
    assert not found, ("build these with cint_compiler.semantics.opnames (op, index, bind, the constants), "
                       "not as literals:\n" + "\n".join(found))


def test_the_literal_finder_finds_literals():
    for text in ('"mul.checked.%s"', "bind.shape", "copy.alias", "%s.checked.%s", "unassigned", "pool.deref",
                 "{CINT_E_SHAPE, 1u, 0u, \"index.checked.%s\", ops_}"):
        assert _LITERAL.search(text), text
    for text in ("%s.%s", "(%s).shape[0]", "`%s.%s` is not a type", "a.shape", "unassigned yet"):
        assert not _LITERAL.search(text), text


# ----------------------------------------------------------------------------- the C side

_C_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"(\s*#\s*[A-Z_]+)?')
_C_IDENT = re.compile(r"[a-z%][a-z0-9_%]*(?:\.[a-z0-9_%]*)+\Z")
_C_TABLE = re.compile(r"static const char \*const (k_\w+)\[\] = \{([^}]*)\}")


def _c_sources():
    out = [(p.relative_to(REPO).as_posix(), p.read_text(encoding="utf-8"))
           for d in ("runtime-c/src", "runtime-c/include") for p in sorted((REPO / d).iterdir())
           if p.suffix in (".c", ".h")]
    for rel, name in sorted(C_TEXT):
        tree = ast.parse((SRC / rel).read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
                out.append(("%s %s" % (rel, name), node.value.value))
    return out


def c_identifiers(text):
    """The identifiers a C text writes: its string literals shaped as one (a `%s` the code fills in, a
    literal followed by `#X` completed by the preprocessor), and the words of its name tables."""
    idents, words = [], []
    for m in _C_STRING.finditer(text):
        s = m.group(1)
        if m.group(2):
            s += "%s"
        if _C_IDENT.match(s) and not s.endswith((".h", ".c", ".ci")):
            idents.append(s)
    for m in _C_TABLE.finditer(text):
        words += [w.strip().strip('"') for w in m.group(2).split(",")]
    return idents, words


def test_every_identifier_the_c_runtime_writes_is_one_of_the_table():
    sources = _c_sources()
    assert len(sources) > 10 and any(rel.endswith("PRELUDE") for rel, _ in sources)
    seen, bad = 0, []
    for rel, text in sources:
        idents, words = c_identifiers(text)
        for s in idents:
            seen += 1
            try:
                O.parse(s, wildcard="%s")
            except ValueError as e:
                bad.append("%s: %s" % (rel, e))
        for w in words:
            if w and w not in O.OPERATIONS and w not in O.FORMS:
                bad.append("%s: %r in a name table is neither an operation nor a form" % (rel, w))
    assert not bad, "\n".join(bad)
    assert seen >= 40, seen        # the runtime writes about 50 (fuel.charge, bind.*, as.checked.%s.%s, ...)


def test_the_c_reader_reads_what_it_should():
    idents, words = c_identifiers('x = "div.checked." #SFX; snprintf(n, 8, "as.checked.%s.%s", a, b); '
                                  'f("fuel.charge"); "s.h"; static const char *const k_x[] = {"", "add", "wrap"};')
    assert idents == ["div.checked.%s", "as.checked.%s.%s", "fuel.charge"]
    assert words == ["", "add", "wrap"]


# ----------------------------------------------------------------------------- the table itself

def test_builders_spell_the_examples_of_im_134():
    Q16 = FixedType(16, 16)
    assert O.op("add", "checked", I64) == "add.checked.i64"
    assert O.op("as", "checked", Q16, "i32", mode="floor") == "as.checked.q16_16.i32.floor"
    assert O.op("mul", "checked", Q16, mode="half_even") == "mul.checked.q16_16.half_even"
    assert O.op("sum", "checked", I8, "i16") == "sum.checked.i8.i16"
    assert O.op("fold_checked", "add", I8) == "fold_checked.add.i8"
    assert O.op("uabs", "checked", I8, U8) == "uabs.checked.i8.u8"
    assert O.index(StructType("m.P", [])) == "index.checked.struct" and O.slice_(I64) == "slice.checked.i64"
    assert (O.BIND_SHAPE, O.ASSERT, O.format_char(I64)) == ("bind.shape", "assert.checked.bool", "format.char.i64")
    assert O.bind("injective") == "bind.injective" and O.host("output") == "host.output"


@pytest.mark.parametrize("bad", ["add.checked", "mul.checked.i64.floor", "div_round.checked.i64", "foo.checked.i8",
                                 "bind.nothing", "sum.checked.i8", "add.fancy.i8", "abs.checked.i64.floor",
                                 "add.checked.x9"])
def test_parse_refuses_what_the_grammar_does_not_give(bad):
    with pytest.raises(ValueError, match="not an operation identifier"):
        O.parse(bad)


def test_a_builder_refuses_a_combination_its_row_does_not_admit():
    with pytest.raises(ValueError):
        O.op("neg", "wrap", I64)
    with pytest.raises(ValueError):
        O.bind("nothing")


def test_the_integer_machine_writes_through_the_table():
    with pytest.raises(MachineFault) as e:
        M.arith("add", "checked", I8, 127, 1)
    assert e.value.operation == "add.checked.i8"
    with pytest.raises(MachineFault) as e:
        M.convert("checked", I64, I8, 300, literal=True)
    assert e.value.operation == O.UNASSIGNED
