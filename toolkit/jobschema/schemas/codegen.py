"""Write ``generated/`` from ``schemas/`` with datamodel-code-generator, or check it is current.

Every generator option lives in :data:`CODEGEN_OPTIONS`, so the output is the same on every
machine: no timestamp, stable model order, ruff-formatted, one module per schema. The folder of
models is wholly generated: a module no schema writes (its schema gone or renamed) is stale too, and
writing removes it. Each schema is read and checked against its meta-schema before the generator
runs, so a broken one is named with its line and column, as every other command names it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jobschema.errors import ToolkitError, require_extra
from jobschema.outputs import write_file
from jobschema.schemas.nodes import NAMED_SCHEMAS, VALUES, schema_nodes

#: The options every module is generated with. Change them here, then run ``jobschema generate``.
CODEGEN_OPTIONS: tuple[str, ...] = (
    "--input-file-type=jsonschema",
    "--output-model-type=pydantic_v2.BaseModel",
    "--target-python-version=3.11",
    "--disable-timestamp",
    "--keep-model-order",
    "--formatters",
    "ruff-format",
    "ruff-check",
    "--extra-fields=allow",
    "--snake-case-field",
    "--use-annotated",
    "--field-constraints",
    "--use-standard-collections",
    "--use-union-operator",
    "--use-field-description",
    "--use-schema-description",
    "--enum-field-as-literal=all",
    # A $ref that resolves to nothing fails the run (the generator's default: an Any model, a warning).
    "--strict-refs",
    # A JSON type is that type: "1" is no integer, 0 no boolean (Pydantic's lax mode converts both).
    "--strict-types",
    "str",
    "int",
    "float",
    "bool",
    # An optional property left out is MISSING, not None, so a null is refused where the schema's type
    # has no null (``X | None = None`` would take one); pinned to the form Pydantic 2.12 imports.
    "--use-missing-sentinel",
    "--target-pydantic-version=2.12",
    # ... imported from a module of ours, which takes it from where this Pydantic keeps it.
    "--import-overrides",
    '{"MISSING": "._missing"}',
    # A map whose type also admits null types its values too (without it: dict[str, Any], any value).
    "--use-typed-nullable-map-values",
)

#: The ``format`` keywords are left out of what the generator reads (:func:`model_input`): timestamps
#: and ids stay strings, so a model dumps back exactly the text it was given, and no format becomes a
#: pattern of the generator's own (``hostname`` did, refusing ``example.com.``, which the schema takes).
MODEL_FREE_KEYWORDS = frozenset({"format"})

#: schema file stem -> (module name, root class name)
TARGETS: dict[str, tuple[str, str]] = {
    "runai-distributed-workload": ("runai_distributed_workload", "DistributedWorkload"),
    "runai-error": ("runai_error", "RunaiError"),
    "aihc-job-detail": ("aihc_job_detail", "AIHCJobDetailResponse"),
    "aihc-raw-request": ("aihc_raw_request", "AIHCRawRequest"),
    "aihc-error": ("aihc_error", "AIHCError"),
    "aihc-v2-job": ("aihc_v2_job", "AIHCV2JobResponse"),
}

#: Field names for property names whose snake-case names collide: AIHC v2's spec is ``Job`` (Python
#: SDK) or ``job`` (Java SDK) in one object, and both would be the field ``job``. Written to a file the
#: generator reads (``--aliases``). A model is filled by the payload's keys only, never by field names
#: (no ``--allow-population-by-field-name``): with it a key ``request_id``, to the schema an unknown
#: property, filled the field of ``requestId`` (a missing required property passed) and was dumped back
#: as ``requestId``.
ALIASES = {"Job": "python_sdk_job"}

#: How the folder of generated models is named in messages (its place in the repository).
SHOWN = "generated/jobschema/models"

INIT_TEXT = '''"""Pydantic v2 models written by datamodel-code-generator from ``schemas/``.

Never edit these files by hand: change the schema, then run ``jobschema generate``.
"""
'''

#: The module the models import ``MISSING`` from: Pydantic 2.14 made it public and warns at an import
#: from ``pydantic.experimental``, where 2.12 and 2.13 have it only.
MISSING_TEXT = '''"""The sentinel of a property a payload leaves out, from where this Pydantic keeps it.

