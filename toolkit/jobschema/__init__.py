"""jobschema: validate and diff recorded Run:ai and Baidu AIHC job API payloads.

The library is usable without the command line; importing it loads neither click nor pydantic, and
the names below load their modules only when first used::

    from jobschema import diff_documents, validate_payload
"""

from __future__ import annotations

import importlib
import os
from typing import Any

# A source checkout holds the package in two halves: toolkit/jobschema (this folder) and
# generated/jobschema (the models datamodel-code-generator writes, jobschema.models). A wheel holds
# both in one folder, so there is nothing to join. (os.path, not pathlib: this runs on every start-up.)
_HERE = os.path.dirname(os.path.abspath(__file__))  # noqa: PTH100, PTH120
_MODELS_HALF = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "generated", "jobschema")  # noqa: PTH118, PTH120
if os.path.basename(os.path.dirname(_HERE)) == "toolkit" and os.path.isdir(_MODELS_HALF):  # noqa: PTH112, PTH119, PTH120
    __path__.append(_MODELS_HALF)

__version__ = "0.1.0"

#: public name -> module that defines it
_EXPORTS = {
    "validate_payload": "jobschema.validate",
    "validate_paths": "jobschema.validate",
    "diff_documents": "jobschema.diff",
    "DiffOptions": "jobschema.diff",
    "redact_payload": "jobschema.redact",
    "unmasked_secrets": "jobschema.redact",
    "coverage_paths": "jobschema.coverage",
    "Finding": "jobschema.validate",
    "PayloadResult": "jobschema.validate",
    "Report": "jobschema.validate",
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
    raise AttributeError(f"module 'jobschema' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names and the lazy exports (``dir()`` and completion list them unloaded)."""
    return sorted({*globals(), *_EXPORTS})
