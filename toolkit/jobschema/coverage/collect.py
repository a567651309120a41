"""Schema coverage of a payload corpus: which properties and enum values were exercised, and drift.

Each schema is compiled once into a tree of :class:`Place` objects, one per schema location a payload
value can sit at (``$ref``, ``allOf``, ``anyOf`` and ``oneOf`` merged; a ``$ref`` cycle becomes an edge
back to the ancestor place, so recursive schemas stay finite). A payload is then walked together with
that tree in one linear pass, without any JSON Schema validation. The same pass finds the keys the
schema does not declare, by the rules of :func:`jobschema.validate.strict.undeclared` (what
``jobschema validate --strict`` reports), so the two never disagree; the tests hold them to that.

Every count is a number of payloads. Embedded documents (strings annotated with
``x-jobschema-embedded-schema``, the AIHC raw-request annotation) are counted as payloads of their own
section, ``aihc-raw-request (embedded)``, kept apart from standalone captures of that schema.

>>> report = coverage_payloads([(None, {"code": 404, "message": "Resource id not found."})])
>>> [(p.path, p.payloads) for p in report.schemas[0].properties]
[('code', 1), ('details', 0), ('message', 1)]
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from jobschema.apis import aihc_v2
from jobschema.coverage.report import CoverageReport, Drift, PropertyCount, SchemaCoverage, ValueCount
from jobschema.errors import ToolkitError
from jobschema.findings import Finding
from jobschema.inputs.files import expand, input_names, named
from jobschema.inputs.parse import parse_text
from jobschema.inputs.payload import Payload, Skipped
from jobschema.inputs.read import read_payloads
from jobschema.pointer import Tokens
from jobschema.schemas import registry, versions
from jobschema.schemas.detect import detect
from jobschema.schemas.places import (
    Exercised,
    Place,
    ValueKey,
    compile_places,
    exercise,
    join_path,
    key_segment,
    value_key,
)
from jobschema.secrets.policy import masked_pointer, masked_token
from jobschema.text import several


@dataclass
class _Section:
    """The running counts of one schema (or of the documents embedded under it)."""

    schema: registry.Schema
    embedded: bool
    root: Place
    places: list[Place]
    payloads: int = 0
    present: Counter[Place] = field(default_factory=Counter)
    null: Counter[Place] = field(default_factory=Counter)
    values: Counter[tuple[Place, ValueKey]] = field(default_factory=Counter)
    drift: Counter[tuple[str, ...]] = field(default_factory=Counter)
    #: per undeclared key: the first payload that had it, its pointer there and the key's path, as
    #: shown (each key read by the secret policy first)
    examples: dict[tuple[str, ...], tuple[str, str, str]] = field(default_factory=dict)
    #: place -> the place counted for it, where several shapes or spellings stand for one member
    #: (AIHC v2: :func:`~jobschema.apis.aihc_v2.canonical_segments`); an alias is not listed
    aliases: dict[Place, Place] = field(default_factory=dict)
    #: the v2 wrapper ``job``, which a flattened answer fills too
    wrapper: Place | None = None

    def __post_init__(self) -> None:
        if self.schema.name != aihc_v2.JOB_SCHEMA:
            return
        at = {place.segments: place for place in self.places}
        at.setdefault((), self.root)
        for place in self.places:
            target = at.get(aihc_v2.canonical_segments(place.segments))
            if target is not None and target is not place:
                self.aliases[place] = target
        self.wrapper = at.get(("job",))

    def _folded(self, hits: Exercised) -> Exercised:
        """``hits`` with every alias place counted as the place it stands for (once per payload); a
        flattened answer fills the wrapper ``job`` as a wrapped one does."""
        if not self.aliases:
            return hits
        get = self.aliases.get
        present = {get(place, place) for place in hits.present}
        if self.wrapper is not None and any(place in self.aliases for place in hits.present):
            present.add(self.wrapper)
        return Exercised(
            present,
            {get(place, place) for place in hits.null},
            {(get(place, place), key) for place, key in hits.values},
            [(aihc_v2.canonical_segments(segments), tokens) for segments, tokens in hits.undeclared],
            hits.embedded,
        )

    def add(self, hits: Exercised, source: str, base: str) -> None:
        """Count one payload (``base``: where an embedded document sits in its outer payload)."""
        hits = self._folded(hits)
        self.payloads += 1
        self.present.update(hits.present)
        self.null.update(hits.null)
        self.values.update(hits.values)
        first: dict[tuple[str, ...], Tokens] = {}
        for segments, tokens in hits.undeclared:
            if segments not in first:
                first[segments] = tokens
        self.drift.update(first.keys())
        for segments, tokens in first.items():
            pointer = base + masked_pointer(tokens)
            known = self.examples.get(segments)
            if known is None or _natural(source, pointer) < _natural(known[0], known[1]):
                self.examples[segments] = (source, pointer, _shown_path(segments, tokens))

    def result(self) -> SchemaCoverage:
        """The finished counts, every list sorted by path."""
        places = sorted(
            (place for place in self.places if place not in self.aliases), key=lambda place: place.segments
        )
        properties = tuple(
            PropertyCount(_schema_path(place), self.present[place], self.null[place], place.segments)
            for place in places
            if place.kind in PROPERTY_KINDS
        )
        values = tuple(count for place in places if place.values for count in self._value_counts(place))
        drift = tuple(
            Drift(self.examples[segments][2], count, *self.examples[segments][:2], segments)
            for segments, count in sorted(self.drift.items())
        )
        name = f"{self.schema.name}@{self.schema.version}" if self.schema.version else self.schema.name
        return SchemaCoverage(name, self.embedded, self.payloads, properties, values, drift)

    def _value_counts(self, place: Place) -> Iterator[ValueCount]:
        keys = [(value, value_key(value)) for value in place.values]
        listed = {key for _, key in keys}
        for value, key in keys:
            count = self.values[(place, key)] if key is not None else 0
            yield ValueCount(_schema_path(place), value, count, True, place.segments)
        extra = [
            (key[1], count) for (at, key), count in self.values.items() if at is place and key not in listed
        ]
        for value, count in sorted(extra, key=lambda pair: json.dumps(pair[0])):
            yield ValueCount(_schema_path(place), value, count, False, place.segments)


PROPERTY_KINDS = frozenset({"property", "map", "pattern"})


def _natural(source: str, pointer: str) -> tuple[tuple[tuple[int, int | str], ...], ...]:
    """The order an undeclared key's example is chosen in: the least source and pointer, numbers read
    as numbers (``caps.ndjson:9`` before ``caps.ndjson:10``), so the report is the same bytes whatever
    order the inputs were given in."""
    return tuple(
        tuple((0, int(part)) if part.isdigit() else (1, part) for part in _NUMBERS.split(text) if part)
        for text in (source, pointer)
    )


_NUMBERS = re.compile(r"(\d+)")


def _shown_path(segments: tuple[str, ...], tokens: Tokens) -> str:
    """The path of an undeclared key: the schema's segments above it, then the payload's own key read
    by :func:`~jobschema.diff.secrets.masked_token` before it is quoted as a segment."""
    key = tokens[-1] if tokens else None
    if not isinstance(key, str) or not segments:
        return join_path(segments)
    return join_path((*segments[:-1], key_segment(masked_token(key))))


def _schema_path(place: Place) -> str:
    """A schema place's path as the report shows it: each of the schema's keys read by
    :func:`~jobschema.secrets.policy.masked_token` (a user's schema may name a property by a
    credential's text; the report's last search reads names and shapes, not encodings)."""
    return join_path(tuple(_masked_segment(segment) for segment in place.segments))


def _masked_segment(segment: str) -> str:
    if segment.startswith('["') and segment.endswith('"]'):
        key = json.loads(segment[1:-1])
        shown = masked_token(key)
        return segment if shown == key else key_segment(shown)
    if segment[:1] in "[{" or segment[-2:] in ("[]", "{}"):
        return segment
    shown = masked_token(segment)
    return segment if shown == segment else key_segment(shown)


class CoverageCollector:
    """Counts payloads one at a time; ``schema`` forces one schema (a bundled name or a file path)."""

    def __init__(self, schema: str | None = None, api_versions: versions.Pins | None = None) -> None:
        self.pins = dict(versions.as_pins(api_versions))
        self.forced = self._pinned(_forced(schema)) if schema else None
        self.unrecognised = 0
        #: ``SOURCE: problem`` of each payload that could not be read or parsed (counted unrecognised)
        self.unread: list[str] = []
        self._sections: dict[tuple[str, str, str, bool], _Section] = {}
        self._compiled: dict[tuple[str, str], tuple[Place, list[Place]]] = {}

    def add_payload(self, payload: Payload) -> None:
        """Count a loaded payload; one that did not parse is unrecognised."""
        if not payload.parsed:
            self.unrecognised += 1
            self.unread.append(unread_line(payload))
            return
        self.add(payload.value, payload.schema, payload.source)

    def add(self, value: Any, schema: str | None = None, source: str = "<payload>") -> None:
        """Count one parsed payload of ``schema`` (detected from its shape when None)."""
        loaded = self.forced or self._schema_of(value, schema, source)
        if loaded is None:
            self.unrecognised += 1
            return
        if not self._count(self._section(loaded, embedded=False), value, source, ""):
            self.unrecognised += 1

    def report(self) -> CoverageReport:
        """The report so far: bundled schemas in catalog order, then others, each embedded one after."""
        sections = sorted(self._sections.values(), key=_order)
        return CoverageReport(
            tuple(section.result() for section in sections), self.unrecognised, tuple(self.unread)
        )

    def _schema_of(self, value: Any, schema: str | None, source: str) -> registry.Schema | None:
        """The schema given or detected; None (unrecognised) when none fits, and when the payload
        holds the marks of several, which is named as an unread payload is (none is guessed)."""
        if schema:
            return self._pinned(registry.load(schema))
        found = detect(value)
        if found.ambiguous:
            self.unread.append(f"{named(source)}: {found.reason}")
        return self._pinned(registry.load(found.schema)) if found.schema else None

    def _pinned(self, schema: registry.Schema) -> registry.Schema:
        """``schema`` as the version pinned for its API has it (as it is when its API is not pinned, or
        when the schema is not in that version: AIHC v1 has no ``aihc-v2-job``)."""
        api = versions.api_of(schema.document)
        version = self.pins.get(api) if api else None
        if version and version not in (schema.document.get(versions.API_VERSIONS) or ()):
            return schema
        return versions.pinned(schema, version) if version else schema

    def _section(self, schema: registry.Schema, embedded: bool) -> _Section:
        key = (schema.name, str(schema.path), schema.version, embedded)
        if key not in self._sections:
            compiled = (key[1], key[2])
            if compiled not in self._compiled:
                self._compiled[compiled] = compile_places(schema.document)
            root, places = self._compiled[compiled]
            self._sections[key] = _Section(schema, embedded, root, places)
        return self._sections[key]

    def _count(self, section: _Section, value: Any, source: str, base: str) -> bool:
        try:
            hits = exercise(section.root, value)
        except RecursionError:
            return False  # nested too deeply to walk
        section.add(hits, source, base)
        for tokens, text, target in hits.embedded:
            self._embedded(text, target, source, base + masked_pointer(tokens))
        return True

    def _embedded(self, text: str, target: str, source: str, base: str) -> None:
        parsed = parse_text(text)
        if not parsed.ok:
            return  # jobschema validate reports embedded JSON that does not parse
        try:
            schema = self._pinned(registry.load(target))
        except ToolkitError:
            return
        self._count(self._section(schema, embedded=True), parsed.value, source, base)


def _forced(schema: str) -> registry.Schema:
    """The schema every payload is counted against: a bundled one, or a schema file checked as
    ``jobschema validate`` checks one (not a JSON Schema, a ``$ref`` to nothing, a pattern that is no
    regular expression: one line, exit 2)."""
    loaded = registry.load(schema)
    if schema not in registry.BUNDLED:
        registry.check_user_file(loaded)
    return loaded


def _order(section: _Section) -> tuple[int, str, bool]:
    name = section.schema.name
    rank = registry.BUNDLED.index(name) if name in registry.BUNDLED else len(registry.BUNDLED)
    return (rank, name, section.embedded)


def coverage_payloads(
    items: Iterable[tuple[str | None, Any]],
    schema: str | None = None,
    api_versions: versions.Pins | None = None,
) -> CoverageReport:
    """Coverage of parsed payloads given as ``(schema name or None to detect, value)``; sources ``#N``."""
    collector = CoverageCollector(schema, api_versions)
    for index, item in enumerate(several(items, "items", "(schema name or None, payload) pairs")):
        problem = _pair_problem(item)
        if problem is not None:
            raise TypeError(
                f"items: expected (schema name or None, payload) pairs; item {index} is {problem}"
            )
        collector.add(item[1], item[0], f"#{index}")
    return collector.report()


