"""The two sides ``jobschema changes`` compares, from what the user names.

A side is named as

- ``API@VERSION`` (``runai@2.19``, ``runai@2.19.3``; ``runai=2.19`` as ``--api-version`` takes it):
  every bundled schema of the API as that version has it
  (:func:`jobschema.schemas.versions.schema_for`); ``NAME@VERSION``
  (``runai-distributed-workload@2.24``): one of them;
- ``API`` or ``NAME`` alone: the bundled schemas as stored, every known version at once;
- ``FILE`` or ``FILE#POINTER``: a JSON Schema file, or the schema at a JSON Pointer inside a document
  (``openapi.json#/components/schemas/DistributedWorkload``).

The schemas of two sides are paired by name (two versions of one API), or one to one.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jobschema.errors import CannotCompare, SchemaInvalid, SchemaNotFound
from jobschema.schemas import registry, versions
from jobschema.schemas.refs import local_target
from jobschema.secrets.policy import masked_path


@dataclass(frozen=True)
class Side:
    """One schema on one side: how it was named, the document holding it and where in it it is."""

    label: str  # as shown: runai@2.19, old.json, spec.json#/components/schemas/X
    schema: str  # the bundled name, or the file's stem: what the two sides are paired by
    document: dict[str, Any]
    start: str = "#"
    api: str | None = None
    version: str | None = None  # the API version, for a bundled schema named with one
    path: Path | None = None  # the file, for a schema file
    bundled: bool = False  # a bundled schema (its strategies and checker are jobschema's own)

    @property
    def node(self) -> dict[str, Any]:
        """The schema itself (the document, or the node its pointer names)."""
        found = local_target(self.document, self.start)
        return found if isinstance(found, dict) else {}


def read_side(text: str) -> list[Side]:
    """The schemas ``text`` names (see the module); a one-line error when it names none."""
    if "#" not in text and not Path(text).exists():
        pinned, version = versions.split_pin(text)  # (runai=2.19, as --api-version takes it, too)
        name = version if pinned is None else pinned
        name = name.lower() if name.lower() in versions.apis() else name  # (RunAI@2.19 is runai@2.19)
        if name in versions.apis() or name in registry.BUNDLED:
            return _bundled(name, None if pinned is None else version)
        if "@" in text:
            raise SchemaNotFound(f"{text}: {name} is no API ({_apis()}) and no bundled schema{_hint(name)}")
    return [_file(text)]


def pair(old: list[Side], new: list[Side]) -> list[tuple[Side, Side]]:
    """The schemas of two sides to compare, each with its counterpart."""
    if len(old) == 1 and len(new) == 1:
        name = _common_name(old[0], new[0])
        return [(replace(old[0], schema=name), replace(new[0], schema=name))]
    by_name = {side.schema: side for side in new}
    if {side.schema for side in old} != set(by_name):
        raise CannotCompare(
            f"{_named(old)} and {_named(new)}: cannot pair their schemas{_only(old, new)}; "
            "name one schema on each side (runai-distributed-workload@2.19, a file)"
        )
    return [(side, by_name[side.schema]) for side in old]


def _common_name(old: Side, new: Side) -> str:
    """What one pair of schemas is called: the bundled schema's name when a side is one (captures are
    matched to it), else the new file's."""
    return next((side.schema for side in (new, old) if side.bundled), new.schema)


def steps(old: Side, new: Side) -> list[tuple[Side, Side]]:
    """The adjacent versions between two versions of one bundled schema, in the order walked
    (``runai@2.18`` to ``runai@2.20``: 2.18 to 2.19, 2.19 to 2.20); none for other sides."""
    if not (old.bundled and new.bundled and old.api and old.version and new.version):
        return []
    if old.schema != new.schema or old.api != new.api:
        return []
    known = versions.known(old.api)
    first, last = known.index(old.version), known.index(new.version)
    walk = known[first : last + 1] if first <= last else known[last : first + 1][::-1]
    chain = [_version(old.schema, old.api, version) for version in walk]
    return list(itertools.pairwise(chain))


