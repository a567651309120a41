"""Benchmarks of jobschema against check-jsonschema, python-jsonschema, jsonschema-rs and deepdiff.

Run ``python -m tests.benchmarks`` from the repository root; it writes ``BENCHMARKS.md``. No file
here is named ``test_*.py``, so ``python -m pytest`` never collects or runs them.
"""
