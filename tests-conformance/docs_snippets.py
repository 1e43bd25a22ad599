"""Run the code snippets of the documentation site's pages (docs/, mkdocs.yml).

A page is a sequence of fenced blocks. Each block runs in the page's own temporary folder, in order:

- ```cint: written to the file that a ``<!-- file: NAME -->`` line just above the fence names
  (default ``snippet.ci``). If a ```text block follows it directly, ``cint run NAME`` must print
  exactly that text (stdout, then stderr); if a ```console block follows, that block uses the file;
  otherwise ``cint check NAME`` must succeed.
- ```python: without a file line, executed in one namespace per page, with the page's folder as the
  working directory; a ```text block that follows directly must equal what it printed. With a file
  line it is only written (a later ```console block runs it).
- ```c: written to the file its file line names (required); ``<!-- file: NAME + -->`` appends
  to it instead, so that a program can be shown step by step.
- ```console: each ``$ command`` line runs in bash in the page's folder; the lines up to the next
  ``$`` line are its expected output (stdout and stderr together). A command that must fail says so
  in the output it shows; the exit status is not compared.
- ```text: the expected output of the block before it, or a figure that is not code (a diagram or
  a table) when nothing runs before it.
- ```sh and any other language: refused, unless a ``<!-- norun: REASON -->`` line is above it.

In an expected output a line ``...`` stands for any number of lines, and trailing spaces are ignored.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")
DIRECTIVE = re.compile(r"^<!--\s*(file|norun):\s*(.*?)\s*-->\s*$")


@dataclass
class Block:
    lang: str
    text: str
    line: int                       # line of the opening fence, from 1
    directives: dict = field(default_factory=dict)


def blocks_of(md: str) -> list[Block]:
    out: list[Block] = []
    lines = md.splitlines()
    i = 0
    pending: dict = {}
    while i < len(lines):
        m = FENCE.match(lines[i])
        d = DIRECTIVE.match(lines[i])
        if d:
            pending[d.group(1)] = d.group(2)
            i += 1
            continue
        if m and m.group(1):
            start = i
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != "```":
                j += 1
            if j == len(lines):
                raise ValueError("line %d: the ```%s block is not closed" % (start + 1, m.group(1)))
            out.append(Block(m.group(1), "\n".join(lines[i + 1:j]) + "\n", start + 1, pending))
            pending = {}
            i = j + 1
            continue
        if lines[i].strip():
            pending = {}
        i += 1
    return out


def matches(expected: str, actual: str) -> bool:
    exp = [l.rstrip() for l in expected.rstrip("\n").split("\n")]
    act = [l.rstrip() for l in actual.rstrip("\n").split("\n")] if actual.strip("\n") else []
    if exp == [""]:
        exp = []

    def go(i, j):
        while i < len(exp):
            if exp[i] == "...":
                return any(go(i + 1, k) for k in range(j, len(act) + 1))
            if j >= len(act) or exp[i] != act[j]:
                return False
            i, j = i + 1, j + 1
        return j == len(act)
    return go(0, 0)


class SnippetFailure(AssertionError):
    pass


def _cint(args, cwd: Path) -> str:
    """`cint ARGS` in cwd, in this process (the CLI's own main), stdout then stderr."""
    from cint_compiler import cli
    out, err = io.BytesIO(), io.StringIO()
    wrapper = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    old = os.getcwd()
    stack, limit = threading.stack_size(), sys.getrecursionlimit()   # cli.main sets both for its own thread
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(wrapper), contextlib.redirect_stderr(err):
            cli.main(list(args))
    finally:
        os.chdir(old)
        threading.stack_size(stack)
        sys.setrecursionlimit(limit)
    wrapper.flush()
    return out.getvalue().decode("utf-8", "replace") + err.getvalue()


def _console(text: str, cwd: Path, env: dict) -> list[tuple[str, str]]:
    cmds: list[tuple[str, list[str]]] = []
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            cmds.append((line[2:], []))
        elif not cmds:
            raise SnippetFailure("a ```console block starts with %r, not a `$ ` command" % line)
        else:
            cmds[-1][1].append(line)
    return [(c, "\n".join(e)) for c, e in cmds]


def run_page(path: Path, workdir: Path, env: dict) -> int:
    """Run every block of the page at path in workdir; return how many ran. Raises SnippetFailure."""
    blocks = blocks_of(path.read_text(encoding="utf-8"))
    ns: dict = {"__name__": "__docs__"}
    ran = 0
    i = 0

    def fail(b: Block, why: str):
        raise SnippetFailure("%s:%d: ```%s block: %s" % (path.name, b.line, b.lang, why))

    while i < len(blocks):
        b = blocks[i]
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        name = b.directives.get("file")
        if "norun" in b.directives:
            if not b.directives["norun"]:
                fail(b, "a norun line needs a reason")
            i += 1
            continue
        if b.lang == "cint":
            name = name or "snippet.ci"
            (workdir / name).parent.mkdir(parents=True, exist_ok=True)
            (workdir / name).write_text(b.text, encoding="utf-8")
            if nxt is not None and nxt.lang == "text":
                got = _cint(["run", name], workdir)
                if not matches(nxt.text, got):
                    fail(b, "`cint run %s` printed\n%s\nnot\n%s" % (name, got, nxt.text))
                i += 1
            elif nxt is None or nxt.lang != "console":
                got = _cint(["check", name], workdir)
                if got.strip() != "ok: %s" % name:
                    fail(b, "`cint check %s` said\n%s" % (name, got))
            ran += 1
        elif b.lang == "python":
            if name:
                (workdir / name).write_text(b.text, encoding="utf-8")
            else:
                buf = io.StringIO()
                old = os.getcwd()
                os.chdir(workdir)
                try:
                    with contextlib.redirect_stdout(buf):
                        exec(compile(b.text, "%s:%d" % (path.name, b.line), "exec"), ns)
                except Exception as ex:
                    fail(b, "raised %s: %s\n(printed so far: %s)" % (type(ex).__name__, ex, buf.getvalue()))
                finally:
                    os.chdir(old)
                if nxt is not None and nxt.lang == "text":
                    if not matches(nxt.text, buf.getvalue()):
                        fail(b, "printed\n%s\nnot\n%s" % (buf.getvalue(), nxt.text))
                    i += 1
            ran += 1
        elif b.lang == "c":
            if not name:
                fail(b, "a C block needs a <!-- file: NAME --> line")
            if name.endswith(" +"):
                with open(workdir / name[:-2], "a", encoding="utf-8") as f:
                    f.write(b.text)
            else:
                (workdir / name).write_text(b.text, encoding="utf-8")
            ran += 1
        elif b.lang == "console":
            for cmd, expected in _console(b.text, workdir, env):
                words = cmd.split()
                if words and words[0] == "cint" and not set(cmd) & set("|;&<>$`'\"*"):
                    got = _cint(words[1:], workdir)
                else:
                    done = subprocess.run(["bash", "-c", cmd], cwd=workdir, env=env, capture_output=True,
                                          text=True, timeout=300)
                    got = done.stdout + done.stderr
                if not matches(expected, got):
                    fail(b, "`%s` printed\n%s\nnot\n%s" % (cmd, got, expected))
            ran += 1
        elif b.lang == "text":
            pass
        else:
            fail(b, "a block in %r does not run; add <!-- norun: REASON --> above it" % b.lang)
        i += 1
    return ran
