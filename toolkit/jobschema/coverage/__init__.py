"""Schema coverage of a corpus: which properties and enum values it exercises, and its drift."""

from __future__ import annotations

from jobschema.coverage.collect import CoverageCollector, coverage_paths, coverage_payloads

__all__ = ["CoverageCollector", "coverage_paths", "coverage_payloads"]