def _bundled(name: str, version: str | None) -> list[Side]:
    names = versions.schemas_of(name) if name in versions.apis() else (name,)
    found: list[Side] = []
    for schema in names:
        api = versions.api_of(registry.load(schema).document)
        if version is None or api is None:
            if version is not None:
                raise SchemaNotFound(f"{name}@{version}: {schema} has no API versions")
            found.append(Side(schema, schema, registry.load(schema).document, api=api, bundled=True))
            continue
        resolved = versions.resolve(api, version)
        if versions.not_one_version(version):
            first = re.match(r"[vV]?([0-9]+\.[0-9]+)", version.strip(), re.ASCII)
            example = f"{name}@{first[1] if first else versions.known(api)[-1]}"
            raise SchemaNotFound(f"{name}@{version}: {versions.one_version_only(example)}")
        if resolved is None:
            known = ", ".join(versions.known(api))
            raise SchemaNotFound(
                f"{name}@{version}: no such {versions.label(api)} version (known: {known})"
                + versions.zero_hint(version)
            )
        own = tuple(registry.load(schema).document.get(versions.API_VERSIONS) or ())
        if resolved not in own:  # (AIHC v1 has no aihc-v2-job)
            if len(names) == 1:
                theirs = " and ".join(f"{versions.label(api)} {other}" for other in own)
                where = f"{versions.label(api)} {resolved}"
                raise SchemaNotFound(f"{name}@{version}: {schema} is not in {where} (it is {theirs}'s)")
            continue
        found.append(_version(schema, api, resolved, f"{name}@{resolved}" if len(names) == 1 else None))
    return found


def _version(schema: str, api: str, version: str, label: str | None = None) -> Side:
    document = versions.document_of(schema, version)
    return Side(label or f"{schema}@{version}", schema, document, api=api, version=version, bundled=True)


def _file(text: str) -> Side:
    location, _, pointer = text.partition("#")
    path = Path(location)
    if not location or not os.path.lexists(location):  # (what names something is read: a FIFO, a
        raise SchemaNotFound(  # folder, a link loop... is that file's error, from the loader)
            f"{text}: no such file, API or bundled schema{_hint(location)} "
            f"({_apis()}; or a schema file's path)"
        )
    loaded = registry.load(location)
    registry.check_user_file(loaded)
    document = loaded.document
    start = f"#{pointer}" if pointer else "#"
    node = local_target(document, start) if pointer else document
    if not isinstance(node, dict):
        raise SchemaInvalid(f"{text}: {start} names no schema object in {location}")
    if not pointer and ("openapi" in document or "swagger" in document):
        raise CannotCompare(
            f"{text}: an OpenAPI document, not a schema; name the schema in it: "
            f"{location}#/components/schemas/NAME"
        )
    stem = path.name.removesuffix(".json").removesuffix(".schema")
    schema = pointer.rsplit("/", 1)[-1] if pointer else stem
    # (the label every format shows: the file's name read by the secret policy, folder by folder)
    shown = masked_path(text)
    return Side(shown, schema, document, start, versions.api_of(document), path=loaded.path)


def _hint(name: str) -> str:
    """``; did you mean runai-error?`` when ``name`` differs from a bundled schema or an API only by
    case or spelling (an API in any case is that API already)."""
    guess = registry.meant(name, (*registry.BUNDLED, *sorted(versions.apis())))
    return f"; did you mean {guess}?" if guess else ""


def _apis() -> str:
    return "APIs: " + ", ".join(f"{api}@{'|'.join(known)}" for api, known in sorted(versions.apis().items()))


def _only(old: list[Side], new: list[Side]) -> str:
    """`` (aihc-job-detail only in AIHC v1; aihc-v2-job only in AIHC v2)``: the schemas of two versions
    of one API that only one of them has; empty for other sides."""
    said = []
    for these, those in ((old, new), (new, old)):
        if not these or not all(side.version and side.api == these[0].api for side in these):
            return ""
        names = sorted({side.schema for side in these} - {side.schema for side in those})
        if names:
            said.append(f"{', '.join(names)} only in {versions.label(these[0].api or '')} {these[0].version}")
    return f" ({'; '.join(said)})" if said else ""


def _named(sides: list[Side]) -> str:
    return json.dumps(sorted(side.label for side in sides))