def _pair_problem(item: Any) -> str | None:
    """What makes ``item`` no ``(schema name or None, payload)`` pair (None: it is one)."""
    if not isinstance(item, tuple | list):
        return f"a {type(item).__name__}"
    if len(item) != 2:
        return f"a {type(item).__name__} of {len(item)}"
    return (
        None
        if isinstance(item[0], str | None)
        else f"a pair whose schema name is no str ({type(item[0]).__name__})"
    )


def coverage_paths(
    inputs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    schema: str | None = None,
    *,
    stdin: BinaryIO | None = None,
    api_versions: versions.Pins | None = None,
) -> CoverageReport:
    """Coverage of every payload behind ``inputs`` (files, folders, quoted globs, NDJSON, HAR, ``-``);
    with ``api_versions`` (``{"runai": "2.19"}``) each payload of a pinned API is counted against
    that version's schema (:func:`jobschema.schemas.versions.pinned`), its section named
    ``NAME@VERSION``.

    Raises :class:`~jobschema.errors.InputNotFound` for an input that names nothing, and the
    registry's errors for a bad ``schema`` (:class:`~jobschema.schemas.versions.UnknownVersion` for
    a bad version), before any payload is read.
    """
    return coverage_files(expand(input_names(inputs)).files, schema, stdin=stdin, api_versions=api_versions)


