"""The generated pages of the documentation site: reference/api.md (the public names of cint,
cint_abi and cint_replay, from their docstrings) and reference/errors.md (fault codes, statuses and
refusal reasons, from the tables of cint_abi.codes).

mkdocs.yml's hook (``on_files``) adds them to the site at build time, so they are never stale and
nothing is written into docs/. To look at them as files:

    .venv/bin/python scripts/gen_docs.py OUTDIR
"""
from __future__ import annotations

import inspect
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"

ABI_MODULES = ("codes", "typesig", "symbols", "reflect", "faultrecord", "checkpoint", "state", "structs",
               "encoding", "arenas_pools")

# What each fault means for the person whose program raised it, and what to do about it.
FAULT_HELP = {
    "E_OVERFLOW": ("A checked operation (`+ - * / % <<`, `sum`, `i++`, ...) produced a value outside its type.",
                   "Use a wider type (`x as I64`), or say what you want: `+%` wraps, `+|` saturates, "
                   "`add_result` returns an error."),
    "E_DIV_ZERO": ("A division or remainder by zero, in any of its forms.",
                   "Test the divisor first, or use `div_result` to get an error value."),
    "E_BOUNDS": ("An index or a slice bound is outside the extent of its dimension, or an arena or pool is full.",
                 "Check the index against `len(a)` / `extent(a, d)`; the record gives the dimension, the index "
                 "and the extent."),
    "E_SHAPE": ("Two arrays that share a size symbol have different extents, an array assignment or `copy` "
                "joins different shapes, or a `where` clause does not hold.",
                "Pass arrays of the extents the signature names; the record gives the extents."),
    "E_SHIFT": ("A shift count outside `0 ..= T.bits - 1`.", "Clamp or test the count before shifting."),
    "E_NARROW": ("A conversion `x as T` (or a store into a bit field or an enum) whose value does not fit; "
                 "from Python, an argument out of its parameter's range.",
                 "Use a wider target, `as%` to keep the low bits, or `as?` to get an error value."),
    "E_ALIAS": ("An `inout` or `out` argument overlaps another argument of the same call.",
                "Pass disjoint arrays; from Python, do not pass the same NumPy array as input and output."),
    "E_STALE_HANDLE": ("A handle (or a view of one) names an arena or pool slot that was released.",
                       "Keep the handle's owner alive, or check it before use."),
    "E_FUEL": ("The entry used up its fuel allowance.",
               "Pass a larger `fuel=` (Python) or `--fuel` (`cint run`), or look for a loop that does not end."),
    "E_UNSUPPORTED": ("The executor cannot carry out the operation exactly, or (from Python) a kernel output is "
                      "borrowed memory without `publish=\"copy\"` (`bind.limit`).",
                      "For a NumPy output pass `cint.borrow(a, writable=True, publish=\"copy\")` or a `cint.empty` "
                      "Buffer."),
    "E_DOMAIN": ("An operand outside the operation's domain (for example `isqrt` of a negative value).",
                 "Check the operand first."),
    "E_DEPTH": ("A call would exceed the call-depth limit.", "Raise `depth=` / `--depth`, or recurse less deeply."),
    "E_ASSERT": ("An `assert` failed.", "The record carries both sides of a failed comparison."),
}

# A small program that raises each fault: ("cint", source, extra `cint run` options) or ("python", source).
# tests-conformance/test_docs_site.py runs every one and checks the code it faults with.
FAULT_EXAMPLE = {
    "E_OVERFLOW": ("cint", "void main() {\n    I8 x = 100;\n    I8 y = x + x;\n}\n", []),
    "E_DIV_ZERO": ("cint", "void main() {\n    I64 d = 0;\n    I64 q = 7 / d;\n}\n", []),
    "E_BOUNDS": ("cint", "void main() {\n    I64[3] a = [1, 2, 3];\n    I64 i = 3;\n    I64 v = a[i];\n}\n", []),
    "E_SHAPE": ("cint", "void add[n](inout I64[n] acc, in I64[n] x) {\n    for i in 0..n {\n        acc[i] += x[i];\n"
                "    }\n}\n\nvoid main() {\n    I64[3] acc;\n    I64[3] x = [1, 2, 3];\n    I64 k = 2;\n"
                "    add(acc, x[0..k]);\n}\n", []),
    "E_SHIFT": ("cint", "void main() {\n    I64 k = 64;\n    I64 v = 1 << k;\n}\n", []),
    "E_NARROW": ("cint", "void main() {\n    I64 big = 300;\n    I8 small = big as I8;\n}\n", []),
    "E_ALIAS": ("cint", "void copy_from[n](inout I64[n] dst, in I64[n] src) {\n    for i in 0..n {\n"
                "        dst[i] = src[i];\n    }\n}\n\nvoid main() {\n    I64[4] a = [1, 2, 3, 4];\n    I64 k = 1;\n"
                "    copy_from(a[0..3], a[k..4]);\n}\n", []),
    "E_STALE_HANDLE": ("cint", "Pool(I64, 4) p;\n\nvoid main() {\n    Handle(I64) h = p.insert(5);\n    p.remove(h);\n"
                       "    I64 v = p[h];\n}\n", []),
    "E_FUEL": ("cint", "void main() {\n    I64 t = 0;\n    for i in 0..1000 {\n        t += i;\n    }\n}\n",
               ["--fuel", "100"]),
    "E_UNSUPPORTED": ("python", "import numpy as np, cint\n\nmod = cint.load_source(\n    \"export kernel sq[n](in I64[n] x, "
                      "out I64[n] y) over [i: n] { y[i] = x[i] * x[i]; }\", name=\"sq\")\nctx = mod.context()\n"
                      "x = np.arange(4)\ny = np.zeros(4, dtype=np.int64)\nctx.sq(x, y=cint.borrow(y, writable=True))   "
                      "# a NumPy output without publish=\"copy\": bind.limit\n"),
    "E_DOMAIN": ("cint", "void main() {\n    I64 n = -4;\n    I64 r = isqrt(n);\n}\n", []),
    "E_DEPTH": ("cint", "I64 down(I64 n) {\n    return n == 0 ? 0 : down(n - 1) + 1;\n}\n\nvoid main() {\n"
                "    I64 n = 1000;\n    I64 d = down(n);\n}\n", []),
    "E_ASSERT": ("cint", "void main() {\n    I64 x = 3;\n    assert(x % 2 == 0);\n}\n", []),
}

