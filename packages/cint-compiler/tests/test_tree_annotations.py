"""The checker's results are declared (issue 12 Deliver 3; syntax/tree.py): every attribute the parser, the
checker or the reference interpreter writes on a node is a declared field of the node's class (an
`annotation`), and no annotation reaches SIR."""
import dataclasses
import sys
from pathlib import Path

import pytest

from cint_compiler import sir
from cint_compiler.conformance.outcome import run_case
from cint_compiler.syntax import tree as A

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "tests-conformance"))
from spec_paths import EXAMPLES, SHARED  # noqa: E402


def _node_classes():
    out, todo = [], [A.Node]
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend(c.__subclasses__())
    return out


def test_annotations_are_declared_fields_outside_sir():
    seen = 0
    for cls in _node_classes():
        if not dataclasses.is_dataclass(cls):
            continue
        for f in dataclasses.fields(cls):
            if A.is_annotation(f):
                seen += 1
                assert not f.init and not f.compare and not f.repr, (cls.__name__, f.name)
                assert f.name not in sir._fields_of(cls), (cls.__name__, f.name)
    assert seen > 60
    assert {"bname", "T", "R", "argv", "kind", "info"} <= {f.name for f in dataclasses.fields(A.Call)
                                                           if A.is_annotation(f)}
    # the syntax fields stay what SIR writes
    assert sir._fields_of(A.Call) == ("callee", "args")
    assert sir._fields_of(A.Name) == ("ident",)


def test_an_annotation_has_its_default_until_written():
    c = A.Call(A.Name("f"), [])
    assert (c.bname, c.argv, c.const_call, c.cval) == (None, (), False, A.NOTCONST)
    assert "bname" not in vars(c)        # a class-level default: no per-node storage
    c.bname = "abs"
    assert vars(c)["bname"] == "abs" and A.Call(A.Name("g"), []).bname is None


def _cases():
    """(path, root, entry, args, fuel, depth) of every spec example and public case entry."""
    from cint_compiler.conformance.expect import case_variants, find_cases
    out = [(p, p.parent, None, (), None, None) for p in sorted(EXAMPLES.glob("*.ci"))] if EXAMPLES.is_dir() else []
    up = SHARED / "upstream-conformance"
    if up.is_dir():
        for path in find_cases(up):
            for v in case_variants(path, up):
                h = v.header
                out.append((path, up, v.entry, h.args, h.fuel, h.depth))
    return out


def test_the_checker_and_the_interpreter_write_only_declared_fields(monkeypatch):
    """Checks and runs every spec example and public case with node writes watched."""
    cases = _cases()
    if not cases:
        pytest.skip("../shared holds no programs")
    declared = {}
    undeclared = set()
    plain = object.__setattr__

    def watch(node, name, value):
        cls = type(node)
        names = declared.get(cls)
        if names is None:
            names = declared[cls] = {f.name for f in dataclasses.fields(cls)}
        if name not in names:
            undeclared.add("%s.%s" % (cls.__name__, name))
        plain(node, name, value)

    monkeypatch.setattr(A.Node, "__setattr__", watch)
    kinds = set()
    for path, root, entry, args, fuel, depth in cases:
        kinds.add(run_case(path, root, entry=entry, args=args, fuel=fuel, depth=depth).kind)
    assert {"value", "fault", "compile-error"} <= kinds and len(cases) > 200
    assert not undeclared, "declare these with tree.annotation() on their node class: %s" % sorted(undeclared)
