"""Validation: one payload or every payload behind a list of paths, against the bundled schemas.

>>> from jobschema.validate import validate_payload
>>> validate_payload({"code": 404, "message": "Resource id not found."}).valid
True
"""

from __future__ import annotations

from jobschema.findings import Finding, PayloadResult, Report
from jobschema.validate.run import validate_paths, validate_payload

__all__ = ["Finding", "PayloadResult", "Report", "validate_paths", "validate_payload"]