STATUS_HELP = {
    "CINT_OK": "The call completed; an error result (`E!T`) also completes.",
    "CINT_FAULT": "The entry faulted; the context now holds the fault record. Python: a `cint.Fault` subclass.",
    "CINT_REFUSED": "The arguments could not be formed; nothing ran. Python: `cint.Refused`.",
    "CINT_BUSY": "Another call is running on the context, or an output is leased. Python: `cint.Busy`.",
    "CINT_FAULTED": "The context holds a fault; nothing ran. Clear it first. Python: `cint.Faulted`.",
    "CINT_RESOURCE": "The allocator, the registry or a device had no room. Python: `cint.ResourceError`.",
    "CINT_DIVERGED": "A replay found a difference. Python: `cint.ReplayDivergence`.",
    "CINT_UNREPLAYABLE": "A replay cannot go on. Python: `cint.Unreplayable`.",
}

REASON_HELP = {
    "CINT_REFUSAL_NONE": "No refusal: the last call that changed the context was not refused.",
    "CINT_REFUSAL_BUFFER": "A view names no registration.",
    "CINT_REFUSAL_GENERATION": "A view names a released registration (a Buffer used after `release()`).",
    "CINT_REFUSAL_TYPE": "An unknown element type, nonzero reserved bytes, or not the registration's type.",
    "CINT_REFUSAL_RANK": "A rank outside 1 to 4.",
    "CINT_REFUSAL_SIZE": "An element offset or byte size beyond the I64 range.",
    "CINT_REFUSAL_EXTENT": "A negative origin or extent, or a view reaching outside its registration.",
    "CINT_REFUSAL_ALIGN": "An address not aligned for its element type, or NULL.",
    "CINT_REFUSAL_PERMISSION": "A writable view of read-only memory. From Python: borrow an output with "
                               "`cint.borrow(a, writable=True)`.",
    "CINT_REFUSAL_CALL": "An otherwise invalid call, such as a wrong size field or a wrong argument count.",
    "CINT_REFUSAL_BOOL": "A Bool byte other than 0 or 1.",
    "CINT_REFUSAL_RESULT": "A NULL result pointer.",
    "CINT_REFUSAL_LEASED": "An output with a live lease (a NumPy view of a Buffer); the call returns CINT_BUSY.",
    "CINT_REFUSAL_UNSUPPORTED": "Device memory or a synchronization object the context cannot take.",
    "CINT_REFUSAL_LEASE": "A lease of memory the runtime does not own, or an unknown lease.",
}


