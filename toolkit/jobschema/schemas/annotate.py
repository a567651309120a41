"""Writing the version annotations of the bundled schemas from the vendored official specs.

For every payload place of a schema the official spec of each version says whether it exists, its
enum values and its tracked keywords (:mod:`jobschema.schemas.official`). The annotations
(:mod:`jobschema.schemas.versions`) are placed where the schema declares the place: ``since``/``until``
on the property's own schema, enum versions beside the ``enum``, changed keywords on the node that
carries the keyword (or, where the schema leaves it out, on the property's schema). A schema node
shared by several places (``$defs/Compute`` under ``spec`` and ``masterSpec``) takes one annotation
for all of them, so they must agree; when they do not, or the spec changed something the annotations
cannot say (a type, a required list), or holds a place or value the schema lacks, nothing is written
and the problem is named: a person extends the schema first.

After annotating, the document of every version is derived back and compared with that version's
spec (:func:`differences`); the tests run the same comparison on the committed schemas.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobschema.inputs.parse import parse_text
from jobschema.inputs.side import SideFile, load_json, read_side_text
from jobschema.schemas import official, registry, versions
from jobschema.schemas.jsontext import set_members
from jobschema.schemas.official import Facts, OfficialError
from jobschema.schemas.walk import ANY, Located, Spot, places

#: Every member this module writes (and removes before writing anew).
WRITTEN = frozenset({versions.API, versions.API_VERSIONS, *versions.ANNOTATIONS})
#: The tracked keywords (:data:`versions.TRACKED`) besides the pattern.
_KEYWORDS = tuple(keyword for keyword in versions.TRACKED if keyword != "pattern")
_SOFT = "x-jobschema-pattern"


class AnnotateError(OfficialError):
    """The specs say something the schema cannot hold as it is (exit 1: a person must look)."""

    exit_code = 1


@dataclass
class Plan:
    """The annotations of one schema: members to set, by the pointer of the schema object."""

    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def put(self, location: str, key: str, value: Any) -> None:
        pointer = location.removeprefix("#")
        held = self.members.setdefault(pointer, {})
        if key in held and held[key] != value:
            self.problems.append(
                f"{location}: serves places whose versions differ ({key} {held[key]!r} and {value!r}); "
                "give each place its own definition"
            )
        held[key] = value


def annotated_text(api: str, name: str, text: str, known: tuple[str, ...]) -> str:
    """The schema ``text`` of bundled ``name`` with its version annotations written from the specs of
    ``known`` (raises :class:`AnnotateError` naming every problem)."""
    bare = _without_annotations(json.loads(text))
    specs = {version: official.facts(api, version, name) for version in known}
    plan = plan_annotations(bare, specs, known)
    plan.members.setdefault("", {}).update({versions.API: api, versions.API_VERSIONS: list(known)})
    if plan.problems:
        raise AnnotateError(f"{name}: " + "; ".join(plan.problems))
    new = set_members(text, plan.members, WRITTEN, {"": "description"})
    wrong = differences(json.loads(new), specs)
    if wrong:
        raise AnnotateError(f"{name}: the annotations do not reproduce the specs: " + "; ".join(wrong[:10]))
    return new


def _without_annotations(document: dict[str, Any]) -> dict[str, Any]:
    for node in versions._schema_nodes(document):
        for key in WRITTEN:
            node.pop(key, None)
    return document


def plan_annotations(
    document: dict[str, Any], specs: dict[str, dict[str, Facts]], known: tuple[str, ...]
) -> Plan:
    """Where each annotation goes in ``document`` (annotations stripped) for the facts ``specs``."""
    plan = Plan()
    spots = places(document)
    present = {place: tuple(v for v in known if place in specs[v]) for place in spots}
    present[""] = known
    for place in sorted(set().union(*specs.values()) - set(spots)):
        plan.problems.append(f"{place}: in the official spec but not in the schema; add it")
    for place, spot in spots.items():
        if place:
            _existence(plan, spot, present, known)
        has = present[place]
        if has:
            _fixed_keywords(plan, place, has, specs)
            _enum(plan, spot, has, specs, known)
            for keyword in ("pattern", *_KEYWORDS):
                _keyword(plan, spot, keyword, has, specs)
    return plan


def _range(has: tuple[str, ...], known: tuple[str, ...]) -> tuple[str | None, str | None]:
    """``since``/``until`` of a run of versions (None where it reaches the first or the last)."""
    if not has:
        return versions.LATER, None
    start, end = known.index(has[0]), known.index(has[-1])
    if known[start : end + 1] != has:
        raise AnnotateError(f"versions {', '.join(has)} are not one run of {', '.join(known)}")
    return (None if start == 0 else has[0]), (None if end == len(known) - 1 else known[end + 1])


def _existence(plan: Plan, spot: Spot, present: dict[str, tuple[str, ...]], known: tuple[str, ...]) -> None:
    has, parent = present[spot.place], present[spot.parent or ""]
    if has == parent:
        return
    if spot.key == ANY:
        plan.problems.append(f"{spot.place}: the items of an array exist in other versions than the array")
        return
    try:
        since, until = _range(has, known)
    except AnnotateError as err:
        plan.problems.append(f"{spot.place}: {err}")
        return
    for entry in spot.entries:
        if since is not None:
            plan.put(entry.location, versions.SINCE, since)
        if until is not None:
            plan.put(entry.location, versions.UNTIL, until)


def _fixed_keywords(plan: Plan, place: str, has: tuple[str, ...], specs: dict[str, dict[str, Facts]]) -> None:
    first = specs[has[0]][place].fixed
    for version in has[1:]:
        now = specs[version][place].fixed
        if now != first:
            changed = [k for (k, a), (_, b) in zip(first, now, strict=True) if a != b]
            plan.problems.append(
                f"{place}: {', '.join(changed)} changed in {version}; not covered by annotations"
            )
            return


def _enum(
    plan: Plan, spot: Spot, has: tuple[str, ...], specs: dict[str, dict[str, Facts]], known: tuple[str, ...]
) -> None:
    carriers = [located for located in spot.nodes if isinstance(located.node.get("enum"), list)]
    official_values = {version: specs[version][spot.place].enum for version in has}
    if not carriers:
        if any(values is not None for values in official_values.values()):
            plan.problems.append(f"{spot.place}: the official spec has an enum, the schema none")
        return
    if any(values is None for values in official_values.values()):
        return  # the schema narrows an open string of the spec: its own choice, the same in every version
    ours = [v for located in carriers for v in located.node["enum"] if v is not None]
    for version, values in official_values.items():
        extra = [v for v in values or () if v not in ours]
        if extra:
            plan.problems.append(f"{spot.place}: {version} has the values {extra}, the schema not; add them")
    since, until = _value_ranges(plan, spot.place, ours, official_values, has, known)
    for located in carriers:
        if since:
            plan.put(located.location, versions.ENUM_SINCE, since)
        if until:
            plan.put(located.location, versions.ENUM_UNTIL, until)


def _value_ranges(
    plan: Plan,
    place: str,
    ours: list[Any],
    official_values: dict[str, tuple[Any, ...] | None],
    has: tuple[str, ...],
    known: tuple[str, ...],
) -> tuple[dict[str, str], dict[str, str]]:
    """``since`` and ``until`` of each enum value the place does not have in all its versions."""
    since: dict[str, str] = {}
    until: dict[str, str] = {}
    for value in dict.fromkeys(ours):
        with_value = tuple(v for v in has if value in (official_values[v] or ()))
        if with_value == has:
            continue
        try:
            start, end = _range(with_value, known)
        except AnnotateError as err:
            plan.problems.append(f"{place}: value {value!r}: {err}")
            continue
        if start is not None and start != _first(has, known):
            since[value] = start
        if end is not None:
            until[value] = end
    return since, until


def _first(has: tuple[str, ...], known: tuple[str, ...]) -> str | None:
    return None if has[0] == known[0] else has[0]


def _keyword(
    plan: Plan, spot: Spot, keyword: str, has: tuple[str, ...], specs: dict[str, dict[str, Facts]]
) -> None:
    """A tracked keyword whose value in some version differs from the schema's: its value from each
    version on, on the nodes that carry it. A warn-only ``x-jobschema-pattern`` counts as no pattern
    here: where a version's spec has a pattern, that version's schema enforces it (and drops the
    warn-only one), as its spec does."""
    carriers = [located for located in spot.nodes if keyword in located.node]
    ours = {official._meaning(keyword, located.node[keyword]) for located in carriers}
    if len(ours) > 1:
        plan.problems.append(f"{spot.place}: the schema gives {keyword} twice: {sorted(map(repr, ours))}")
        return
    union = next(iter(ours), None)
    steps: dict[str, Any] = {}
    last: object = object()
    for version in has:
        value = specs[version][spot.place].get(keyword)
        if value != last:
            steps[version] = value
            last = value
    if all(value == union for value in steps.values()):
        return
    soft = [located for located in spot.nodes if keyword == "pattern" and _SOFT in located.node]
    if not carriers:
        carriers = soft or [spot.entries[-1] if spot.entries else spot.nodes[-1]]
    for located in carriers:
        _by_version(plan, located, keyword, steps)
    for located in soft:
        _by_version(plan, located, _SOFT, {has[0]: None})


def _by_version(plan: Plan, located: Located, key: str, steps: dict[str, Any]) -> None:
    pointer = located.location.removeprefix("#")
    held = dict(plan.members.get(pointer, {}).get(versions.BY_VERSION, {}))
    if key in held and held[key] != steps:
        plan.problems.append(f"{located.location}: serves places whose {key} differs by version")
        return
    held[key] = steps
    plan.members.setdefault(pointer, {})[versions.BY_VERSION] = held


# ------------------------------------------------------------------------------------ the check


def differences(document: dict[str, Any], specs: dict[str, dict[str, Facts]]) -> list[str]:
    """Where the document ``document`` derives for each version differs from that version's spec:
    places, enum values and tracked keywords (empty: the annotations say exactly what the specs say)."""
    found: list[str] = []
    for version, spec in specs.items():
        ours = {
            place: official.official_facts(spot.nodes)
            for place, spot in places(versions.derive(document, version)).items()
        }
        for place in sorted(set(ours) | set(spec)):
            if place not in ours or place not in spec:
                where = "only in the spec" if place not in ours else "not in the spec"
                found.append(f"{version} {place or '(root)'}: {where}")
                continue
            found += [f"{version} {place or '(root)'}: {what}" for what in _compare(ours[place], spec[place])]
    return found


def _compare(ours: Facts, spec: Facts) -> Iterable[str]:
    if spec.enum is not None and set(ours.enum or ()) != set(spec.enum):
        yield f"enum {sorted(ours.enum or ())} but the spec {sorted(spec.enum)}"
    for keyword in versions.TRACKED:
        if ours.get(keyword) != spec.get(keyword):
            yield f"{keyword} {ours.get(keyword)!r} but the spec {spec.get(keyword)!r}"


# ----------------------------------------------------------------------------- the command's work


@dataclass(frozen=True)
class Written:
    """A schema file and whether annotating changed it."""

    path: Path
    changed: bool


def annotate(api: str, check: bool = False) -> list[Written]:
    """Annotate every bundled schema of ``api`` from the vendored specs (``check``: change nothing)."""
    known = official.vendored(api)
    results = []
    for name in official.ENDPOINTS[api]:
        path = registry.bundled_path(name)
        text = path.read_text(encoding="utf-8")
        new = annotated_text(api, name, text, known)
        if new != text and not check:
            path.write_text(new, encoding="utf-8")
        results.append(Written(path, new != text))
    return results


def add_version(api: str, version: str, spec_file: Path, source: dict[str, Any]) -> Path:
    """Vendor the excerpt of a whole spec (JSON or YAML) as ``version``; annotate after it."""
    spec = _read_spec(spec_file)
    if not isinstance(spec, dict) or "paths" not in spec:
        raise OfficialError(f"{spec_file}: not an OpenAPI document")
    target = official.official_dir(api) / f"{version}.json"
    target.write_text(official.dump(official.cut(spec, api, {**source, "control_plane": version})), "utf-8")
    return target


def _read_spec(spec_file: Path) -> Any:
    """A whole spec, read by the one reader of side files (:mod:`jobschema.inputs.side`): a ``.json``
    file is JSON only, anything else JSON or else YAML."""
    side = SideFile(spec_file, "the spec", OfficialError)
    if spec_file.suffix.lower() == ".json":
        return load_json(side)
    text = read_side_text(side)
    parsed = parse_text(text)
    return parsed.value if parsed.ok else _yaml(side, text)


def _yaml(side: SideFile, text: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise side.fail(f"neither JSON nor YAML: {' '.join(str(err).split())}") from None
    except RecursionError:
        raise side.invalid("YAML", "nested too deeply to parse") from None
    except ValueError as err:  # an integer longer than Python converts
        raise side.invalid("YAML", " ".join(str(err).split())) from None
