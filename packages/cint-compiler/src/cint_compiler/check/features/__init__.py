"""Checker parts for the language's add-on features (containers, text, Proposed forms, reduce)."""
