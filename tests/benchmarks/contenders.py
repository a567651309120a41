"""The commands the benchmarks run side by side, as :class:`measure.Contender` objects."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.benchmarks import ajv as ajv_cli
from tests.benchmarks.corpus import FileCorpus, schema_path
from tests.benchmarks.measure import Contender, console_script, contender

HERE = Path(__file__).resolve().parent
LIMIT = HERE / "limit.py"
NAIVE_DIFF = HERE / "naive_diff.py"

LIMIT_LABEL = "practical limit: orjson + jsonschema-rs `is_valid`, validators built once (`limit.py`)"
FLOOR_LABEL = "floor: read + orjson parse (`limit.py --parse-only`)"
JSON_FLOOR_LABEL = "read + `json.loads` (`limit.py --parse-only --parser json`; the floor before issue #13)"


def jobschema(key: str, label: str, *args: str, **options: object) -> Contender:
    """``jobschema ARGS`` (the console script beside this interpreter)."""
    return contender(key, label, [*console_script("jobschema"), *args], **options)


def limit(key: str, paths: list[str], label: str = LIMIT_LABEL, **options: object) -> Contender:
    """The practical-limit script on ``paths``."""
    return contender(key, label, [sys.executable, str(LIMIT), *paths], **options)


def floor(
    key: str, paths: list[str], parser: str = "orjson", label: str | None = None, **options: object
) -> Contender:
    """The read-and-parse floor on ``paths`` (orjson, or the standard library's ``json``)."""
    label = label or (FLOOR_LABEL if parser == "orjson" else JSON_FLOOR_LABEL)
    cmd = [sys.executable, str(LIMIT), "--parse-only", *(["--parser", "json"] if parser != "orjson" else [])]
    return contender(key, label, [*cmd, *paths], **options)


def naive_diff(key: str, left: str, right: str, **options: object) -> Contender:
    """The naive diff script (orjson, pods keyed by name)."""
    label = "naive script: orjson parse of both, pods keyed by name, compare (`naive_diff.py`)"
    return contender(key, label, [sys.executable, str(NAIVE_DIFF), left, right], **options)


def ajv_files(key: str, found: ajv_cli.Ajv, corpus: FileCorpus, **options: object) -> Contender:
    """``ajv validate`` once per schema of ``corpus`` (one schema per run), summed."""
    label = "ajv-cli (draft 2020-12, ajv-formats) x 2 (one run per API, summed)"
    if found.command is None:
        return Contender(key, label, None, note=found.note)
    cmds = [
        ajv_cli.validate(found, schema_path(schema), str(corpus.root / schema / "*.json"))
        for schema in corpus.files
    ]
    return contender(key, label, *cmds, **options)


def check_jsonschema_files(key: str, corpus: FileCorpus, **options: object) -> Contender:
    """``check-jsonschema --schemafile`` once per schema of ``corpus``, summed."""
    label = "check-jsonschema `--schemafile` x 2 (one run per API, summed)"
    try:
        command = console_script("check-jsonschema")
    except FileNotFoundError as err:
        return Contender(key, label, None, note=f"not run: {err}")
    cmds = [
        [*command, "--schemafile", str(schema_path(schema)), *map(str, paths)]
        for schema, paths in corpus.files.items()
    ]
    return contender(key, label, *cmds, **options)
