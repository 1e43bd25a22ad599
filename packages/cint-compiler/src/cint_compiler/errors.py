"""The compile diagnostics in one table: a row per code the compiler reports (SPEC-04P.1 17.2, LS-313).

Each row gives the code, its title (SPEC-04P.1's table's meaning where it names the code alone, else a
title for the messages the compiler gives with it), the clause that states the rule where one applies,
what to do, and an example program that `cint check` rejects with that code (or why there is none: a
file name, two modules, bytes a page cannot show).  docs/diagnostics.md is generated from this table:

    python -m cint_compiler.errors --markdown > docs/diagnostics.md

`tests/test_diagnostics_table.py` checks that the page is current, that every code a module of the
compiler raises has a row, and that every example reports its code.  This module imports nothing of
the compiler: it sits in the lowest layer, beside `diagnostics` (docs/architecture.md).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Dict, Optional, Tuple


@dataclass(frozen=True)
class Diagnostic:
    """One compile diagnostic: ``code`` (``Cnnnn``), ``title``, ``clause`` ("" where none applies),
    ``todo`` (what to do), ``example`` (a program reporting the code) or ``no_example`` (why none)."""

    code: str
    title: str
    clause: str
    todo: str
    example: Optional[str] = None
    no_example: Optional[str] = None


def _D(code, title, clause, todo, example=None, *, no_example=None) -> Diagnostic:
    assert (example is None) != (no_example is None), code
    return Diagnostic(code, title, clause, todo, example, no_example)


LONG_NAME = "export I64 run() {\n    I64 %s = 1;\n    return 0;\n}\n" % ("n" * 256)
LONG_LITERAL = "export I64 run() { return 0x%s; }\n" % ("F" * 1025)

DIAGNOSTICS: Tuple[Diagnostic, ...] = (
    _D("C1001", "`.cint` file (legacy profile)", "LS-313",
       "Rename the file to end in `.ci`; `.cint` sources belong to the legacy profile cint-bt27-legacy.",
       no_example="it concerns the file's name: `cint check orbit.cint`"),
    _D("C1002", "byte-order mark, invalid UTF-8, or NUL", "LS-4",
       "Save the file as UTF-8 without a byte-order mark, and remove NUL bytes and invalid byte sequences.",
       no_example="the offending bytes do not show in a page: a file that begins with a byte-order mark"),
    _D("C1003", "forbidden invisible or bidirectional character", "LS-6",
       "Remove the character, or write it in a literal as an escape such as `\\u{200B}`.",
       no_example="the offending character does not show in a page: U+200B in a comment"),
    _D("C1004", "control character or lone CR", "LS-4",
       "Use LF or CRLF line endings and write other control characters in literals as escapes.",
       no_example="the offending character does not show in a page: a carriage return not followed by a line feed"),
    _D("C1005", "unterminated block comment", "", "Close the comment with `*/`.",
       """\