def _doc(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.replace("<", "&lt;").replace(">", "&gt;")


def _sig(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""


def _entry(qual: str, obj) -> list[str]:
    kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else "value"
    head = "### `%s`" % qual
    out = [head, ""]
    if kind == "value":
        text = repr(obj)
        if len(text) > 300:
            text = "%s of %d items" % (type(obj).__name__, len(obj)) if hasattr(obj, "__len__") else text[:300]
        out += ["Value: `%s`" % text.replace("`", "'"), ""]
        return out
    sig = _sig(obj)
    out += ["```text", "%s%s%s" % ("class " if kind == "class" else "", qual.rsplit(".", 1)[-1], sig), "```", ""]
    doc = _doc(obj)
    if doc:
        out += [doc, ""]
    if kind == "class":
        for name, member in vars(obj).items():          # the class's own public methods and properties
            if name.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                continue
            target = member.fget if isinstance(member, property) else member
            shown = "%s.%s%s" % (qual.rsplit(".", 1)[-1], name, "" if isinstance(member, property) else _sig(target))
            out += ["- `%s`%s" % (shown, " (property)" if isinstance(member, property) else "")]
            mdoc = _doc(target)
            if mdoc:
                out += ["  " + line if line else "" for line in mdoc.split("\n")]
        if out[-1] != "":
            out.append("")
    return out


def api_page() -> str:
    import cint
    import cint_abi
    import cint_replay
    lines = ["# API reference", "",
             "Generated by `scripts/gen_docs.py` from the docstrings; every name of `cint.__all__` and",
             "`cint_replay.__all__`, and the public names of the modules of `cint_abi`.", ""]
    for mod in (cint, cint_replay):
        lines += ["## `%s`" % mod.__name__, "", _doc(mod), ""]
        for name in mod.__all__:
            lines += _entry("%s.%s" % (mod.__name__, name), getattr(mod, name))
    lines += ["## `cint_abi`", "", _doc(cint_abi), ""]
    import importlib
    for sub in ABI_MODULES:
        m = importlib.import_module("cint_abi." + sub)
        lines += ["### `cint_abi.%s`" % sub, "", _doc(m), ""]
        names = [n for n in vars(m) if not n.startswith("_")]
        for n in names:
            obj = getattr(m, n)
            if inspect.ismodule(obj) or n in ("annotations",):
                continue
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and getattr(obj, "__module__", None) != m.__name__:
                continue
            if not (inspect.isclass(obj) or callable(obj)) and not n.isupper():
                continue
            lines += ["#" + l if l.startswith("### ") else l for l in _entry("cint_abi.%s.%s" % (sub, n), obj)]
    return "\n".join(lines).rstrip("\n") + "\n"


def errors_page() -> str:
    from cint_abi import codes
    missing = (set(codes.FAULT_CODES) - set(FAULT_HELP)) | (set(codes.FAULT_CODES) - set(FAULT_EXAMPLE)) | (set(codes.STATUSES) - set(STATUS_HELP)) | \
        (set(codes.REFUSAL_REASONS) - set(REASON_HELP))
    if missing:
        raise SystemExit("scripts/gen_docs.py: no help text for %s" % ", ".join(sorted(missing)))
    lines = ["# Error index", "",
             "Generated by `scripts/gen_docs.py` from the tables of `cint_abi.codes`.", ""]
    diag = DOCS / "diagnostics.md"
    if diag.is_file():
        lines += ["Compile-time diagnostics (`error[Cnnnn]`) are listed in [Diagnostics](../diagnostics.md).", ""]
    else:
        lines += ["Compile-time diagnostics (`error[Cnnnn]`) print their code, position, a caret under the",
                  "source and, where there is one, the fix; their table is SPEC-04P.1 section 17.2.", ""]
    lines += ["## Fault codes", "",
              "A fault stops the entry with a fault record: the code, the operation (such as `add.checked.i64`),",
              "its operands, the exact result where there is one, the limit, the position and, in a kernel, the",
              "lowest faulting work-item. From Python each code is a subclass of `cint.Fault`.", ""]
    from cint._errors import FAULT_CLASSES
    for name, number in sorted(codes.FAULT_CODES.items(), key=lambda kv: kv[1]):
        what, todo = FAULT_HELP[name]
        lines += ["### `%s`" % name, "",
                  "Code %d, Python `cint.%s`. `cint run` prints: *%s*." % (number, FAULT_CLASSES[name].__name__,
                                                                        codes.FAULT_MESSAGES[name]), "",
                  "**What it means.** %s" % what, "", "**What to do.** %s" % todo, ""]
        ex = FAULT_EXAMPLE[name]
        if ex[0] == "cint":
            lines += ["**Example** (`cint run example.ci%s` faults with `%s`):" % (
                "".join(" " + a for a in ex[2]), name), "", "```cint", ex[1].rstrip("\n"), "```", ""]
        else:
            lines += ["**Example** (Python; the call raises `cint.%s`):" % FAULT_CLASSES[name].__name__, "",
                      "```python", ex[1].rstrip("\n"), "```", ""]
    lines += ["## Statuses", "", "What every function of the C interface returns (SPEC-03P.1 7.1).", "",
              "| status | value | meaning |", "| --- | --- | --- |"]
    for name, number in sorted(codes.STATUSES.items(), key=lambda kv: kv[1]):
        lines.append("| `%s` | %d | %s |" % (name, number, STATUS_HELP[name]))
    lines += ["", "## Refusal reasons", "",
              "After `CINT_REFUSED`, `cint_ctx_refusal` gives the reason; from Python it is `Refused.reason`.", "",
              "| reason | value | meaning |", "| --- | --- | --- |"]
    for name, number in sorted(codes.REFUSAL_REASONS.items(), key=lambda kv: kv[1]):
        lines.append("| `%s` | %d | %s |" % (name, number, REASON_HELP[name]))
    return "\n".join(lines) + "\n"


def pages() -> dict:
    return {"reference/api.md": api_page(), "reference/errors.md": errors_page()}


def on_files(files, config, **kwargs):
    """mkdocs hook: add the generated pages to the site."""
    from mkdocs.structure.files import File
    for name, text in pages().items():
        files.append(File.generated(config, name, content=text))
    return files


def main(argv) -> int:
    if len(argv) != 1:
        print("usage: gen_docs.py OUTDIR")
        return 2
    for name, text in pages().items():
        path = Path(argv[0]) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
