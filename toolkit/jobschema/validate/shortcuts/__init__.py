"""Shortcuts: each answers, faster, what the reference checks (:mod:`jobschema.validate.reference`)
would answer, and is proven against them (tests/test_shortcuts.py)."""
