"""Shared glue of the atheris targets: ``main(TestOneInput)`` runs atheris when a target is executed
as a script (scripts/fuzz.sh passes libFuzzer's flags and the corpus folders)."""
from __future__ import annotations

import sys


def main(test_one_input) -> None:
    import atheris
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
