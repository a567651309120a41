"""Sphinx configuration of the jobschema documentation (MyST Markdown pages, the library API from
its docstrings). Built warning-free by .ci/run: ``python -m sphinx -W --keep-going -b html docs
docs/_build/html``."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "toolkit"), str(ROOT / "generated")]

project = "jobschema"
author = "the jobschema authors"
copyright = "2026, the jobschema authors"

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
suppress_warnings: list[str] = []

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}

html_theme = "furo"
html_title = "jobschema"
html_static_path: list[str] = []
