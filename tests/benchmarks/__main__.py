"""``python -m tests.benchmarks``: run every benchmark and write BENCHMARKS.md (see run.py)."""

from __future__ import annotations

from tests.benchmarks.run import main

raise SystemExit(main())
