"""Write ``generated/`` from ``schemas/`` with datamodel-code-generator, or check it is current.

Every generator option lives in :data:`CODEGEN_OPTIONS`, so the output is the same on every
machine: no timestamp, stable model order, ruff-formatted, one module per schema.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from jobschema.errors import ToolkitError, require_extra

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
    "--allow-population-by-field-name",
    "--snake-case-field",
    "--use-annotated",
    "--field-constraints",
    "--use-standard-collections",
    "--use-union-operator",
    "--use-field-description",
    "--use-schema-description",
    "--enum-field-as-literal=all",
    # Timestamps and ids stay strings so a model dumps back exactly the text it was given.
    "--type-mappings",
    "date-time=string",
    "uuid=string",
    "hostname=string",
)

#: schema file stem -> (module name, root class name)
TARGETS: dict[str, tuple[str, str]] = {
    "runai-distributed-workload": ("runai_distributed_workload", "DistributedWorkload"),
    "runai-error": ("runai_error", "RunaiError"),
    "aihc-job-detail": ("aihc_job_detail", "AIHCJobDetailResponse"),
    "aihc-raw-request": ("aihc_raw_request", "AIHCRawRequest"),
    "aihc-error": ("aihc_error", "AIHCError"),
    "aihc-v2-job": ("aihc_v2_job", "AIHCV2JobResponse"),
}

#: Field names for property names that would collide once the generator allows population by field
#: name: AIHC v2's spec is ``Job`` (Python SDK) or ``job`` (Java SDK) in one object, and the field for
#: ``Job`` would be ``job``, which a ``job`` member would then fill. Written to a file the generator
#: reads (``--aliases``).
ALIASES = {"Job": "python_sdk_job"}

#: How the folder of generated models is named in messages (its place in the repository).
SHOWN = "generated/jobschema/models"

INIT_TEXT = '''"""Pydantic v2 models written by datamodel-code-generator from ``schemas/``.

Never edit these files by hand: change the schema, then run ``jobschema generate``.
"""
'''


class CodegenError(ToolkitError):
    """datamodel-code-generator is missing or failed on a schema."""


@dataclass(frozen=True)
class StaleFile:
    """A file of ``generated/`` that differs from what the schemas produce."""

    name: str
    diff: str


def _require_generator() -> None:
    require_extra("codegen", "datamodel-code-generator", ("datamodel_code_generator",), CodegenError)


def generate_module(schema_path: Path, class_name: str) -> str:
    """Return the module text datamodel-code-generator writes for one schema."""
    _require_generator()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model.py"
        aliases = Path(tmp) / "aliases.json"
        aliases.write_text(json.dumps(ALIASES), encoding="utf-8")
        cmd = [
            sys.executable,
            "-m",
            "datamodel_code_generator",
            f"--input={schema_path.name}",
            f"--output={out}",
            f"--class-name={class_name}",
            f"--aliases={aliases}",
            *CODEGEN_OPTIONS,
        ]
        # Run from the schema's folder so the header names the file, not a machine path.
        proc = subprocess.run(cmd, cwd=schema_path.parent, capture_output=True, text=True, check=False)
        if proc.returncode != 0 or not out.exists():
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            reason = detail[-1] if detail else f"exit code {proc.returncode}"
            raise CodegenError(f"{schema_path.name}: datamodel-codegen failed: {reason}")
        return out.read_text(encoding="utf-8")


_MEMO: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}


def expected_files(schemas_dir: Path) -> dict[str, str]:
    """Map each file name of ``generated/`` to the text the schemas produce (memoised on their content)."""
    key = tuple(
        (path.name, hashlib.sha256(path.read_bytes()).hexdigest())
        for path in sorted(schemas_dir.glob("*.json"))
    )
    if key not in _MEMO:
        _MEMO[key] = _generate_all(schemas_dir)
    return dict(_MEMO[key])


def _generate_all(schemas_dir: Path) -> dict[str, str]:
    jobs = []
    for stem, (module, class_name) in sorted(TARGETS.items()):
        path = schemas_dir / f"{stem}.schema.json"
        if not path.is_file():
            raise CodegenError(f"{path}: schema file not found")
        jobs.append((f"{module}.py", path, class_name))
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        texts = list(pool.map(lambda job: generate_module(job[1], job[2]), jobs))
    files = {name: text for (name, _, _), text in zip(jobs, texts, strict=True)}
    files["__init__.py"] = INIT_TEXT
    return files


def stale_files(schemas_dir: Path, generated_dir: Path) -> list[StaleFile]:
    """Return the files of ``generated/`` that do not match the schemas, sorted by name."""
    return _stale(expected_files(schemas_dir), generated_dir)


def _stale(expected: dict[str, str], generated_dir: Path) -> list[StaleFile]:
    stale = []
    for name, text in sorted(expected.items()):
        path = generated_dir / name
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != text:
            diff = difflib.unified_diff(
                current.splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"{SHOWN}/{name}",
                f"{SHOWN}/{name} (from schemas)",
            )
            stale.append(StaleFile(name, "".join(diff)))
    return stale


def write_files(schemas_dir: Path, generated_dir: Path) -> list[str]:
    """Regenerate ``generated/``; return the names of the files that changed."""
    expected = expected_files(schemas_dir)
    changed = [item.name for item in _stale(expected, generated_dir)]
    generated_dir.mkdir(parents=True, exist_ok=True)
    for name, text in expected.items():
        if name in changed:
            (generated_dir / name).write_text(text, encoding="utf-8")
    return changed
