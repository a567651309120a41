"""The bundled schemas: their names, where their files are, and loading a schema by name or path."""

from __future__ import annotations

import os
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


#: The schemas of the reports' ``-f json`` formats (bundled beside the payload schemas; no payload is
#: detected as one of them): ``jobschema schemas show`` prints them by name.
REPORTS: tuple[str, ...] = ("validate-report", "versions-report", "changes-report", "timeline-report")


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
    """Load a schema by bundled name (``aihc-error``) or by the path of a schema file. A path that
    names something (a FIFO, a folder, a link loop, ...) is read as a schema file, and what is wrong
    with it is the error (:mod:`jobschema.inputs.side`); only a path that names nothing is "no such
    schema"."""
    if ref in BUNDLED:
        return _load_file(bundled_path(ref), ref)
    if not ref or not os.path.lexists(ref):
        raise SchemaNotFound(no_such_schema(ref))
    path = Path(ref)
    name = path.name.removesuffix(SUFFIX).removesuffix(".json")
    return _load_file(path.absolute(), name)


def no_such_schema(ref: str, known: tuple[str, ...] = BUNDLED) -> str:
    """``REF: no such schema (bundled schemas: …)``, saying which of ``known`` it likely means when it
    differs from one by case or spelling (``RUNAI-ERROR``, ``aihc_error``, ``aihc-error.schema.json``)."""
    from jobschema.inputs.files import named

    guess = meant(ref, known)
    hint = f"; did you mean {guess}?" if guess else ""
    listed = ", ".join(known)
    return f"{named(ref)}: no such schema{hint} (bundled schemas: {listed}; or give a schema file's path)"


def meant(ref: str, known: tuple[str, ...] = BUNDLED) -> str | None:
    """The name of ``known`` that ``ref`` differs from only by case, ``_`` for ``-``, a ``.schema.json``
    ending or a typo or two; ``None`` when none is that near."""
    import difflib

    def plain(name: str) -> str:
        name = name.strip().lower()
        return name.removesuffix(SUFFIX).removesuffix(".json").replace("_", "-")

    wanted = plain(ref)
    if not wanted:
        return None
    by_plain = {plain(name): name for name in known}
    if wanted in by_plain:
        return by_plain[wanted]
    near = difflib.get_close_matches(wanted, sorted(by_plain), n=1, cutoff=0.85)
    return by_plain[near[0]] if near else None


@cache
def _load_file(path: Path, name: str) -> Schema:
    """:func:`read_file`, once per process and file."""
    return read_file(path, name)


def read_file(path: Path, name: str) -> Schema:
    """The schema in the file ``path``, read now (:func:`load` keeps what it read once), named in
    errors as it is (a link is not followed to name its target), by the one reader of side files
    (:mod:`jobschema.inputs.side`)."""
    from jobschema.inputs.side import SideFile, load_json

    document = load_json(SideFile(path, "the schema", SchemaInvalid, subject="schema"))
    if not isinstance(document, dict):
        raise SchemaInvalid(f"{path}: a schema must be a JSON object, not {type(document).__name__}")
    return Schema(name, _resolved(path), document)


def _resolved(path: Path) -> Path:
    """``path`` with its links followed (it was just read, so it leads somewhere)."""
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError):  # (replaced since; Python 3.11 raises RuntimeError on a loop)
        return path


def check_user_schema(schema: Schema) -> None:
    """Raise :class:`SchemaInvalid` (one line) unless a schema file is valid against its draft's
    meta-schema. Bundled schemas are checked by the test suite instead, so they cost no start-up."""
    declared = schema.document.get("$schema")
    if declared is not None and not isinstance(declared, str):
        raise SchemaInvalid(f"{schema.path}: $schema must be a string (a meta-schema URI)")
    import jsonschema

    cls = jsonschema.validators.validator_for(schema.document, default=jsonschema.Draft202012Validator)
    try:
        error = jsonschema.exceptions.best_match(cls(cls.META_SCHEMA).iter_errors(schema.document))
    except RecursionError:
        raise SchemaInvalid(f"{schema.path}: schema is nested too deeply to check") from None
    if error is not None:
        from jobschema.secrets.policy import masked_pointer
        from jobschema.secrets.reading import mask_given

        # (the schema's own data, quoted: its keys and the value judged read by the secret policy)
        where = masked_pointer(error.absolute_path) or "/"
        message = mask_given(" ".join(error.message.split()), _strings(error.instance))
        raise SchemaInvalid(f"{schema.path}: not a valid JSON Schema at {where}: {message}")


def _strings(value: Any, most: int = 64) -> list[str]:
    """The strings of ``value`` (a schema's part an error quotes: keys and values), at most ``most``."""
    found: list[str] = []
    stack = [value]
    while stack and len(found) < most:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            found += [key for key in item if isinstance(key, str)][: most - len(found)]
            stack += item.values()
        elif isinstance(item, list):
            stack += item
    return found


def check_user_file(schema: Schema) -> None:
    """:func:`check_user_schema`, then what every command needs of a schema file before it reads one
    payload with it: each local ``$ref`` names something in the document and each pattern is a regular
    expression (:func:`jobschema.schemas.nodes.local_problems`); the first problem is one line,
    :class:`SchemaInvalid`. A reference to another document is never followed (what a command
    makes of it is its own: ``validate`` refuses it, :class:`~jobschema.schemas.nodes.ForeignReference`;
    ``changes`` reports without a witness)."""
    from jobschema.schemas.nodes import local_problems

    check_user_schema(schema)
    for problem in local_problems(schema.document):
        raise SchemaInvalid(f"{schema.path}: {problem}")