def coverage_files(
    files: Iterable[str],
    schema: str | None = None,
    *,
    stdin: BinaryIO | None = None,
    api_versions: versions.Pins | None = None,
) -> CoverageReport:
    """:func:`coverage_paths` of files already expanded."""
    collector = CoverageCollector(schema, api_versions)
    for item in read_payloads(list(files), stdin):
        if not isinstance(item, Skipped):
            collector.add_payload(item)
    return collector.report()


def unread_line(payload: Payload) -> str:
    """``WHERE: PROBLEM`` of a payload that could not be read or parsed, as validate places it:
    ``FILE:LINE:COLUMN`` with the line in the file (an NDJSON line's too), else its source."""
    problem = payload.problems[0] if payload.problems else None
    return f"{_where(payload, problem)}: {problem.message if problem else 'not read'}"


def _where(payload: Payload, problem: Finding | None) -> str:
    """Where a payload that did not parse failed, as validate places it: ``FILE:LINE:COLUMN`` with
    the line in the file (an NDJSON line's too), a HAR body's at its place in the HAR with its entry
    (``FILE:LINE:COLUMN: #N METHOD URL``: a place inside the body is no place in the file), else its
    source."""
    if payload.anchor is not None and payload.path is not None:
        entry = (
            payload.source.removeprefix(payload.path).strip()
            if payload.source.startswith(payload.path)
            else ""
        )
        at = ":".join(map(str, payload.anchor))
        return f"{named(payload.path)}:{at}" + (f": {named(entry)}" if entry else "")
    if problem is None or problem.line is None or payload.path is None:
        return named(payload.source)
    column = f":{problem.column}" if problem.column is not None else ""
    return f"{named(payload.path)}:{problem.line + payload.first_line - 1}{column}"
