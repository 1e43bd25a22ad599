"""Case outcomes and `.expect` handling (SPEC-09P.1 9.2)."""
