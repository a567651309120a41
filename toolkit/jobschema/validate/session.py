"""Checking one loaded payload: the run's settings, the checkers built once per run, and tying each
finding to its input (source, schema, line and column)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jobschema.errors import SchemaInvalid
from jobschema.findings import Finding, PayloadResult, problem
from jobschema.inputs.parse import not_json
from jobschema.inputs.payload import Payload
from jobschema.schemas import registry, versions
from jobschema.schemas.detect import detect
from jobschema.schemas.nodes import ForeignReference
from jobschema.validate.checker import Checker


@dataclass(frozen=True)
class Settings:
    """What a validation run checks and keeps.

    ``schema`` forces one schema (a bundled name or a schema file) instead of detecting it;
    ``strict`` reports undeclared properties and fails on warnings; ``skip_unknown`` counts payloads
    no bundled schema fits as skipped instead of failing them; ``keep_clean=False`` only counts the
    payloads without findings (memory independent of the corpus length); ``api_versions`` pins an API
    to a version, ``(("runai", "2.19"),)`` (:func:`jobschema.schemas.versions.parse_pins`): its
    payloads are checked against that version's schema, whatever version their capture names.
    """

    schema: str | None = None
    strict: bool = False
    skip_unknown: bool = False
    keep_clean: bool = True
    api_versions: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        _check_types(self)

    @classmethod
    def of(
        cls,
        schema: str | os.PathLike[str] | None = None,
        strict: bool = False,
        skip_unknown: bool = False,
        keep_clean: bool = True,
        api_versions: Mapping[str, str] | Iterable[str] | str | None = None,
    ) -> Settings:
        """The settings of a library call: ``schema`` a name or a path (``os.PathLike`` too, kept as
        its ``str``, so both spellings share one session), ``api_versions`` as :func:`pins` takes them."""
        name = os.fspath(schema) if isinstance(schema, os.PathLike) else schema
        return cls(name, strict, skip_unknown, keep_clean, pins(api_versions))


def _check_types(settings: Any) -> None:
    """An argument of the wrong type is a ``TypeError`` naming it, raised before anything is read
    (library callers are not type-checked: ``strict="no"`` would otherwise be strict)."""
    if settings.schema is not None and not isinstance(settings.schema, str):
        kind = type(settings.schema).__name__
        raise TypeError(f"schema: expected a bundled schema name or a schema file path, not {kind}")
    for name in ("strict", "skip_unknown", "keep_clean"):
        if not isinstance(getattr(settings, name), bool):
            raise TypeError(f"{name}: expected True or False, not {type(getattr(settings, name)).__name__}")


def pins(api_versions: Any) -> tuple[tuple[str, str], ...]:
    """``api_versions`` (a mapping, ``API=VERSION`` strings or pairs, or None) as pins
    (:func:`~jobschema.schemas.versions.as_pins`); one ``"API=VERSION"`` string is one pin (not a
    pin per character); any other type is a ``TypeError`` naming ``api_versions``."""
    if isinstance(api_versions, str):
        return versions.as_pins([api_versions])
    if api_versions is not None and not isinstance(api_versions, Mapping | Iterable):
        kind = type(api_versions).__name__
        raise TypeError(f"api_versions: expected a mapping such as {{'runai': '2.19'}}, not {kind}")
    return versions.as_pins(api_versions)


@dataclass
class Session:
    """Checkers built once per run, under ``settings``."""

    settings: Settings = field(default_factory=Settings)
    #: How many payloads each checker reads by the reference engine alone before it builds its
    #: shortcuts (:meth:`~jobschema.validate.checker.Checker.check`): a run of one file sets
    #: :data:`~jobschema.validate.checker.UNSHORTENED`.
    unshortened: int = 0
    _checkers: dict[tuple[str, str], Checker] = field(default_factory=dict)
    _apis: dict[str, str | None] = field(default_factory=dict)

    def checker(self, ref: str, version: str = "") -> Checker:
        """The checker of schema ``ref`` (as ``version`` of its API has it), built on first use."""
        key = (ref, version)
        if key not in self._checkers:
            if version:
                schema = versions.pinned(self.checker(ref).schema, version)
                checker = Checker(schema, self.checker, self.settings.strict, self.unshortened)
            else:
                schema = registry.load(ref)
                checker = Checker(schema, self.checker, self.settings.strict, self.unshortened)
                if ref not in registry.BUNDLED:
                    _check_user_schema(checker)
                self._apis[schema.name] = versions.api_of(schema.document)
            self._checkers[key] = checker
        return self._checkers[key]

    def forced(self) -> Checker | None:
        """The checker of the forced schema (built now, so a bad one fails before any input is read)."""
        return self.checker(self.settings.schema) if self.settings.schema else None

    def version(self, name: str, payload: Payload) -> str:
        """The API version a payload of schema ``name`` (built already) is checked against: the one
        pinned in the settings, else the one its capture names (a HAR's cluster answer), else ``""``
        (every version at once)."""
        api = self._apis.get(name)
        if api is None:
            return ""
        pinned = dict(self.settings.api_versions).get(api)
        return pinned or versions.resolve(api, payload.api_version) or ""

    def versioned(self, ref: str, payload: Payload) -> Checker:
        """The checker of ``ref`` for ``payload``'s API version (:meth:`version`)."""
        plain = self.checker(ref)
        version = self.version(plain.schema.name, payload)
        return self.checker(ref, version) if version else plain


def _check_user_schema(checker: Checker) -> None:
    """A schema file must be a valid JSON Schema that jsonschema-rs compiles: else one-line exit 2."""
    registry.check_user_schema(checker.schema)
    try:
        _ = checker.fast
    except ForeignReference as err:  # (never read: any file, any host)
        raise SchemaInvalid(f"{checker.schema.path}: {err}: put what it names in the schema itself") from err
    except ValueError as err:  # jsonschema-rs: e.g. a "pattern" it cannot compile
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise SchemaInvalid(f"{checker.schema.path}: schema does not compile: {first}") from err


def check_payload(session: Session, payload: Payload) -> PayloadResult:
    """Check one loaded payload within a session."""
    return payload_result(session, payload, *payload_findings(session, payload))


def payload_findings(session: Session, payload: Payload) -> tuple[str, list[Finding]]:
    """The schema of one loaded payload (``""``: none) and its findings, not yet placed in its input
    (:func:`payload_result` places them)."""
    checker = session.forced() or (session.checker(payload.schema) if payload.schema else None)
    name = checker.schema.name if checker else None
    findings = list(payload.problems)
    if payload.parsed:
        if checker is None:
            name, unfit = _detected(payload.value)
            findings += unfit
            checker = session.checker(name) if name else None
        if checker is not None:
            ref = session.settings.schema or payload.schema or checker.schema.name
            try:
                findings = check_value(session.versioned(ref, payload), payload.value, findings)
            except (TypeError, ValueError, RecursionError):
                held = _not_json(payload)
                if held is None:  # (a value JSON can hold: a bug, raised as it is)
                    raise
                findings = [*findings, held]
    return name or "", findings


def _not_json(payload: Payload) -> Finding | None:
    """Why checking a payload given to the library as a value failed: what it holds that JSON
    cannot (a key that is no string, a set, a cycle...), as the one finding a parse error would be;
    None when it holds nothing of the kind (or came from text). Values are not walked before they
    are checked (that would cost more than the check): what no check reads is not looked at."""
    found = not_json(payload.value) if payload.text is None and payload.raw is None else None
    return problem(found[0], found[1], "parse-error") if found is not None else None


def check_value(checker: Checker, value: Any, findings: list[Finding] | None = None) -> list[Finding]:
    """``findings`` and those of checking ``value``; under a version's schema, each property or enum
    value of another version is a ``not-in-version`` finding (:func:`jobschema.schemas.versions.absent`)."""
    found = [*(findings or ()), *checker.check(value)]
    return versions.with_absent(checker.schema.document, value, found) if checker.schema.version else found


def payload_result(session: Session, payload: Payload, name: str, findings: list[Finding]) -> PayloadResult:
    """The result of one payload: its findings tied to its input and sorted."""
    placed = _place(payload, findings, name)
    return PayloadResult(
        payload.source,
        name,
        tuple(sorted(placed, key=Finding.sort_key)),
        session.settings.strict,
        session.version(name, payload) if name else "",
    )


def _detected(value: Any) -> tuple[str | None, list[Finding]]:
    """The schema detected for ``value``, or the finding that says why none fits (``no-schema``) or
    why none is chosen (``ambiguous-schema``: the marks of several; ``--skip-unknown`` skips no such
    payload)."""
    found = detect(value)
    if found.schema is not None:
        return found.schema, []
    return None, [problem((), found.reason, "ambiguous-schema" if found.ambiguous else "no-schema")]


def unrecognised(result: PayloadResult) -> bool:
    """True when no bundled schema fits the payload and nothing else is wrong with it."""
    return not result.schema and all(finding.rule == "no-schema" for finding in result.findings)


def _place(payload: Payload, findings: list[Finding], schema: str) -> list[Finding]:
    """Each finding tied to the payload's source and schema, and to its line and column in the file."""
    offset = payload.first_line - 1
    fixed = payload.fixed
    where = payload.anchor or ((fixed[0] + offset, fixed[1]) if fixed else None)
    located: dict[tuple[str, ...], tuple[int, int]] = {}
    if findings and not where:
        # (imported here: a payload without findings is never located)
        from jobschema.inputs.locate import locate, locate_parsed, locate_written

        tokens = [finding.tokens for finding in findings]
        if payload.indented:  # the text is orjson's writing of the value: read the value, not the text
            located = locate_written(payload.value, tokens)
        elif (text := payload.json_text()) is not None:
            located = (
                locate_parsed(text, payload.value, tokens, payload.repeats)
                if payload.parsed
                else locate(text, tokens, repeats=False)  # (no value was read: its first places)
            )
    placed = []
    for finding in findings:
        line: int | None
        column: int | None
        if where is not None:
            line, column = where
        elif (place := located.get(tuple(map(str, finding.tokens)))) is not None:
            line, column = place[0] + offset, place[1]
        else:
            line, column = None, None
        placed.append(finding.placed(payload.source, schema, payload.path, (line, column)))
    return placed
