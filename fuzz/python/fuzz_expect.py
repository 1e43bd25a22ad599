"""`.expect` texts and case headers (cint_compiler.conformance.expect): parse_expect and parse_header raise only
ValueError, and a text that parses compares equal to itself."""
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))
with atheris.instrument_imports(include=["cint_compiler.conformance.expect"]):
    from cint_compiler.conformance.expect import compare_expect, expect_format, parse_expect, parse_header


def TestOneInput(data: bytes) -> None:
    try:
        fields = parse_expect(data)
    except ValueError:
        fields = None
    if fields is not None:
        try:
            expect_format(fields)
            known = True
        except ValueError:
            known = False
        if known and compare_expect(data, data) is not None:
            raise AssertionError("a parsed .expect text differs from itself")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    try:
        parse_header(text)
    except ValueError:
        pass


if __name__ == "__main__":
    from _target import main
    main(TestOneInput)