Written by ``jobschema generate``: Pydantic 2.14 made ``MISSING`` public (an import from
``pydantic.experimental`` warns there); 2.12 and 2.13 have it only in ``pydantic.experimental``.
"""

from __future__ import annotations

try:
    from pydantic import MISSING  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # Pydantic 2.12 and 2.13
    from pydantic.experimental.missing_sentinel import MISSING  # type: ignore[no-redef,unused-ignore]

__all__ = ["MISSING"]
'''


class CodegenError(ToolkitError):
    """datamodel-code-generator is missing or failed on a schema, or a file cannot be written.

    One bad file never stops the others: ``problems`` names each (one line each; the message is
    them all, a line each), and ``written`` holds the modules written (or removed) before the run
    ended, when some could be."""

    def __init__(self, message: str, problems: Sequence[str] = (), written: Sequence[StaleFile] = ()) -> None:
        self.problems: tuple[str, ...] = tuple(problems) or (message,)
        self.written: tuple[StaleFile, ...] = tuple(written)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class StaleFile:
    """A file of ``generated/`` that differs from what the schemas produce; ``orphan``: a module no
    schema writes (left from a schema removed or renamed), stale whole; ``foreign``: an orphan the
    generator did not write (never removed); ``missing``: a module the schemas write that is not
    there."""

    name: str
    diff: str
    orphan: bool = False
    foreign: bool = False
    missing: bool = False


def _require_generator() -> None:
    """The codegen extra's tools, at the versions it pins (another version writes other bytes, which
    ``--check`` would call stale and a run would write)."""
    require_extra("codegen", "datamodel-code-generator", ("datamodel_code_generator",), CodegenError)
    require_extra("codegen", "ruff", ("ruff",), CodegenError)
    for name, pin in pinned_versions().items():
        installed = installed_version(name)
        if installed != pin:
            raise CodegenError(
                f"{name} {installed} is installed, but the models are written with {name} {pin} "
                "(the codegen extra, pinned: another version writes other bytes); "
                "install it: pip install 'jobschema[codegen]'"
            )


#: A requirement of the codegen extra pinned to one version: ``ruff==0.17.5; extra == "codegen"``.
_PIN = re.compile(
    r"""^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;]+)\s*;.*\bextra\s*==\s*['"]codegen['"]"""
)


def pinned_versions() -> dict[str, str]:
    """The versions the installed jobschema's codegen extra pins (none when its metadata is absent)."""
    from importlib import metadata

    try:
        requirements = metadata.requires("jobschema") or []
    except metadata.PackageNotFoundError:
        return {}
    return {match[1]: match[2] for req in requirements if (match := _PIN.match(req))}


def installed_version(name: str) -> str:
    """The installed version of the distribution ``name`` (``none`` when it is not installed)."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "none"


def generate_module(schema_path: Path, class_name: str, document: Any = None) -> str:
    """Return the module text datamodel-code-generator writes for one schema (``document``: its
    content, already read; read from ``schema_path`` when not given)."""
    _require_generator()
    if document is None:
        document = _read_schema(schema_path)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model.py"
        aliases = Path(tmp) / "aliases.json"
        aliases.write_text(json.dumps(ALIASES), encoding="utf-8")
        # The generator reads the schema as the models hold it, under the schema's own file name.
        source = Path(tmp) / schema_path.name
        source.write_text(json.dumps(model_input(document), ensure_ascii=False, indent=2), encoding="utf-8")
        cmd = [
            sys.executable,
            "-m",
            "datamodel_code_generator",
            f"--input={source.name}",
            f"--output={out}",
            f"--class-name={class_name}",
            f"--aliases={aliases}",
            *CODEGEN_OPTIONS,
        ]
        # Run from the schema's folder so the header names the file, not a machine path.
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, check=False)
        if proc.returncode != 0 or not out.exists():
            reason = failure_reason(proc.stderr or proc.stdout) or f"exit code {proc.returncode}"
            raise CodegenError(f"{schema_path.name}: datamodel-codegen failed: {reason}")
        return out.read_text(encoding="utf-8")


def _read_schema(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CodegenError(
            f"{path}: cannot read the schema: {getattr(err, 'strerror', None) or err}"
        ) from None


_NAMED_SCHEMAS = NAMED_SCHEMAS
_VALUES = VALUES


def model_input(schema: Any) -> Any:
    """``schema`` as the generator reads it: without the keywords of :data:`MODEL_FREE_KEYWORDS`,
    wherever a schema holds them (a property named ``format`` stays)."""
    if isinstance(schema, list):
        return [model_input(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if key in MODEL_FREE_KEYWORDS and isinstance(value, str):
            continue
        if key in _VALUES or key.startswith("x-"):
            kept[key] = value
        elif key in _NAMED_SCHEMAS and isinstance(value, dict):
            kept[key] = {name: model_input(item) for name, item in value.items()}
        else:
            kept[key] = model_input(value)
    return kept


#: A line of a Python warning as printed (``FILE:LINE: SomeWarning: text``); the source line under it
#: is indented.
_WARNING = re.compile(r"^\S.*:\d+: \w*Warning: ")

#: The longest reason quoted from the generator's output.
REASON_LIMIT = 300


def failure_reason(output: str) -> str:
    """One line saying why the generator failed, from what it printed: the exception of a traceback,
    else its message with its warnings (and their source lines) left out, lines joined."""
    lines = output.strip().splitlines()
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        lines = [next(line for line in reversed(lines) if line.strip())]
    kept: list[str] = []
    in_warning = False
    for line in lines:
        if _WARNING.match(line):
            in_warning = True
        elif not (in_warning and line[:1].isspace()):
            in_warning = False
            kept.append(line)
    reason = " ".join(" ".join(kept).split())
    return reason if len(reason) <= REASON_LIMIT else reason[: REASON_LIMIT - 1] + "…"


def check_schema(path: Path) -> dict[str, Any]:
    """Raise :class:`jobschema.errors.SchemaInvalid` (one line: the file, with line and column when it
    is not JSON) unless ``path`` holds a JSON Schema valid against its meta-schema; return it. The
    file is read as every side file is (a FIFO, a folder or a link loop is named as what it is)."""
    from jobschema.schemas.registry import check_user_schema, read_file

    schema = read_file(path.absolute(), path.name)
    check_user_schema(schema)
    return schema.document


def foreign_refs(schema: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, ref)`` of each ``$ref`` in ``schema`` that names another document (a file, a URL,
    a URN: anything but a pointer into this one, ``#...``), where a schema holds it (a property named
    ``$ref`` and a ``$ref`` inside an example are no reference)."""
    for at, node in schema_nodes(schema):
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            yield at, ref


