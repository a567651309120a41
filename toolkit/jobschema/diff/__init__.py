"""``jobschema diff`` as a library: schema-driven, key-aware comparison of job payloads.

>>> from jobschema.diff import diff_documents
>>> left = {"code": 404, "message": "Resource id not found."}
>>> [c.path for c in diff_documents(left, {**left, "code": 503}).changes]
['code']
"""

from __future__ import annotations

from jobschema.diff.compare import diff_documents, schema_of
from jobschema.diff.documents import DiffInputError
from jobschema.diff.result import Change, DiffOptions, DiffResult, Pair

__all__ = ["Change", "DiffInputError", "DiffOptions", "DiffResult", "Pair", "diff_documents", "schema_of"]
