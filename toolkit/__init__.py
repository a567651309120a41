"""jobschema: validate and diff recorded Run:ai and Baidu AIHC job API payloads.

The library is usable without the command line; importing it loads neither click nor pydantic, and
the names below load their modules only when first used::

    from toolkit import validate_payload, diff_documents
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> module that defines it
_EXPORTS = {
    "validate_payload": "toolkit.validate",
    "validate_paths": "toolkit.validate",
    "diff_documents": "toolkit.diff",
    "DiffOptions": "toolkit.diff",
    "redact_payload": "toolkit.redact",
    "unmasked_secrets": "toolkit.redact",
    "coverage_paths": "toolkit.coverage",
    "Finding": "toolkit.model",
    "PayloadResult": "toolkit.model",
    "Report": "toolkit.model",
}

__all__ = [  # noqa: RUF022 - the version first, then the exports in the order above
    "__version__",
    "validate_payload",
    "validate_paths",
    "diff_documents",
    "DiffOptions",
    "redact_payload",
    "unmasked_secrets",
    "coverage_paths",
    "Finding",
    "PayloadResult",
    "Report",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
