"""The reference executor's `format(buf, "...")`, `utf8(bytes)` and `swap(a, b)` (SPEC-04P.1 LS-216, section 6.8;
docs/language.md decision 26). ``ex`` is the interp Context; cpu-c17 does the same in textops_c.
"""

from __future__ import annotations

from cint_compiler.semantics.values import ArrayValue, ErrorValue, LiveStr


def utf8_prefix(data: bytes, cap: int) -> int:
    """The length of the longest prefix of ``data`` (valid UTF-8) of at most ``cap`` bytes that splits no UTF-8
    sequence."""
    if len(data) <= cap:
        return len(data)
    k = cap
    while k > 0 and (data[k] & 0xC0) == 0x80:
        k -= 1
    return k


def utf8_valid(data: bytes) -> bool:
    """Well-formed UTF-8 (RFC 3629, Unicode Table 3-7): no overlong form, no surrogate, nothing above U+10FFFF,
    no truncated or stray sequence. Every scalar value is accepted, U+0000 and the characters of LS-6 included."""
    try:
        data.decode("utf-8", "strict")
        return True
    except UnicodeDecodeError:
        return False


def run(ex, e, env):
    name = e.bname
    if name == "format":
        return _format(ex, e, env)
    if name == "utf8":
        v = ex.eval(e.argv[0], env)
        if getattr(v, "guard", None) is not None:
            ex.mem_guard(v, e.span)
        ex.counted()
        if isinstance(v, (bytes, bytearray)):
            data = bytes(v)
            s = data
        else:
            s = LiveStr(v.storage, v.origin, v.strides[0], v.shape[0])
            data = bytes(s)
        if not utf8_valid(data):
            return ("err", ErrorValue("Utf8Error", "invalid"))
        return ("ok", s)
    # swap(a, b): both owned arrays of one type; the contents are exchanged element by element
    a = ex.eval(e.argv[0], env)
    b = ex.eval(e.argv[1], env)
    ex.counted()
    if a is b or a.storage is b.storage:
        return None
    ia, ib = list(a.indices()), list(b.indices())
    xs = [a.get(i) for i in ia]
    ys = [b.get(j) for j in ib]
    for i, y in zip(ia, ys):
        a.set(i, y)
    for j, x in zip(ib, xs):
        b.set(j, x)
    return None


def _format(ex, e, env):
    buf: ArrayValue = ex.eval(e.argv[0], env)
    if getattr(buf, "guard", None) is not None:
        ex.mem_guard(buf, e.span)
    data = ex.render_text(e.argv[1], env)
    cap = buf.shape[0]
    k = utf8_prefix(data, cap)
    stride = buf.strides[0]
    cells = buf.storage.cells
    for i in range(k):
        cells[buf.origin + i * stride] = data[i]
    if k < len(data):
        return ("err", ErrorValue("FormatError", "capacity"))
    return ("ok", LiveStr(buf.storage, buf.origin, stride, k))
