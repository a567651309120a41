"""API versions: which versions of an API a bundled schema knows, which of them have each property,
enum value, pattern and bound, and the schema of one version.

The hand-authored schema is the union of every version (right for a mixed fleet). Its annotations say
what belongs to which version; ``jobschema schemas annotate-versions`` writes them from the official
specs vendored in ``schemas/official/`` (:mod:`jobschema.schemas.annotate`), and never a person:

- root: ``"x-jobschema-api": "runai"`` and ``"x-jobschema-api-versions": ["2.18", ..., "2.24"]``, the
  versions the annotations cover, oldest first;
- on a property (or array items) schema: ``"x-jobschema-since": "2.22"``, the first version that has
  it (absent: as old as its parent), ``"x-jobschema-until": "2.24"``, the first that no longer has
  it; ``"later"`` as ``since``: in no known version's spec (documented for a newer one);
- beside an ``enum``: ``"x-jobschema-enum-since": {"JAX": "2.21"}`` and
  ``"x-jobschema-enum-until": {"migProfile": "2.24"}``;
- ``"x-jobschema-by-version": {"pattern": {"2.18": "^…$", "2.23": "^…$"}}``: a keyword (a pattern,
  a bound, ``deprecated``, ``x-jobschema-pattern``) whose value changed, from each version on; ``null``
  means the version does not have the keyword.

:func:`schema_for` derives the document of one version from them: exactly what that version may send.
A property or enum value of another version is left out, and its parent lists it under
``x-jobschema-not-in-version`` (``x-jobschema-values-not-in-version``) with the version that added or
removed it, so :func:`absent` can name that version in a ``not-in-version`` finding; the version's
own patterns, bounds and deprecations apply. A version outside the annotations' list is unknown.

>>> from jobschema.schemas import versions
>>> versions.known("runai")[:2]
('2.18', '2.19')
>>> spec = versions.schema_for("runai-distributed-workload", "2.19")["$defs"]["ContainerSpec"]
>>> "preemptibility" in spec["properties"], spec["x-jobschema-not-in-version"]["preemptibility"]
(False, 'added in 2.24')
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any

from jobschema.errors import ToolkitError
from jobschema.findings import Finding, problem
from jobschema.schemas import registry
from jobschema.schemas.keywords import BOUNDS

if TYPE_CHECKING:
    from jobschema.schemas.annotated import Trie

API = "x-jobschema-api"
API_VERSIONS = "x-jobschema-api-versions"
SINCE = "x-jobschema-since"
UNTIL = "x-jobschema-until"
ENUM_SINCE = "x-jobschema-enum-since"
ENUM_UNTIL = "x-jobschema-enum-until"
BY_VERSION = "x-jobschema-by-version"
#: ``since`` of a property in no known version's spec.
LATER = "later"
#: The annotations :func:`schema_for` reads and leaves out of a version's document.
ANNOTATIONS = (SINCE, UNTIL, ENUM_SINCE, ENUM_UNTIL, BY_VERSION)
#: In a version's document: the version, and what it does not have (name or value -> why).
VERSION = "x-jobschema-api-version"
NOT_IN = "x-jobschema-not-in-version"
#: In the document of a version a schema is not in at all: why (every payload of it is ruled out).
SCHEMA_NOT_IN = "x-jobschema-schema-not-in-version"
VALUES_NOT_IN = "x-jobschema-values-not-in-version"
RULE = "not-in-version"
#: How the APIs are named to people.
LABELS = {"runai": "Run:ai", "aihc": "AIHC"}

#: The subschema keywords a derivation visits (everything else is a literal value or a map of them).
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "$defs", "patternProperties", "dependentSchemas")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")


class UnknownVersion(ToolkitError):
    """An API or version jobschema has no annotations for (exit 2)."""


# ------------------------------------------------------------------------------------ the tables


@cache
def apis() -> dict[str, tuple[str, ...]]:
    """Every API the bundled schemas name, with its known versions, oldest first: every version any
    of its schemas is in (AIHC's v1 job detail and v2 DescribeJob answer are two schemas, its error
    body is both versions')."""
    found: dict[str, dict[str, None]] = {}
    for name in registry.BUNDLED:
        document = registry.load(name).document
        api = api_of(document)
        if api is not None:
            found.setdefault(api, {}).update(dict.fromkeys(document.get(API_VERSIONS) or ()))
    return {api: tuple(sorted(known, key=_version_key)) for api, known in found.items()}


def _version_key(version: str) -> tuple[int, ...]:
    """``v1`` before ``v2``, ``2.9`` before ``2.18``."""
    return tuple(int(part) if part.isdigit() else -1 for part in version.lstrip("vV").split("."))


def known(api: str) -> tuple[str, ...]:
    """The known versions of ``api`` (``runai``, ``aihc``), oldest first."""
    try:
        return apis()[api]
    except KeyError:
        raise UnknownVersion(
            f"{api}: not an API jobschema knows (one of {', '.join(sorted(apis()))})"
        ) from None


def api_of(document: dict[str, Any]) -> str | None:
    """The API a schema document belongs to (its ``x-jobschema-api``), or None."""
    api = document.get(API)
    return api if isinstance(api, str) and api else None


def schemas_of(api: str) -> tuple[str, ...]:
    """The bundled schemas of ``api``."""
    return tuple(name for name in registry.BUNDLED if api_of(registry.load(name).document) == api)


def label(api: str) -> str:
    """``Run:ai`` for ``runai``."""
    return LABELS.get(api, api)


#: ``[v|V]MAJOR.MINOR`` in ASCII digits, then at most the rest of a SemVer release: ``.PATCH`` (and
#: more numbers, a build's own: ``2.19.0.1``), a pre-release of dot-separated identifiers (``-rc.1``)
#: and build metadata (``+b7``); ``2.21..1``, ``2.21-`` and ``2.21+`` are no release. A number is
#: written without leading zeros (``2.019`` is no version: a typo of 2.19 or of 2.1.9).
_TAIL = r"(?:\.[0-9]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
_VERSION_TEXT = re.compile(r"^[vV]?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)" + _TAIL, re.ASCII)
_LEADING_ZERO = re.compile(r"^[vV]?[0-9]+\.[0-9]+" + _TAIL, re.ASCII)
#: Two versions of one major joined as a range or a list (``2.20-2.22``, ``2.20..2.22``, ``2.20,2.22``).
_RANGE = re.compile(
    r"^[vV]?(?P<major>[0-9]+)\.[0-9]+(?:\.[0-9]+)?\s*(?:-|\.\.|,|;|\s|~|to)\s*[vV]?(?P=major)\.[0-9]+",
    re.ASCII,
)
#: Two named versions joined (AIHC's ``v1-v2``, ``v1,v2``).
_NAMED_RANGE = re.compile(r"^[vV][0-9]+\s*(?:-|\.\.|,|;|\s|~|to)\s*[vV][0-9]+$", re.ASCII)
#: What begins a comparison (``>=2.20``, ``~=2.20``, ``^2.20``, ``*``) on either side of the ``=``.
_COMPARISON = re.compile(r"[<>~^!*]")


def resolve(api: str, text: str | None) -> str | None:
    """The known version of ``api`` that ``text`` names (a cluster's ``2.19.3``, ``v2.19``,
    ``V2.19``, ``2.19``; AIHC's ``v1`` or ``V1``), or None when it names none (digits of another
    script, fullwidth or Arabic-Indic, name none)."""
    if not isinstance(text, str) or not text.strip() or api not in apis():
        return None
    versions = known(api)
    text = text.strip()
    text = f"v{text[1:]}" if text[:1] == "V" else text
    if text in versions:
        return text
    match = _VERSION_TEXT.match(text)
    minor = f"{int(match[1])}.{int(match[2])}" if match else None
    return minor if minor in versions else None


def parse_pin(text: str) -> tuple[str, str]:
    """``runai=2.19`` (or ``runai@2.19``, as ``jobschema changes`` names a version) as
    ``("runai", "2.19")``; raises :class:`UnknownVersion` naming what is known (for a version given
    without its API, the pin meant)."""
    _no_range(text)
    api, version = split_pin(text)
    if api is None:
        meant = _meant(text)
        raise UnknownVersion(
            f"{text!r}: give API=VERSION; did you mean {meant}?"
            if meant
            else f"{text!r}: give API=VERSION, e.g. runai=2.19"
        )
    if not api or not version:
        raise UnknownVersion(f"{text!r}: give API=VERSION, e.g. runai=2.19")
    api = api.lower() if api.lower() in apis() else api  # (RunAI=2.19 is runai=2.19)
    versions = known(api)
    found = resolve(api, version)
    if found is None:
        raise UnknownVersion(
            f"{text!r}: {label(api)} {version} is not a known version ({', '.join(versions)})"
            + zero_hint(version)
        )
    return api, found


def _no_range(text: str) -> None:
    """Raise :class:`UnknownVersion` for a pin that is a range, a comparison or a list
    (``runai=2.20-2.22``, ``runai>=2.20``, ``runai=2.20,2.22``), or written ``runai==2.21``: a pin
    is one version (``jobschema versions`` says which versions accept a capture)."""
    compared = _COMPARISON.search(text)
    if "=" in text or "@" in text:
        api, sep, version = text.partition("=") if "=" in text else text.partition("@")
    elif compared:  # (runai>2.20)
        api, sep, version = text[: compared.start()], compared[0], text[compared.start() :]
    else:  # (a version without its API: 2.20-2.22 is a range of Run:ai's, v1-v2 of AIHC's)
        api, sep, version = "", "", text
    bare = _COMPARISON.sub("", version).strip().lstrip("=").strip()
    name = _COMPARISON.sub("", api).strip().lower() or ("aihc" if _NAMED_RANGE.match(bare) else "runai")
    if (sep or api) and name not in apis():
        return  # (an API jobschema does not know is said first)
    first = re.match(r"[vV]?[0-9]+(?:\.[0-9]+)?", bare, re.ASCII)
    meant = resolve(name, first[0]) if first else None
    example = f"{name}={meant or known(name)[-1] if name in apis() else '2.19'}"
    if compared or not_one_version(version):
        raise UnknownVersion(f"{text!r}: {one_version_only(example)}")
    if sep == "=" and version.strip().startswith("=") and first:
        raise UnknownVersion(f"{text!r}: give API=VERSION; did you mean {example}?")


def not_one_version(version: str) -> bool:
    """Whether ``version`` is a range, a comparison or a list of versions (``2.20-2.22``,
    ``>=2.20``, ``2.20,2.22``), which no pin takes."""
    text = version.strip()
    return bool(_COMPARISON.search(text) or _RANGE.match(text) or _NAMED_RANGE.match(text))


def one_version_only(example: str) -> str:
    """What a range given for a pin lacks: one version (``example``, ``runai=2.20``)."""
    return (
        f"give one version, not a range or list ({example}); "
        "'jobschema versions' says which versions accept a capture"
    )


def split_pin(text: str) -> tuple[str | None, str]:
    """``API=VERSION`` or ``API@VERSION`` as ``(API, VERSION)``, each stripped (the first ``=``, else
    the first ``@``); ``(None, text)`` when there is neither."""
    for sep in ("=", "@"):
        api, found, version = text.partition(sep)
        if found:
            return api.strip(), version.strip()
    return None, text.strip()


def _meant(text: str) -> str | None:
    """``runai=2.21``, the pin meant by a version given without its API (``2.21``), when exactly one
    API has that version; None otherwise."""
    meant = [f"{api}={found}" for api in sorted(apis()) if (found := resolve(api, text))]
    return meant[0] if len(meant) == 1 else None


def zero_hint(version: str) -> str:
    """What a version written with a leading zero (``2.019``) lacks; empty for any other text."""
    if _LEADING_ZERO.match(version) and not _VERSION_TEXT.match(version):
        return "; its numbers are written without a leading zero"
    return ""


def parse_pins(texts: tuple[str, ...] | list[str]) -> tuple[tuple[str, str], ...]:
    """Each ``API=VERSION`` once per API, sorted by API (a second version of one API is an error)."""
    pins: dict[str, str] = {}
    for text in texts:
        api, version = parse_pin(text)
        if pins.get(api, version) != version:
            raise UnknownVersion(f"{api}: one version per API (given {pins[api]} and {version})")
        pins[api] = version
    return tuple(sorted(pins.items()))


Pins = Mapping[str, str] | Iterable[str] | Iterable[tuple[str, str]]


def as_pins(given: Pins | None) -> tuple[tuple[str, str], ...]:
    """:func:`parse_pins` of a mapping (``{"runai": "2.19"}``), of one ``API=VERSION`` string or an
    iterable of them, or of ``(api, version)`` pairs. A version given as a number (``2.20`` is the
    float 2.2) or any other type is a ``TypeError`` naming ``api_versions``."""
    if given is None:
        return ()
    if isinstance(given, str):
        return parse_pins([given])  # (one pin, not a pin per character)
    if isinstance(given, Mapping):
        return parse_pins([_pin_text(pair) for pair in given.items()])
    if not isinstance(given, Iterable):
        raise TypeError(
            f"api_versions: expected a mapping such as {{'runai': '2.19'}}, not {type(given).__name__}"
        )
    return parse_pins([item if isinstance(item, str) else _pin_text(item) for item in given])


def _pin_text(pair: Any) -> str:
    """``runai=2.19`` of ``("runai", "2.19")``; a ``TypeError`` for anything else."""
    if not isinstance(pair, tuple | list) or len(pair) != 2:
        raise TypeError(f"api_versions: expected 'API=VERSION' or (API, VERSION), not {pair!r}")
    api, version = pair
    if isinstance(version, int | float) and not isinstance(version, bool) and isinstance(api, str):
        raise TypeError(f"api_versions: {api}'s version is the number {version!r}; write it as text ('2.20')")
    if not isinstance(api, str) or not isinstance(version, str):
        raise TypeError(f"api_versions: expected the API and its version as text, not {pair!r}")
    return f"{api}={version}"


def runs(chosen: Iterable[str], versions: tuple[str, ...]) -> str:
    """``2.18, 2.21-2.24``: the versions of ``chosen`` as runs of consecutive known versions."""
    picked = [v in set(chosen) for v in versions]
    parts, start = [], None
    for index, taken in enumerate([*picked, False]):
        if taken and start is None:
            start = index
        elif not taken and start is not None:
            end = index - 1
            parts.append(versions[start] if start == end else f"{versions[start]}-{versions[end]}")
            start = None
    return ", ".join(parts)


def _index(versions: tuple[str, ...], version: str | None, default: int) -> int:
    if version is None:
        return default
    if version == LATER:
        return len(versions)
    try:
        return versions.index(version)
    except ValueError:
        raise UnknownVersion(f"{version}: not among the schema's versions ({', '.join(versions)})") from None


def span(versions: tuple[str, ...], since: str | None, until: str | None) -> tuple[str, ...]:
    """The versions from ``since`` (None: the first) up to, not including, ``until`` (None: all)."""
    return versions[_index(versions, since, 0) : _index(versions, until, len(versions))]


def _reason(versions: tuple[str, ...], since: str | None, until: str | None, version: str) -> str | None:
    """Why ``version`` is outside ``[since, until)``, or None when it is inside."""
    if version in span(versions, since, until):
        return None
    if since == LATER:
        return f"in no published spec up to {versions[-1]}"
    if since is not None and _index(versions, version, 0) < _index(versions, since, 0):
        return f"added in {since}"
    return f"removed in {until}"


# ------------------------------------------------------------------------- one version's document


def schema_for(name: str, version: str) -> dict[str, Any]:
    """The document of bundled schema ``name`` as ``version`` of its API has it (a fresh copy);
    ``version`` is written as everywhere else (``2.19``, ``v2.19``, ``2.19.3``: :func:`resolve`)."""
    return copy.deepcopy(document_of(name, version_of(name, version)))


def version_of(name: str, version: Any) -> str:
    """The known version of bundled schema ``name``'s API that ``version`` names; an
    :class:`UnknownVersion` naming the schema and the known ones, a ``TypeError`` for a version that
    is not text (``2.20`` as a number is 2.2)."""
    if not isinstance(version, str):
        raise TypeError(f"version: expected text such as '2.19', not {type(version).__name__} {version!r}")
    api = api_of(registry.load(name).document)
    if api is None:
        raise UnknownVersion(f"{name}: has no API versions (it is the same in every version)")
    found = resolve(api, version)
    if found is None:
        raise UnknownVersion(f"{name}: has no version {version} ({', '.join(known(api))})")
    return found


@cache
def document_of(name: str, version: str) -> dict[str, Any]:
    """:func:`schema_for` derived once per process and shared: never change it."""
    return derive(registry.load(name).document, version)


def pinned(schema: registry.Schema, version: str) -> registry.Schema:
    """``schema`` as ``version`` of its API has it (bundled ones are derived once per process)."""
    if schema.name in registry.BUNDLED and schema.document is registry.load(schema.name).document:
        return replace(schema, document=document_of(schema.name, version), version=version)
    return replace(schema, document=derive(schema.document, version), version=version)


def derive(document: dict[str, Any], version: str) -> dict[str, Any]:
    """The document of ``version`` from an annotated union ``document`` (which is not changed)."""
    api = api_of(document)
    versions = tuple(document.get(API_VERSIONS) or ())
    if api is not None and version not in versions and version in apis().get(api, ()) and versions:
        return _elsewhere(document, api, versions, version)
    if api is None or version not in versions:
        raise UnknownVersion(
            f"{document.get('$id', 'schema')}: has no version {version} ({', '.join(versions)})"
        )
    derived = copy.deepcopy(document)
    for node in _schema_nodes(derived):
        _for_version(node, versions, version)
    derived.pop(API_VERSIONS, None)
    derived[VERSION] = version
    if isinstance(derived.get("$id"), str):
        derived["$id"] = f"{derived['$id']}@{version}"
    if isinstance(derived.get("title"), str):
        derived["title"] = f"{derived['title']} ({label(api)} {version})"
    return derived


def _elsewhere(document: dict[str, Any], api: str, versions: tuple[str, ...], version: str) -> dict[str, Any]:
    """The document of a known ``version`` of ``api`` that a schema is not in (AIHC v1 has no
    ``aihc-v2-job``): the schema of its own versions, whose every payload :func:`absent` names as
    not in ``version``."""
    derived = derive(document, versions[-1])
    name = str(document.get("$id", "schema")).rsplit(":", 1)[-1]
    theirs = " and ".join(f"{label(api)} {other}" for other in versions)
    derived[VERSION] = version
    derived[SCHEMA_NOT_IN] = (
        f"an {name} payload is not an answer of {label(api)} {version} (it is {theirs}'s)"
    )
    if isinstance(document.get("$id"), str):
        derived["$id"] = f"{document['$id']}@{version}"
    return derived


def _schema_nodes(node: Any) -> Iterator[dict[str, Any]]:
    """Every schema object of a document (examples and literal values are not visited)."""
    if not isinstance(node, dict):
        return
    yield node
    for keyword in _SCHEMA_MAPS:
        for sub in (node.get(keyword) or {}).values() if isinstance(node.get(keyword), dict) else ():
            yield from _schema_nodes(sub)
    for keyword in _SCHEMA_LISTS:
        for sub in node.get(keyword) or () if isinstance(node.get(keyword), list) else ():
            yield from _schema_nodes(sub)
    for keyword in _SCHEMA_ONE:
        yield from _schema_nodes(node.get(keyword))


def _for_version(node: dict[str, Any], versions: tuple[str, ...], version: str) -> None:
    """One node of the copy as ``version`` has it (its children's own annotations stay for them)."""
    properties = node.get("properties")
    if isinstance(properties, dict):
        gone = {
            key: why
            for key, sub in properties.items()
            if isinstance(sub, dict) and (why := _reason(versions, sub.get(SINCE), sub.get(UNTIL), version))
        }
        for key in gone:
            del properties[key]
        if gone:
            node[NOT_IN] = gone
            if isinstance(node.get("required"), list):
                node["required"] = [key for key in node["required"] if key not in gone]
    if isinstance(node.get("enum"), list) and (ENUM_SINCE in node or ENUM_UNTIL in node):
        since, until = node.get(ENUM_SINCE) or {}, node.get(ENUM_UNTIL) or {}
        gone = {
            value: why
            for value in node["enum"]
            if isinstance(value, str)
            and (why := _reason(versions, since.get(value), until.get(value), version))
        }
        node["enum"] = [value for value in node["enum"] if value not in gone]
        if gone:
            node[VALUES_NOT_IN] = gone
    for keyword, steps in (node.get(BY_VERSION) or {}).items():
        value = step_value(versions, steps, version)
        if value is None:
            node.pop(keyword, None)
        else:
            node[keyword] = value
    for annotation in ANNOTATIONS:
        node.pop(annotation, None)


def step_value(versions: tuple[str, ...], steps: dict[str, Any], version: str) -> Any:
    """The value of a ``x-jobschema-by-version`` keyword in ``version``: the last step at or before it."""
    at = _index(versions, version, 0)
    value = None
    for start, step in sorted(steps.items(), key=lambda item: _index(versions, item[0], 0)):
        if _index(versions, start, 0) <= at:
            value = step
    return value


# --------------------------------------------------------------------------- not-in-version findings

_TRIES: dict[int, tuple[dict[str, Any], Trie]] = {}


def absent(document: dict[str, Any], payload: Any) -> list[Finding]:
    """The ``not-in-version`` findings of ``payload`` under a version's ``document``: each property and
    enum value it carries that the version does not have, naming the version that added or removed it."""
    version = document.get(VERSION)
    if not isinstance(version, str):
        return []
    from jobschema.schemas.annotated import match_paths

    if isinstance(document.get(SCHEMA_NOT_IN), str):
        return [problem((), document[SCHEMA_NOT_IN], RULE)]
    shown = f"{label(api_of(document) or '')} {version}"
    found: dict[tuple[Any, ...], Finding] = {}  # (one place may have two declarations: allOf)
    for path, value, node in match_paths(_trie(document), payload):
        for key, why in (node.get(NOT_IN) or {}).items():
            if isinstance(value, dict) and key in value:
                message = f"property {json.dumps(key)} is not in {shown} ({why})"
                found.setdefault((*path, key), problem((*path, key), message, RULE))
        gone = node.get(VALUES_NOT_IN) or {}
        if isinstance(value, str) and value in gone:
            message = f"{json.dumps(value)} is not a value of {shown} ({gone[value]})"
            found.setdefault(path, problem(path, message, RULE))
    return list(found.values())


def _trie(document: dict[str, Any]) -> Trie:
    held = _TRIES.get(id(document))
    if held is None or held[0] is not document:
        from jobschema.schemas.annotated import compile_pruned

        held = (document, compile_pruned(document, (NOT_IN, VALUES_NOT_IN)))
        _TRIES[id(document)] = held
    return held[1]


#: Findings a ``not-in-version`` finding at the same place stands for: the enum of a version lacks the
#: value, and ``--strict`` finds its property undeclared.
SUPERSEDED = frozenset({"enum", "unknown-property"})


def with_absent(document: dict[str, Any], payload: Any, findings: list[Finding]) -> list[Finding]:
    """``findings`` with the ``not-in-version`` ones of ``payload`` added; an ``enum`` or
    ``unknown-property`` finding at the same place is left out (it says the same, without the version)."""
    extra = absent(document, payload)
    if not extra:
        return findings
    places_ = {tuple(map(str, finding.tokens)) for finding in extra}
    kept = [f for f in findings if f.rule not in SUPERSEDED or tuple(map(str, f.tokens)) not in places_]
    return kept + extra


#: The keywords whose values the annotations follow from version to version (``x-jobschema-by-version``),
#: and :func:`jobschema.schemas.history.history` reports the changes of, besides properties and values.
#: (:mod:`jobschema.schemas.history` also says which versions have a place or value: ``versions_of``.)
TRACKED = ("pattern", *BOUNDS, "deprecated")