_MEMO: dict[str, dict[str, str]] = {}


def expected_files(schemas_dir: Path) -> dict[str, str]:
    """Map each file name of ``generated/`` to the text the schemas produce (memoised on their content;
    the generator is required all the same, so a run without it never passes on what one with it
    memoised). Only the schemas the models are written from are read (:data:`TARGETS`); each one
    that is missing, unreadable, not a JSON Schema or not one the generator can be given is named
    (:class:`CodegenError`, one problem each), as is each whose model does not import."""
    _require_generator()
    sources = _sources(schemas_dir)
    key = hashlib.sha256(
        json.dumps([(name, document) for name, _, _, document in sources], ensure_ascii=False).encode()
    ).hexdigest()
    if key not in _MEMO:
        _MEMO[key] = _generate_all(sources)
    return dict(_MEMO[key])


def _sources(schemas_dir: Path) -> list[tuple[str, Path, str, dict[str, Any]]]:
    """``(module file, schema file, class, document)`` of every target, each schema checked; every
    problem named at once."""
    found: list[tuple[str, Path, str, dict[str, Any]]] = []
    problems: list[str] = []
    for stem, (module, class_name) in sorted(TARGETS.items()):
        path = schemas_dir / f"{stem}.schema.json"
        try:
            if not os.path.lexists(path):
                raise CodegenError(f"{path}: schema file not found")
            document = check_schema(path)
            for pointer, ref in foreign_refs(document):
                raise CodegenError(
                    f'{path}: $ref "{ref}" at {pointer or "/"}: a $ref to another document is not '
                    "followed (the models are written from each schema alone)"
                )
        except ToolkitError as err:
            problems.append(str(err))
            continue
        found.append((f"{module}.py", path, class_name, document))
    if problems:
        raise CodegenError(problems[0], problems)
    return found


def _generate_all(sources: list[tuple[str, Path, str, dict[str, Any]]]) -> dict[str, str]:
    with ThreadPoolExecutor(max_workers=len(sources)) as pool:
        texts = list(pool.map(lambda job: generate_module(job[1], job[2], job[3]), sources))
    files = {name: text for (name, _, _, _), text in zip(sources, texts, strict=True)}
    files["__init__.py"] = INIT_TEXT
    files["_missing.py"] = MISSING_TEXT
    failures = _import_failures(files)
    problems = [
        f"{path.name}: the model written from it does not import: {reason}"
        for name, path, _, _ in sources
        if (reason := failures.get(name.removesuffix(".py")))
    ]
    if problems:
        raise CodegenError(problems[0], problems)
    return files


