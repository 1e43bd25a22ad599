"""Syntax: the lexer, the parser and the tree they build (SPEC-04P.1 sections 3 to 5)."""
