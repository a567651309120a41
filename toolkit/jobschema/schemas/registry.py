"""The bundled schemas: their names, where their files are, and loading a schema by name or path."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from jobschema.errors import SchemaInvalid, SchemaNotFound

SUFFIX = ".schema.json"

#: The bundled schemas, in the order ``jobschema schemas`` lists them.
BUNDLED: tuple[str, ...] = (
    "runai-distributed-workload",
    "runai-error",
    "aihc-job-detail",
    "aihc-raw-request",
    "aihc-error",
    "aihc-v2-job",
)


@dataclass(frozen=True)
class Schema:
    """A loaded schema: its catalog name (or file name), where it came from, and its document;
    ``version``: the API version the document was derived for (:func:`jobschema.schemas.versions.pinned`),
    ``""`` for the document as stored (every version at once)."""

    name: str
    path: Path
    document: dict[str, Any] = field(repr=False, compare=False, hash=False)
    version: str = ""

    @property
    def title(self) -> str:
        """The schema's ``title``, or its name when it has none."""
        return str(self.document.get("title", self.name))


def schemas_dir() -> Path:
    """The folder of bundled schemas: ``jobschema/schemas/bundled`` in an installed wheel, else the
    source checkout's ``schemas/`` (this file is ``toolkit/jobschema/schemas/registry.py`` there)."""
    here = Path(__file__).resolve().parent
    packaged = here / "bundled"
    if packaged.is_dir():
        return packaged
    return here.parents[2] / "schemas"


def bundled_path(name: str) -> Path:
    """The file of a bundled schema."""
    return schemas_dir() / f"{name}{SUFFIX}"


def load(ref: str) -> Schema:
    """Load a schema by bundled name (``aihc-error``) or by the path of a schema file."""
    if ref in BUNDLED:
        return _load_file(bundled_path(ref), ref)
    path = Path(ref)
    if path.is_file():
        name = path.name.removesuffix(SUFFIX).removesuffix(".json")
        return _load_file(path.resolve(), name)
    known = ", ".join(BUNDLED)
    raise SchemaNotFound(f"{ref}: no such schema (bundled schemas: {known}; or give a schema file's path)")


@cache
def _load_file(path: Path, name: str) -> Schema:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise SchemaNotFound(f"{path}: cannot read schema: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise SchemaInvalid(f"{path}: schema is not UTF-8 text: {err.reason}") from err
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise SchemaInvalid(f"{path}:{err.lineno}:{err.colno}: schema is not valid JSON: {err.msg}") from err
    if not isinstance(document, dict):
        raise SchemaInvalid(f"{path}: a schema must be a JSON object, not {type(document).__name__}")
    return Schema(name, path, document)


def check_user_schema(schema: Schema) -> None:
    """Raise :class:`SchemaInvalid` (one line) unless a schema file is valid against its draft's
    meta-schema. Bundled schemas are checked by the test suite instead, so they cost no start-up."""
    declared = schema.document.get("$schema")
    if declared is not None and not isinstance(declared, str):
        raise SchemaInvalid(f"{schema.path}: $schema must be a string (a meta-schema URI)")
    import jsonschema

    cls = jsonschema.validators.validator_for(schema.document, default=jsonschema.Draft202012Validator)
    error = jsonschema.exceptions.best_match(cls(cls.META_SCHEMA).iter_errors(schema.document))
    if error is not None:
        where = "/" + "/".join(str(part) for part in error.absolute_path)
        message = " ".join(error.message.split())
        raise SchemaInvalid(f"{schema.path}: not a valid JSON Schema at {where}: {message}")
