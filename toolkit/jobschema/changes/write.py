"""The files ``jobschema changes`` writes: a baseline, and the witness payloads. Both go through the
secret policy, and each is written whole or not at all (a temporary file renamed into place)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from jobschema.changes.run import Outcome
from jobschema.errors import ToolkitError
from jobschema.secrets.policy import masked
from jobschema.secrets.reading import scrub

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class OutputUnwritable(ToolkitError):
    """A file or folder ``jobschema changes`` was asked to write and cannot."""


def write_text(path: Path, text: str) -> None:
    """Write ``text`` (scrubbed of secrets) to ``path`` (:func:`jobschema.outputs.write_file`)."""
    from jobschema.outputs import write_file

    try:
        write_file(path, scrub(text).encode("utf-8", "backslashreplace"))
    except OSError as err:
        raise OutputUnwritable(f"{path}: cannot write: {err.strerror or err}") from None


def witness_name(schema: str, path: str, rule: str, fingerprint: str) -> str:
    """``runai-distributed-workload.spec.compute.migProfile.property-removed.3f2a9c1e.json``."""
    place = ".".join(token for token in path.split("/") if token) or "root"
    return _UNSAFE.sub("_", f"{schema}.{place}.{rule}.{fingerprint[:8]}".replace("*", "item")) + ".json"


def write_witnesses(folder: Path, outcome: Outcome) -> int:
    """Write every proven witness of ``outcome`` into ``folder`` (created if missing): the payload
    alone, two-space JSON; returns how many were written. One not proven is no witness of its change
    (the report says so), so no file claims it is."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputUnwritable(f"{folder}: cannot create the witness folder: {err.strerror or err}") from None
    written = 0
    for entry in outcome.entries:
        if entry.witness is None or not entry.witness.proven:
            continue
        change = entry.change
        name = witness_name(change.schema, change.path, change.rule, change.fingerprint)
        text = json.dumps(masked(entry.witness.payload), indent=2, ensure_ascii=False) + "\n"
        write_text(folder / name, text)
        written += 1
    return written