#: Imports each module named on the command line from the package ``models`` beside it; prints
#: ``MODULE<TAB>REASON`` for each that fails.
_IMPORT_CHECK = """\
import importlib, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module("models." + name)
    except Exception as err:
        print(name + "\\t" + type(err).__name__ + ": " + " ".join(str(err).split()))
"""


_IMPORTED: dict[str, dict[str, str]] = {}


def _import_failures(files: dict[str, str]) -> dict[str, str]:
    """Module -> why it does not import (none when each does), each module imported from the texts
    in a folder of their own, in a fresh interpreter (a ``pattern`` Pydantic cannot compile fails
    there, not in the generator)."""
    key = hashlib.sha256(json.dumps(sorted(files.items())).encode()).hexdigest()
    if key in _IMPORTED:
        return _IMPORTED[key]
    modules = sorted(name.removesuffix(".py") for name in files if not name.startswith("_"))
    with tempfile.TemporaryDirectory() as tmp:
        package = Path(tmp) / "models"
        package.mkdir()
        for name, text in files.items():
            (package / name).write_text(text, encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, "-c", _IMPORT_CHECK, *modules],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONWARNINGS": "ignore"},
        )
    failures = {}
    for line in proc.stdout.splitlines():
        name, _, reason = line.partition("\t")
        failures[name] = reason if len(reason) <= REASON_LIMIT else reason[: REASON_LIMIT - 1] + "…"
    if proc.returncode != 0 and not failures:
        failures = dict.fromkeys(modules, failure_reason(proc.stderr) or f"exit code {proc.returncode}")
    _IMPORTED[key] = failures
    return failures


def stale_files(schemas_dir: Path, generated_dir: Path, label: str = SHOWN) -> list[StaleFile]:
    """Return the files of ``generated/`` that do not match the schemas byte for byte, sorted by name;
    each diff names the folder as ``label``."""
    return _stale(expected_files(schemas_dir), generated_dir, label)


def _stale(expected: dict[str, str], generated_dir: Path, label: str = SHOWN) -> list[StaleFile]:
    wanted = {name: (text, False) for name, text in expected.items()}
    wanted |= {name: ("", True) for name in _modules(generated_dir) if name not in expected}
    stale = []
    for name, (text, orphan) in sorted(wanted.items()):
        path = generated_dir / name
        current = _read(path) if path.is_file() else None
        if current != text.encode("utf-8") or orphan:
            was = (current or b"").decode("utf-8", "replace")
            diff = difflib.unified_diff(
                was.splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"{label}/{name}",
                f"{label}/{name} (from schemas)",
            )
            foreign = orphan and not (current or b"").startswith(HEADER.encode("utf-8"))
            stale.append(StaleFile(name, "".join(diff), orphan, foreign, current is None))
    return stale


def _modules(generated_dir: Path) -> list[str]:
    """The names of the modules in ``generated_dir`` (none when it is missing or not a folder)."""
    try:
        return sorted(path.name for path in generated_dir.glob("*.py"))
    except OSError:
        return []


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""  # (stale: it is written anew, or the write says why it cannot be)


#: The first line datamodel-code-generator writes in a module: an orphan without it was written by
#: someone else, and is never removed.
HEADER = "# generated by datamodel-codegen:"


def write_files(schemas_dir: Path, generated_dir: Path) -> list[StaleFile]:
    """Regenerate ``generated/``: write each stale module, remove the orphans; return them all.

    Each orphan the generator did not write is named (:class:`CodegenError`, one problem each) and
    nothing is written then. A folder that cannot be created is one problem; a module that cannot be
    written or removed is one problem each, the others written all the same (``written``)."""
    expected = expected_files(schemas_dir)
    stale = _stale(expected, generated_dir)
    foreign = [
        f"{generated_dir / item.name}: no schema writes this module and datamodel-codegen did not "
        "write it; move it out of the folder of generated models"
        for item in stale
        if item.foreign
    ]
    if foreign:
        raise CodegenError(foreign[0], foreign)
    try:
        generated_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CodegenError(f"{generated_dir}: cannot create the folder: {err.strerror or err}") from None
    done: list[StaleFile] = []
    problems: list[str] = []
    for item in stale:
        path = generated_dir / item.name
        try:
            if item.orphan:
                path.unlink()
            else:
                write_file(path, expected[item.name].encode("utf-8"))
        except OSError as err:
            doing = "remove" if item.orphan else "write"
            problems.append(f"{path}: cannot {doing}: {err.strerror or err}")
            continue
        done.append(item)
    if problems:
        raise CodegenError(problems[0], problems, done)
    return done