export I64 run() { return 0; }
/* never closed
"""),
    _D("C1010", "reserved type name `[IUQT][0-9]+`", "LS-17",
       "Choose another name: names such as `I7`, `U12` or `Q3` are reserved for types.",
       """\
export I64 run() {
    I64 U12 = 1;
    return U12;
}
"""),
    _D("C1011", "unknown `E_` name", "",
       "Write one of the fault names (`E_OVERFLOW`, `E_BOUNDS`, ...; docs/reference/errors.md).",
       """\
test "bounds" expect_fault E_NOPE {
    I64[2] a;
    a[3] = 1;
}
"""),
    _D("C1012", "identifier over 255 bytes", "LS-15", "Shorten the identifier to at most 255 bytes.",
       LONG_NAME),
    _D("C1013", "non-ASCII character outside a literal or comment", "LS-5",
       "Use ASCII in names and code; non-ASCII text belongs in string or character literals and comments.",
       'export I64 run() {\n    I64 été = 1;\n    return 0;\n}\n'),
    _D("C1020", "uppercase radix prefix", "", "Write the prefix in lowercase: `0x`, `0b`, `0o`, `0t`.",
       """\
export I64 run() { return 0XFF; }
"""),
    _D("C1021", "misplaced digit separator", "",
       "Put each `_` alone between two digits: `1_000`, not `1__000` or `1000_`.",
       """\
export I64 run() { return 1__000; }
"""),
    _D("C1022", "leading zero", "", "Drop the leading zeros, or write an octal literal as `0o17`.",
       """\
export I64 run() { return 017; }
"""),
    _D("C1023", "literal over 4,096 bits of magnitude", "LS-31",
       "Use a smaller literal; no integer type is wider than 4,096 bits.",
       LONG_LITERAL),
    _D("C1024", "radix prefix with no digits, or a digit outside the radix", "",
       "Write at least one digit after the prefix, each a digit of that radix.",
       """\
export I64 run() { return 0b102; }
"""),
    _D("C1030", "empty or multi-character character literal", "",
       "Put exactly one character between the quotes, or use a string literal.",
       """\
export I64 run() {
    U32 c = 'ab';
    return 0;
}
"""),
    _D("C1031", "escape that is not a Unicode scalar value", "",
       "Write a code point from 0 to 10FFFF outside the surrogates D800 to DFFF.",
       "export I64 run() {\n    U32 c = '\\u{D800}';\n    return 0;\n}\n"),
    _D("C1032", "unknown escape", "",
       'Use one of the escapes `\\n`, `\\t`, `\\r`, `\\\\`, `\\"`, `\\\'`, `\\0`, `\\xHH` (00 to 7F) or `\\u{...}`.',
       'void main() {\n    "a\\q\\n";\n}\n'),
    _D("C1033", "hole outside a format context", "LS-44",
       "Holes `{...}` belong in a print statement, a `format` call or an `assert` message; write `{{` for a brace.",
       """\
export I64 run() {
    I64 n = 1;
    Str s = "n = {n}";
    return 0;
}
"""),
    _D("C1034", "line break in a string literal", "", "Write the line break as `\\n`, or print two strings.",
       """\
void main() {
    "one
two";
}
"""),
    _D("C1035", "invalid hole expression, or an unknown hole conversion", "LS-201",
       "Close the hole with `}` on the same line and use one of the conversions "
       "`!bits`, `!raw`, `!ratio`, `!lanes(T)`.",
       'void main() {\n    I64 n = 1;\n    "{n!hex}\\n";\n}\n'),
    _D("C1036", "precision with scale", "LS-206", "Give either a precision or a scale in the format spec, not both.",
       'void main() {\n    Q16.16 q = 1.5;\n    "{q:.3/100}\\n";\n}\n'),
    _D("C1037", "a format spec that does not apply or is not defined", "LS-213",
       "Write a spec of the LS-202 grammar that applies to the value's type.",
       'void main() {\n    Bool b = true;\n    "{b:x}\\n";\n}\n'),
    _D("C1038", "unterminated string or character literal", "", "Close the literal with its quote on the same line.",
       """\
void main() {
    U32 c = 'a;
}
"""),
    _D("C1039", "lone `}` in a string", "", "Write a literal `}` as `}}`.",
       'void main() {\n    "a } b\\n";\n}\n'),
    _D("C1040", "empty statement", "LS-163", "Remove the stray `;`, or write an empty block `{ }`.",
       """\
export I64 run() {
    I64 n = 1;;
    return n;
}
"""),
    _D("C1041", "assignment in a condition", "LS-164",
       "Compare with `==`, or assign in a statement before the condition.",
       """\
export I64 run() {
    I64 n = 0;
    if (n = 1) {
        return 1;
    }
    return 0;
}
"""),
    _D("C1042", "`++` or `--` used as an expression", "LS-166",
       "Write `i++;` as a statement of its own and use `i` in the expression.",
       """\
export I64 run() {
    I64 i = 0;
    I64 j = i++;
    return j;
}
"""),
    _D("C1043", "missing parentheses or braces in `if`, `while`, `do`, or either `for` form", "LS-168",
       "Put the condition in parentheses and the body in braces.",
       """\
export I64 run() {
    I64 n = 0;
    if (n == 0) return 1;
    return 0;
}
"""),
    _D("C1050", "syntax error: an expected token or construct", "",
       "Write the token or construct the message names at that position.",
       """\
export I64 run() {
    I64 n = 1
    return n;
}
"""),
    _D("C2001", "type mismatch (`C-TYPE-MISMATCH`), only for true mismatches", "",
       "Give a value of the expected type, or convert it explicitly with `as`.",
       """\
export I64 run() {
    I32 a = 1;
    I64 b = a;
    return b;
}
"""),
    _D("C2002", "condition not `Bool`, including the operand of `!`, `assert`, and `static_assert`", "",
       "Compare to get a Bool, for example `n != 0`.",
       """\
export I64 run() {
    I64 n = 1;
    if (n) {
        return 1;
    }
    return 0;
}
"""),
    _D("C2003", "literal does not fit its type", "", "Use a value in the type's range, or a wider type.",
       """\
export I64 run() {
    U8 b = 300;
    return 0;
}
"""),
    _D("C2004", "fraction literal without a fixed-point type", "",
       "Use the fraction where a fixed-point type (`Q.i.f`) is expected, or convert it with `as`.",
       """\
export I64 run() {
    I64 a = 1.5;
    return a;
}
"""),
    _D("C2005", "not a fixed-point type", "",
       "Write a fixed-point type whose `i + f` is 8, 16, 32 or 64 with `i >= 1`.",
       """\
export I64 run() {
    Q4.5 q = 1;
    return 0;
}
"""),
    _D("C2006", "inexact fraction", "",
       "Add a rounding clause such as `round half_even`, or write a multiple of the type's resolution.",
       """\
export I64 run() {
    Q8.8 q = 0.001;
    return 0;
}
"""),
    _D("C2007", "enum literal without a context type", "",
       "Write the type in full (`Color.red`), or use `.red` where the expected type is known.",
       """\
export I64 run() {
    var e = .red;
    return 0;
}
"""),
    _D("C2008", "no explicit conversion between the two types (`as`, `as%`)", "",
       "Convert through a type that both convert to, or use the operation the message names.",
       """\
enum Mode : U8 { idle }
export I64 run() {
    Q16.16 q = 1;
    Mode m = q as Mode;
    return 0;
}
"""),
    _D("C2009", "unknown rounding mode, or `round` where nothing rounds", "",
       "Use one of the rounding modes, and a `round` clause only where the conversion rounds.",
       """\
export I64 run() {
    I64 n = 7;
    I32 m = n as I32 round half_even;
    return 0;
}
"""),
    _D("C2010", "array literal without an array type, or the wrong index form", "",
       "Give the array literal a declared array type and index with the form its type takes.",
       """\
export I64 run() {
    var a = [1, 2];
    return 0;
}
"""),
    _D("C2011", "array literal of the wrong length or nesting", "",
       "Give the literal as many elements as the extent, nesting literals for each dimension.",
       """\
export I64 run() {
    I64[2] a = [1, 2, 3];
    return a[0];
}
"""),
    _D("C2012", "extents do not agree", "", "Make the arrays' shapes (or the size parameter's bindings) agree.",
       """\
export I64 run() {
    I64[2] a;
    I64[3] b;
    a = b;
    return 0;
}
"""),
    _D("C2013", "array comparison with `==`", "", "Compare arrays with `equal(a, b)`.",
       """\
export Bool run() {
    I64[2] a;
    I64[2] b;
    return a == b;
}
"""),
    _D("C2014", "`len` of an array of rank above 1, or a dimension the array lacks", "",
       "Use `extent(a, d)` with a dimension the array has; `len` is for rank 1.",
       """\
export I64 run() {
    I64[2, 2] m;
    return len(m);
}
"""),
    _D("C2015", "negative constant extent", "LS-62", "Give a nonnegative extent.",
       """\
export I64 run() {
    I64[-1] a;
    return 0;
}
"""),
    _D("C2020", "struct field not supplied", "",
       "Supply every field in the struct literal, or give the field a default.",
       """\
struct P { I64 x; I64 y; }
export I64 run() {
    P p = P(x = 1);
    return p.x;
}
"""),
    _D("C2022", "wrong number of arguments or fields", "",
       "Pass the number of arguments (or fields) the function or built-in takes.",
       """\
I64 add(I64 a, I64 b) { return a + b; }
export I64 run() { return add(1); }
"""),
    _D("C2030", "enum without an integer underlying type", "",
       "Declare the enum's underlying integer type: `enum Name : U8 { ... }`.",
       """\
enum Color { red, green }
export I64 run() { return 0; }
"""),
    _D("C2031", "enumerator or error value does not fit", "",
       "Give each enumerator a distinct value that fits the underlying type, or use a wider one.",
       """\
enum Level : U8 { low = 255, high }
export I64 run() { return 0; }
"""),
    _D("C2040", "error union not consumed", "",
       "Consume the error union with `try`, `catch`, or discard it with `_ = ...;`.",
       """\
error Tank { leak }
Tank!I64 level() { return 1; }
export I64 run() {
    level();
    return 0;
}
"""),
    _D("C2041", "tuple where no tuple is permitted", "LS-98",
       "Destructure a tuple result, `(I64 a, I64 b) = f();`, and write tuples only in `return (a, b);`.",
       """\
(I64, I64) pair() { return (1, 2); }
export I64 run() {
    I64 a = pair();
    return a;
}
"""),
    _D("C2042", "error set does not hold the value", "LS-97",
       "Return or propagate only values of the function's error set, or widen its error set.",
       """\
error Tank { leak, empty }
error Pipe { clog }
error Plant = Tank | Pipe;
export Tank!I64 run() {
    Plant p = Tank.leak;
    return p;
}
"""),
    _D("C2043", "`try` or `catch` on a value that is no error union", "",
       "Apply `try` and `catch` to a call that returns an error union.",
       """\
I64 level() { return 1; }
error Tank { leak }
export Tank!I64 run() {
    I64 v = try level();
    return v;
}
"""),
    _D("C2044", "error value name declared by several member sets of a combined set", "LS-97",
       "Name the member set: `Tank.leak` instead of `.leak`.",
       """\
error Tank { leak, empty }
error Pipe { clog, leak }
error Plant = Tank | Pipe;
export Plant!I64 run() {
    return .leak;
}
"""),
    _D("C2050", "uninitialized scalar or `Str` variable", "", "Give the variable an initializer.",
       """\
export I64 run() {
    var x;
    return 0;
}
"""),
    _D("C2051", "view escapes or is not permitted here", "LS-106",
       "Keep the view inside the lifetime of what it views; module variables and struct fields cannot hold "
       "views, `Str`, arenas or pools.",
       """\
struct S { I64 x; Pool(I64) p; }
export I64 run() { return 0; }
"""),
    _D("C2052", "loop variable assigned", "", "Copy the loop variable into a local and change that.",
       """\
export I64 run() {
    I64 s = 0;
    for i in 0..4 {
        i = 2;
    }
    return s;
}
"""),
    _D("C2053", "`by` step not a nonzero constant", "", "Write a nonzero constant after `by`.",
       """\
export I64 run() {
    I64 s = 0;
    for i in 0..8 by 0 {
        s += i;
    }
    return s;
}
"""),
    _D("C2054", "enum or error set without zero value needs initializer", "LS-91, LS-314",
       "Initialize the variable: its type has no zero value.",
       """\
error Tank { leak, empty }
Tank last;
export I64 run() { return 0; }
"""),
    _D("C2055", "struct that contains itself", "",
       "Break the cycle: a struct cannot contain itself, directly or through its fields.",
       """\
struct Tree {
    I32 weight;
    Tree[2] kids;
}
export I64 run() { return 0; }
"""),
    _D("C2056", "integer used as `Bool`", "", "Compare the integer: `n != 0`.",
       """\
export I64 run() {
    I64 n = 1;
    Bool b = n as Bool;
    return 0;
}
"""),
    _D("C2058", "not an assignable place, or a constant", "",
       "Assign to a variable, an element or a field that can be written.",
       """\
const I64 N = 4;
export I64 run() {
    N = 5;
    return N;
}
"""),
    _D("C2060", "parameter assigned", "",
       "Copy the parameter into a local, or declare it `inout` (arrays and structs).",
       """\
I64 twice(I64 n) {
    n = n * 2;
    return n;
}
export I64 run() { return twice(2); }
"""),
    _D("C2061", "default parameter order", "LS-124", "Put the parameters with defaults after the ones without.",
       """\
I64 f(I64 a = 1, I64 b) {
    return a + b;
}
export I64 run() { return 0; }
"""),
    _D("C2062", "duplicate named argument", "", "Give each parameter (or field) one argument.",
       """\
I64 f(I64 a, I64 b) { return a - b; }
export I64 run() { return f(a = 1, a = 2); }
"""),
    _D("C2063", "unknown named argument", "", "Use the names the function declares for its parameters.",
       """\
I64 f(I64 a, I64 b) { return a - b; }
export I64 run() { return f(a = 1, c = 2); }
"""),
    _D("C2064", "`inout` scalar parameter", "",
       "Return the new value instead: `inout` is for arrays, structs, arenas and pools.",
       """\
void bump(inout I64 n) { }
export I64 run() { return 0; }
"""),
    _D("C2065", "size parameter bound by no view", "",
       "Name the size parameter alone as an extent of a view parameter, such as `in I64[n] xs`.",
       """\
I64 f[n](in I64[n + 1] a) {
    return 0;
}
export I64 run() { return 0; }
"""),
    _D("C2066", "return value missing or extra", "", "Return a value of the result type, or none from a void function.",
       """\
I64 f() {
    return;
}
export I64 run() { return f(); }
"""),
    _D("C2067", "`inout` argument not writable", "", "Pass a writable place, or declare the parameter `inout`.",
       """\
void clear(inout I64[_] a) { a[0] = 0; }
void f(in I64[_] k) {
    clear(k[..]);
}
export I64 run() { return 0; }
"""),
    _D("C2069", "positional argument after a named one", "", "Put the positional arguments first.",
       """\
I64 f(I64 a, I64 b) { return a - b; }
export I64 run() { return f(a = 1, 2); }
"""),
    _D("C2101", "parentheses required", "LS-151", "Add parentheses to state the grouping.",
       """\
export Bool run() {
    Bool a = true;
    Bool b = false;
    return a && b || a;
}
"""),
    _D("C2102", "chained comparison", "LS-153", "Write `a < b && b < c`.",
       """\
export Bool run() {
    I64 a = 1;
    I64 b = 2;
    I64 c = 3;
    return a < b < c;
}
"""),
    _D("C2103",
       "operator or built-in not defined for the operand type, including `Bool` arithmetic and struct comparison", "",
       "Use an operand of a type the operator or built-in is defined for, or convert it.",
       """\
export I64 run() {
    Bool a = true;
    Bool b = a + a;
    return 0;
}
"""),
    _D("C3001", "duplicate name, including a duplicate field or a built-in name", "LS-112",
       "Choose another name; a built-in name cannot be declared again either.",
       """\
export I64 run() {
    I64 x = 1;
    I64 x = 2;
    return x;
}
"""),
    _D("C3002", "selected import name collides", "LS-228",
       "Rename the declaration, or import the module without selecting that name.",
       no_example="it needs two modules: `import geo.vec { norm };` in a module that declares `norm`"),
    _D("C3003", "import cycle", "", "Break the cycle: move what both modules need into a third.",
       no_example="it needs two modules that import each other"),
    _D("C3004", "script local used in a function or test", "LS-219",
       "Pass the value as a parameter, or declare it as a module-level constant.",
       'I64 total = 1;\nI64 get() { return total; }\n"{get()}\\n";\n'),
    _D("C3005", "undefined name or member", "", "Declare the name before use, or correct the spelling.",
       """\
export I64 run() {
    return missing;
}
"""),
    _D("C3006", "unknown type", "", "Declare the type, import its module, or correct the spelling.",
       """\
export I64 run() {
    Widget w;
    return 0;
}
"""),
    _D("C3007", "wrong kind of name", "", "Use a name of the kind the context needs (a type, a value, a function).",
       """\
I64 f() { return 1; }
export I64 run() {
    f x;
    return 0;
}
"""),
    _D("C3008", "name not exported", "LS-227",
       "Declare the name `export` in its module, or do not use it from the importer.",
       no_example="it needs two modules: using a name that the imported module does not `export`"),
    _D("C3009", "module file unreadable, the root file included", "",
       "Check that the file exists under the source root with that exact spelling and can be read.",
       no_example="it concerns the file system: `import geo.vec;` with no file geo/vec.ci under the source root"),
    _D("C3010", "importing a script", "", "Move the top-level statements into `main`, or import another module.",
       no_example="it needs two modules: importing a module that has top-level statements"),
    _D("C3011", "a script with `main`", "", "Move the top-level statements into `main`, or remove `main`.",
       'void main() { }\n"hello\\n";\n'),
    _D("C3012", "`import` after other items", "LS-226", "Put every `import` before the other items.",
       """\
export I64 run() { return 0; }
import geo.vec;
"""),
    _D("C3020", "test name repeated", "", "Give each test a distinct name.",
       """\
test "one" { assert(true); }
test "one" { assert(true); }
export I64 run() { return 0; }
"""),
    _D("C3021", "`expect_fault` placement", "LS-237",
       'Write `expect_fault E_NAME` in a test\'s header: `test "name" expect_fault E_BOUNDS { ... }`.',
       """\
export I64 run() {
    expect_fault E_BOUNDS;
    return 0;
}
"""),
    _D("C3030", "module path refused (`C-PATH`)", "LS-225",
       "Rename the file so that each segment of its path is an identifier and no Windows device name.",
       no_example="it concerns the file's name: `cint check 2d-plot.ci`"),
    _D("C4001", "missing return", "", "End every path of the function with a `return`.",
       """\
I64 pick(I64 n) {
    if (n > 0) {
        return 1;
    }
}
export I64 run() { return pick(2); }
"""),
    _D("C4002", "`catch` block completes", "", "End the `catch` block with `return`, `break` or `continue`.",
       """\
error Tank { leak }
Tank!I64 level() { return .leak; }
export I64 run() {
    I64 v = level() catch (why) { };
    return v;
}
"""),
    _D("C4010", "function named without a call", "", "Call the function with parentheses.",
       """\
I64 f() { return 1; }
export I64 run() {
    I64 n = f;
    return n;
}
"""),
    _D("C4011", "result unused", "", "Use the result, or discard it with `_ = f();`.",
       """\
I64 f() { return 1; }
export I64 run() {
    f();
    return 0;
}
"""),
    _D("C4012", "statement form not permitted, including a keyword where a name is expected", "LS-167",
       "Write a statement form (a call, an assignment, a declaration, a print), and use no keyword as a name.",
       """\
export I64 run() {
    I64 n = 1;
    n + 1;
    return n;
}
"""),
    _D("C4013", "`break` or `continue` outside a loop", "",
       "Use `break` and `continue` only inside a loop (or `break` in a switch).",
       """\
export I64 run() {
    break;
    return 0;
}
"""),
    _D("C4014", "misplaced `fallthrough`", "LS-178",
       "Put `fallthrough;` last in a case body that another body follows.",
       """\
export I64 run() {
    fallthrough;
    return 0;
}
"""),
    _D("C4020", "non-exhaustive `switch`", "LS-182", "Add the missing cases or a `default:` clause.",
       """\
I64 f(U8 x) {
    switch (x) {
        case 0..=254: return 1;
    }
}
export I64 run() { return f(1); }
"""),
    _D("C4021", "overlapping case items", "LS-181", "Remove the repeated or overlapping case item.",
       """\
export I64 run() {
    I64 x = 3;
    switch (x) {
        case 1, 2, 1: return 1;
        default: return 0;
    }
}
"""),
    _D("C4022", "half-open case range", "LS-177", "Write an inclusive range `lo..=hi`.",
       """\
export I64 run() {
    I64 x = 3;
    switch (x) {
        case 1..5: return 1;
        default: return 0;
    }
}
"""),
    _D("C4023", "empty case body", "LS-179", "Merge the items into the next clause: `case 1, 2: ...`.",
       """\
export I64 run() {
    I64 x = 3;
    switch (x) {
        case 1:
        case 2: return 1;
        default: return 0;
    }
}
"""),
    _D("C4024", "empty case range", "", "Write the range with `lo <= hi`.",
       """\
export I64 run() {
    I64 x = 1;
    switch (x) {
        case 5..=3: return 1;
        default: return 0;
    }
}
"""),
    _D("C4025", "`default` not last or repeated", "LS-183", "Write one `default` clause, last.",
       """\
export I64 run() {
    I64 x = 1;
    switch (x) {
        default: return 0;
        case 1: return 1;
    }
}
"""),
    _D("C4026", "scrutinee type not permitted", "", "Switch on an integer, an enum, a Bool or an error value.",
       """\
export I64 run() {
    Q16.16 x = 1.0;
    switch (x) {
        default: return 0;
    }
}
"""),
    _D("C4030", "`defer` leaves its statement", "LS-187",
       "Do not `return`, `break`, `continue` or `try` out of a deferred statement.",
       """\
I64 f() {
    defer {
        return;
    }
    return 1;
}
export I64 run() { return f(); }
"""),
    _D("C4031", "`errdefer` where no error can leave", "LS-322", "Remove the `errdefer`, or use `defer`.",
       'I64 f() {\n    errdefer { "undo\\n"; }\n    return 1;\n}\nexport I64 run() { return f(); }\n'),
    _D("C5001", "`out` in a function", "", "Return results, or take arrays and structs `inout`; `out` is for kernels.",
       """\
void load(out I64[_] a) { }
export I64 run() { return 0; }
"""),
    _D("C5010", "provable alias", "LS-121", "Pass arrays that do not share elements to a parameter that is written.",
       """\
void add_into(inout I64[_] a, in I64[_] b) { a[0] = b[0]; }
export I64 run() {
    I64[4] x;
    add_into(x[..], x[..]);
    return 0;
}
"""),
    _D("C5011", "view live across dispatch (or across another change of what it views)", "LS-253",
       "Do not use a view after the dispatch or operation that changes what it views; take it again.",
       """\
export I64 run() {
    I64[4] a;
    I64[4] b;
    in I64[_] v = a[1..];
    swap(a, b);
    return v[0];
}
"""),
    _D("C5012", "argument written through module state", "LS-122",
       "Pass an array that the callee does not also write as a module variable.",
       """\
I64[8] g;
void bump(in I64[_] a) { g[0] = 1; }
void main() {
    bump(g[..]);
}
"""),
    _D("C5020", "print in a kernel", "LS-250", "Print from the function that dispatches the kernel.",
       'kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {\n    "x\\n";\n    b[i] = a[i];\n}\n'),
    _D("C5021", "`defer` in a kernel", "LS-250", "Remove the `defer` from the kernel body.",
       """\
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    I64 x = 1;
    defer x = 2;
    b[i] = a[i];
}
"""),
    _D("C5022", "`try` or an error union in a kernel", "LS-250",
       "Kernels cannot fail with an error value; check the condition and write a result instead.",
       """\
error Tank { leak }
Tank!I64 level(I64 x) { return x; }
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = try level(a[i]);
}
"""),
    _D("C5023", "dispatch in a kernel", "LS-250", "Dispatch kernels from functions, not from kernels.",
       """\
kernel copy1[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = a[i];
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    copy1(a, b);
}
"""),
    _D("C5024", "call that is not kernel-admissible", "LS-250",
       "Call only functions that do none of what kernels may not do "
       "(print, defer, try, dispatch, module state, recursion).",
       'I64 h(I64 x) {\n    "x\\n";\n    return x;\n}\nkernel k[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = h(a[i]);\n}\n'),
    _D("C5025", "module-level variable in a kernel", "LS-250", "Pass the value as a kernel parameter.",
       """\
I64 scale = 2;
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = a[i] * scale;
}
"""),
    _D("C5026", "recursion in a kernel", "LS-250", "Rewrite the recursion as a loop.",
       """\
I64 h(I64 x) {
    if (x <= 0) {
        return 0;
    }
    return h(x - 1) + 1;
}
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = h(a[i]);
}
"""),
    _D("C5028", "kernel parameter type", "", "Give kernel parameters integer or fixed-point element types.",
       """\
kernel k[n](in I64[n] a, out I64[n] b, in Bool f) over [i: n] {
    b[i] = a[i];
}
"""),
    _D("C5029", "kernel private array", "LS-110",
       "Give a kernel's private arrays constant extents, at most 4,096 bytes.",
       """\
kernel k[n](in I32[n] a, out I32[n] b) over [i: n] {
    I32[n] t;
    b[i] = a[i];
}
"""),
    _D("C5031", "kernel write rule", "LS-247, LS-248",
       "Write each element of an `out` or `inout` parameter only at its own work index, as the kernel form requires.",
       """\
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[0] = a[i];
}
"""),
    _D("C5050", "type not ABI-eligible", "A-25",
       "Export only types that have a C form (SPEC-03P.1 A-25); return an array through an `inout` parameter.",
       """\
export I64[4] f() { I64[4] a = [1, 2, 3, 4]; return a; }
"""),
    _D("C6001", "fault during constant evaluation", "",
       "Change the constant so that its evaluation does not fault; the fault's record says which operation faulted.",
       """\
const I8 K = 100 * 2;
export I64 run() { return K; }
"""),
    _D("C6002", "compile-time fuel", "LS-267",
       "Make the constant evaluation cheaper, or compute the value at run time.",
       """\
I64 spin(I64 n) { I64 s = 0; for i in 0..n { s = s + i; } return s; }
const I64 K = spin(1000000000);
export I64 run() { return K; }
"""),
    _D("C6004", "constant expression required, including a module-level initializer", "LS-113",
       "Write a constant expression: literals, constants and calls that a constant may make.",
       """\
I64 g = 1;
const I64 K = g;
export I64 run() { return K; }
"""),
    _D("C6006", "constant arguments violate a built-in precondition", "",
       "Give arguments that meet the built-in's precondition (`clamp` with `lo <= hi`, a nonnegative capacity).",
       """\
export I64 run() {
    I64 x = 5;
    return clamp(x, 10, 1);
}
"""),
    _D("C6010", "`static_assert` failed", "", "Correct the program or the asserted condition.",
       """\
const I64 WIDTH = 6;
static_assert(WIDTH * 2 == 11, "width");
export I64 run() { return WIDTH; }
"""),
    _D("C9004", "nesting beyond the implementation's limit", "LS-311",
       "Split the deeply nested expression or block into smaller ones.",
       no_example="the program that triggers it is thousands of lines long: an expression nested over 256 deep"),
    _D("C9102", "not yet supported by this implementation; the message names the limit", "",
       "Use another construct, or the reference executor where the message says so (docs/status.md).",
       """\
type M = distinct Q16.16;
export I64 run() { return 0; }
"""),
)

BY_CODE: Dict[str, Diagnostic] = {d.code: d for d in DIAGNOSTICS}

# The codes of SPEC-04P.1's table (LS-313) that this implementation never reports, with the table's meaning:
# the features they concern are absent or refused with C9102 (docs/status.md).
NOT_REPORTED: Tuple[Tuple[str, str], ...] = (
    ("C4040", "recursion in `cint-boot-1` (`C-RECURSION`, SPEC-09 EMIT-30)"),
    ("C5042", "non-positive directive size"),
    ("C5051", "public symbol cannot be formed: two exports map to one name, or `__` in a `cx` or `cm` symbol"),
    ("C5060", "impure watch or inspect expression (SPEC-06 17.2 item 18)"),
    ("C6003", "`embed` path not declared in the project manifest (LS-269)"),
    ("C6005", "constant depends on itself"),
    ("C9001", "capacity or output size exceeded (`C-LIMIT`)"),
    ("C9002", "generated symbol over 247 bytes (SPEC-09 EMIT-22)"),
    ("C9003", "local array over the implementation's frame limit"),
    ("C9100", "outside `cint-boot-1`: the seed's refusal of a case outside its subset"),
    ("C9101", "the specification leaves this undecided; the message names the Open item"),
)
assert len(BY_CODE) == len(DIAGNOSTICS), "a code has two rows"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """The page docs/diagnostics.md: an index of every code, then a section per code."""
    lines = ["# Compile diagnostics", "",
             "Generated by `python -m cint_compiler.errors --markdown` from the table `DIAGNOSTICS` of",
             "`cint_compiler/errors.py`; do not edit it by hand. A compile error prints its code, position,",
             "message and a caret under the source (SPEC-04P.1 17.1); the code's meaning is SPEC-04P.1 17.2.",
             "Run-time faults, statuses and refusal reasons are in the [error index](reference/errors.md).", "",
             "| code | title | clause |", "| --- | --- | --- |"]
    for d in DIAGNOSTICS:
        lines.append("| [`%s`](#%s) | %s | %s |" % (d.code, d.code.lower(), _cell(d.title), d.clause or ""))
    lines.append("")
    for d in DIAGNOSTICS:
        lines += ["## %s" % d.code, "", "**%s.**%s" % (d.title[0].upper() + d.title[1:],
                                                      " Clause %s." % d.clause if d.clause else ""), "",
                  "**What to do.** %s" % d.todo, ""]
        if d.example is not None:
            lines += ["**Example** (`cint check example.ci` reports `%s`):" % d.code, "",
                      "```cint", d.example.rstrip("\n"), "```", ""]
        else:
            lines += ["No example here: %s." % d.no_example, ""]
    lines += ["## Codes this implementation does not report", "",
              "SPEC-04P.1's table has these codes too; nothing in this compiler reports them.", "",
              "| code | meaning (SPEC-04P.1 17.2) |", "| --- | --- |"]
    lines += ["| `%s` | %s |" % (code, _cell(meaning)) for code, meaning in NOT_REPORTED]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv) -> int:
    if argv != ["--markdown"]:
        sys.stderr.write("usage: python -m cint_compiler.errors --markdown > docs/diagnostics.md\n")
        return 2
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
