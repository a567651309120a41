"""Which versions of an API accept each payload, and why the others do not (``jobschema versions``).

A version accepts a payload when the payload is valid against that version's schema
(:func:`jobschema.schemas.versions.schema_for`): no JSON Schema error and no ``not-in-version``
finding. The semantic rules (cross-field checks) and warnings are the same in every version, so they
decide nothing here. A version that rejects a payload gives one reason: its first ``not-in-version``
finding (the field or value that rules the version out), else its first other error.

>>> from jobschema.validate.accepted import judge_paths
>>> judged = judge_paths(["schemas/examples/runai-distributed-workload/mpi-job.json"])
>>> judged.verdicts[0].accepted
('2.24',)
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import BinaryIO

from jobschema.findings import Finding, problem
from jobschema.inputs.files import expand, input_names
from jobschema.inputs.payload import Payload, Skipped
from jobschema.inputs.read import read_payloads
from jobschema.pointer import from_path
from jobschema.schemas import versions
from jobschema.schemas.detect import detect
from jobschema.validate.session import Session, check_value, payload_result


@dataclass(frozen=True)
class Verdict:
    """One payload: the versions that accept it, each other one with its reason, and the version its
    capture names (a HAR's cluster answer), if any."""

    source: str
    schema: str
    accepted: tuple[str, ...]
    rejected: tuple[tuple[str, str], ...]
    declared: str | None = None
    #: For a payload no version accepts although each field of it fits some version: the fewest
    #: fields (among those that rule versions out) that no version has together, each with the
    #: versions it fits alone, oldest first (``(("/spec/compute/migProfile", ("2.18", ...)), ...)``).
    conflict: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Why an input that could not be read (or that no schema fits) is accepted by no version, placed
    #: in its file as validate places it (None for a payload checked against each version).
    problem: Finding | None = None

    @property
    def line(self) -> int | None:
        """The line of its file where an input problem stands (None: none, or it has no place)."""
        return None if self.problem is None else self.problem.line

    @property
    def column(self) -> int | None:
        """The column beside :attr:`line`."""
        return None if self.problem is None else self.problem.column


@dataclass
class Judgement:
    """Every payload's verdict, in input order, and how many inputs were not payloads of the API."""

    api: str
    versions: tuple[str, ...]
    verdicts: list[Verdict] = field(default_factory=list)
    skipped: int = 0

    @property
    def accepted_by_all(self) -> tuple[str, ...]:
        """The versions that accept every payload (all of them when there is none)."""
        return tuple(v for v in self.versions if all(v in verdict.accepted for verdict in self.verdicts))


def judge_paths(
    inputs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    api: str = "runai",
    stdin: BinaryIO | None = None,
    skip_unknown: bool = False,
) -> Judgement:
    """:func:`judge` of every payload behind ``inputs`` (files, folders, globs, ``-``; one path or an
    iterable of them: one string is one path, never one per character), read as ``jobschema
    validate`` reads them."""
    return judge(read_payloads(expand(input_names(inputs)).files, stdin), api, skip_unknown)


def judge(items: Iterable[Payload | Skipped], api: str = "runai", skip_unknown: bool = False) -> Judgement:
    """The verdicts of ``items`` on every known version of ``api``; other APIs' payloads are skipped,
    and with ``skip_unknown`` so is JSON no bundled schema fits (``package.json``), which otherwise
    no version accepts (as ``validate`` fails it unless ``--skip-unknown``)."""
    judged = Judgement(api, versions.known(api))
    session = Session()
    names = versions.schemas_of(api)
    for item in items:
        verdict = (
            None
            if isinstance(item, Skipped)
            else judge_payload(session, item, names, judged.versions, skip_unknown)
        )
        if verdict is None:
            judged.skipped += 1
        else:
            judged.verdicts.append(verdict)
    return judged


def judge_payload(
    session: Session,
    payload: Payload,
    names: Sequence[str],
    known: tuple[str, ...],
    skip_unknown: bool = False,
) -> Verdict | None:
    """The verdict on one payload, None when it is a payload of another API (not of ``names``), or
    with ``skip_unknown`` of none. A payload that could not be read (or a file that is not what its
    name says, such as a HAR that is no HAR), or that fits no schema of any API, is accepted by no
    version, with the reason."""
    errors = [found for found in payload.problems if found.severity == "error"]
    if not payload.parsed or errors:
        first = errors[0] if errors else problem((), "the payload could not be read", "encoding")
        return _rejected(session, payload, first, known)
    name = payload.schema
    if name is None:
        detected = detect(payload.value)
        if detected.schema is None:
            # (``versions`` has no --schema: the reason without that advice)
            if detected.ambiguous:  # a job answer, of which schema cannot be told: never skipped,
                if not set(detected.fits) & set(names):  # unless every schema it fits is another API's
                    return None
                return _rejected(session, payload, problem((), detected.why, "ambiguous-schema"), known)
            unfit = problem((), detected.why, "no-schema")
            return None if skip_unknown else _rejected(session, payload, unfit, known)
        name = detected.schema
    if name not in names:
        return None
    accepted: list[str] = []
    rejected: list[tuple[str, str]] = []
    ruled_out: dict[str, set[str]] = {}  # version -> the pointers of its errors
    firsts: list[str] = []  # the pointers of each rejecting version's reason, once each
    for version in known:
        errors = _errors(check_value(session.checker(name, version), payload.value))
        if not errors:
            accepted.append(version)
            continue
        first = min(errors, key=lambda f: (f.rule != versions.RULE, f.pointer, f.rule, f.message))
        rejected.append((version, f"{_pointer(first)}: {first.message} [{first.rule}]"))
        ruled_out[version] = {_pointer(found) for found in errors}
        firsts += [] if _pointer(first) in firsts else [_pointer(first)]
    conflict = () if accepted else _conflict(firsts, ruled_out, known)
    return Verdict(payload.source, name, tuple(accepted), tuple(rejected), payload.api_version, conflict)


def _conflict(
    pointers: list[str], ruled_out: dict[str, set[str]], known: tuple[str, ...]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The fewest of ``pointers`` that each fit some version but no version all together, each with
    the versions it fits (no error there or above), oldest first; none when a pointer fits no
    version at all (that field alone rules every version out: the reasons say it)."""
    fits = {p: tuple(v for v in known if not _under(p, ruled_out.get(v, set()))) for p in pointers}
    if len(pointers) < 2 or not all(fits.values()):
        return ()
    for size in range(2, len(pointers) + 1):
        for chosen in itertools.combinations(pointers, size):
            if not set(known).intersection(*(fits[p] for p in chosen)):
                ordered = sorted(chosen, key=lambda p: (known.index(fits[p][0]), p))
                return tuple((p, fits[p]) for p in ordered)
    return ()


def _under(pointer: str, errors: set[str]) -> bool:
    """Whether one of ``errors`` is at ``pointer`` or above it (a field inside an object the version
    does not have fits it no more than the object does; ``(root)`` is above every field)."""
    return "(root)" in errors or any(pointer == e or pointer.startswith(e + "/") for e in errors)


def _pointer(found: Finding) -> str:
    return from_path(found.tokens) or "(root)"


def _rejected(session: Session, payload: Payload, found: Finding, known: tuple[str, ...]) -> Verdict:
    """The verdict on an input no version was tried on (it could not be read, or no schema fits it):
    every version rejects it for ``found``, placed in its input as validate places it."""
    [placed] = payload_result(session, payload, "", [found]).findings
    reason = f"{found.message} [{found.rule}]"
    return Verdict(
        payload.source,
        "",
        (),
        tuple((version, reason) for version in known),
        payload.api_version,
        problem=placed,
    )


def _errors(findings: list[Finding]) -> list[Finding]:
    """What rules a version out: the schema errors (its first ``not-in-version`` finding, else its
    first schema error, is the reason said); cross-field rules are every version's."""
    semantic = _semantic_rules()
    return [f for f in findings if f.severity == "error" and f.rule not in semantic]


@cache
def _semantic_rules() -> frozenset[str]:
    from jobschema.validate import rules

    return frozenset(rule.id for rule in rules.all_rules())
